package capture

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
)

func TestDataHash(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`},
		{`{"x":{"p":1,"q":2}}`, `{"x":{"q":2,"p":1}}`},
		{`null`, `null`},
		{`"s"`, ` "s"`},
	}
	for _, p := range same {
		if dataHash([]byte(p[0])) != dataHash([]byte(p[1])) {
			t.Errorf("%s and %s hash differently", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`[1,2]`, `[2,1]`},
		{`{"a":1,"b":2}`, `{"a":2,"b":1}`},
		{`{"a":1}`, `{"b":1}`},
		{`"1"`, `1`},
		{`{}`, `[]`},
		{`[]`, `[[]]`},
		{`{"a":{"b":1}}`, `{"a":{"b":1},"c":null}`},
		{`null`, `"null"`},
	}
	for _, p := range differ {
		if dataHash([]byte(p[0])) == dataHash([]byte(p[1])) {
			t.Errorf("%s and %s hash alike", p[0], p[1])
		}
	}
}

func TestParseEventBothWays(t *testing.T) {
	rec, rej := evidence.Normalize([]byte(`{"hypothesisId":"H\"1","location":"a\\b.py:3","message":"tab\there","data":{"k":[1,"x"]},"timestamp":1796083198500}`), evidence.DefaultLimits)
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	line := evidence.AppendStored(nil, "evt_x_7", 7, 1796083198600, &rec)
	line = line[:len(line)-1]
	fast, ok := parseEvent(line)
	if !ok {
		t.Fatal("fast path failed")
	}
	// The same line with another field order takes the slow path.
	slow, ok := slowEvent([]byte(`{"timestamp":1796083198500,"data":{"k":[1,"x"]},"message":"tab\there","location":"a\\b.py:3","hypothesisId":"H\"1","sequence":7,"id":"evt_x_7","receivedAt":1}`))
	if !ok {
		t.Fatal("slow path failed")
	}
	if fmt.Sprintf("%d %d %s %s %s %s", fast.seq, fast.ts, fast.hyp, fast.loc, fast.msg, fast.data) !=
		fmt.Sprintf("%d %d %s %s %s %s", slow.seq, slow.ts, slow.hyp, slow.loc, slow.msg, slow.data) {
		t.Fatalf("fast %+v\nslow %+v", fast, slow)
	}
	if unescape(fast.hyp) != `H"1` || unescape(fast.loc) != `a\b.py:3` || unescape(fast.msg) != "tab\there" {
		t.Fatalf("unescaped: %q %q %q", unescape(fast.hyp), unescape(fast.loc), unescape(fast.msg))
	}
}

// run ingests events, one per line: "hyp|location|message|data".
func (e *env) run(events ...string) {
	e.t.Helper()
	var lines []string
	for i, s := range events {
		f := strings.SplitN(s, "|", 4)
		lines = append(lines, ev(f[0], f[1], f[2], f[3], 1796083190000+int64(i)))
	}
	e.ingest(lines...)
}

func (e *env) diff(from, to string) DiffResult {
	e.t.Helper()
	return e.diffWith(DiffOptions{From: from, To: to})
}

func (e *env) diffWith(o DiffOptions) DiffResult {
	e.t.Helper()
	r, err := e.cs.Diff(e.sess, o)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) reset() {
	e.t.Helper()
	if _, err := e.sess.Reset(); err != nil {
		e.t.Fatal(err)
	}
}

func groupOf(r DiffResult, hyp, loc, msg string) *Group {
	for i := range r.Groups {
		if g := &r.Groups[i]; g.Hypothesis == hyp && g.Location == loc && g.Message == msg {
			return g
		}
	}
	return nil
}

var before = []string{
	"H1|src/cart.py:10|loaded|{\"items\":3}",
	"H2|src/cart.py:12|discount|{\"pct\":\"10\"}",
	"H1|src/cart.py:14|total|{\"total\":-3.5}",
	"H2|src/cart.py:12|discount|{\"pct\":\"10\"}",
	"H1|src/cart.py:14|total|{\"total\":7}",
	"H3|src/pay.py:40|sent|null",
}

