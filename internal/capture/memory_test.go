package capture

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// TestReadingLargeCaptureStaysBounded: opening (hashing and indexing) a
// 100,000-event capture, paging it with links, and comparing it with
// another keep the heap to a small fraction of the capture's size.
func TestReadingLargeCaptureStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large capture")
	}
	const n = 100_000
	e := newEnv(t)
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total","data":{"cart":"c-%06d","items":%d,"subtotal":129.95,"discount":0.1,"total":116.96},"timestamp":%d}`+"\n",
			i%5+1, 100+i%50, i, i%7, 1796083100000+int64(i))
		if (i+1)%2000 == 0 {
			if _, _, err := e.sess.IngestHTTP([]byte(b.String())); err != nil {
				t.Fatal(err)
			}
			b.Reset()
		}
	}
	a := e.capture("").ID
	size := e.open(a).Index.Bytes

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
	c, err := e.cs.Open(e.sess.ID(), a, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int{0, 50_000, 99_950} {
		if _, err := c.LogsPage(store.Filter{}, off, 50); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	if _, err := e.cs.Diff(e.sess, DiffOptions{From: a}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	grew := int64(peak.Load()) - int64(base.HeapAlloc)
	t.Logf("capture %d MiB; heap peak growth while reading %d MiB", size>>20, grew>>20)
	if grew > size/2 {
		t.Fatalf("reading a %d MiB capture grew the heap by %d MiB; it must stream", size>>20, grew>>20)
	}
}
