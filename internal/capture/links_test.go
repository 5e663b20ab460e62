package capture

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
)

// linkEnv holds a capture whose events reach every link state.
func linkEnv(t *testing.T) (*env, *Capture) {
	e := newEnv(t)
	e.write(map[string]string{
		"src/cart.py": cartPy, // region at lines 5-7
		"a/util.py":   "# region agent log\nx = 1\n# endregion\n",
		"b/util.py":   "# region agent log\ny = 2\n# endregion\n",
		"far.py":      strings.Repeat("pass\n", 40) + "# region agent log\nz()\n# endregion\n",
	})
	outside := filepath.Join(t.TempDir(), "x.py")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.ingest(
		ev("H1", "src/cart.py:6", "inside", `1`, 1796083198001),    // 1: source complete, region complete
		ev("H1", "src/cart.py:6", "inside", `2`, 1796083198002),    // 2: neighbours of 1
		ev("H2", "util.py:2", "two files", `3`, 1796083198003),     // 3: source ambiguous, region ambiguous
		ev("H3", "gone.py:3", "missing file", `4`, 1796083198004),  // 4: source unavailable, region unavailable
		ev("H3", "nowhere", "no line", `5`, 1796083198005),         // 5: source incomplete, region incomplete
		ev("H1", "src/cart.py:12", "drifted", `6`, 1796083198006),  // 6: past the end; region drifted 5 lines
		ev("H4", "far.py:3", "no region near", `7`, 1796083198007), // 7: region unavailable in a file that has one
		ev("H4", outside+":1", "outside", `8`, 1796083198008),      // 8: a file outside the root
	)
	id := e.capture("").ID
	// An event that arrives after the source was read has no source record.
	return e, e.open(id)
}

func linkOf(t *testing.T, c *Capture, seq int64, rel string) Link {
	t.Helper()
	ls, err := c.Links([]int64{seq})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls[0] {
		if l.Rel == rel {
			return l
		}
	}
	t.Fatalf("SEQ %d has no %s link", seq, rel)
	return Link{}
}

func TestLinkStates(t *testing.T) {
	_, c := linkEnv(t)
	cases := []struct {
		seq     int64
		rel     string
		state   string
		targets string // fmt of the targets
		reason  string
	}{
		{1, RelSource, Complete, "[{0 src/cart.py 1 8 6}]", ""},
		{3, RelSource, Ambiguous, "[{0 a/util.py 1 3 2} {0 b/util.py 1 3 2}]", "2 files"},
		{4, RelSource, Unavailable, "[]", "no file named gone.py"},
		{5, RelSource, Incomplete, "[]", "no line number"},
		{6, RelSource, Unavailable, "[]", "src/cart.py has 8 lines; line 12 is past its end"},
		{8, RelSource, Incomplete, "[]", "outside the source root"},

		{1, RelRegion, Complete, "[{0 src/cart.py 5 7 0}]", ""},
		{3, RelRegion, Ambiguous, "[{0 a/util.py 1 3 0} {0 b/util.py 1 3 0}]", "fits 2 regions"},
		{4, RelRegion, Unavailable, "[]", "no file under the source root named like gone.py"},
		{5, RelRegion, Incomplete, "[]", "no line number"},
		{6, RelRegion, Complete, "[{0 src/cart.py 5 7 0}]", "5 lines outside the region"},
		{7, RelRegion, Unavailable, "[]", "none within 10 lines of line 3"},

		{1, RelPrevious, Unavailable, "[]", "first event at src/cart.py:6"},
		{2, RelPrevious, Complete, "[{1  0 0 0}]", ""},
		{1, RelNext, Complete, "[{2  0 0 0}]", ""},
		{2, RelNext, Unavailable, "[]", "last event at src/cart.py:6"},
	}
	for _, tc := range cases {
		l := linkOf(t, c, tc.seq, tc.rel)
		got := fmt.Sprint(l.Targets)
		if l.Targets == nil {
			got = "[]"
		}
		if l.State != tc.state || got != tc.targets || !strings.Contains(l.Reason, tc.reason) {
			t.Errorf("SEQ %d %s: %s %s %q; want %s %s %q", tc.seq, tc.rel, l.State, got, l.Reason, tc.state, tc.targets, tc.reason)
		}
	}
	if l := linkOf(t, c, 6, RelRegion); l.Drift != 5 {
		t.Errorf("drift %d, want 5", l.Drift)
	}
}