func TestDiffIdentical(t *testing.T) {
	e := newEnv(t)
	e.run(before...)
	a := e.capture("before").ID
	// Against the live cycle it was taken from, and after a reset and the
	// same reproduction (other ids, other received times, same evidence).
	for _, r := range []DiffResult{e.diff(a, ""), e.diff(a, a)} {
		if !r.Identical || !r.Complete || r.FirstDivergence != nil || r.Counts.Groups != 4 || r.Counts.Same != 4 {
			t.Fatalf("identical: %+v", r)
		}
	}
	e.reset()
	e.run(before...)
	r := e.diff(a, "")
	if !r.Identical || r.After.Kind != "live" || r.After.Cycle != 2 || r.Before.Capture != a {
		t.Fatalf("same reproduction: %+v", r)
	}
}

func TestDiffDisjoint(t *testing.T) {
	e := newEnv(t)
	e.run(before...)
	a := e.capture("").ID
	e.reset()
	e.run("H9|other.py:1|else|1", "H9|other.py:1|else|2")
	r := e.diff(a, "")
	checkSums(t, r)
	if r.Identical || r.Counts.InBoth != 0 || r.Counts.OnlyBefore != 4 || r.Counts.OnlyAfter != 1 {
		t.Fatalf("disjoint: %+v", r.Counts)
	}
	// Never a pair of events from two groups: the first event before is
	// of a group with no events after.
	d := r.FirstDivergence
	if d == nil || d.Position != 1 || d.Reason != DivergedNoAfter || d.Before.Seq != 1 || d.Before.Position != 1 || d.After != nil {
		t.Fatalf("divergence: %+v", d)
	}
	if g := groupOf(r, "H9", "other.py:1", "else"); g == nil || g.Status != GroupOnlyAfter || g.After != 2 || g.FirstAfter != 1 {
		t.Fatalf("only after: %+v", g)
	}
	// Nothing on one side at all.
	e.reset()
	r = e.diff(a, "")
	if r.Counts.OnlyBefore != 4 || r.FirstDivergence == nil || r.FirstDivergence.Reason != DivergedNoAfter || r.FirstDivergence.After != nil {
		t.Fatalf("empty after: %+v %+v", r.Counts, r.FirstDivergence)
	}
}

func TestDiffPartlyChanged(t *testing.T) {
	e := newEnv(t)
	e.run(before...)
	a := e.capture("").ID
	e.reset()
	e.run(
		"H1|src/cart.py:10|loaded|{\"items\":3}",
		"H2|src/cart.py:12|discount|{\"pct\":\"10\"}",
		"H1|src/cart.py:14|total|{\"total\":3.5}", // the fix
		"H1|src/cart.py:14|total|{\"total\":7}",
		"H3|src/pay.py:43|sent|null", // moved 3 lines down
		"H4|src/pay.py:50|receipt|{\"ok\":true}",
	)
	r := e.diff(a, "")
	checkSums(t, r)
	if r.Identical || !r.Complete {
		t.Fatalf("changed: %+v", r)
	}
	c := r.Counts
	if c.InBoth != 4 || c.Same != 2 || c.DataChanged != 1 || c.CountChanged != 1 || c.OnlyAfter != 1 || c.OnlyBefore != 0 || c.Moved != 1 || c.ChangedPairs != 1 {
		t.Fatalf("counts: %+v", c)
	}
	total := groupOf(r, "H1", "src/cart.py:14", "total")
	if total == nil || total.Status != GroupChanged || total.Changed != 1 || len(total.Examples) != 1 {
		t.Fatalf("total group: %+v", total)
	}
	ex := total.Examples[0]
	if ex.BeforeSeq != 3 || ex.AfterSeq != 3 || string(ex.Before) != `{"total":-3.5}` || string(ex.After) != `{"total":3.5}` ||
		jsonOf(t, ex.Fields) != `[{"path":".total","before":"-3.5","after":"3.5"}]` {
		t.Fatalf("example: %+v", ex)
	}
	if g := groupOf(r, "H2", "src/cart.py:12", "discount"); g == nil || g.Status != GroupCount || g.Before != 2 || g.After != 1 {
		t.Fatalf("count group: %+v", g)
	}
	if g := groupOf(r, "H3", "src/pay.py:40", "sent"); g == nil || g.LocationAfter != "src/pay.py:43" || g.Status != GroupSame {
		t.Fatalf("moved group: %+v", g)
	}
	d := r.FirstDivergence
	if d == nil || d.Position != 3 || d.Reason != DivergedData || d.Before.Seq != 3 || d.After.Seq != 3 ||
		jsonOf(t, d.Fields) != `[{"path":".total","before":"-3.5","after":"3.5"}]` {
		t.Fatalf("divergence: %+v", d)
	}
	if r.Groups[0].Status != GroupChanged {
		t.Fatalf("differing groups come first: %+v", r.Groups[0])
	}
	// Two captures compare the same way.
	b := e.capture("after").ID
	r2 := e.diff(a, b)
	if r2.After.Kind != "capture" || r2.After.Capture != b || jsonOf(t, r2.Counts) != jsonOf(t, r.Counts) {
		t.Fatalf("capture to capture: %+v", r2.Counts)
	}
}

