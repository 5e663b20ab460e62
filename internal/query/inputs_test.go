package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// TestNullInputAggregatesAMillionEvents: with -n, reduce over inputs counts
// and groups 1,000,000 events exactly, and the live heap grows by what the
// program keeps (a few counters), not by the events: decoded whole they
// would take ~900 MiB, and --slurp refuses them (the most it loads is
// 150,000). Before, input and inputs were refused outright.
func TestNullInputAggregatesAMillionEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,000,000-event session")
	}
	const n = 1_000_000
	s := benchSession(t, n)
	timeout = 5 * time.Minute // about 3 s alone; much more beside other builds
	defer func() { timeout = Timeout }()
	perItems := map[string]int{}
	for i := 0; i < n; i++ {
		perItems[fmt.Sprint(i%7)]++
	}
	wantItems, _ := json.Marshal(perItems)
	for _, c := range []struct {
		prog   string
		filter store.Filter
		want   string
	}{
		{`reduce inputs as $e (0; . + 1)`, store.Filter{}, "1000000"},
		{`reduce inputs as $e ({}; .[$e.hypothesisId] += 1)`, store.Filter{}, `{"H1":200000,"H2":200000,"H3":200000,"H4":200000,"H5":200000}`},
		{`reduce inputs as $e ({}; .[$e.data.items | tostring] += 1)`, store.Filter{}, string(wantItems)},
		{`reduce inputs as $e (null; [., $e.timestamp] | max) - 1784313728231`, store.Filter{}, "999999"},
		{`reduce inputs as $e ({}; .[$e.location] += 1) | length`, store.Filter{}, "50"},
		{`reduce inputs as $e (0; . + 1)`, store.Filter{Hypotheses: []string{"H2"}}, "200000"},
		// This one keeps 200,000 values (~5 MiB): bounded by the watchdog only.
		{`[inputs | .data.items] | max`, store.Filter{Hypotheses: []string{"H3"}}, "6"},
	} {
		collects := strings.HasPrefix(c.prog, "[inputs")
		var p Page
		var err error
		grew := livePeak(func() {
			p, err = Run(context.Background(), s, Spec{Program: c.prog, NullInput: true, Filter: c.filter}, Position{}, 0)
		})
		t.Logf("%s: heap grew %.1f MiB", c.prog, float64(grew)/(1<<20))
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		if len(p.Values) != 1 || string(p.Values[0]) != c.want || !p.Complete {
			t.Fatalf("%s: %s (complete %v), want %s", c.prog, p.Values, p.Complete, c.want)
		}
		if c.filter.Hypotheses == nil && (p.Events != n || p.Matched != n) {
			t.Errorf("%s: read %d events, matched %d, want %d", c.prog, p.Events, p.Matched, n)
		}
		if grew > 12<<20 && !collects {
			t.Errorf("%s: the heap grew %d MiB over %d events; a reduce over inputs must keep only its state", c.prog, grew>>20, n)
		}
	}
	// The same count with --slurp is refused at once, and says how.
	_, err := Run(context.Background(), s, Spec{Program: `length`, Slurp: true}, Position{}, 0)
	if !errors.Is(err, ErrBound) || !strings.Contains(err.Error(), `-n 'reduce inputs as $e (0; . + 1)'`) {
		t.Fatalf("--slurp length over 1,000,000 events: %v", err)
	}
}

