package cli

import (
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type resetOptions struct {
	*env
	session string
}

func newResetCmd(e *env) *cobra.Command {
	o := &resetOptions{env: e}
	cmd := &cobra.Command{
		Use:   "reset --session <id>",
		Short: "Clear a session's evidence before the next reproduction",
		Long: `Clear a session's events and diagnostics and restart its sequence at 1.

The session id and Append Path stay the same, so probes already in the code
keep working. Pages and query cursors read before the reset are void. Prints
the Ingest URL and Append Path valid now: if the Ingest URL changed, update
__INGEST_URL__ in the helper before reproducing.`,
		Example: "  debug-mode reset --session 707225a6-8e0f-4db4-b64b-e261bd6a861a",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	return cmd
}

func (o *resetOptions) run() error {
	var info service.SessionInfo
	_, err := o.callSession(o.session, http.MethodPost, "/reset", nil, &info)
	if err != nil {
		return err
	}
	return o.printer().Result("reset", info, func(w io.Writer) { output.Reset(w, info) })
}
