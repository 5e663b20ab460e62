package cli

import (
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type statusOptions struct {
	*env
	session string
}

func newStatusCmd(e *env) *cobra.Command {
	o := &statusOptions{env: e}
	cmd := &cobra.Command{
		Use:   "status --session <id>",
		Short: "Show evidence health and every diagnostic about refused records",
		Long: `Show a session's evidence health: events per hypothesis label, the time
span, how many records were rejected or redacted, and every diagnostic that
says which record was refused, where it came from, and why.

Everything already delivered is counted before the answer.`,
		Example: "  debug-mode status --session 707225a6-8e0f-4db4-b64b-e261bd6a861a",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	return cmd
}

func (o *statusOptions) run() error {
	var st service.StatusInfo
	_, err := o.callSession(o.session, http.MethodGet, "/status", nil, &st)
	if err != nil {
		return err
	}
	return o.printer().Result("status", st, func(w io.Writer) { output.Status(w, st) })
}