func TestLinkStatesIncompleteCaptures(t *testing.T) {
	e := newEnv(t)
	e.write(map[string]string{"src/cart.py": cartPy})
	e.ingest(ev("H1", "src/cart.py:6", "m", `1`, 1796083198001))
	req := e.request("")
	// A location first seen after the source was read.
	e.ingest(ev("H1", "src/late.py:1", "late", `2`, 1796083198002))
	// A region scan that failed.
	req.Regions, req.RegionScan = nil, RegionScan{State: "failed", Reason: "permission denied"}
	cr, err := e.cs.Create(e.sess, req)
	if err != nil {
		t.Fatal(err)
	}
	c := e.open(cr.ID)
	if l := linkOf(t, c, 2, RelSource); l.State != Incomplete || !strings.Contains(l.Reason, "arrived after the capture read the source files") {
		t.Errorf("late location: %+v", l)
	}
	if l := linkOf(t, c, 1, RelRegion); l.State != Incomplete || !strings.Contains(l.Reason, "permission denied") {
		t.Errorf("failed region scan: %+v", l)
	}

	// A source bound reached: the locations left out are incomplete, not unavailable.
	e2 := newEnv(t)
	var lines []string
	for i := 0; i < MaxSourceLocations+3; i++ {
		lines = append(lines, ev("H1", fmt.Sprintf("f%d.py:1", i), "m", `1`, 1796083198000+int64(i)))
	}
	e2.ingest(lines...)
	r2 := e2.request("")
	if r2.SourceScan.Bound != "locations" || r2.SourceScan.Omitted != 3 || len(r2.Sources) != MaxSourceLocations {
		t.Fatalf("source scan: %+v", r2.SourceScan)
	}
	cr2, err := e2.cs.Create(e2.sess, r2)
	if err != nil {
		t.Fatal(err)
	}
	c2 := e2.open(cr2.ID)
	missing := 0
	for seq := int64(1); seq <= c2.Header.Events; seq++ {
		if l := linkOf(t, c2, seq, RelSource); l.State == Incomplete {
			missing++
			if !strings.Contains(l.Reason, "at most 500 locations") {
				t.Errorf("bound reason: %q", l.Reason)
			}
		}
	}
	if missing != 3 {
		t.Errorf("%d locations without source, want 3", missing)
	}
	// Regions left out by a scan that skipped unreadable files cannot prove absence.
	c2.Header.RegionScan.Unreadable = 1
	c2.regionLinks = nil
	if l := linkOf(t, c2, 1, RelRegion); l.State != Incomplete || !strings.Contains(l.Reason, "could not be scanned") {
		t.Errorf("region with unreadable files: %+v", l)
	}
}

