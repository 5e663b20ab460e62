package output

import (
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
)

// A partial comparison says so, naming each bound, and is never called
// identical or whole.
func TestDiffPartial(t *testing.T) {
	var b strings.Builder
	Diff(&b, DiffView{DiffResult: capture.DiffResult{
		SessionID: "s",
		Before:    capture.Side{Kind: "capture", Capture: "c-000000000001", Cycle: 1, Events: 1_500_000, Compared: 1_000_000, Truncated: true},
		After:     capture.Side{Kind: "live", Cycle: 2, Version: "2.9", Events: 9, Compared: 9, GroupsBound: true, Ungrouped: 4},
		Counts:    capture.DiffCounts{Groups: 1, InBoth: 1, Same: 1},
	}})
	out := b.String()
	for _, want := range []string{
		"PARTIAL comparison: before: only its first 1000000 of 1500000 events (by sequence) were compared; after: 4 events of groups past the 10000-group bound were not compared.",
		"Groups (hypothesis, location, message): 1: 1 same.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "IDENTICAL") || strings.Contains(out, "Whole comparison") {
		t.Errorf("a partial comparison reads as whole:\n%s", out)
	}
}

// A group paired by position, past the edit bound, makes the comparison
// partial and is marked in the table.
func TestDiffApproximate(t *testing.T) {
	var b strings.Builder
	Diff(&b, DiffView{DiffResult: capture.DiffResult{
		SessionID: "s",
		Before:    capture.Side{Kind: "capture", Capture: "c-000000000001", Cycle: 1, Events: 5000, Compared: 5000},
		After:     capture.Side{Kind: "live", Cycle: 2, Version: "2.9", Events: 5000, Compared: 5000},
		Counts:    capture.DiffCounts{Groups: 1, InBoth: 1, DataChanged: 1, Approximate: 1, ChangedPairs: 2500, SameEvents: 2500},
		Groups: []capture.Group{{Hypothesis: "H1", Location: "a.go:1", Message: "m", Status: capture.GroupChanged,
			Before: 5000, After: 5000, Changed: 2500, Approximate: true}},
	}})
	out := b.String()
	for _, want := range []string{
		"PARTIAL comparison: 1 group needed more than 2000 edits to align and was paired by position instead (marked approximate): its changed values and events on one side only are approximate.",
		"Events, aligned by data within each group: 2500 the same, 2500 changed, 0 only before, 0 only after.",
		"changed  5000    5000   H1   a.go:1    m  (approximate: more than 2000 edits, paired by position)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Whole comparison") {
		t.Errorf("an approximate comparison reads as whole:\n%s", out)
	}
}

// The first divergence names one group; when the data were cut at 1 KiB
// the fields that differ follow, read whole, so the difference shows.
func TestDiffDivergenceCutData(t *testing.T) {
	long := strings.Repeat("x", 1100)
	var b strings.Builder
	Diff(&b, DiffView{DiffResult: capture.DiffResult{
		SessionID: "s", Complete: true, Mode: capture.ModeAlign, ModeReason: "asked for with --mode align",
		Before: capture.Side{Kind: "capture", Capture: "c-000000000001", Cycle: 1, Events: 1, Compared: 1},
		After:  capture.Side{Kind: "live", Cycle: 2, Version: "2.1", Events: 1, Compared: 1},
		Counts: capture.DiffCounts{Groups: 1, InBoth: 1, DataChanged: 1, ChangedPairs: 1},
		FirstDivergence: &capture.Divergence{Position: 1, Reason: capture.DivergedData,
			Before: &capture.EventBrief{Seq: 1, Position: 1, Hypothesis: "H1", Location: "a.go:1", Message: "m", Data: []byte(`"{\"note\":\"` + long[:1000] + `…"`), Cut: true},
			After:  &capture.EventBrief{Seq: 1, Position: 1, Hypothesis: "H1", Location: "a.go:1", Message: "m", Data: []byte(`"{\"note\":\"` + long[:1000] + `…"`), Cut: true},
			Fields: []capture.FieldChange{{Path: ".tail", Before: `"1970-01"`, After: `"2026-11"`}}},
	}})
	out := b.String()
	for _, want := range []string{
		"Mode: align (asked for with --mode align); --mode distribution counts how often each value occurs.\n",
		"First divergence at event 1 in logs order: H1 a.go:1 m, the same event with different data:\n",
		"\n    .tail  \"1970-01\" → \"2026-11\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// Distribution lines: the most changed values, many distinct values summed
// up, numbers' statistics; values from the program are escaped.
func TestDiffDistributionLines(t *testing.T) {
	var b strings.Builder
	Diff(&b, DiffView{DiffResult: capture.DiffResult{
		SessionID: "s", Complete: true, Mode: capture.ModeDistribution, ModeReason: "automatic: 1 group needed more than 2000 edits to align, so pairing events one by one would be approximate",
		Before: capture.Side{Kind: "capture", Capture: "c-000000000001", Cycle: 1, Events: 100, Compared: 100},
		After:  capture.Side{Kind: "live", Cycle: 2, Version: "2.100", Events: 100, Compared: 100},
		Counts: capture.DiffCounts{Groups: 1, InBoth: 1, DataChanged: 1, ChangedPairs: 100, Approximate: 1},
		Groups: []capture.Group{{Hypothesis: "H1", Location: "c.go:8", Message: "get", Status: capture.GroupChanged, Before: 100, After: 100}},
		Distribution: &capture.Distribution{BeforeEvents: 100, AfterEvents: 100, SamePaths: 1, Paths: []capture.PathDistribution{
			{Hypothesis: "H1", Location: "c.go:8", Message: "get", Path: ".stale", BeforeEvents: 100, AfterEvents: 100, BeforeDistinct: 2, AfterDistinct: 1, Common: 1,
				Values: []capture.ValueCount{{Value: "true", Before: 7, After: 0}, {Value: "false", Before: 93, After: 100}}},
			{Hypothesis: "H1", Location: "c.go:8", Message: "get", Path: ".ms", BeforeEvents: 100, AfterEvents: 100, BeforeDistinct: 90, AfterDistinct: 80, Common: 12,
				Values: []capture.ValueCount{{Value: "1.5", Before: 3, After: 0}}, MoreValues: 150,
				Numbers: &capture.NumberStats{Before: capture.NumberSide{Count: 100, Min: 0.5, Max: 80, Mean: 12.345678}, After: capture.NumberSide{Count: 100, Min: 0.4, Max: 20, Mean: 3}}},
			{Hypothesis: "H1", Location: "c.go:8", Message: "get", Path: ".who", BeforeEvents: 100, AfterEvents: 100, BeforeDistinct: 1, AfterDistinct: 1,
				Values: []capture.ValueCount{{Value: "\"\x1b[31mred\"", Before: 100, After: 0}}},
		}},
	}})
	out := b.String()
	for _, want := range []string{
		"Events counted in the groups on both sides: 100 before, 100 after.\n",
		"\nDistributions per group and data path, most changed first (value: events before → after):\n  H1 c.go:8 get  .stale  true 7 → 0 · false 93 → 100\n",
		"  H1 c.go:8 get  .ms     90 distinct values before, 80 after, 12 on both sides; numbers: count 100 → 100 · min 0.5 → 0.4 · max 80 → 20 · mean 12.3457 → 3; most changed: 1.5 3 → 0 · 150 more changed\n",
		`"\u001b[31mred" 100 → 0`,
		"1 path has the same distribution on both sides.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "PARTIAL") || strings.Contains(out, "(approximate:") {
		t.Errorf("escape, partial or an approximate group in:\n%s", out)
	}
}