func TestDiffFieldChanges(t *testing.T) {
	got, n := fieldChanges([]byte(`{"a":1,"b":{"c":[1,2,3]},"d":"x","weird key":1}`), []byte(`{"a":1,"b":{"c":[1,5]},"e":1,"weird key":2}`), nil)
	if n != 5 || jsonOf(t, got) != `[{"path":".b.c[1]","before":"2","after":"5"},{"path":".b.c[2]","before":"3","absent":"after"},{"path":".d","before":"\"x\"","absent":"after"},{"path":".e","after":"1","absent":"before"},{"path":"[\"weird key\"]","before":"1","after":"2"}]` {
		t.Fatalf("fields (%d): %s", n, jsonOf(t, got))
	}
	if got, _ := fieldChanges([]byte(`1`), []byte(`2`), nil); jsonOf(t, got) != `[{"path":".","before":"1","after":"2"}]` {
		t.Fatalf("scalar: %s", jsonOf(t, got))
	}
	// More paths than are listed: counted.
	var a, b []string
	for i := 0; i < 12; i++ {
		a, b = append(a, fmt.Sprintf(`"k%02d":%d`, i, i)), append(b, fmt.Sprintf(`"k%02d":%d`, i, -i-1))
	}
	if got, n := fieldChanges([]byte("{"+strings.Join(a, ",")+"}"), []byte("{"+strings.Join(b, ",")+"}"), nil); len(got) != maxFieldChanges || n != 12 {
		t.Fatalf("bounded: %d listed of %d", len(got), n)
	}
}

// A long value is never cut so that the difference is hidden: both sides
// show the same window around the first character that differs.
func TestDiffLongValueWindow(t *testing.T) {
	long := strings.Repeat("abcdefghij", 30) // 300 characters
	before := `{"note":"` + long + `-1970-01-rest` + long + `"}`
	after := `{"note":"` + long + `-2026-11-rest` + long + `"}`
	got, _ := fieldChanges([]byte(before), []byte(after), nil)
	if len(got) != 1 {
		t.Fatalf("fields: %s", jsonOf(t, got))
	}
	f := got[0]
	if !f.Cut || f.From != 1+len(long)+1-windowContext || !strings.Contains(f.Before, "-1970-01-rest") || !strings.Contains(f.After, "-2026-11-rest") ||
		strings.Index(f.Before, "-1970") != strings.Index(f.After, "-2026") || !strings.HasPrefix(f.Before, "…") || !strings.HasSuffix(f.After, "…") ||
		len([]rune(f.Before)) != valueWindow+2 {
		t.Fatalf("window: %+v", f)
	}
	// Short values stay whole.
	if wa, wb, _, cut := Window(`"1970-01"`, `"2026-11"`, valueWindow); cut || wa != `"1970-01"` || wb != `"2026-11"` {
		t.Fatalf("short: %s %s", wa, wb)
	}
	// One side a prefix of the other: the window starts where it ends.
	wa, wb, _, _ := Window(long+"x", long, 20)
	if !strings.HasSuffix(wa, "x") || !strings.HasSuffix(wb, "j") || !strings.HasPrefix(wa, "…") {
		t.Fatalf("prefix: %q %q", wa, wb)
	}
}

