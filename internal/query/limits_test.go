package query

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// livePeak runs f and returns how far the live heap grew above where it
// was before: the most any collection during f found still in use (the
// collector runs often meanwhile). Garbage not yet collected does not
// count, so the figure is what f keeps, whatever the machine's load.
func livePeak(f func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	sample := []metrics.Sample{{Name: heapLive}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: heapLive}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return int64(peak.Load()) - int64(base)
}

// TestSlurpOverLimitIsRefusedBeforeReading: a --slurp over more events than
// MaxSlurp is refused from the index counts, before any event is read or
// decoded, with the limit and what to do instead. Before, --slurp on
// 210,000 events decoded 200,000 of them (146 MiB, 6.4 s) to find out, and
// --slurp length on 400,000 ran into the time limit instead.
func TestSlurpOverLimitIsRefusedBeforeReading(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large session")
	}
	s := benchSession(t, 210_000)
	for _, c := range []struct {
		name   string
		prog   string
		filter store.Filter
		want   []string
	}{
		// A program reading whole events: the 15,000-event limit.
		{"all events", `map(tojson) | length`, store.Filter{}, wholeLimit},
		{"a filter the index answers", `map(tojson) | length`, store.Filter{Hypotheses: []string{"H1", "H2"}}, wholeLimit},
		{"a filter on the text", `map(tojson) | length`, store.Filter{Location: "src/cart/total.py"}, wholeLimit},
		// A program reading only fields by name: the 150,000-event limit.
		{"fields, all events", `length`, store.Filter{}, fieldsLimit},
		{"fields, a filter on the text", `length`, store.Filter{Location: "src/cart/total.py"}, fieldsLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			grew := livePeak(func() {
				_, err = Run(context.Background(), s, Spec{Program: c.prog, Slurp: true, Filter: c.filter}, Position{}, 0)
			})
			if !errors.Is(err, ErrBound) {
				t.Fatalf("--slurp over 210,000 events: %v, want the slurp limit", err)
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not mention %q", err, want)
				}
			}
			if grew > 8<<20 {
				t.Fatalf("refusing the slurp grew the heap by %d MiB: events were decoded before the count was checked", grew>>20)
			}
		})
	}

	// Filters that bring the events under the limit make the slurp work,
	// and a program that maps all MaxSlurp of them fits in MaxMemory.
	for _, c := range []struct {
		filter store.Filter
		want   int
	}{{store.Filter{SeqFrom: 1000, SeqTo: 1000 + MaxSlurp - 1}, MaxSlurp}, {store.Filter{Location: "src/cart/total.py:101"}, 4200}} {
		prog := `map({h: .hypothesisId, t: .data.total, c: .data.cart}) | group_by(.h) | map(length) | add`
		p, err := Run(context.Background(), s, Spec{Program: prog, Slurp: true, Filter: c.filter}, Position{}, 0)
		if err != nil || len(p.Values) != 1 {
			t.Fatalf("--slurp with filter %+v: %v %v", c.filter, p.Values, err)
		}
		if string(p.Values[0]) != strconv.Itoa(c.want) {
			t.Fatalf("--slurp with filter %+v counted %s events, want %d", c.filter, p.Values[0], c.want)
		}
	}
}

// What the slurp refusals must say: the limit, the -n form built from the
// program, and the filters.
var (
	wholeLimit  = []string{"15,000 events", "5 MiB", "may slurp 150,000", `-n 'reduce inputs as $e (0; . + 1)'`, "--hypothesis"}
	fieldsLimit = []string{"150,000 events", `-n 'reduce inputs as $e (0; . + 1)'`, "`status`", "--hypothesis"}
)

