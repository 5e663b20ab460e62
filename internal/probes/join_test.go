package probes

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitLocation(t *testing.T) {
	for _, c := range []struct {
		in   string
		path string
		line int
		ok   bool
	}{
		{"src/cart.py:42", "src/cart.py", 42, true},
		{"cart.py:42:7", "cart.py", 42, true},
		{"/app/src/cart.py:3", "/app/src/cart.py", 3, true},
		{`C:\work\cart.py:10`, `C:\work\cart.py`, 10, true},
		{"file:///app/x.ts:5", "/app/x.ts", 5, true},
		{" x.go:1 ", "x.go", 1, true},
		{"cart.py", "cart.py", 0, false},
		{"cart.py:", "cart.py:", 0, false},
		{"cart.py:0", "cart.py:0", 0, false},
		{"cart.py:x", "cart.py:x", 0, false},
		{":12", ":12", 0, false},
		{"handler", "handler", 0, false},
	} {
		p, l, ok := splitLocation(c.in)
		if ok != c.ok || ok && (p != c.path || l != c.line) {
			t.Errorf("splitLocation(%q) = %q %d %v, want %q %d %v", c.in, p, l, ok, c.path, c.line, c.ok)
		}
	}
}

func loc(l string, hyps ...string) LocationCount {
	lc := LocationCount{Location: l, Hypotheses: []LabelCount{}}
	for _, h := range hyps {
		id, n, _ := strings.Cut(h, "=")
		var k int64
		fmt.Sscan(n, &k)
		lc.Hypotheses = append(lc.Hypotheses, LabelCount{id, k})
		lc.Events += k
	}
	return lc
}