// The first divergence never pairs events of two different groups.
func TestDiffDivergenceWithinOneGroup(t *testing.T) {
	e := newEnv(t)
	e.run("H1|a.py:1|x|1", "H2|a.py:2|y|2", "H3|a.py:3|z|3", "H3|a.py:3|z|4")
	a := e.capture("").ID
	e.reset()
	// H2 is gone: before, position 2 is H2; after, position 2 is H3.
	e.run("H1|a.py:1|x|1", "H3|a.py:3|z|3", "H3|a.py:3|z|4")
	d := e.diff(a, "").FirstDivergence
	if d == nil || d.Reason != DivergedNoAfter || d.Position != 2 || d.Before.Hypothesis != "H2" || d.After != nil {
		t.Fatalf("group gone: %+v", d)
	}
	// A new group: its first event after.
	e.reset()
	e.run("H4|a.py:4|w|0", "H1|a.py:1|x|1", "H2|a.py:2|y|2", "H3|a.py:3|z|3", "H3|a.py:3|z|4")
	d = e.diff(a, "").FirstDivergence
	if d == nil || d.Reason != DivergedNoBefore || d.Position != 1 || d.After.Hypothesis != "H4" || d.Before != nil {
		t.Fatalf("new group: %+v", d)
	}
	// The earliest differing event wins, on whichever side it is.
	e.reset()
	e.run("H1|a.py:1|x|1", "H2|a.py:2|y|2", "H3|a.py:3|z|3", "H3|a.py:3|z|5")
	d = e.diff(a, "").FirstDivergence
	if d == nil || d.Reason != DivergedData || d.Position != 4 || d.Before.Seq != 4 || d.After.Seq != 4 ||
		d.Before.Hypothesis != "H3" || d.After.Hypothesis != "H3" || jsonOf(t, d.Fields) != `[{"path":".","before":"4","after":"5"}]` {
		t.Fatalf("data: %+v", d)
	}
}

