package cli

import (
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
)

type cleanOptions struct {
	*env
	session string
}

func newCleanCmd(e *env) *cobra.Command {
	o := &cleanOptions{env: e}
	cmd := &cobra.Command{
		Use:     "clean --session <id>",
		Short:   "Delete a session and all its evidence",
		Long:    "Permanently delete a session: its events, diagnostics, append path and metadata.",
		Example: "  debug-mode clean --session 707225a6-8e0f-4db4-b64b-e261bd6a861a",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	return cmd
}

func (o *cleanOptions) run() error {
	id, err := o.callSession(o.session, http.MethodDelete, "", nil, nil)
	if err != nil {
		return err
	}
	res := struct {
		SessionID string `json:"sessionId"`
		Deleted   bool   `json:"deleted"`
	}{id, true}
	return o.printer().Result("clean", res, func(w io.Writer) { output.Clean(w, id) })
}
