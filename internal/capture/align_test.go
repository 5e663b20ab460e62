package capture

import (
	"math/rand"
	"testing"
)

// lcsLen is the textbook dynamic programme, for checking.
func lcsLen(a, b []uint64) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// alignPairs runs the aligner and checks that what it matched is an
// alignment: increasing on both sides, equal elements only.
func alignPairs(t *testing.T, x *aligner, a, b []uint64, maxEdits int) ([][2]int, bool) {
	t.Helper()
	var pairs [][2]int
	exact := x.align(a, b, maxEdits, func(i, j int) {
		if n := len(pairs); n > 0 && (i <= pairs[n-1][0] || j <= pairs[n-1][1]) {
			t.Fatalf("match (%d,%d) after (%d,%d): not increasing", i, j, pairs[n-1][0], pairs[n-1][1])
		}
		if a[i] != b[j] {
			t.Fatalf("match (%d,%d) of %d and %d", i, j, a[i], b[j])
		}
		pairs = append(pairs, [2]int{i, j})
	})
	return pairs, exact
}

// The aligner finds a longest common subsequence: as long as the dynamic
// programme's, on many random pairs of sequences over small alphabets (the
// hard case: many equal elements), and says when it gave up.
func TestAlignIsLongest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var x aligner
	seq := func(n, alphabet int) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(rng.Intn(alphabet))
		}
		return s
	}
	for round := 0; round < 20_000; round++ {
		alphabet := 1 + rng.Intn(6)
		size := 40
		if round%50 == 0 {
			size = 400
		}
		a, b := seq(rng.Intn(size), alphabet), seq(rng.Intn(size), alphabet)
		if round%3 == 0 { // b an edit of a: the usual case
			b = append([]uint64(nil), a...)
			for k := rng.Intn(5 + len(b)/20); k > 0 && len(b) > 0; k-- {
				switch p := rng.Intn(len(b)); rng.Intn(3) {
				case 0:
					b = append(b[:p], b[p+1:]...)
				case 1:
					b = append(b[:p], append([]uint64{uint64(rng.Intn(alphabet + 2))}, b[p:]...)...)
				default:
					b[p] = uint64(rng.Intn(alphabet + 2))
				}
			}
		}
		want := lcsLen(a, b)
		edits := len(a) + len(b) - 2*want
		pairs, exact := alignPairs(t, &x, a, b, 1<<30)
		if !exact || len(pairs) != want {
			t.Fatalf("a=%v b=%v: %d matches (exact %v), want %d", a, b, len(pairs), exact, want)
		}
		// With the limit at the edits needed it still aligns; one less
		// gives up, unless nothing but the common ends was left to search.
		if pairs, exact := alignPairs(t, &x, a, b, edits); !exact || len(pairs) != want {
			t.Fatalf("a=%v b=%v at limit %d: %d matches (exact %v), want %d", a, b, edits, len(pairs), exact, want)
		}
		if edits > 0 {
			_, exact := alignPairs(t, &x, a, b, edits-1)
			p, s := commonEnds(a, b)
			if exact && want > p+s {
				t.Fatalf("a=%v b=%v: aligned exactly within %d edits, needs %d", a, b, edits-1, edits)
			}
		}
	}
}

func commonEnds(a, b []uint64) (p, s int) {
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p, s
}

// One event inserted early in a long sequence: every other event matches.
func TestAlignInsertion(t *testing.T) {
	a := make([]uint64, 10_000)
	for i := range a {
		a[i] = uint64(i)
	}
	b := append([]uint64{0, 1, 99_999}, a[2:]...)
	var x aligner
	pairs, exact := alignPairs(t, &x, a, b, 2_000)
	if !exact || len(pairs) != len(a) {
		t.Fatalf("%d matches (exact %v), want %d", len(pairs), exact, len(a))
	}
}
