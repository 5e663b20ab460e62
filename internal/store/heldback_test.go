package store

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// TestHeldBackSumsSaturate: counts at the bound from many processes add up
// to the bound, never past it into a negative number, and a tampered
// heldback.json brings in nothing the parser would refuse.
func TestHeldBackSumsSaturate(t *testing.T) {
	st, root := testStore(t)
	s, _ := st.Create()
	var b strings.Builder
	for i := range 1100 {
		fmt.Fprintf(&b, `{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a.go:1","process":"p%d","count":%d,"cap":10000}}`+"\n", i, int64(evidence.MaxHeldBackCount))
	}
	b.WriteString(`{"agentDebugHeldBack":{"hypothesisId":"H2","location":"b.go:1","process":"q","count":5,"cap":10000}}` + "\n")
	if _, _, err := s.IngestHTTP([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	stat, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(stat.HeldBack) != 2 || stat.HeldBack[0].Count != evidence.MaxHeldBackCount || stat.HeldBack[0].Processes != 1100 ||
		stat.HeldBackEvents != evidence.MaxHeldBackCount || stat.HeldBack[1].Count != 5 {
		t.Fatalf("held back %+v, total %d; want the sums saturated at %d", stat.HeldBack, stat.HeldBackEvents, int64(evidence.MaxHeldBackCount))
	}

	// A heldback.json with counts no record can carry: only the valid entry is loaded.
	cycle := s.Meta().Epoch
	tampered := fmt.Sprintf(`{"cycle":%d,"entries":[`+
		`{"process":"p","hypothesisId":"H1","location":"a.go:1","count":-5,"cap":10},`+
		`{"process":"p","hypothesisId":"H1","location":"b.go:1","count":9223372036854775807,"cap":10},`+
		`{"process":"p","hypothesisId":"H1","location":"c.go:1","count":3,"cap":0},`+
		`{"process":"","hypothesisId":"H1","location":"d.go:1","count":3,"cap":1},`+
		`{"process":"p","hypothesisId":"H1","location":"e.go:1","count":7,"cap":10}]}`, cycle)
	if err := root.WriteFileAtomic(s.path(statedir.HeldBackFile), []byte(tampered)); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	err = s.loadHeldBack()
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	list, total := s.held.summary()
	if len(list) != 1 || list[0].Location != "e.go:1" || total != 7 {
		t.Fatalf("loaded %+v (total %d); want only e.go:1 with 7", list, total)
	}
}
