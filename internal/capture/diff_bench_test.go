package capture

import (
	"fmt"
	"strings"
	"testing"
)

// benchCaptures fills two captures of n events shaped like bench/diff's:
// the second with every 100th total changed and one new probe, or (random)
// with every event's cart id different, as a run that is not deterministic.
func benchCaptures(b *testing.B, n int, random bool) (*env, string, string) {
	e := newEnv(b)
	fill := func(changed bool) {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			total, cart := 116.96, i
			if changed && i%100 == 7 {
				total = 129.95
			}
			if changed && random {
				cart += n
			}
			fmt.Fprintf(&sb, `{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total","data":{"cart":"c-%06d","items":%d,"subtotal":129.95,"discount":0.1,"total":%g},"timestamp":%d}`+"\n",
				i%5+1, 100+i%50, cart, i%7, total, 1796083100000+int64(i))
			if (i+1)%2000 == 0 {
				if _, _, err := e.sess.IngestHTTP([]byte(sb.String())); err != nil {
					b.Fatal(err)
				}
				sb.Reset()
			}
		}
	}
	fill(false)
	a := e.capture("").ID
	if _, err := e.sess.Reset(); err != nil {
		b.Fatal(err)
	}
	fill(true)
	return e, a, e.capture("").ID
}

// BenchmarkDiff compares two 100,000-event captures in process: align mode
// (1% of the values changed), and distribution mode (every cart differs).
func BenchmarkDiff(b *testing.B) {
	for _, c := range []struct {
		name   string
		random bool
		mode   string
	}{{"align", false, ""}, {"distribution", true, ""}} {
		b.Run(c.name, func(b *testing.B) {
			e, a, z := benchCaptures(b, 100_000, c.random)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := e.cs.Diff(e.sess, DiffOptions{From: a, To: z, Mode: c.mode})
				if err != nil {
					b.Fatal(err)
				}
				if r.Mode != c.name {
					b.Fatalf("mode %s", r.Mode)
				}
			}
		})
	}
}
