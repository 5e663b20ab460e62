//go:build !race

// Memory bounds are measured without the race detector, which changes what
// the heap holds and runs the bodies many times slower.

package store

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heapPeak runs f and returns how far the heap grew above where it was
// before f, sampled every millisecond with a collector that runs often (so
// the figure is close to what f keeps live).
func heapPeak(f func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return int64(peak.Load()) - int64(base.HeapAlloc)
}

// TestIngestHTTPBodyCostsConstantMemory: what an 8 MiB body costs beyond the
// body itself does not grow with its number of lines, good or bad. A body of
// 2.8 million refused lines once kept a rejection for each (hundreds of MiB).
func TestIngestHTTPBodyCostsConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 8 MiB bodies")
	}
	const size = 8 << 20
	good := `{"hypothesisId":"H1","location":"src/cart/total.py:128","message":"discount applied","data":{"cart":"c-1","items":3,"password":"hunter2"},"timestamp":1784313728231,"runId":"r1"}`
	for _, c := range []struct {
		name             string
		lines            []string
		accepted, reject int // per repetition of lines
	}{
		{"bad lines", []string{"{}"}, 0, 1},
		{"good and bad lines", []string{good, "{}", "not json", `{"hypothesisId":"H1"}`, good, "[1]"}, 2, 4},
		{"good lines", []string{good}, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, _ := testStore(t)
			s, err := st.Create()
			if err != nil {
				t.Fatal(err)
			}
			unit := strings.Join(c.lines, "\n") + "\n"
			reps := size / len(unit)
			body := []byte(strings.Repeat(unit, reps))
			var acc, rej int
			grew := heapPeak(func() { acc, rej, err = s.IngestHTTP(body) })
			if err != nil {
				t.Fatal(err)
			}
			if acc != reps*c.accepted || rej != reps*c.reject {
				t.Fatalf("accepted %d, rejected %d; want %d, %d", acc, rej, reps*c.accepted, reps*c.reject)
			}
			st2, err := s.Status()
			if err != nil || st2.Events != int64(acc) || st2.Rejected != int64(rej) {
				t.Fatalf("status %+v (%v), want %d events and %d rejected", st2, err, acc, rej)
			}
			t.Logf("%d lines: heap grew %.1f MiB", reps*len(c.lines), float64(grew)/(1<<20))
			// A few MiB are the part being validated and the garbage the
			// collector has not reached yet; holding every line's outcome
			// costs tens to hundreds of MiB.
			if grew > 8<<20 {
				t.Fatalf("ingesting an 8 MiB body of %d lines grew the heap by %.1f MiB beyond the body; it must stay under 8 MiB whatever the lines hold",
					reps*len(c.lines), float64(grew)/(1<<20))
			}
		})
	}
}
