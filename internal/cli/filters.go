package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// filterFlags are the event filters logs and query share.
type filterFlags struct {
	hypotheses     []string
	location       string
	message        string
	seqFrom, seqTo int64
	since, until   string
}

func (f *filterFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.hypotheses, "hypothesis", nil, "only events with this hypothesis label (repeatable; a label never seen gives an empty page)")
	fl.StringVar(&f.location, "location", "", `only events whose location contains this text, e.g. "cart.py" or "cart.py:42"`)
	fl.StringVar(&f.message, "message", "", "only events whose message contains this text (case-insensitive)")
	fl.Int64Var(&f.seqFrom, "seq-from", 0, "only events with sequence (SEQ) at least this")
	fl.Int64Var(&f.seqTo, "seq-to", 0, "only events with sequence (SEQ) at most this")
	fl.StringVar(&f.since, "since", "", `only events at or after this time: "2026-11-30 08:01:02.123" (UTC, as logs shows it), RFC 3339, or epoch milliseconds`)
	fl.StringVar(&f.until, "until", "", "only events at or before this time (same forms as --since)")
}

// filter validates the flags into a store filter.
func (f *filterFlags) filter() (store.Filter, error) {
	out := store.Filter{Hypotheses: f.hypotheses, Location: f.location, Message: f.message, SeqFrom: f.seqFrom, SeqTo: f.seqTo}
	if f.seqFrom < 0 || f.seqTo < 0 || (f.seqTo > 0 && f.seqFrom > f.seqTo) {
		return out, usagef("--seq-from and --seq-to must be positive, with --seq-from not after --seq-to")
	}
	var err error
	if out.Since, err = parseTime("--since", f.since); err != nil {
		return out, err
	}
	if out.Until, err = parseTime("--until", f.until); err != nil {
		return out, err
	}
	if out.Since > 0 && out.Until > 0 && out.Since > out.Until {
		return out, usagef("--since is after --until")
	}
	for _, h := range f.hypotheses {
		if h == "" {
			return out, usagef("--hypothesis needs a label, e.g. --hypothesis H1")
		}
	}
	return out, nil
}

// args renders the filters back as flags, for continuation commands.
func (f *filterFlags) args() []string {
	var a []string
	for _, h := range f.hypotheses {
		a = append(a, "--hypothesis", h)
	}
	add := func(name, v string) {
		if v != "" {
			a = append(a, name, v)
		}
	}
	add("--location", f.location)
	add("--message", f.message)
	if f.seqFrom > 0 {
		add("--seq-from", strconv.FormatInt(f.seqFrom, 10))
	}
	if f.seqTo > 0 {
		add("--seq-to", strconv.FormatInt(f.seqTo, 10))
	}
	add("--since", f.since)
	add("--until", f.until)
	return a
}

var timeLayouts = []string{"2006-01-02 15:04:05.000", "2006-01-02 15:04:05", "2006-01-02T15:04:05.000", "2006-01-02T15:04:05"}

// parseTime accepts the forms --since documents and returns epoch ms.
func parseTime(flag, v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
		return ms, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UnixMilli(), nil
	}
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, usagef(`%s %q is not a time: use "2026-11-30 08:01:02.123" (UTC), RFC 3339, or epoch milliseconds`, flag, v)
}
