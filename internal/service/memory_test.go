//go:build !race

// Memory bounds are measured without the race detector, which changes what
// the heap holds and runs the bodies many times slower.

package service

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBodyBudgetBoundsMemory: four 8 MiB bodies of refused lines posted at
// once cost the service at most its budget for larger bodies plus a little:
// they are read within BodyBudgetBytes and validated a part at a time.
// Before, each body's refused lines were all kept (GiBs for four).
func TestBodyBudgetBoundsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("posts 32 MiB")
	}
	ts := startServer(t, Config{})
	sess := ts.create(t)
	const parallel = 4
	for _, c := range []struct {
		name string
		line string
	}{
		{"refused lines", "{}"},
		{"good lines", strings.TrimSuffix(secRecord("H1"), "\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(strings.Repeat(c.line+"\n", MaxBodyBytes/(len(c.line)+1)))
			lines := MaxBodyBytes / (len(c.line) + 1)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: parallel}}
			var results [parallel]IngestResult
			var codes [parallel]int
			grew := heapPeak(t, func() {
				var wg sync.WaitGroup
				for i := range parallel {
					wg.Add(1)
					go func() {
						defer wg.Done()
						req := ts.ingestReq(t, sess.SessionID, "")
						req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
						resp, err := client.Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						defer resp.Body.Close()
						codes[i] = resp.StatusCode
						json.NewDecoder(resp.Body).Decode(&results[i])
					}()
				}
				wg.Wait()
			})
			for i, r := range results {
				if codes[i] != http.StatusOK || r.Accepted+r.Rejected != lines {
					t.Fatalf("body %d: %d %+v, want %d lines counted", i, codes[i], r, lines)
				}
			}
			t.Logf("%d × %d-byte bodies of %s: heap grew %.1f MiB", parallel, len(body), c.name, float64(grew)/(1<<20))
			// The budget holds two of these bodies at once; on top come a
			// finished body the collector has not reached yet, the parts
			// being validated and the index of the stored events. Keeping
			// every line's outcome, as before, cost 166 MiB for good lines
			// and 3.7 GiB for refused ones.
			if limit := int64(BodyBudgetBytes + MaxBodyBytes + 12<<20); grew > limit {
				t.Fatalf("%d bodies of %d bytes grew the heap by %.1f MiB; the budget for bodies is %d MiB, so it must stay under %d MiB",
					parallel, len(body), float64(grew)/(1<<20), BodyBudgetBytes>>20, limit>>20)
			}
		})
	}
}

// heapPeak runs f and returns how far the heap grew above where it was
// before, sampled every millisecond with a collector that runs often.
func heapPeak(t *testing.T, f func()) int64 {
	t.Helper()
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
