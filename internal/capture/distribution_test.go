package capture

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lookups is a run of a cache under load: n lookups of random keys by 8
// workers, stale in the first stale of them, the rest fresh.
func lookups(rng *rand.Rand, n, stale int) []string {
	out := make([]string, 0, n+1)
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf(`H1|cache.go:88|lookup|{"key":"k-%016x","worker":%d,"stale":%v,"tags":["a","b%d"]}`,
			rng.Uint64(), i%8, i < stale, i%2))
	}
	return append(out, `H2|cache.go:120|evict|{"n":3}`)
}

// A run that is not deterministic: every key differs, and the one signal
// is a flag. The distribution puts the flag first, counts the keys as
// distinct values, and every number is exact.
func TestDiffDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := newEnv(t)
	e.run(lookups(rng, 400, 36)...)
	a := e.capture("").ID
	e.reset()
	e.run(lookups(rng, 400, 0)...)

	// Aligning pairs every lookup as a changed value: most are changed.
	r := e.diff(a, "")
	if r.Mode != ModeDistribution || !strings.Contains(r.ModeReason, "400 of the 401 events aligned one by one have changed data") || !r.Complete {
		t.Fatalf("mode %s (%s), complete %v, counts %+v", r.Mode, r.ModeReason, r.Complete, r.Counts)
	}
	d := r.Distribution
	if d.BeforeEvents != 401 || d.AfterEvents != 401 || len(d.Paths) != 2 || d.SamePaths != 3 || d.ValuesBound {
		t.Fatalf("distribution: %+v", d)
	}
	stale := d.Paths[0]
	if stale.Path != ".stale" || stale.Hypothesis != "H1" || stale.Location != "cache.go:88" || stale.BeforeEvents != 400 ||
		jsonOf(t, stale.Values) != `[{"value":"true","before":36,"after":0},{"value":"false","before":364,"after":400}]` {
		t.Fatalf("first path: %+v", stale)
	}
	keys := d.Paths[1]
	if keys.Path != ".key" || keys.BeforeDistinct != 400 || keys.AfterDistinct != 400 || keys.Common != 0 ||
		len(keys.Values) != maxValuesListed || keys.MoreValues != 800-maxValuesListed || keys.Score >= stale.Score {
		t.Fatalf("keys: %+v", keys)
	}
	// .worker, .tags[] and evict's .n have the same distribution (every
	// worker did 50 lookups, half of them tagged b0).
	if keys.Numbers != nil || stale.Numbers != nil {
		t.Fatalf("no numbers: %+v %+v", keys.Numbers, stale.Numbers)
	}

	// Asked for, align mode gives the alignment and no distribution.
	r = e.diffWith(DiffOptions{From: a, Mode: ModeAlign})
	if r.Mode != ModeAlign || r.Distribution != nil || r.Counts.ChangedPairs != 400 {
		t.Fatalf("align: %s %+v", r.Mode, r.Counts)
	}
	// Ignoring the key, the events align: the 36 stale ones are the
	// changed values, and the mode stays align.
	r = e.diffWith(DiffOptions{From: a, Ignore: []string{".key"}})
	if r.Mode != ModeAlign || r.Counts.ChangedPairs != 36 || r.Counts.SameEvents != 365 {
		t.Fatalf("ignore .key: %s %+v", r.Mode, r.Counts)
	}
	// --fields: only the paths named are counted.
	r = e.diffWith(DiffOptions{From: a, Mode: ModeDistribution, Fields: []string{".worker", ".stale"}})
	if d := r.Distribution; len(d.Paths) != 1 || d.Paths[0].Path != ".stale" || d.SamePaths != 1 {
		t.Fatalf("fields: %+v", d)
	}
}

// Numbers: count, min, max and mean on each side; a shifted mean ranks
// the path.
func TestDiffDistributionNumbers(t *testing.T) {
	e := newEnv(t)
	var before, after []string
	for i := 0; i < 100; i++ {
		before = append(before, fmt.Sprintf(`H1|a.py:1|latency|{"ms":%d,"ok":true}`, 10+i))
		after = append(after, fmt.Sprintf(`H1|a.py:1|latency|{"ms":%d,"ok":true}`, 10+i/2))
	}
	e.run(before...)
	a := e.capture("").ID
	e.reset()
	e.run(after...)
	r := e.diffWith(DiffOptions{From: a, Mode: ModeDistribution})
	d := r.Distribution
	if len(d.Paths) != 1 || d.SamePaths != 1 {
		t.Fatalf("paths: %+v", d)
	}
	n := d.Paths[0].Numbers
	if n == nil || jsonOf(t, n) != `{"before":{"count":100,"min":10,"max":109,"mean":59.5},"after":{"count":100,"min":10,"max":59,"mean":34.5}}` {
		t.Fatalf("numbers: %s", jsonOf(t, n))
	}
	if s := d.Paths[0].Score; s < 0.24 || s > 0.26 { // 25 of a range of 99
		t.Fatalf("score %v", s)
	}
}

// Past the bound of distinct values, later values are counted together
// and the comparison says it is partial.
func TestDiffDistributionBound(t *testing.T) {
	defer func(n int) { MaxDistValues = n }(MaxDistValues)
	rng := rand.New(rand.NewPCG(3, 4))
	e := newEnv(t)
	e.run(lookups(rng, 100, 10)...)
	a := e.capture("").ID
	e.reset()
	e.run(lookups(rng, 100, 0)...)
	MaxDistValues = 50
	r := e.diffWith(DiffOptions{From: a, Mode: ModeDistribution})
	d := r.Distribution
	if r.Complete || !d.ValuesBound {
		t.Fatalf("bound: complete %v, %+v", r.Complete, d)
	}
	var other int64
	for _, p := range d.Paths {
		other += p.OtherBefore + p.OtherAfter
	}
	if other == 0 {
		t.Fatalf("values past the bound are counted together: %+v", d.Paths)
	}
}
