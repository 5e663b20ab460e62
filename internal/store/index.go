package store

import (
	"slices"
)

// index lets a reader page through a cycle's events in logs order
// (timestamp, then sequence) without scanning the evidence file: per
// sequence it keeps the line's offset, timestamp and label, plus the
// permutation that sorts them. About 24 bytes an event.
type index struct {
	off     []int64  // by sequence-1: byte offset of the stored line
	ts      []int64  // by sequence-1: the event's timestamp
	hyp     []uint32 // by sequence-1: label number
	labels  []string
	labelNo map[string]uint32
	order   []int32 // sequence-1, sorted by (timestamp, sequence); nil while that is the identity
	lastTS  int64
}

func (ix *index) reset(hint int64) {
	n := int(min(max(hint, 0), 1<<22))
	*ix = index{off: make([]int64, 0, n), ts: make([]int64, 0, n), hyp: make([]uint32, 0, n), labelNo: map[string]uint32{}}
}

// add records the next sequence. Events usually arrive in timestamp order;
// a late one is inserted where it belongs, which moves only the tail.
func (ix *index) add(off, ts int64, hyp string) {
	if ix.labelNo == nil {
		ix.reset(0)
	}
	no, ok := ix.labelNo[hyp]
	if !ok {
		no = uint32(len(ix.labels))
		ix.labels = append(ix.labels, hyp)
		ix.labelNo[hyp] = no
	}
	i := int32(len(ix.off))
	ix.off = append(ix.off, off)
	ix.ts = append(ix.ts, ts)
	ix.hyp = append(ix.hyp, no)
	inOrder := i == 0 || ix.lastTS <= ts
	ix.lastTS = max(ix.lastTS, ts)
	if ix.order == nil {
		if inOrder {
			return // still the identity: no permutation to keep
		}
		ix.order = make([]int32, i, cap(ix.off))
		for k := range ix.order {
			ix.order[k] = int32(k)
		}
	}
	if inOrder {
		ix.order = append(ix.order, i)
		return
	}
	// Binary search for the first position with a later timestamp.
	at, _ := slices.BinarySearchFunc(ix.order, ts, func(e int32, t int64) int {
		if ix.ts[e] <= t {
			return -1
		}
		return 1
	})
	ix.order = slices.Insert(ix.order, at, i)
}

// len is the number of indexed events.
func (ix *index) len() int { return len(ix.off) }
