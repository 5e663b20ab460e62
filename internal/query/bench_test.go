package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// benchSession builds a session of n ~200-byte events through the real
// ingestion pipeline.
func benchSession(b testing.TB, n int) *store.Session {
	b.Helper()
	root, err := safefs.OpenRoot(filepath.Join(b.TempDir(), "state"))
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(root, time.Now, nil)
	if err != nil {
		b.Fatal(err)
	}
	s, err := st.Create()
	if err != nil {
		b.Fatal(err)
	}
	var body strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&body, `{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total","data":{"cart":"c-%06d","items":%d,"subtotal":129.95,"discount":0.1,"total":116.96},"timestamp":%d}`+"\n", i%5+1, 100+i%50, i, i%7, 1784313728231+int64(i))
		if (i+1)%400 == 0 || i == n-1 {
			if _, _, err := s.IngestHTTP([]byte(body.String())); err != nil {
				b.Fatal(err)
			}
			body.Reset()
		}
	}
	return s
}

// BenchmarkStreamingSelect runs a streaming query that selects 1 event in
// 10,000 (the figure compared with jq in bench/).
func BenchmarkStreamingSelect(b *testing.B) {
	n := 100_000
	if v := os.Getenv("BENCH_EVENTS"); v != "" {
		fmt.Sscan(v, &n)
	}
	s := benchSession(b, n)
	spec := Spec{Program: `select(.data.cart | endswith("0000")) | .sequence`, Limit: 1000}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := Run(context.Background(), s, spec, Position{}, 0)
		if err != nil {
			b.Fatal(err)
		}
		if p.Returned != n/10000 {
			b.Fatalf("returned %d values, want %d", p.Returned, n/10000)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkNullInputReduce counts events per value with -n over the whole
// session, one event at a time (the figure compared with jq -n in bench/).
func BenchmarkNullInputReduce(b *testing.B) {
	n := 100_000
	if v := os.Getenv("BENCH_EVENTS"); v != "" {
		fmt.Sscan(v, &n)
	}
	s := benchSession(b, n)
	prog := `reduce inputs as $e ({}; .[$e.data.items | tostring] += 1)`
	if v := os.Getenv("BENCH_PROGRAM"); v != "" {
		prog = v
	}
	spec := Spec{Program: prog, NullInput: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := Run(context.Background(), s, spec, Position{}, 0)
		if err != nil || p.Events != n {
			b.Fatalf("read %d events: %v", p.Events, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSlurpFields groups events with --slurp when the program reads one
// field: only that field is decoded, and equal values are shared.
func BenchmarkSlurpFields(b *testing.B) {
	n := 100_000
	if v := os.Getenv("BENCH_EVENTS"); v != "" {
		fmt.Sscan(v, &n)
	}
	n = min(n, MaxSlurpFields)
	s := benchSession(b, n)
	spec := Spec{Program: `group_by(.data.items) | map({k: .[0].data.items, n: length})`, Slurp: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), s, spec, Position{}, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
