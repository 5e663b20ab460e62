package cli

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

// todayLimit is how many of today's sessions are listed without --all.
const todayLimit = 20

type sessionsOptions struct {
	*env
	all bool
	now func() time.Time
}

func newSessionsCmd(e *env) *cobra.Command {
	o := &sessionsOptions{env: e, now: time.Now}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List today's sessions, newest first",
		Long: `List sessions created today (local calendar day), newest first, at most 20,
with each one's creation time and event count. --all lists every session.
It never picks a session for you: pass the id with --session.`,
		Example: "  debug-mode sessions\n  debug-mode sessions --all",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().BoolVar(&o.all, "all", false, "list every session, not only today's")
	return cmd
}

func (o *sessionsOptions) run() error {
	c, err := o.connect()
	if err != nil {
		return err
	}
	path := "/v1/sessions"
	if !o.all {
		y, m, d := o.now().Date()
		midnight := time.Date(y, m, d, 0, 0, 0, 0, time.Local)
		path += "?limit=" + strconv.Itoa(todayLimit) + "&since=" + strconv.FormatInt(midnight.UnixMilli(), 10)
	}
	var list service.SessionList
	if err := c.Call(http.MethodGet, path, nil, &list); err != nil {
		return err
	}
	return o.printer().Result("sessions", list, func(w io.Writer) { output.Sessions(w, list, o.all) })
}
