package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// cacheRun is a load test of a lock-protected cache as a probe sees it:
// 48 workers look up random keys, each lookup one event posted to the
// Ingest URL in small batches from its own worker, so the events arrive
// interleaved differently in every run. Before the fix, every 40th lookup
// of the first 28,960 reads an entry whose refresh is still in flight
// (stale: 724 lookups); after it, none does.
func cacheRun(t *testing.T, url string, fixed bool) {
	t.Helper()
	const workers, perWorker, batch = 48, 605, 25
	var n atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex // the cache's lock
	cache := map[string]int{}
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var body strings.Builder
			send := func() {
				if body.Len() == 0 {
					return
				}
				resp, err := http.Post(url, "application/x-ndjson", strings.NewReader(body.String()))
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("POST: %s", resp.Status)
					}
				}
				if err != nil {
					errs <- err
				}
				body.Reset()
			}
			for i := 0; i < perWorker; i++ {
				k := make([]byte, 8)
				rand.Read(k)
				key := hex.EncodeToString(k)
				mu.Lock()
				_, hit := cache[key]
				cache[key] = w
				mu.Unlock()
				seq := n.Add(1)
				stale := !fixed && seq%40 == 0 && seq <= 28960
				fmt.Fprintf(&body, `{"hypothesisId":"H1","location":"cache.go:88","message":"lookup","data":{"key":"%s","worker":%d,"hit":%v,"stale":%v},"timestamp":%d}`+"\n",
					key, w, hit, stale, time.Now().UnixMilli())
				if i%100 == 99 {
					fmt.Fprintf(&body, `{"hypothesisId":"H2","location":"cache.go:131","message":"refresh","data":{"worker":%d},"timestamp":%d}`+"\n", w, time.Now().UnixMilli())
				}
				if (i+1)%batch == 0 {
					send()
				}
			}
			send()
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestDiffNonDeterministicRun: two captures of a run with random keys and
// thread interleavings. Aligning events one by one would pair 29,040 random
// keys as changed values; diff sees that, counts values instead, and its
// first line is the one signal that matters: stale true 724 → 0.
func TestDiffNonDeterministicRun(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	cacheRun(t, s.IngestURL, false)
	before := captureID(t, e.MustRun("capture", "--session", s.SessionID, "--label", "before fix", "--source-root", t.TempDir()))
	e.MustRun("reset", "--session", s.SessionID)
	cacheRun(t, s.IngestURL, true)
	after := captureID(t, e.MustRun("capture", "--session", s.SessionID, "--label", "after fix", "--source-root", t.TempDir()))

	out := e.MustRun("diff", "--session", s.SessionID, "--from", before, "--to", after)
	lines := strings.Split(out, "\n")
	var first string
	for i, l := range lines {
		if strings.HasPrefix(l, "Distributions per group and data path") && i+1 < len(lines) {
			first = lines[i+1]
		}
	}
	if !strings.Contains(out, "\nWhole comparison: every event of both sides was compared.\n") ||
		!strings.Contains(out, "\nMode: distribution (automatic: 1 group needed more than 2000 edits to align, so pairing events one by one would be approximate); ") ||
		strings.Contains(out, "First divergence") || strings.Contains(out, "Changed values") {
		t.Fatalf("diff:\n%s", out)
	}
	if first != "  H1 cache.go:88 lookup  .stale  true 724 → 0 · false 28316 → 29040" {
		t.Fatalf("the first distribution line is %q, not the stale flip:\n%s", first, out)
	}

	// The JSON envelope carries the same, and the alignment it set aside.
	var r struct {
		Mode   string
		Counts struct {
			ChangedPairs int64 `json:"changedValues"`
		}
		Distribution struct {
			BeforeEvents, AfterEvents int64
			Paths                     []struct {
				Path                          string
				BeforeDistinct, AfterDistinct int
				Values                        []struct {
					Value         string
					Before, After int64
				}
			}
		}
	}
	e.JSON(&r, "diff", "--session", s.SessionID, "--from", before, "--to", after)
	d := r.Distribution
	if r.Mode != "distribution" || r.Counts.ChangedPairs < 29000 || d.BeforeEvents != 29040+288 || d.AfterEvents != 29040+288 ||
		len(d.Paths) < 2 || d.Paths[0].Path != ".stale" || d.Paths[0].Values[0].Value != "true" || d.Paths[0].Values[0].Before != 724 || d.Paths[0].Values[0].After != 0 {
		t.Fatalf("json: %+v", r)
	}
	for _, p := range d.Paths {
		if p.Path == ".key" && (p.BeforeDistinct != 29040 || p.AfterDistinct != 29040) {
			t.Fatalf("keys: %+v", p)
		}
	}
	// Leaving the random key out of alignment and comparison, the events of
	// a worker still differ by interleaving and by hit: the mode stays
	// distribution, and the flip stays first.
	out = e.MustRun("diff", "--session", s.SessionID, "--from", before, "--to", after, "--ignore", ".key")
	if !strings.Contains(out, "\nData compared: without .key.\n") || !strings.Contains(out, "\n  H1 cache.go:88 lookup  .stale  true 724 → 0 · false 28316 → 29040\n") {
		t.Fatalf("--ignore .key:\n%s", out)
	}
}

func captureID(t *testing.T, out string) string {
	t.Helper()
	f := strings.Fields(out)
	if len(f) < 2 || f[0] != "CAPTURE" {
		t.Fatalf("capture printed %q", out)
	}
	return f[1]
}
