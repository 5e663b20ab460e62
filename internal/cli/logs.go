package cli

import (
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

type logsOptions struct {
	*env
	session  string
	filters  filterFlags
	offset   int
	limit    int
	cycle    int64
	cycleSet bool // --cycle was given (0 is its default, not a cycle)
	capture  string
}

func newLogsCmd(e *env) *cobra.Command {
	o := &logsOptions{env: e}
	cmd := &cobra.Command{
		Use:   "logs --session <id>",
		Short: "Read a session's events as a table, filtered and paged",
		Long: `Read a session's events in time order (ties by sequence), as a compact table:
SEQ TIME HYP LOCATION MESSAGE DATA. Times are UTC; the date is printed once
above the table, with a separator row where the day changes. HYP and DATA are
always shown in full.

Everything already delivered is taken in before the page is read. Each page
says how many events matched, how many it left out, the count per hypothesis
label, and the command for the next page. A next-page command carries
--cycle, so it fails clearly instead of mixing evidence after a reset.`,
		Example: `  debug-mode logs --session 707225a6-8e0f-4db4-b64b-e261bd6a861a
  debug-mode logs --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --hypothesis H1 --hypothesis H2
  debug-mode logs --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --location cart.py --seq-from 100 --limit 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.cycleSet = cmd.Flags().Changed("cycle")
			return o.run()
		},
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	o.filters.register(cmd)
	cmd.Flags().IntVar(&o.offset, "offset", 0, "skip this many matching events")
	cmd.Flags().IntVar(&o.limit, "limit", service.DefaultLogsLimit, "show at most this many events (1–1000)")
	cmd.Flags().Int64Var(&o.cycle, "cycle", 0, "fail unless the evidence is still in this reset cycle (next-page commands set it)")
	cmd.Flags().StringVar(&o.capture, "capture", "", "read this capture's frozen evidence instead of the live cycle (see debug-mode capture)")
	return cmd
}

func (o *logsOptions) run() error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	f, err := o.filters.filter()
	if err != nil {
		return err
	}
	if o.offset < 0 {
		return usagef("--offset must be 0 or more")
	}
	if o.limit < 1 || o.limit > service.MaxLogsLimit {
		return usagef("--limit must be between 1 and %d", service.MaxLogsLimit)
	}
	if o.cycleSet && o.cycle < 1 {
		return usagef("--cycle %d is not a cycle: cycles count up from 1, one per reset; leave --cycle out to read the current one (debug-mode status --session %s shows it)", o.cycle, id)
	}
	var cid string
	if o.capture != "" {
		if cid, err = captureID("--capture", o.capture); err != nil {
			return err
		}
		if o.cycle != 0 {
			return usagef("--cycle pins live evidence; a capture never changes, so leave --cycle out")
		}
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	var page store.Page
	req := service.LogsRequest{Filter: f, Offset: o.offset, Limit: o.limit, Cycle: o.cycle, Capture: cid}
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/logs", req, &page); err != nil {
		return err
	}
	if cid != "" {
		return o.captureResult(id, cid, page)
	}
	view := output.LogsView{Page: page, Warnings: o.warnings(id, page)}
	if next := o.offset + page.Returned; int64(next) < page.Matched {
		args := append([]string{"logs", "--session", id}, o.filters.args()...)
		args = append(args, "--offset", strconv.Itoa(next), "--limit", strconv.Itoa(o.limit), "--cycle", strconv.FormatInt(page.Cycle, 10))
		view.Next = output.CommandLine(args...)
	}
	return o.printer().Result("logs", view, func(w io.Writer) { output.Logs(w, view) })
}

// warnings name the next command for everything a reader should not miss.
func (o *logsOptions) warnings(id string, p store.Page) []string {
	var out []string
	if p.IngestURLChanged {
		out = append(out, output.IngestURLMoved(p.PreviousIngestURL, p.IngestURL, id))
	}
	if p.Rejected > 0 {
		out = append(out, fmt.Sprintf("%s not in this table; see why: debug-mode status --session %s", countNoun(p.Rejected, "record was rejected and is", "records were rejected and are"), id))
	}
	if p.RedactedEvents > 0 {
		out = append(out, fmt.Sprintf("%s secret-looking values replaced by [REDACTED] before storage; send only the values a hypothesis needs", countNoun(p.RedactedEvents, "event had", "events had")))
	}
	if p.Total == 0 {
		out = append(out, "no evidence in this cycle: the probes did not run, the program was not rebuilt or restarted, or the helper points elsewhere. Run debug-mode reset --session "+id+" to print the Ingest URL and Append Path the helper must use, then reproduce")
	} else if p.Matched == 0 {
		out = append(out, "no event matched the filters; the labels present are listed by debug-mode status --session "+id)
	}
	return out
}

func countNoun(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}
