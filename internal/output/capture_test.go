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