func TestFollow(t *testing.T) {
	_, c := linkEnv(t)
	// Complete: the one target.
	f, err := c.Follow(1, RelSource)
	if err != nil || f.Page.Kind != "source" || f.Page.Returned != 1 || f.Page.Sources[0].File != "src/cart.py" || f.Link.State != Complete {
		t.Fatalf("follow source: %+v %v", f, err)
	}
	// Ambiguous: all of them.
	f, err = c.Follow(3, RelSource)
	if err != nil || f.Page.Returned != 2 || f.Link.State != Ambiguous {
		t.Fatalf("follow ambiguous source: %+v %v", f, err)
	}
	f, err = c.Follow(3, RelRegion)
	if err != nil || f.Page.Kind != "region" || len(f.Page.Regions) != 2 {
		t.Fatalf("follow ambiguous region: %+v %v", f, err)
	}
	f, err = c.Follow(6, RelRegion)
	if err != nil || len(f.Page.Regions) != 1 || f.Page.Regions[0].StartLine != 5 || f.Link.Drift != 5 {
		t.Fatalf("follow drifted region: %+v %v", f, err)
	}
	f, err = c.Follow(1, RelNext)
	if err != nil || f.Page.Kind != "event" || len(f.Page.Events) != 1 || !strings.Contains(string(f.Page.Events[0]), `"sequence":2,`) || !strings.Contains(string(f.Page.Events[0]), `"links":[`) {
		t.Fatalf("follow next: %+v %v", f, err)
	}
	// Incomplete and unavailable links are refused with their reason.
	for _, tc := range []struct {
		seq int64
		rel string
	}{{4, RelSource}, {5, RelSource}, {5, RelRegion}, {7, RelRegion}, {1, RelPrevious}, {2, RelNext}} {
		_, err := c.Follow(tc.seq, tc.rel)
		var re *RefusedError
		if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || re.Link.Followable() || re.Link.Reason == "" || !strings.Contains(err.Error(), re.Link.Reason) {
			t.Errorf("follow SEQ %d %s: %v, want refused with the reason", tc.seq, tc.rel, err)
		}
	}
	for _, tc := range []struct {
		seq int64
		rel string
	}{{0, RelSource}, {99, RelSource}, {1, "parent"}} {
		if _, err := c.Follow(tc.seq, tc.rel); !errors.Is(err, ErrRequest) {
			t.Errorf("follow SEQ %d %s: %v, want a request error", tc.seq, tc.rel, err)
		}
	}
}

func TestSplitLocationExported(t *testing.T) {
	if p, l, ok := probes.SplitLocation("file:///a/b.py:3:9"); p != "/a/b.py" || l != 3 || !ok {
		t.Fatal(p, l, ok)
	}
}

// TestControlCharactersInNames: a file name or a location holding a new
// line, a carriage return, a tab or a terminal escape is ordinary text to a
// capture: the region and source records of such a file are frozen, read
// back byte for byte, and their links are complete.
func TestControlCharactersInNames(t *testing.T) {
	e := newEnv(t)
	names := []string{"a\nb.py", "c\rd.py", "t\tab.py", "e\x1b[31mf.py", "u\u2028v.py"}
	var lines []string
	for i, name := range names {
		e.write(map[string]string{name: "x = 1\n# region agent log\nagent_log()\n# endregion\n"})
		lines = append(lines, jsonOf(t, map[string]any{"hypothesisId": "H1", "location": name + ":3", "message": "m", "data": i, "timestamp": 1796083198001 + i}))
	}
	lines = append(lines, jsonOf(t, map[string]any{"hypothesisId": "H2", "location": "x.py:1\nFORGED", "message": "forged", "data": 0, "timestamp": 1796083198100}))
	e.ingest(lines...)
	created, err := e.cs.Create(e.sess, e.request("names"))
	if err != nil {
		t.Fatalf("capture of files with control characters in their names: %v", err)
	}
	c := e.open(created.ID)
	if got := len(c.regions); got != len(names) {
		t.Errorf("%d regions frozen, want %d", got, len(names))
	}
	for i, name := range names {
		seq := int64(i + 1)
		for _, rel := range []string{RelSource, RelRegion} {
			l := linkOf(t, c, seq, rel)
			if l.State != Complete || len(l.Targets) != 1 || l.Targets[0].File != name {
				t.Errorf("SEQ %d (%q) %s link: %+v, want complete to the file", seq, name, rel, l)
			}
		}
	}
	if l := linkOf(t, c, int64(len(names)+1), RelSource); l.State == Complete {
		t.Errorf("a location with a new line in its line number is no path:line: %+v", l)
	}
}
