package capture

// aligner finds a longest common subsequence of two sequences of data
// hashes with Myers' O((N+M)·D) algorithm in linear space (the middle snake,
// split recursively), as a line diff does. Its buffers are reused from one
// group to the next.
type aligner struct {
	a, b   []uint64
	v1, v2 []int32
	match  func(i, j int)
}

// Results of bisect.
const (
	split = iota // an optimal alignment passes through the point returned
	none         // nothing in common: every element is an edit
	over         // more edits than the limit
)

// align calls match(i, j) for each pair of an alignment of a and b with the
// fewest insertions and deletions, in increasing order. When more than
// maxEdits insertions and deletions separate them, it matches only their
// common start and end and returns false: the middle is left unaligned.
func (x *aligner) align(a, b []uint64, maxEdits int, match func(i, j int)) bool {
	x.a, x.b, x.match = a, b, match
	defer func() { x.a, x.b, x.match = nil, nil, nil }()
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		match(p, p)
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	a1, b1 := len(a)-s, len(b)-s
	exact := true
	if p < a1 && p < b1 {
		sx, sy, d, res := x.bisect(p, a1, p, b1, maxEdits)
		switch res {
		case split:
			x.diff(p, sx, p, sy, d)
			x.diff(sx, a1, sy, b1, d)
		case over:
			exact = false
		}
	}
	for k := 0; k < s; k++ {
		match(a1+k, b1+k)
	}
	return exact
}

// diff aligns a[a0:a1] with b[b0:b1], known to need at most limit edits.
func (x *aligner) diff(a0, a1, b0, b1, limit int) {
	for a0 < a1 && b0 < b1 && x.a[a0] == x.b[b0] {
		x.match(a0, b0)
		a0++
		b0++
	}
	s := 0
	for a1 > a0 && b1 > b0 && x.a[a1-1] == x.b[b1-1] {
		a1--
		b1--
		s++
	}
	if a0 < a1 && b0 < b1 {
		// over cannot happen within the limit the caller found; were it
		// to, the part is left unaligned, which is still an alignment.
		if sx, sy, d, res := x.bisect(a0, a1, b0, b1, limit); res == split {
			x.diff(a0, sx, b0, sy, d)
			x.diff(sx, a1, sy, b1, d)
		}
	}
	for k := 0; k < s; k++ {
		x.match(a1+k, b1+k)
	}
}

// bisect finds the middle snake of a[a0:a1] and b[b0:b1] (both non-empty,
// with no common first or last element): a point (sx, sy) that an alignment
// with the fewest edits d passes through, searching forward from the start
// and backward from the end at once. It gives up past limit edits.
func (x *aligner) bisect(a0, a1, b0, b1, limit int) (sx, sy, d, res int) {
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	last := maxD - 1 // the last step: past it, nothing is in common
	steps := min(last, (limit+1)/2)
	off := steps + 1
	size := 2*steps + 3
	if cap(x.v1) < size {
		x.v1, x.v2 = make([]int32, size), make([]int32, size)
	}
	v1, v2 := x.v1[:size], x.v2[:size]
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0 // the paths meet during a forward step
	var k1start, k1end, k2start, k2end int
	for step := 0; step <= steps; step++ {
		if 2*step-1 > limit {
			return 0, 0, 0, over
		}
		for k1 := -step + k1start; k1 <= step-k1end; k1 += 2 {
			ko := off + k1
			var x1 int
			if k1 == -step || (k1 != step && v1[ko-1] < v1[ko+1]) {
				x1 = int(v1[ko+1])
			} else {
				x1 = int(v1[ko-1]) + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && x.a[a0+x1] == x.b[b0+y1] {
				x1++
				y1++
			}
			v1[ko] = int32(x1)
			switch {
			case x1 > n:
				k1end += 2 // off the right of the graph
			case y1 > m:
				k1start += 2 // off the bottom
			case front:
				k2o := off + delta - k1
				if k2o >= 0 && k2o < size && v2[k2o] != -1 && x1 >= n-int(v2[k2o]) {
					if d = 2*step - 1; d > limit {
						return 0, 0, 0, over
					}
					return a0 + x1, b0 + y1, d, split
				}
			}
		}
		for k2 := -step + k2start; k2 <= step-k2end; k2 += 2 {
			ko := off + k2
			var x2 int
			if k2 == -step || (k2 != step && v2[ko-1] < v2[ko+1]) {
				x2 = int(v2[ko+1])
			} else {
				x2 = int(v2[ko-1]) + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && x.a[a1-1-x2] == x.b[b1-1-y2] {
				x2++
				y2++
			}
			v2[ko] = int32(x2)
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				k1o := off + delta - k2
				if k1o >= 0 && k1o < size && v1[k1o] != -1 {
					x1 := int(v1[k1o])
					if y1 := x1 - (k1o - off); x1 >= n-x2 {
						if d = 2 * step; d > limit {
							return 0, 0, 0, over
						}
						return a0 + x1, b0 + y1, d, split
					}
				}
			}
		}
	}
	if steps < last {
		return 0, 0, 0, over
	}
	return 0, 0, n + m, none // searched to the end: an exact answer, whatever the limit
}
