package query

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// TestReadingLargeSessionStaysBounded: paging logs and streaming a query
// over a large session keep the heap small; nothing loads the whole cycle.
// 300,000 events are ~85 MB on disk and several hundred MB decoded.
func TestReadingLargeSessionStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large session")
	}
	s := benchSession(&testing.B{}, 300_000)
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
			case <-time.After(2 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()
	for _, offset := range []int{0, 150_000, 299_950} {
		if _, err := s.Logs(storeFilter(), offset, 50, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, prog := range []string{`select(.data.cart | endswith("0000")) | .sequence`, `select(.data.items > 5) | .data.cart`} {
		if _, err := Run(context.Background(), s, Spec{Program: prog, Limit: 100}, Position{}, 0); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	grew := int64(peak.Load()) - int64(base.HeapAlloc)
	t.Logf("heap before %d MiB, peak growth while reading %d MiB", base.HeapAlloc>>20, grew>>20)
	if grew > 48<<20 {
		t.Fatalf("reading grew the heap by %d MiB; it must stay bounded (under 48 MiB) whatever the session size", grew>>20)
	}
}

func storeFilter() (f store.Filter) { return }
