package cli

import (
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
)

type resetOptions struct {
	*env
	session        string
	maxPerLocation int64
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
__INGEST_URL__ in the helper before reproducing. --max-per-location changes
the session's cap of events a helper sends per location per process (a
helper with the cap written into it needs the new value, or reproduce, which
exports it). debug-mode reproduce resets by itself.`,
		Example: "  debug-mode reset --session 707225a6-8e0f-4db4-b64b-e261bd6a861a",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := capChanged(cmd, o.maxPerLocation); err != nil {
				return err
			}
			return o.run()
		},
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().Int64Var(&o.maxPerLocation, "max-per-location", 0, "set the session's cap of events per location per process (default: keep it)")
	return cmd
}

func (o *resetOptions) run() error {
	if o.maxPerLocation < 0 || o.maxPerLocation > sessionenv.MaxMaxPerLocation {
		return usagef("--max-per-location must be between 1 and %d", sessionenv.MaxMaxPerLocation)
	}
	var in any
	if o.maxPerLocation > 0 {
		in = service.SessionSettings{MaxPerLocation: o.maxPerLocation}
	}
	var info service.SessionInfo
	_, err := o.callSession(o.session, http.MethodPost, "/reset", in, &info)
	if err != nil {
		return err
	}
	return o.printer().Result("reset", info, func(w io.Writer) { output.Reset(w, info) })
}

// capChanged refuses a --max-per-location given as 0, which would
// otherwise mean "keep it" without saying so.
func capChanged(cmd *cobra.Command, n int64) error {
	if cmd.Flags().Changed("max-per-location") && (n < 1 || n > sessionenv.MaxMaxPerLocation) {
		return usagef("--max-per-location must be between 1 and %d", sessionenv.MaxMaxPerLocation)
	}
	return nil
}
