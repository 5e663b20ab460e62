package store

import (
	"math/rand"
	"slices"
	"testing"
)

// walk returns sequences in the index's logs order.
func walk(ix *index) []int64 {
	v := ix.view()
	var out []int64
	for p := 0; p < v.n; p++ {
		out = append(out, int64(v.at(p))+1)
	}
	return out
}

// TestIndexLogsOrder: events come out ordered by timestamp, ties by
// sequence, however late they arrive.
func TestIndexLogsOrder(t *testing.T) {
	cases := []struct {
		name string
		ts   []int64
		want []int64
	}{
		{"in order keeps the identity", []int64{1, 2, 2, 3}, []int64{1, 2, 3, 4}},
		{"late event goes before later ones", []int64{10, 20, 15}, []int64{1, 3, 2}},
		{"tie after late insert keeps sequence order", []int64{10, 20, 10, 10}, []int64{1, 3, 4, 2}},
		{"earliest of all", []int64{5, 6, 7, 1}, []int64{4, 1, 2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ix index
			ix.reset(0)
			for i, ts := range c.ts {
				ix.add(int64(i*100), ts, "H1")
			}
			if got := walk(&ix); !slices.Equal(got, c.want) {
				t.Fatalf("order %v, want %v", got, c.want)
			}
		})
	}
	t.Run("random arrivals match a stable sort", func(t *testing.T) {
		r := rand.New(rand.NewSource(1))
		var ix index
		ix.reset(0)
		ts := make([]int64, 5000)
		for i := range ts {
			ts[i] = int64(i) + int64(r.Intn(50)) // slightly out of order, many ties
			ix.add(int64(i), ts[i], "H")
			if r.Intn(500) == 0 {
				ix.view() // readers in between merge what arrived so far
			}
		}
		want := make([]int64, len(ts))
		for i := range want {
			want[i] = int64(i) + 1
		}
		slices.SortStableFunc(want, func(a, b int64) int { return int(ts[a-1] - ts[b-1]) })
		if got := walk(&ix); !slices.Equal(got, want) {
			t.Fatal("index order differs from a stable sort by timestamp")
		}
	})
}

// TestIndexWideTimestampsAndOffsets: timestamps far apart and offsets past
// 4 GiB (70,000 lines near the 64 KiB bound) are kept exactly.
func TestIndexWideTimestampsAndOffsets(t *testing.T) {
	var ix index
	ix.reset(0)
	tss := []int64{1784313728231, 1784313728231 + 1<<40, 1784313728231 - 5, 100_000_000_000}
	const line = 66000
	n := 70000
	for i := 0; i < n; i++ {
		ix.add(int64(i)*line, tss[i%len(tss)], "H")
	}
	v := ix.view()
	for i := 0; i < n; i++ {
		if v.ts(i) != tss[i%len(tss)] || v.off(i) != int64(i)*line {
			t.Fatalf("event %d: ts %d off %d, want %d %d", i, v.ts(i), v.off(i), tss[i%len(tss)], int64(i)*line)
		}
	}
	if got := walk(&ix)[:3]; !slices.Equal(got, []int64{4, 8, 12}) {
		t.Fatalf("order starts %v", got)
	}
}
