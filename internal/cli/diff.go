package cli

import (
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type diffOptions struct {
	*env
	session  string
	from, to string
	compare  diffFlags
}

// diffFlags are how a comparison is made, shared by diff and reproduce --diff.
type diffFlags struct {
	mode           string
	fields, ignore []string
}

// add registers the flags; suffix is appended to each usage line.
func (d *diffFlags) add(fl *pflag.FlagSet, suffix string) {
	fl.StringVar(&d.mode, "mode", capture.ModeAuto, "auto, align (events one by one) or distribution (how often each value occurs)"+suffix)
	fl.StringArrayVar(&d.fields, "fields", nil, "compare only these data paths, comma-separated or repeated (.stale,.items[].id)"+suffix)
	fl.StringArrayVar(&d.ignore, "ignore", nil, "leave these data paths out of alignment and comparison, comma-separated or repeated (.id,.ts)"+suffix)
}

// options validates the flags into the comparison of from with to.
func (d *diffFlags) options(from, to string) (capture.DiffOptions, error) {
	req := capture.DiffOptions{From: from, To: to, Mode: d.mode, Fields: splitPaths(d.fields), Ignore: splitPaths(d.ignore)}
	switch req.Mode {
	case capture.ModeAuto, capture.ModeAlign, capture.ModeDistribution:
	default:
		return req, usagef("--mode %q: use auto, align or distribution", d.mode)
	}
	if err := capture.CheckPaths(req.Fields); err != nil {
		return req, usagef("--fields %v", err)
	}
	if err := capture.CheckPaths(req.Ignore); err != nil {
		return req, usagef("--ignore %v", err)
	}
	return req, nil
}

// set reports whether any of the flags was given.
func (d *diffFlags) set() bool {
	return d.mode != capture.ModeAuto || len(d.fields) > 0 || len(d.ignore) > 0
}

func newDiffCmd(e *env) *cobra.Command {
	o := &diffOptions{env: e}
	cmd := &cobra.Command{
		Use:   "diff --session <id> --from <capture> [--to <capture>]",
		Short: "Compare a capture with the live cycle (or another capture): what the fix changed",
		Long: `Compare two evidence sets: the capture --from (before the fix) with the
capture --to, or with the session's live cycle when --to is left out.

Events are grouped by hypothesis label, location and message; groups on one
side only are listed, and a group whose location moved to another line of
the same file (code added above a probe) is paired and marked moved. Then
one of two modes compares the groups on both sides:

align: each group's events are aligned by their data, as a line diff aligns
lines (key order in objects does not matter): equal events match; an event
with no counterpart is only before (removed) or only after (added), cited by
SEQ; where events were removed and added at the same point, they pair up as
changed values, each changed data path shown with its value before and after
(a long value as the same window of both around the first difference). The
first divergence is the first event, in logs order, that differs: the same
event with other data, an event with no counterpart in its group, a group
with no events on the other side, or (when every group is the same) the same
events interleaved in another order. It never pairs events of two groups.

distribution: for runs that are not deterministic (random keys, thread
interleavings), where events have no one-by-one counterpart: per group and
per scalar data path (array elements as []), how many events hold each value
on each side, and for numbers count, min, max and mean, the paths whose
shares changed most first, so "true 724 → 0" comes before thousands of keys
that differ only because they are random.

--mode auto (the default) takes distribution when aligning would be
approximate (a group needs more than 2,000 insertions and deletions) or when
most aligned events are changed values (at least 50), align otherwise, and
says which it took and why. --fields compares only the data paths named,
--ignore leaves paths out of alignment and comparison (an id or a timestamp
that differs in every run): comma-separated or repeated, in jq's spelling
(.total, .cart.id, .items[].ts, ["odd key"]).

A comparison reads at most 1,000,000 events and 10,000 groups per side; a
distribution counts at most 100,000 distinct values and 10,000 data paths.
It says when a side was truncated, a bound was hit or a group was paired by
position (approximate), so a partial comparison is never mistaken for a
whole one. Pretty output lists the differing groups and the most changed
paths; --json carries the same data (every group up to 500, up to 200 paths).`,
		Example: `  debug-mode diff --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --from c-3f2a9b1c0d4e
  debug-mode diff --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --from c-3f2a9b1c0d4e --to c-9d8e7f6a5b4c
  debug-mode diff --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --from c-3f2a9b1c0d4e --mode distribution --ignore .key,.ts`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	fl.StringVar(&o.from, "from", "", "the capture taken before the fix")
	fl.StringVar(&o.to, "to", "", "the capture to compare with (default: the live cycle)")
	o.compare.add(fl, "")
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
	req, err := o.compare.options(from, to)
	if err != nil {
		return err
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	var res capture.DiffResult
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/diff", service.DiffRequest{DiffOptions: req}, &res); err != nil {
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

// splitPaths splits comma-separated data paths, keeping commas inside
// ["…"] keys.
func splitPaths(in []string) []string {
	var out []string
	for _, s := range in {
		depth, quoted, start := 0, false, 0
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case quoted && c == '\\':
				i++
			case c == '"':
				quoted = !quoted
			case !quoted && c == '[':
				depth++
			case !quoted && c == ']':
				depth--
			case !quoted && depth == 0 && c == ',':
				if p := strings.TrimSpace(s[start:i]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
		if p := strings.TrimSpace(s[start:]); p != "" {
			out = append(out, p)
		}
	}
	return out
}
