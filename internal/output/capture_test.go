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
