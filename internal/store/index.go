package store

import (
	"math"
	"slices"
)

// blockShift sets how many events share one 64-bit base offset: 4,096
// lines of at most ~66 KiB stay within a uint32 of their block's base.
const blockShift = 12

// maxLabels is how many distinct hypothesis labels the index numbers; any
// further labels share the last number (their events are still stored).
const maxLabels = math.MaxUint16

// index lets a reader page through a cycle's events in logs order
// (timestamp, then sequence) without scanning the evidence file. Per event
// it keeps a 32-bit offset within its block, a 32-bit timestamp delta and a
// 16-bit label number: about 10 bytes, plus 4 for the order once events
// arrive out of timestamp order.
type index struct {
	offBase []int64
	offRel  []uint32
	tsBase  int64
	ts32    []int32 // timestamp - tsBase; nil once one does not fit
	ts64    []int64 // used instead of ts32 then
	hyp     []uint16
	labels  []string
	labelNo map[string]uint16

	lastTS     int64
	disordered bool    // some event arrived earlier in time than one before it
	order      []int32 // event indexes sorted by (timestamp, sequence) for the first `ordered` events
	ordered    int
}

func (ix *index) reset(hint int64) {
	n := int(min(max(hint, 0), 1<<22))
	*ix = index{offRel: make([]uint32, 0, n), ts32: make([]int32, 0, n), hyp: make([]uint16, 0, n), labelNo: map[string]uint16{}}
}

// len is the number of indexed events.
func (ix *index) len() int { return len(ix.offRel) }

// add records the next sequence.
func (ix *index) add(off, ts int64, label string) {
	if ix.labelNo == nil {
		ix.reset(0)
	}
	no, ok := ix.labelNo[label]
	if !ok {
		no = uint16(min(len(ix.labels), maxLabels))
		if len(ix.labels) < maxLabels {
			ix.labels = append(ix.labels, label)
			ix.labelNo[label] = no
		}
	}
	i := len(ix.offRel)
	if i>>blockShift == len(ix.offBase) {
		ix.offBase = append(ix.offBase, off)
	}
	ix.offRel = append(ix.offRel, uint32(off-ix.offBase[i>>blockShift]))
	if i == 0 {
		ix.tsBase = ts
	}
	if d := ts - ix.tsBase; ix.ts64 == nil && d >= math.MinInt32 && d <= math.MaxInt32 {
		ix.ts32 = append(ix.ts32, int32(d))
	} else {
		if ix.ts64 == nil {
			ix.ts64 = make([]int64, i, cap(ix.ts32))
			for k, d := range ix.ts32 {
				ix.ts64[k] = ix.tsBase + int64(d)
			}
			ix.ts32 = nil
		}
		ix.ts64 = append(ix.ts64, ts)
	}
	ix.hyp = append(ix.hyp, no)
	if i > 0 && ts < ix.lastTS && !ix.disordered {
		ix.disordered, ix.ordered = true, i // events before this one are in order
	}
	ix.lastTS = max(ix.lastTS, ts)
}

// view is an immutable picture of the first n events for readers. Appends
// never change what a view covers, so it needs no copy of the arrays.
func (ix *index) view() indexView {
	n := ix.len()
	if ix.disordered && ix.ordered < n {
		ix.extendOrder()
	}
	v := indexView{n: n, offBase: ix.offBase, offRel: ix.offRel[:n:n], tsBase: ix.tsBase, hyp: ix.hyp[:n:n], labels: slices.Clone(ix.labels)}
	if ix.ts64 != nil {
		v.ts64 = ix.ts64[:n:n]
	} else {
		v.ts32 = ix.ts32[:n:n]
	}
	if ix.disordered {
		v.order = ix.order
	}
	return v
}

// extendOrder sorts the events added since the order was last built and
// merges them in: a reader pays O(n) once per batch of new events, and a
// late event costs nothing when it arrives.
func (ix *index) extendOrder() {
	n := ix.len()
	v := indexView{tsBase: ix.tsBase, ts32: ix.ts32, ts64: ix.ts64}
	less := func(a, b int32) int {
		ta, tb := v.ts(int(a)), v.ts(int(b))
		switch {
		case ta < tb:
			return -1
		case ta > tb:
			return 1
		}
		return int(a - b)
	}
	tail := make([]int32, 0, n-ix.ordered)
	for i := ix.ordered; i < n; i++ {
		tail = append(tail, int32(i))
	}
	slices.SortFunc(tail, less)
	head := ix.order
	if head == nil {
		head = make([]int32, ix.ordered)
		for i := range head {
			head[i] = int32(i)
		}
	}
	merged := make([]int32, 0, n)
	a, b := 0, 0
	for a < len(head) && b < len(tail) {
		if less(head[a], tail[b]) <= 0 {
			merged = append(merged, head[a])
			a++
		} else {
			merged = append(merged, tail[b])
			b++
		}
	}
	merged = append(append(merged, head[a:]...), tail[b:]...)
	ix.order, ix.ordered = merged, n
}

// indexView is what a Snapshot reads.
type indexView struct {
	n       int
	offBase []int64
	offRel  []uint32
	tsBase  int64
	ts32    []int32
	ts64    []int64
	hyp     []uint16
	labels  []string
	order   []int32 // nil: the identity
}

func (v *indexView) off(i int) int64 { return v.offBase[i>>blockShift] + int64(v.offRel[i]) }

func (v *indexView) ts(i int) int64 {
	if v.ts64 != nil {
		return v.ts64[i]
	}
	return v.tsBase + int64(v.ts32[i])
}

// at is the event index at position p of logs order.
func (v *indexView) at(p int) int {
	if v.order != nil {
		return int(v.order[p])
	}
	return p
}
