package store

import (
	"fmt"
	"strings"
	"testing"
)

// TestLocations groups a cycle's events by location and label, most
// events first, including locations that need JSON unescaping.
func TestLocations(t *testing.T) {
	st, _ := testStore(t)
	s, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	add := func(h, loc string, n int) {
		for range n {
			fmt.Fprintf(&body, `{"hypothesisId":%q,"location":%q,"message":"m","data":null,"timestamp":1796083200000}`+"\n", h, loc)
		}
	}
	add("H1", "src/cart.py:12", 3)
	add("H2", "src/cart.py:12", 1)
	add("H1", "web/app.ts:5", 2)
	add(`H"3`, `C:\src\x.cs:7`, 1)
	if _, rej, err := s.IngestHTTP([]byte(body.String())); err != nil || rej != 0 {
		t.Fatalf("ingest: %d rejected, %v", rej, err)
	}
	locs, err := s.Locations()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range locs.Locations {
		var hs []string
		for _, h := range l.Hypotheses {
			hs = append(hs, fmt.Sprintf("%s=%d", h.ID, h.Events))
		}
		got = append(got, fmt.Sprintf("%s %d [%s]", l.Location, l.Events, strings.Join(hs, " ")))
	}
	want := "src/cart.py:12 4 [H1=3 H2=1]|web/app.ts:5 2 [H1=2]|C:\\src\\x.cs:7 1 [H\"3=1]"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	if locs.Events != 7 || locs.Version != "1.7" || locs.Cycle != 1 || locs.Omitted != 0 {
		t.Errorf("header: %+v", locs)
	}
	// After a reset there is nothing to group.
	s.Reset()
	locs, _ = s.Locations()
	if len(locs.Locations) != 0 || locs.Events != 0 || locs.Cycle != 2 {
		t.Errorf("after reset: %+v", locs)
	}
}