// TestNullInputPages: a -n program's values are paged like any query, each
// page running the program again past what was shown: the pages together
// are the one answer, in order, and only the last says complete.
func TestNullInputPages(t *testing.T) {
	s := benchSession(t, 500)
	spec := Spec{Program: `inputs | select(.data.items == 3) | .sequence`, NullInput: true, Limit: 9}
	var got []string
	pos := Position{}
	for page := 0; ; page++ {
		p, err := Run(context.Background(), s, spec, pos, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range p.Values {
			got = append(got, string(v))
		}
		if p.Next == nil {
			if !p.Complete || p.Matched != 500 || p.Events != 500 {
				t.Fatalf("last page: complete %v, matched %d, read %d", p.Complete, p.Matched, p.Events)
			}
			break
		}
		if p.Complete || p.Returned != 9 || p.StoppedBy != "values" || p.Matched != -1 {
			t.Fatalf("page %d: complete %v, returned %d, stopped by %q, matched %d", page, p.Complete, p.Returned, p.StoppedBy, p.Matched)
		}
		pos = *p.Next
	}
	var want []string
	for i := 0; i < 500; i++ {
		if i%7 == 3 {
			want = append(want, fmt.Sprint(i+1))
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("pages gave %v, want %v", got, want)
	}
}

// TestNullInputBasics: the flags, the path warning and input/inputs
// outside -n.
func TestNullInputBasics(t *testing.T) {
	s := benchSession(t, 100)
	run := func(spec Spec) (Page, error) { return Run(context.Background(), s, spec, Position{}, 0) }

	if _, err := run(Spec{Program: `inputs`, NullInput: true, Slurp: true}); !errors.Is(err, ErrCompile) || !strings.Contains(err.Error(), "do not go together") {
		t.Errorf("-n with --slurp: %v", err)
	}
	if _, err := run(Spec{Program: `input`}); !errors.Is(err, ErrProgram) || !strings.Contains(err.Error(), "only with -n") {
		t.Errorf("input without -n: %v", err)
	}
	// A field no event has is warned about; the program's own state is not.
	p, err := run(Spec{Program: `reduce inputs as $e ({n: 0}; .n += 1 | .t += ($e.data.totl // 0))`, NullInput: true})
	if err != nil || string(p.Values[0]) != `{"n":100,"t":0}` {
		t.Fatalf("%s %v", p.Values, err)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "no event read has .data.totl") {
		t.Errorf("warnings %q, want one about .data.totl", p.Warnings)
	}
	// A program that reads no input runs once, on null.
	if p, err := run(Spec{Program: `[1, 2] | add`, NullInput: true}); err != nil || string(p.Values[0]) != "3" || p.Events != 0 {
		t.Errorf("-n without inputs: %s, read %d, %v", p.Values, p.Events, err)
	}
	// first(inputs) stops reading: the rest of the walk is not "matched".
	if p, err := run(Spec{Program: `first(inputs) | .sequence`, NullInput: true}); err != nil || string(p.Values[0]) != "1" || p.Matched != -1 || !p.Complete {
		t.Errorf("first(inputs): %s, matched %d, complete %v, %v", p.Values, p.Matched, p.Complete, err)
	}
}

// TestNullInputStoppedIsNeverTheEnd: when the query is stopped while the
// program reads, inputs does not just end (a program could print a partial
// count as if complete): the program gets an error, and the query fails.
func TestNullInputStoppedIsNeverTheEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	batches := make(chan *batch)
	close(batches)
	in := &eventInputs{ctx: ctx, batches: batches, paths: &pathCheck{}}
	if v, ok := in.Next(); !ok || v != errStopped || in.drained {
		t.Fatalf("Next after the walk was stopped: %v %v (drained %v), want the stop error", v, ok, in.drained)
	}
	// A program that catches that error still fails.
	s := benchSession(t, 3000)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, s, Spec{Program: `reduce (try inputs catch "x") as $e (0; . + 1)`, NullInput: true}, Position{}, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled -n query: %v, want it to fail as cancelled", err)
	}
}

// TestStreamingForms: every refusal offers a -n program built from the
// user's; where it claims the same answer, it gives the same answer.
func TestStreamingForms(t *testing.T) {
	s := benchSession(t, 700)
	for _, c := range []struct {
		prog, want string
		same       bool // the -n form answers the same
	}{
		{`length`, `reduce inputs as $e (0; . + 1)`, true},
		{`map(.data.items) | max`, `reduce inputs as $e (null; [., $e.data.items] | max)`, true},
		{`map(.data.items) | min`, `reduce inputs as $e (null; if . == null then $e.data.items else [., $e.data.items] | min end)`, true},
		{`map(.data.items) | add`, `reduce inputs as $e (null; . + $e.data.items)`, true},
		{`map(.data.items * 2) | max`, `reduce inputs as $e (null; [., ($e | .data.items * 2)] | max)`, true},
		{`map(select(.data.items > 4)) | length`, `reduce (inputs | select(.data.items > 4)) as $e (0; . + 1)`, true},
		{`map(.location) | unique`, `[inputs | .location] | unique`, true},
		{`map(.sequence)`, `[inputs | .sequence]`, true},
		{`.[] | .sequence`, `inputs | .sequence`, true},
		{`group_by(.data.items) | map({k: .[0].data.items, n: length})`, `reduce inputs as $e ({}; .[$e.data.items | tostring] += 1)`, false},
		{`group_by(.location | ascii_downcase) | map(length)`, `reduce inputs as $e ({}; .[($e | .location | ascii_downcase) | tostring] += 1)`, false},
		{`. as $e | [range(1; length) | select($e[.].timestamp < $e[. - 1].timestamp)]`, `reduce inputs as $e ({}; .[$e.location] += 1)`, false},
	} {
		got := streamingForm(c.prog, true)
		if got != c.want {
			t.Errorf("%s: offers -n '%s', want -n '%s'", c.prog, got, c.want)
			continue
		}
		slurped, err1 := Run(context.Background(), s, Spec{Program: c.prog, Slurp: true, Limit: 1000}, Position{}, 0)
		streamed, err2 := Run(context.Background(), s, Spec{Program: got, NullInput: true, Limit: 1000}, Position{}, 0)
		if err1 != nil || err2 != nil {
			t.Errorf("%s: %v / -n '%s': %v", c.prog, err1, got, err2)
			continue
		}
		if c.same && fmt.Sprint(slurped.Values) != fmt.Sprint(streamed.Values) {
			t.Errorf("%s gives %s, its -n form '%s' gives %s", c.prog, slurped.Values, got, streamed.Values)
		}
	}
	// For a -n program that collects its inputs, the reduce that does not.
	for _, c := range []struct{ prog, want string }{
		{`[inputs | .data.ms] | max`, `reduce inputs as $e (null; [., $e.data.ms] | max)`},
		{`[inputs | {t: .timestamp}] | length`, `reduce inputs as $e (0; . + 1)`},
		{`[inputs] | map(.x)`, `reduce inputs as $e ({}; .[$e.location] += 1)`},
	} {
		if got := streamingForm(c.prog, false); got != c.want {
			t.Errorf("-n %s: offers '%s', want '%s'", c.prog, got, c.want)
		}
	}
}