// TestJoin attributes events to regions: inside, drifted to the nearest, by
// path suffix, and reports what cannot be attributed with an honest reason.
func TestJoin(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		// regions at 3-5, 20-22 and 40-42
		"src/cart.py": strings.Repeat("x\n", 2) + pyRegion + strings.Repeat("x\n", 14) + pyRegion + strings.Repeat("x\n", 17) + pyRegion,
		// regions at 1-3 in two files with the same name
		"a/util.js": region,
		"b/util.js": region,
		// region at 1-3; a second one at 25-27
		"web/app.ts": region + strings.Repeat("x\n", 21) + region,
	})
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	j := Join(r.Regions, []LocationCount{
		loc("src/cart.py:4", "H1=3", "H2=1"), // inside 3-5
		loc("cart.py:5", "H1=2"),             // suffix match, inside
		loc("/app/src/cart.py:21", "H3=4"),   // a container path: suffix src/cart.py, inside 20-22
		loc("src/cart.py:28", "H1=1"),        // 6 after 20-22, 12 before 40-42: nearest
		loc("src/cart.py:31", "H4=1"),        // 9 after 20-22, 9 before 40-42: ambiguous
		loc("src/cart.py:90", "H1=1"),        // beyond every region's drift
		loc("a/util.js:2", "H5=2"),           // longer suffix picks a/
		loc("util.js:2", "H6=1"),             // two files fit equally
		loc("web/app.ts:14", "H7=1"),         // 11 from either: beyond drift
		loc("web/app.ts:24", "H7=5"),         // drifted up by one
		loc("other.go:3", "H8=1"),            // no such file
		loc("checkout", "H9=1"),              // no line
	}, DefaultDrift)
	var got []string
	for _, re := range j.Regions {
		var hs []string
		for _, h := range re.Hypotheses {
			hs = append(hs, fmt.Sprintf("%s=%d", h.ID, h.Events))
		}
		got = append(got, fmt.Sprintf("%s:%d-%d events=%d nearest=%d never=%v [%s]", re.File, re.StartLine, re.EndLine, re.Events, re.NearestEvents, re.NeverFired, strings.Join(hs, " ")))
	}
	want := []string{
		"a/util.js:1-3 events=2 nearest=0 never=false [H5=2]",
		"b/util.js:1-3 events=0 nearest=0 never=true []",
		"src/cart.py:3-5 events=6 nearest=0 never=false [H1=5 H2=1]",
		"src/cart.py:20-22 events=5 nearest=1 never=false [H1=1 H3=4]",
		"src/cart.py:40-42 events=0 nearest=0 never=true []",
		"web/app.ts:1-3 events=0 nearest=0 never=true []",
		"web/app.ts:25-27 events=5 nearest=5 never=false [H7=5]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("regions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if j.NeverFired != 3 {
		t.Errorf("never fired %d, want 3", j.NeverFired)
	}
	got = nil
	for _, u := range j.Unmatched {
		got = append(got, fmt.Sprintf("%s %d %s %s", u.Location, u.Events, u.Reason, strings.Join(u.Candidates, ",")))
	}
	want = []string{
		"checkout 1 no_line ",
		"other.go:3 1 no_file ",
		"src/cart.py:31 1 ambiguous src/cart.py:20-22,src/cart.py:40-42",
		"src/cart.py:90 1 no_region ",
		"util.js:2 1 ambiguous a/util.js:1-3,b/util.js:1-3",
		"web/app.ts:14 1 no_region ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("unmatched:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A smaller drift leaves a drifted event unattributed; zero demands an
	// exact hit.
	j = Join(r.Regions, []LocationCount{loc("web/app.ts:24", "H7=5")}, 0)
	if len(j.Unmatched) != 1 || j.Unmatched[0].Reason != UnmatchedNoRegion {
		t.Errorf("drift 0: %+v", j.Unmatched)
	}

	// Regions without an absolute path (built by hand) join on File.
	j = Join([]Region{{File: "x/y.go", StartLine: 1, EndLine: 3}}, []LocationCount{loc(filepath.Join("y.go")+":2", "H=1")}, 0)
	if j.Regions[0].Events != 1 {
		t.Errorf("join on File: %+v", j.Regions[0])
	}
}

// TestJoinAtRoot joins root-relative locations (as the service stores them)
// exactly, even when the regions were scanned from a subfolder of the root
// and files elsewhere share their names.
func TestJoinAtRoot(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"x.py":             pyRegion,                            // regions at 1-3
		"svc/x.py":         strings.Repeat("x\n", 9) + pyRegion, // 10-12
		"svc/sub/x.py":     strings.Repeat("x\n", 4) + pyRegion, // 5-7
		"other/svc/x.py":   pyRegion,                            // 1-3
		"svc/only_here.py": pyRegion,                            // 1-3
	})
	sub := filepath.Join(root, "svc")
	r, err := Scan(Options{Dir: sub}) // as `probes --session` run from svc/
	if err != nil {
		t.Fatal(err)
	}
	j := JoinAt(root, r.Regions, []LocationCount{
		loc("svc/x.py:11", "H1=2"),                    // exactly svc/x.py
		loc("svc/sub/x.py:6", "H2=1"),                 // exactly svc/sub/x.py, not by suffix
		loc("x.py:2", "H3=1"),                         // root/x.py: not scanned, so no file, never svc's x.py
		loc(filepath.Join(sub, "x.py")+":12", "H4=1"), // an absolute path kept as sent
		loc("only_here.py:2", "H5=1"),                 // no such file under the root: suffix still works
	}, 0)
	var got []string
	for _, re := range j.Regions {
		got = append(got, fmt.Sprintf("%s:%d events=%d", re.File, re.StartLine, re.Events))
	}
	want := []string{"only_here.py:1 events=1", "sub/x.py:5 events=1", "x.py:10 events=3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("regions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(j.Unmatched) != 1 || j.Unmatched[0].Location != "x.py:2" || j.Unmatched[0].Reason != UnmatchedNoFile {
		t.Errorf("unmatched: %+v, want x.py:2 with no file", j.Unmatched)
	}

	// Scanned from the root, two files end in svc/x.py: the exact path wins.
	r, err = Scan(Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"", root} {
		j = JoinAt(base, r.Regions, []LocationCount{loc("svc/x.py:11", "H1=1")}, 0)
		for _, re := range j.Regions {
			if (re.Events == 1) != (re.File == "svc/x.py") {
				t.Errorf("root %q: %s has %d events", base, re.File, re.Events)
			}
		}
	}
}

// TestJoinHelperRegion: a region labelled "helper" (an import, the helper
// module) fires nothing itself and is never counted as never fired.
func TestJoinHelperRegion(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"app.py": "# region agent log helper\nimport x\n# endregion\n" + pyRegion,
	})
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	j := Join(r.Regions, nil, 0)
	if len(j.Regions) != 2 || !j.Regions[0].Helper || j.Regions[0].NeverFired || !j.Regions[1].NeverFired || j.NeverFired != 1 {
		t.Errorf("regions %+v, never fired %d; want the helper region marked helper, the probe never fired", j.Regions, j.NeverFired)
	}
}
