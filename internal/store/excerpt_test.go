package store

import (
	"os"
	"strings"
	"testing"
)

// TestDiagnosticExcerptNeverHoldsPartOfASecret: a token that straddles the
// excerpt's cut is still recognised whole and redacted, for oversize
// records (which the store excerpts itself) as for refused ones.
func TestDiagnosticExcerptNeverHoldsPartOfASecret(t *testing.T) {
	st, root := testStore(t)
	s, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	prefix := `{"hypothesisId":"H1","location":"a.py:1","message":"m","data":{"note":"` + strings.Repeat("x", 190-78) + " "
	line := prefix + jwt + strings.Repeat("y", 70_000) + `"},"timestamp":1784313728231}`
	// The append path hands the store an oversize line's prefix, which the
	// store excerpts itself.
	f, err := root.OpenFile("sessions/"+s.ID()+"/incoming.ndjson", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line + "\n")
	f.Close()
	if err := s.DrainSpool(); err != nil {
		t.Fatal(err)
	}
	b, err := root.ReadFile("sessions/" + s.ID() + "/diagnostics.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "longer than") && !strings.Contains(string(b), "limit") {
		t.Fatalf("expected an oversize diagnostic, got %s", b)
	}
	if strings.Contains(string(b), "eyJhbGci") {
		t.Fatalf("part of the token was stored in a diagnostic: %s", b)
	}
}
