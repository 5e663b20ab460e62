package output

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// TestStatusGroupsDiagnostics: a thousand refused records with a few
// distinct reasons cost a row per reason, the most frequent first, at most
// MaxDiagnosticGroups, and the last line says how to see the rest.
func TestStatusGroupsDiagnostics(t *testing.T) {
	var diags []store.Diagnostic
	for i := range 1000 {
		reason := "record is empty; send one JSON object per line"
		switch {
		case i%10 == 0:
			reason = fmt.Sprintf("unusual reason %d", i) // 100 distinct ones
		case i%3 == 0:
			reason = `missing field "timestamp"`
		}
		diags = append(diags, store.Diagnostic{Source: "http", Level: "rejected", Reason: reason,
			Position: fmt.Sprintf("line %d of an HTTP request", i+1), Excerpt: "{}", ReceivedAt: 1784313728231})
	}
	in := service.StatusInfo{Status: store.Status{SessionID: "s1", Rejected: 1050, Diagnostics: diags, DiagnosticsOmitted: 50}}
	var b strings.Builder
	Status(&b, in)
	out := b.String()
	if !strings.Contains(out, "DIAGNOSTICS (1000 diagnostics, 50 more not kept; 102 distinct reasons)") {
		t.Errorf("no grouped heading:\n%s", out)
	}
	rows := regexp.MustCompile(`(?m)^\d+ +\d+ +`).FindAllString(out, -1)
	if len(rows) != MaxDiagnosticGroups {
		t.Errorf("%d rows, want %d:\n%s", len(rows), MaxDiagnosticGroups, out)
	}
	if !regexp.MustCompile(`(?m)^1 +600 +.*line 2 of an HTTP request +record is empty`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^2 +300 +.*line 4 of an HTTP request +missing field "timestamp"`).MatchString(out) {
		t.Errorf("groups not counted, most frequent first:\n%s", out)
	}
	if !strings.Contains(out, "… and 92 more distinct reasons (92 diagnostics) not shown: debug-mode status --session s1 --all lists every diagnostic (--json too)") {
		t.Errorf("the rest is not named:\n%s", out)
	}
	if len(out) > 4000 {
		t.Errorf("status is %d bytes for 1000 diagnostics", len(out))
	}
	b.Reset()
	StatusAll(&b, in)
	if n := strings.Count(b.String(), "of an HTTP request"); n != 1000 {
		t.Errorf("--all listed %d diagnostics, want 1000", n)
	}
}

// TestStatusAlignsOTLPEndpoint: the OTLP Endpoint is a row of the table,
// aligned with the others whatever the longest label.
func TestStatusAlignsOTLPEndpoint(t *testing.T) {
	for _, in := range []service.StatusInfo{
		{Status: store.Status{SessionID: "s1"}, OTLPEndpoint: "http://127.0.0.1:1/otlp/s1"},
		{Status: store.Status{SessionID: "s1", UserEvidence: store.UserEvidenceCount{Notes: 1}}, OTLPEndpoint: "http://127.0.0.1:1/otlp/s1"},
	} {
		var b strings.Builder
		Status(&b, in)
		sid := regexp.MustCompile(`(?m)^Session ID +`).FindString(b.String())
		otlp := regexp.MustCompile(`(?m)^OTLP Endpoint +`).FindString(b.String())
		if sid == "" || len(sid) != len(otlp) {
			t.Errorf("Session ID value at %d, OTLP Endpoint at %d:\n%s", len(sid), len(otlp), b.String())
		}
	}
}

// TestHeldBackLineSaturated: a sum at the bound reads "at least".
func TestHeldBackLineSaturated(t *testing.T) {
	got := HeldBackLine(store.HeldBackCount{HypothesisID: "H1", Location: "a.go:1", Count: evidence.MaxHeldBackCount, Cap: 10000, Processes: 1100})
	if !strings.HasPrefix(got, "at least 9,007,199,254,740,991 events at a.go:1 (H1) from 1100 processes") {
		t.Errorf("%q", got)
	}
}

// TestCreateAndResetAligned: every value of create and reset starts in the
// column the OTLP Endpoint's label sets.
func TestCreateAndResetAligned(t *testing.T) {
	in := service.SessionInfo{SessionID: "s1", IngestURL: "http://127.0.0.1:1/ingest/s1", AppendPath: "/x/incoming.ndjson",
		OTLPEndpoint: "http://127.0.0.1:1/otlp/s1", ProjectRoot: "/p", Cycle: 2, MaxPerLocation: 5}
	var b strings.Builder
	Create(&b, in)
	Reset(&b, in)
	Clean(&b, "s1")
	for _, line := range strings.Split(b.String(), "\n") {
		if line == "" || strings.HasPrefix(line, "SESSION ") || strings.HasPrefix(line, "Its evidence") {
			continue
		}
		if len(line) < 15 || line[13] != ' ' || line[14] == ' ' {
			t.Errorf("value not in column 15: %q", line)
		}
	}
}
