package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
)

type stopOptions struct{ *env }

func newStopCmd(e *env) *cobra.Command {
	o := &stopOptions{env: e}
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop debug-mode's background work now; sessions are kept",
		Long: `Stop debug-mode's background work at once. Sessions and their evidence are
kept, and the next command that needs evidence starts it again by itself.
Records a program sends over HTTP while stopped are lost; records appended to
the Append Path wait and are taken in on the next command.`,
		Example: "  debug-mode stop",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
}

func (o *stopOptions) run() error {
	c, err := o.connect()
	if err != nil {
		return err
	}
	was, err := c.Stop()
	if err != nil {
		return err
	}
	res := struct {
		WasRunning bool `json:"wasRunning"`
	}{was}
	return o.printer().Result("stop", res, func(w io.Writer) { output.Stop(w, was) })
}
