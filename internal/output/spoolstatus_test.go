package output

import (
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// TestStatusNamesASkippedOversizeLine: the rest of a refused oversize line
// is not shown as an incomplete record waiting for its newline.
func TestStatusNamesASkippedOversizeLine(t *testing.T) {
	var b strings.Builder
	Status(&b, service.StatusInfo{Status: store.Status{SessionID: "s", Rejected: 1, SkippingLine: 7}})
	out := b.String()
	if !strings.Contains(out, "append path line 7 is over the record limit and has no newline yet; it was rejected") {
		t.Errorf("status does not name the line being skipped:\n%s", out)
	}
	if strings.Contains(out, "incomplete record") {
		t.Errorf("status calls the skipped line an incomplete record:\n%s", out)
	}
}
