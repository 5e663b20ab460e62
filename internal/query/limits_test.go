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
	s := benchSession(&testing.B{}, 210_000)
	for _, c := range []struct {
		name   string
		filter store.Filter
	}{
		{"all events", store.Filter{}},
		{"a filter the index answers", store.Filter{Hypotheses: []string{"H1", "H2"}}},
		{"a filter on the text", store.Filter{Location: "src/cart/total.py"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			grew := livePeak(func() {
				_, err = Run(context.Background(), s, Spec{Program: "length", Slurp: true, Filter: c.filter}, Position{}, 0)
			})
			if !errors.Is(err, ErrBound) {
				t.Fatalf("--slurp over 210,000 events: %v, want the slurp limit", err)
			}
			for _, want := range []string{"15,000 events", "5 MiB", "--hypothesis", "without --slurp"} {
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
	s := benchSession(&testing.B{}, 3_000)
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
			for _, want := range []string{"24 MiB", "--hypothesis", "--slurp"} {
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