// TestQueryMemoryIsBounded: a program that builds a large value is stopped
// once the heap has grown MaxMemory, with a message naming the limit and
// what to do instead, and the heap never grows far past it. A program that
// allocates as much but keeps little is not stopped. Before, a program
// building a large array took whatever memory it built (5,000,000 numbers:
// about 120 MiB).
func TestQueryMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of MiB when the bound does not hold")
	}
	s := benchSession(t, 3_000)
	for _, c := range []struct {
		name  string
		spec  Spec
		stops bool
	}{
		{"a large array from one event", Spec{Program: `[range(5000000)] | length`, Filter: store.Filter{SeqTo: 1}}, true},
		{"a long string from one event", Spec{Program: `[range(3000000) | tostring] | join(",") | length`, Filter: store.Filter{SeqTo: 1}}, true},
		{"pairs of every slurped event", Spec{Program: `[.[] as $a | .[] | {a: $a.sequence, b: .sequence}] | length`, Slurp: true}, true},
		{"much garbage, little kept", Spec{Program: `reduce range(1000000) as $i (0; . + ([$i, $i] | add))`, Filter: store.Filter{SeqTo: 1}}, false},
		{"a streaming walk over every event", Spec{Program: `select(.data.items > 5) | {s: .sequence, c: .data.cart}`, Limit: 1000}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			grew := livePeak(func() { _, err = Run(context.Background(), s, c.spec, Position{}, 0) })
			t.Logf("heap grew %d MiB: %v", grew>>20, err)
			if !c.stops {
				if err != nil {
					t.Fatalf("a program that keeps little was stopped: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrMemory) {
				t.Fatalf("got %v, want the memory limit", err)
			}
			for _, want := range []string{"24 MiB", "--hypothesis", "with -n", "-n 'reduce inputs as $e ("} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not mention %q", err, want)
				}
			}
			// The watchdog looks every millisecond; on top of the limit
			// comes what is allocated until the program sees the
			// cancellation, at worst one growth step of an array (its old
			// and new backing arrays live together while it is copied).
			if grew > 5*MaxMemory/2 {
				t.Fatalf("the heap grew %d MiB before the query was stopped; the limit is %d MiB", grew>>20, MaxMemory>>20)
			}
		})
	}
}

// TestSlurpOfFieldsGoesPastTheWholeEventLimit: a --slurp program that only
// reads fields by name decodes just those fields, and equal ones once, so it
// aggregates far more events than the 15,000 / 5 MiB of whole events, exactly,
// within the query's 24 MiB. Before, all of these were refused.
func TestSlurpOfFieldsGoesPastTheWholeEventLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large session")
	}
	s := benchSession(t, MaxSlurpFields)
	for _, c := range []struct {
		prog   string
		filter store.Filter
		want   string
	}{
		{`length`, store.Filter{}, "150000"},
		{`map(select(.data.items == 3)) | length`, store.Filter{}, "21429"},
		{`map(.hypothesisId) | unique`, store.Filter{}, `["H1","H2","H3","H4","H5"]`},
		{`group_by(.data.items) | map({k: .[0].data.items, n: length})`, store.Filter{},
			`[{"k":0,"n":21429},{"k":1,"n":21429},{"k":2,"n":21429},{"k":3,"n":21429},{"k":4,"n":21428},{"k":5,"n":21428},{"k":6,"n":21428}]`},
		{`group_by(.hypothesisId) | map({h: .[0].hypothesisId, n: length, items: (map(.data.items) | max)})`, store.Filter{SeqTo: 100_000},
			`[{"h":"H1","items":6,"n":20000},{"h":"H2","items":6,"n":20000},{"h":"H3","items":6,"n":20000},{"h":"H4","items":6,"n":20000},{"h":"H5","items":6,"n":20000}]`},
	} {
		var p Page
		var err error
		grew := livePeak(func() {
			p, err = Run(context.Background(), s, Spec{Program: c.prog, Slurp: true, Filter: c.filter}, Position{}, 0)
		})
		t.Logf("%s: heap grew %.1f MiB", c.prog, float64(grew)/(1<<20))
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		if len(p.Values) != 1 || string(p.Values[0]) != c.want {
			t.Fatalf("%s: %s, want %s", c.prog, p.Values, c.want)
		}
	}
	// Past what fits, the watchdog stops it and offers the -n form.
	_, err := Run(context.Background(), s, Spec{Program: `group_by(.data.cart) | map({c: .[0].data.cart, n: length})`, Slurp: true}, Position{}, 0)
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("grouping 150,000 distinct carts: %v, want the memory limit", err)
	}
	for _, want := range []string{"24 MiB", "--slurp holds every event", `-n 'reduce inputs as $e ({}; .[$e.data.cart | tostring] += 1)'`, "--hypothesis"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
}
