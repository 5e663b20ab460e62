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
	"runtime/metrics"
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
			grew := livePeak(t, func() {
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
			// The budget holds two of these bodies at once; on top come the
			// parts being validated (a heap profile at the peak puts ~6 MiB
			// in store.checkLine), the index of the stored events, and what
			// was allocated during a concurrent mark, which the live-heap
			// figure counts as live: on a loaded machine, where marking takes
			// longer, that alone has lifted the figure from ~21 to 26 MiB.
			// Keeping every line's outcome, as before, cost 121 MiB of live heap
			// for good lines and 3.0 GiB for refused ones, so the bound still
			// tells a regression from noise by a factor of four.
			if limit := int64(BodyBudgetBytes + 14<<20); grew > limit {
				t.Fatalf("%d bodies of %d bytes grew the heap by %.1f MiB; the budget for bodies is %d MiB, so it must stay under %d MiB",
					parallel, len(body), float64(grew)/(1<<20), BodyBudgetBytes>>20, limit>>20)
			}
		})
	}
}

// livePeak runs f and returns how far the live heap grew above where it
// was before: the most any collection during f found still in use (the
// collector runs often meanwhile). Garbage not yet collected does not
// count, so the figure is what f keeps, whatever the machine's load.
func livePeak(t *testing.T, f func()) int64 {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
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
