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
	all     bool
}

func newStatusCmd(e *env) *cobra.Command {
	o := &statusOptions{env: e}
	cmd := &cobra.Command{
		Use:   "status --session <id>",
		Short: "Show evidence health and the diagnostics about refused records",
		Long: `Show a session's evidence health: events per hypothesis label, the time
span, how many records were rejected or redacted, and the diagnostics that
say which record was refused, where it came from, and why: one row per
distinct reason with its count and first record, the 10 most frequent
(--all lists every diagnostic on its own, as --json does).

Everything already delivered is counted before the answer.`,
		Example: "  debug-mode status --session 707225a6-8e0f-4db4-b64b-e261bd6a861a",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().BoolVar(&o.all, "all", false, "list every kept diagnostic on its own instead of one row per reason")
	return cmd
}

func (o *statusOptions) run() error {
	var st service.StatusInfo
	_, err := o.callSession(o.session, http.MethodGet, "/status", nil, &st)
	if err != nil {
		return err
	}
	render := output.Status
	if o.all {
		render = output.StatusAll
	}
	return o.printer().Result("status", st, func(w io.Writer) { render(w, st) })
}
