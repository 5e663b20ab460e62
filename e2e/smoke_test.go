package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestCreateAppendStatus is the smallest real loop: create, append a line
// to the append path, see it counted.
func TestCreateAppendStatus(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	f, err := os.OpenFile(s.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"hypothesisId":"H1","location":"x.go:1","message":"m","data":1,"timestamp":1784313728231}` + "\n")
	f.Close()
	out := e.MustRun("status", "--session", s.SessionID)
	if !strings.Contains(out, "1 event (H1 1)") {
		t.Fatalf("status did not count the appended event:\n%s", out)
	}
	if got := len(e.Events(s.SessionID)); got != 1 {
		t.Fatalf("stored %d events, want 1", got)
	}
}
