package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// The store pipeline in-process, without HTTP or the CLI: validate, redact,
// number, append and index a 400-record batch. bench/ingest measures the
// same through the real service. Run with
//
//	go test -run '^$' -bench . -benchtime 2500x ./internal/store/
//
// (2500 batches of 400 is 1,000,000 events.)

const benchBatch = 400

// benchStore opens a store on a fresh state root and makes one session.
func benchStore(b *testing.B) *store.Session {
	b.Helper()
	root, err := safefs.OpenRoot(filepath.Join(b.TempDir(), "state"))
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(root, time.Now, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close(); root.Close() })
	sess, err := st.Create()
	if err != nil {
		b.Fatal(err)
	}
	return sess
}

// batchBody is n ~200-byte records, one per line, shaped like the language
// templates' probes. Each timestamp is 13 digits; tsAt holds where each
// starts so stamp can renumber them without changing the body's length.
type batchBody struct {
	body []byte
	tsAt []int
}

func newBatch(n int) *batchBody {
	bb := &batchBody{}
	for i := range n {
		sub := 1000 + (i*7919)%99000
		total := sub * 9 / 10
		bb.body = fmt.Appendf(bb.body, `{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total",`+
			`"data":{"cart":"c-%06d","items":%d,"subtotal":%d.%02d,"discount":0.1,"total":%d.%02d},"timestamp":`,
			1+i%5, 100+i%60, i, 1+i%9, sub/100, sub%100, total/100, total%100)
		bb.tsAt = append(bb.tsAt, len(bb.body))
		bb.body = append(bb.body, "1784313728231}\n"...)
	}
	return bb
}

// stamp gives the batch's records rising timestamps from first on, as a
// probe's clock would: the store then appends to its time index rather
// than inserting into it.
func (bb *batchBody) stamp(first int64) {
	var d [13]byte
	for i, at := range bb.tsAt {
		v := strconv.AppendInt(d[:0], 1784313728231+first+int64(i), 10)
		copy(bb.body[at:at+13], v)
	}
}

func reportRate(b *testing.B, events int64) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

// BenchmarkIngestHTTPBatch is Session.IngestHTTP on one 400-record NDJSON
// body, the work the service does per POST after reading the body.
func BenchmarkIngestHTTPBatch(b *testing.B) {
	sess := benchStore(b)
	bb := newBatch(benchBatch)
	b.SetBytes(int64(len(bb.body)))
	b.ReportAllocs()
	var events int64
	for b.Loop() {
		bb.stamp(events)
		acc, rej, err := sess.IngestHTTP(bb.body)
		if err != nil || acc != benchBatch || rej != 0 {
			b.Fatalf("accepted %d, rejected %d: %v", acc, rej, err)
		}
		events += int64(acc)
	}
	reportRate(b, events)
}

// BenchmarkIngestHTTPBatchWithRoot is BenchmarkIngestHTTPBatch in a session
// with a project root, so every location goes through the normalizer (the
// batch's locations name no file there: each distinct path is looked up
// once, then answered from the cache).
func BenchmarkIngestHTTPBatchWithRoot(b *testing.B) {
	sess := benchStore(b)
	if err := sess.SetProjectRoot(b.TempDir()); err != nil {
		b.Fatal(err)
	}
	bb := newBatch(benchBatch)
	b.SetBytes(int64(len(bb.body)))
	b.ReportAllocs()
	var events int64
	for b.Loop() {
		bb.stamp(events)
		acc, rej, err := sess.IngestHTTP(bb.body)
		if err != nil || acc != benchBatch || rej != 0 {
			b.Fatalf("accepted %d, rejected %d: %v", acc, rej, err)
		}
		events += int64(acc)
	}
	reportRate(b, events)
}

// BenchmarkIngestHTTPBatchParallel posts batches to one session from
// GOMAXPROCS goroutines, as concurrent HTTP requests do. The session's
// mutex is held for the whole pipeline, so this shows how much of it runs
// in parallel.
func BenchmarkIngestHTTPBatchParallel(b *testing.B) {
	sess := benchStore(b)
	b.SetBytes(int64(len(newBatch(benchBatch).body)))
	b.ReportAllocs()
	var events atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		bb := newBatch(benchBatch)
		for pb.Next() {
			bb.stamp(events.Add(benchBatch) - benchBatch)
			acc, rej, err := sess.IngestHTTP(bb.body)
			if err != nil || acc != benchBatch || rej != 0 {
				b.Errorf("accepted %d, rejected %d: %v", acc, rej, err)
				return
			}
		}
	})
	reportRate(b, events.Load())
}

// BenchmarkDrainSpool appends 400-line batches to the append path, one
// write each (untimed: that is the probe's cost), then times DrainSpool
// taking them in. batches=1 is what a 200 ms poll sees from a steady
// writer; batches=25 (about 2 MiB) is a backlog, drained in 1 MiB reads.
func BenchmarkDrainSpool(b *testing.B) {
	for _, batches := range []int{1, 25} {
		b.Run(fmt.Sprintf("batches=%d", batches), func(b *testing.B) {
			sess := benchStore(b)
			f, err := os.OpenFile(sess.AppendPath(), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			bb := newBatch(benchBatch)
			b.SetBytes(int64(len(bb.body) * batches))
			b.ReportAllocs()
			var events int64
			for b.Loop() {
				b.StopTimer()
				for range batches {
					bb.stamp(events)
					if _, err := f.Write(bb.body); err != nil {
						b.Fatal(err)
					}
					events += benchBatch
				}
				b.StartTimer()
				if err := sess.DrainSpool(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			st, err := sess.Status()
			if err != nil || st.Events != events || st.Rejected != 0 {
				b.Fatalf("status: %d events, %d rejected, want %d: %v", st.Events, st.Rejected, events, err)
			}
			reportRate(b, events)
		})
	}
}

// BenchmarkIngestHTTPRefusedLines is Session.IngestHTTP on an 8 MiB body of
// refused lines (`{}`), the cheapest hostile body: its cost is per line, and
// past the cycle's diagnostics a refused line is only counted.
func BenchmarkIngestHTTPRefusedLines(b *testing.B) {
	sess := benchStore(b)
	body := []byte(strings.Repeat("{}\n", (8<<20)/3))
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		if _, rej, err := sess.IngestHTTP(body); err != nil || rej != len(body)/3 {
			b.Fatalf("rejected %d, want %d: %v", rej, len(body)/3, err)
		}
	}
	reportRate(b, int64(b.N)*int64(len(body)/3))
}