// --ignore leaves a field out of alignment and comparison; --fields keeps
// only the fields named.
func TestDiffFieldsAndIgnore(t *testing.T) {
	e := newEnv(t)
	e.run("H1|a.py:1|x|{\"id\":\"r-1\",\"total\":3,\"meta\":{\"ts\":1,\"ok\":true}}", "H1|a.py:1|x|{\"id\":\"r-2\",\"total\":4,\"meta\":{\"ts\":2,\"ok\":true}}")
	a := e.capture("").ID
	e.reset()
	e.run("H1|a.py:1|x|{\"id\":\"r-8\",\"total\":3,\"meta\":{\"ts\":7,\"ok\":true}}", "H1|a.py:1|x|{\"id\":\"r-9\",\"total\":5,\"meta\":{\"ts\":8,\"ok\":true}}")
	if r := e.diff(a, ""); r.Counts.ChangedPairs != 2 {
		t.Fatalf("without options: %+v", r.Counts)
	}
	r := e.diffWith(DiffOptions{From: a, Ignore: []string{".id", ".meta.ts"}})
	if r.Counts.ChangedPairs != 1 || r.Counts.SameEvents != 1 || r.Identical || fmt.Sprint(r.Ignore) != "[.id .meta.ts]" {
		t.Fatalf("ignore: %+v", r.Counts)
	}
	g := groupOf(r, "H1", "a.py:1", "x")
	if ex := g.Examples[0]; ex.BeforeSeq != 2 || jsonOf(t, ex.Fields) != `[{"path":".total","before":"4","after":"5"}]` {
		t.Fatalf("ignored fields are not listed: %+v", ex)
	}
	r = e.diffWith(DiffOptions{From: a, Fields: []string{".meta.ok"}})
	if !r.Identical || r.Counts.SameEvents != 2 {
		t.Fatalf("fields: %+v", r.Counts)
	}
	r = e.diffWith(DiffOptions{From: a, Fields: []string{".total", ".id"}, Ignore: []string{".id"}})
	if r.Counts.ChangedPairs != 1 || jsonOf(t, groupOf(r, "H1", "a.py:1", "x").Examples[0].Fields) != `[{"path":".total","before":"4","after":"5"}]` {
		t.Fatalf("fields and ignore: %+v", r.Counts)
	}
	for _, bad := range []DiffOptions{{From: a, Ignore: []string{"id"}}, {From: a, Fields: []string{"."}}, {From: a, Fields: []string{".a[1]"}}, {From: a, Mode: "fuzzy"}} {
		if _, err := e.cs.Diff(e.sess, bad); !errors.Is(err, ErrRequest) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestParsePath(t *testing.T) {
	for p, want := range map[string]string{
		".a":             "[.a]",
		".a.b_2":         "[.a .b_2]",
		".items[].id":    "[.items [] .id]",
		`.["odd key"].x`: "[.odd key .x]",
		`["a,b"]`:        "[.a,b]",
		"[]":             "[[]]",
	} {
		got, err := parsePath(p)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("%s: %v %v, want %s", p, got, err, want)
		}
	}
	for _, bad := range []string{"", ".", "a", ".a.", ".a[0]", `.["open`, ".1a", ".a b"} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestDiffBounds(t *testing.T) {
	defer func(e, g int) { MaxDiffEvents, MaxDiffGroups = e, g }(MaxDiffEvents, MaxDiffGroups)
	e := newEnv(t)
	e.run(before...)
	a := e.capture("").ID

	// Truncated: only the first events by sequence are compared, and the
	// result says so; an identical set is then not called identical.
	MaxDiffEvents = 4
	r := e.diff(a, "")
	if r.Complete || r.Identical || !r.Before.Truncated || !r.After.Truncated || r.Before.Compared != 4 || r.Before.Events != 6 {
		t.Fatalf("truncated: %+v", r)
	}
	MaxDiffEvents = 1_000_000

	// A group bound: events of groups past it are not compared.
	MaxDiffGroups = 2
	r = e.diff(a, "")
	if r.Complete || r.Identical || !r.Before.GroupsBound || r.Before.Ungrouped != 3 || r.Counts.Groups != 2 || r.FirstDivergence != nil {
		t.Fatalf("group bound: %+v", r)
	}
}

// loop is a probe in a loop: one event per item, then one at the end.
func loop(items ...string) []string {
	var out []string
	for _, it := range items {
		out = append(out, "H1|src/cart.py:20|item|{\"item\":"+it+"}")
	}
	return append(out, "H2|src/cart.py:30|done|null")
}

// checkSums: every compared event is counted once, on each side.
func checkSums(t *testing.T, r DiffResult) {
	t.Helper()
	c := r.Counts
	if c.SameEvents+c.ChangedPairs+c.OnlyBeforeEvents != r.Before.Compared-r.Before.Ungrouped ||
		c.SameEvents+c.ChangedPairs+c.OnlyAfterEvents != r.After.Compared-r.After.Ungrouped {
		t.Fatalf("event counts do not add up: %+v, before %+v, after %+v", c, r.Before, r.After)
	}
}

// One event added early in a group is one event only after, not a shift
// that makes every later event a changed value.
func TestDiffInsertedEvent(t *testing.T) {
	e := newEnv(t)
	e.run(loop("1", "2", "3", "4", "5", "6")...)
	a := e.capture("").ID
	e.reset()
	e.run(loop("1", "9", "2", "3", "4", "5", "6")...)
	r := e.diff(a, "")
	checkSums(t, r)
	c := r.Counts
	if !r.Complete || r.Identical || c.ChangedPairs != 0 || c.DataChanged != 0 || c.OnlyAfterEvents != 1 || c.OnlyBeforeEvents != 0 || c.SameEvents != 7 || c.Approximate != 0 {
		t.Fatalf("counts: %+v", c)
	}
	g := groupOf(r, "H1", "src/cart.py:20", "item")
	if g == nil || g.Status != GroupCount || g.Changed != 0 || g.OnlyAfter != 1 || g.OnlyBefore != 0 || g.Approximate || len(g.Examples) != 0 ||
		len(g.Unmatched) != 1 || jsonOf(t, g.Unmatched[0]) != `{"side":"after","seq":2,"data":{"item":9}}` {
		t.Fatalf("group: %+v", g)
	}
	d := r.FirstDivergence
	if d == nil || d.Position != 2 || d.Reason != DivergedOnlyAfter || d.Before != nil || d.After.Seq != 2 || string(d.After.Data) != `{"item":9}` {
		t.Fatalf("divergence: %+v", d)
	}
	// And the other way round: one event only before.
	b := e.capture("").ID
	r = e.diff(b, a)
	checkSums(t, r)
	if g := groupOf(r, "H1", "src/cart.py:20", "item"); g == nil || g.Changed != 0 || g.OnlyBefore != 1 || g.OnlyAfter != 0 ||
		len(g.Unmatched) != 1 || g.Unmatched[0].Side != "before" || g.Unmatched[0].Seq != 2 {
		t.Fatalf("removed: %+v", g)
	}
	if d := r.FirstDivergence; d == nil || d.Position != 2 || d.Reason != DivergedOnlyBefore || d.After != nil || d.Before.Seq != 2 {
		t.Fatalf("divergence: %+v", d)
	}
}

// One value replaced is one changed value, the events around it the same.
func TestDiffSubstitutedValue(t *testing.T) {
	e := newEnv(t)
	e.run(loop("1", "2", "3", "4", "5", "6")...)
	a := e.capture("").ID
	e.reset()
	e.run(loop("1", "2", "3", "-4", "5", "6")...)
	r := e.diff(a, "")
	checkSums(t, r)
	c := r.Counts
	if !r.Complete || c.ChangedPairs != 1 || c.OnlyAfterEvents != 0 || c.OnlyBeforeEvents != 0 || c.SameEvents != 6 {
		t.Fatalf("counts: %+v", c)
	}
	g := groupOf(r, "H1", "src/cart.py:20", "item")
	if g == nil || g.Status != GroupChanged || g.Changed != 1 || len(g.Examples) != 1 || len(g.Unmatched) != 0 ||
		jsonOf(t, g.Examples[0]) != `{"beforeSeq":4,"afterSeq":4,"before":{"item":4},"after":{"item":-4},"fields":[{"path":".item","before":"4","after":"-4"}],"moreFields":0}` {
		t.Fatalf("group: %+v", g)
	}
	if d := r.FirstDivergence; d == nil || d.Position != 4 || d.Reason != DivergedData {
		t.Fatalf("divergence: %+v", d)
	}
}

// Removed in one place and added in another, as many each: the group is
// edited, not changed, and no value is called changed.
func TestDiffEditedGroup(t *testing.T) {
	e := newEnv(t)
	e.run(loop("1", "2", "3", "4")...)
	a := e.capture("").ID
	e.reset()
	e.run(loop("2", "3", "4", "1")...)
	r := e.diff(a, "")
	checkSums(t, r)
	g := groupOf(r, "H1", "src/cart.py:20", "item")
	if g == nil || g.Status != GroupEdited || g.Changed != 0 || g.OnlyBefore != 1 || g.OnlyAfter != 1 || r.Counts.Edited != 1 || r.Identical {
		t.Fatalf("group: %+v", g)
	}
	if r.Groups[0].Status != GroupEdited {
		t.Fatalf("an edited group is a differing one: %+v", r.Groups)
	}
}

// Past the edit bound a group is paired by position between its common
// start and end, and says so: the comparison is not whole.
func TestDiffApproximateGroup(t *testing.T) {
	defer func(n int) { MaxDiffEdits = n }(MaxDiffEdits)
	e := newEnv(t)
	e.run(loop("0", "1", "2", "3", "4", "5", "9")...)
	a := e.capture("").ID
	e.reset()
	e.run(loop("0", "-1", "1", "-2", "2", "-3", "3", "-4", "4", "5", "9")...)
	MaxDiffEdits = 4 // the alignment needs 4 insertions
	r := e.diff(a, "")
	checkSums(t, r)
	if g := groupOf(r, "H1", "src/cart.py:20", "item"); !r.Complete || g.Approximate || g.Changed != 0 || g.OnlyAfter != 4 || r.Counts.Approximate != 0 {
		t.Fatalf("within the bound: %+v %+v", r.Counts, g)
	}
	MaxDiffEdits = 3
	r = e.diffWith(DiffOptions{From: a, Mode: ModeAlign})
	checkSums(t, r)
	g := groupOf(r, "H1", "src/cart.py:20", "item")
	// 0 and 4 5 9 are the common start and end; 1 2 3 pair with -1 1 -2
	// by position, and 2 -3 3 -4 are left over.
	if r.Complete || r.Identical || r.Counts.Approximate != 1 || g == nil || !g.Approximate || g.Changed != 3 || g.OnlyAfter != 4 || g.OnlyBefore != 0 {
		t.Fatalf("past the bound: %+v %+v", r.Counts, g)
	}
	if g := groupOf(r, "H2", "src/cart.py:30", "done"); g.Approximate || g.Status != GroupSame {
		t.Fatalf("other groups are aligned: %+v", g)
	}
	if r.Mode != ModeAlign || r.ModeReason != "asked for with --mode align" {
		t.Fatalf("mode: %s, %s", r.Mode, r.ModeReason)
	}
	// Left to choose, the comparison counts values instead, and is whole.
	r = e.diff(a, "")
	if r.Mode != ModeDistribution || !strings.Contains(r.ModeReason, "1 group needed more than 3 edits") || !r.Complete || r.Distribution == nil {
		t.Fatalf("auto: %s, %s, complete %v", r.Mode, r.ModeReason, r.Complete)
	}
}

// The same events per group, interleaved in another order: every group is
// the same, but the runs diverge where the order does.
func TestDiffInterleaving(t *testing.T) {
	e := newEnv(t)
	e.run("H1|a.py:1|x|1", "H2|a.py:2|y|2", "H1|a.py:1|x|3")
	a := e.capture("").ID
	e.reset()
	e.run("H1|a.py:1|x|1", "H1|a.py:1|x|3", "H2|a.py:2|y|2")
	r := e.diff(a, "")
	checkSums(t, r)
	if r.Identical || r.Counts.Same != 2 || r.Counts.SameEvents != 3 {
		t.Fatalf("interleaving: %+v", r.Counts)
	}
	// Cited as one event of one group, at its position on each side.
	if d := r.FirstDivergence; d == nil || d.Position != 2 || d.Reason != DivergedOrder || d.Before.Seq != 2 || d.Before.Position != 2 ||
		d.After.Seq != 3 || d.After.Position != 3 || d.Before.Hypothesis != "H2" || d.After.Hypothesis != "H2" {
		t.Fatalf("divergence: %+v", d)
	}
}

// A key with escapes is matched by its text, in hashing and in listing.
func TestFilterEscapedKey(t *testing.T) {
	f, err := newFilter(nil, []string{`["a\"b"]`, `["té"]`})
	if err != nil {
		t.Fatal(err)
	}
	a, b := []byte(`{"a\"b":1,"t\u00e9":1,"x":2}`), []byte(`{"a\"b":5,"té":9,"x":2}`)
	if filteredHash(a, f) != filteredHash(b, f) {
		t.Error("ignored keys with escapes still count")
	}
	if filteredHash(a, f) == filteredHash([]byte(`{"a\"b":1,"x":3}`), f) {
		t.Error("a kept field does not count")
	}
	if got, _ := fieldChanges(a, b, f); len(got) != 0 {
		t.Errorf("ignored keys listed: %s", jsonOf(t, got))
	}
}
