package cli

import (
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type diffOptions struct {
	*env
	session  string
	from, to string
}

func newDiffCmd(e *env) *cobra.Command {
	o := &diffOptions{env: e}
	cmd := &cobra.Command{
		Use:   "diff --session <id> --from <capture> [--to <capture>]",
		Short: "Compare a capture with the live cycle (or another capture): what the fix changed",
		Long: `Compare two evidence sets: the capture --from (before the fix) with the
capture --to, or with the session's live cycle when --to is left out.

Events are grouped by hypothesis label, location and message. Within a group,
the events of the two sides are aligned by their data, as a line diff aligns
lines (key order in objects does not matter): equal events match; an event
with no counterpart is only before (removed) or only after (added), cited by
SEQ; where events were removed and added at the same point, they pair up as
changed values (cited by SEQ on both sides, with the data paths that differ).
So one event added early in a group is one event only after, not a shift of
every later one. Groups on one side only are listed; a group whose location
moved to another line of the same file (code added above a probe) is paired
with its counterpart and marked moved. The first divergence is the first
position, in logs order, where the two runs stop being the same aligned
events, with both SEQs.

A comparison reads at most 1,000,000 events and 10,000 groups per side, and
aligns at most 2,000 insertions and deletions per group; past that, the
group's events are paired by position and it is marked approximate. It says
when a side was truncated, a bound was hit or a group is approximate, so a
partial comparison is never mistaken for a whole one. Pretty output lists
the differing groups; --json lists every group (up to 500).`,
		Example: `  debug-mode diff --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --from c-3f2a9b1c0d4e
  debug-mode diff --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --from c-3f2a9b1c0d4e --to c-9d8e7f6a5b4c`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().StringVar(&o.from, "from", "", "the capture taken before the fix")
	cmd.Flags().StringVar(&o.to, "to", "", "the capture to compare with (default: the live cycle)")
	return cmd
}

func (o *diffOptions) run() error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	from, err := captureID("--from", o.from)
	if err != nil {
		return err
	}
	var to string
	if o.to != "" {
		if to, err = captureID("--to", o.to); err != nil {
			return err
		}
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	var res capture.DiffResult
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/diff", service.DiffRequest{From: from, To: to}, &res); err != nil {
		return err
	}
	v := output.DiffView{DiffResult: res, Warnings: []string{}}
	if res.After.Kind == "live" && res.After.Events == 0 {
		v.Warnings = append(v.Warnings, "the live cycle holds no events: reproduce after the fix, then compare again")
	}
	if res.Before.Capture != "" && res.Before.Capture == res.After.Capture {
		v.Warnings = append(v.Warnings, "--from and --to name the same capture")
	}
	return o.printer().Result("diff", v, func(w io.Writer) { output.Diff(w, v) })
}
