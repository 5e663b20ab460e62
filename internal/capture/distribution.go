package capture

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"unicode/utf8"
)

// A run that is not deterministic (random keys, thread interleavings) has
// no event-by-event counterpart to align with: what it can be compared on
// is how often each value occurs. A distribution comparison counts, per
// group on both sides and per scalar data path, the events holding each
// value on each side (and, for numbers, their count, min, max and mean),
// and ranks the paths by how much a value's share of the group's events
// changed, so one flag that flipped in 724 events comes before 29,000 keys
// that differ only because they are random.

// Bounds of a distribution comparison. Variables so tests can make them small.
var (
	MaxDistValues = 100_000 // distinct values counted one by one, over every group and path; later ones are counted together
	MaxDistPaths  = 10_000  // (group, data path) pairs counted; further paths are not
)

const (
	maxDistListed   = 200 // paths listed, most changed first
	maxValuesListed = 10  // values listed per path, most changed first
	maxValueText    = 48  // bytes of a value's text kept for showing it
)

// Distribution is the distribution comparison of the groups on both sides.
type Distribution struct {
	Paths       []PathDistribution `json:"paths"`        // paths whose distribution changed, most changed first
	SamePaths   int                `json:"samePaths"`    // paths with the same distribution on both sides
	Omitted     int                `json:"omittedPaths"` // changed paths not listed (past maxDistListed)
	ValuesBound bool               `json:"valuesBound"`  // more than MaxDistValues distinct values: later ones were counted together as other values
	PathsBound  bool               `json:"pathsBound"`   // more than MaxDistPaths paths: further ones were not counted
	// Events read on each side (every compared event of a group on both sides).
	BeforeEvents int64 `json:"beforeEvents"`
	AfterEvents  int64 `json:"afterEvents"`
}

// PathDistribution is one data path of one group: its values on each side.
type PathDistribution struct {
	Hypothesis     string       `json:"hypothesis"`
	Location       string       `json:"location"`
	Message        string       `json:"message"`
	Path           string       `json:"path"`
	BeforeEvents   int64        `json:"beforeEvents"` // events of the group on each side: the shares' denominators
	AfterEvents    int64        `json:"afterEvents"`
	Score          float64      `json:"score"` // the largest change of one value's share of the group's events (0 to 1), or of the mean against the range of numbers
	BeforeDistinct int          `json:"beforeDistinct"`
	AfterDistinct  int          `json:"afterDistinct"`
	Common         int          `json:"common"`            // distinct values seen on both sides
	Values         []ValueCount `json:"values"`            // the most changed values first
	MoreValues     int          `json:"moreValues"`        // changed values not listed
	OtherBefore    int64        `json:"otherBefore"`       // occurrences of values past the bound, counted together
	OtherAfter     int64        `json:"otherAfter"`        // (see Distribution.ValuesBound)
	Numbers        *NumberStats `json:"numbers,omitempty"` // the path held numbers
}

// ValueCount is how many times one value occurs on each side.
type ValueCount struct {
	Value  string `json:"value"` // its JSON text, cut at 48 bytes (…)
	Before int64  `json:"before"`
	After  int64  `json:"after"`
}

// NumberStats sums up the numbers at a path on each side.
type NumberStats struct {
	Before NumberSide `json:"before"`
	After  NumberSide `json:"after"`
}

// NumberSide is one side's numbers at a path.
type NumberSide struct {
	Count int64   `json:"count"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

type valKey struct {
	path int32
	h    uint64
}

type valueAcc struct {
	n    [2]int64
	text string
	path int32
}

type numAcc struct {
	count         int64
	min, max, sum float64
}

type pathAcc struct {
	pair  int32
	path  string
	other [2]int64
	num   [2]numAcc
	vals  []int32 // indices into values, filled when the counting is done
}

// distCounter counts the values of both sides.
type distCounter struct {
	filter *pathNode
	byPair []map[string]int32 // per pair of groups: path → index in paths
	paths  []pathAcc
	vals   map[valKey]int32
	values []valueAcc
	path   []byte
	side   int
	pair   int32
	res    Distribution
	seed   maphash.Seed
}

// distribute compares the distributions of the paired groups (groups[p] is
// pair p; pairOfA and pairOfB give each side's group its pair or -1).
func distribute(a, b *set, pairOfA, pairOfB []int32, groups []Group, filter *pathNode) (*Distribution, error) {
	d := &distCounter{filter: filter, byPair: make([]map[string]int32, len(groups)), vals: map[valKey]int32{}, seed: maphash.MakeSeed()}
	for side, s := range []*set{a, b} {
		pairOf := pairOfA
		if side == 1 {
			pairOf = pairOfB
		}
		d.side = side
		for seq := int64(1); seq <= int64(len(s.grp)); seq++ {
			g := s.grp[seq-1]
			if g == noGroup || pairOf[g] < 0 {
				continue
			}
			line, err := s.line(seq)
			if err != nil {
				return nil, err
			}
			e, ok := parseEvent(line)
			if !ok {
				return nil, errUnreadable(seq)
			}
			if side == 0 {
				d.res.BeforeEvents++
			} else {
				d.res.AfterEvents++
			}
			d.pair, d.path = pairOf[g], d.path[:0]
			d.walk(e.data, skipSpace(e.data, 0), filter)
		}
	}
	return d.finish(groups), nil
}

// walk counts the scalars of the value at b[i] as the node keeps them and
// returns where the value ends.
func (d *distCounter) walk(b []byte, i int, n *pathNode) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '{':
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			j := stringEnd(b, i)
			key := b[min(i+1, j):max(i+1, j-1)]
			if bytes.IndexByte(key, '\\') >= 0 {
				key = []byte(unescape(key))
			}
			j = skipSpace(b, j)
			if j < len(b) && b[j] == ':' {
				j = skipSpace(b, j+1)
			}
			var k int
			if c, ok := n.memberBytes(key); ok {
				mark := len(d.path)
				d.path = appendStep(d.path, key)
				k = d.walk(b, j, c)
				d.path = d.path[:mark]
			} else {
				k = valueEnd(b, j)
			}
			i = skipSpace(b, k)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return i + 1
	case '[':
		c, ok := n.element()
		mark := len(d.path)
		d.path = append(d.path, "[]"...)
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			var k int
			if ok {
				k = d.walk(b, i, c)
			} else {
				k = valueEnd(b, i)
			}
			i = skipSpace(b, k)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		d.path = d.path[:mark]
		return i + 1
	default:
		k := valueEnd(b, i)
		if n == nil || n.all {
			d.count(b[i:k])
		}
		return k
	}
}

// count adds one scalar at the current path.
func (d *distCounter) count(raw []byte) {
	m := d.byPair[d.pair]
	if m == nil {
		m = map[string]int32{}
		d.byPair[d.pair] = m
	}
	path := d.path
	if len(path) == 0 {
		path = []byte{'.'}
	}
	pi, ok := m[string(path)]
	if !ok {
		if len(d.paths) >= MaxDistPaths {
			d.res.PathsBound = true
			return
		}
		pi = int32(len(d.paths))
		m[string(path)] = pi
		d.paths = append(d.paths, pathAcc{pair: d.pair, path: string(path)})
	}
	acc := &d.paths[pi]
	k := valKey{pi, maphash.Bytes(d.seed, raw)}
	vi, ok := d.vals[k]
	switch {
	case ok:
		d.values[vi].n[d.side]++
	case len(d.values) >= MaxDistValues:
		acc.other[d.side]++
		d.res.ValuesBound = true
	default:
		d.vals[k] = int32(len(d.values))
		v := valueAcc{text: cutText(raw, maxValueText), path: pi}
		v.n[d.side] = 1
		d.values = append(d.values, v)
	}
	if c := raw[0]; c == '-' || c >= '0' && c <= '9' {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			s := &acc.num[d.side]
			if s.count == 0 || f < s.min {
				s.min = f
			}
			if s.count == 0 || f > s.max {
				s.max = f
			}
			s.count++
			s.sum += f
		}
	}
}

// share is the change of a value's share of its group's events, exactly:
// |before·N_after − after·N_before| / (N_before·N_after).
type share struct{ num, den uint64 }

func shareOf(n0, n1, na, nb int64) share {
	x, y := n0*nb, n1*na
	if x < y {
		x, y = y, x
	}
	return share{uint64(x - y), uint64(na * nb)}
}

func (s share) cmp(t share) int {
	h1, l1 := bits.Mul64(s.num, t.den)
	h2, l2 := bits.Mul64(t.num, s.den)
	if h1 != h2 {
		return cmp.Compare(h1, h2)
	}
	return cmp.Compare(l1, l2)
}

func (s share) float() float64 {
	if s.den == 0 {
		return 0
	}
	return float64(s.num) / float64(s.den)
}

// ranked is a path with what orders it.
type ranked struct {
	pd       PathDistribution
	best     share   // the largest change of one value's share
	numScore float64 // the change of the mean against the range
	zero     bool    // the most changed value is absent on one side
	delta    int64   // that value's change in events
	key      string
}

func (d *distCounter) finish(groups []Group) *Distribution {
	for i, v := range d.values {
		d.paths[v.path].vals = append(d.paths[v.path].vals, int32(i))
	}
	var out []ranked
	for pi := range d.paths {
		acc := &d.paths[pi]
		g := groups[acc.pair]
		na, nb := g.Before, g.After
		r := ranked{key: g.Hypothesis + "\x00" + g.Location + "\x00" + g.Message + "\x00" + acc.path}
		pd := PathDistribution{Hypothesis: g.Hypothesis, Location: g.Location, Message: g.Message, Path: acc.path,
			BeforeEvents: na, AfterEvents: nb, OtherBefore: acc.other[0], OtherAfter: acc.other[1]}
		type vs struct {
			v ValueCount
			s share
		}
		var changed []vs
		for _, vi := range acc.vals {
			v := d.values[vi]
			if v.n[0] > 0 {
				pd.BeforeDistinct++
			}
			if v.n[1] > 0 {
				pd.AfterDistinct++
			}
			if v.n[0] > 0 && v.n[1] > 0 {
				pd.Common++
			}
			if s := shareOf(v.n[0], v.n[1], na, nb); s.num != 0 {
				changed = append(changed, vs{ValueCount{Value: v.text, Before: v.n[0], After: v.n[1]}, s})
			}
		}
		if s := shareOf(acc.other[0], acc.other[1], na, nb); s.num != 0 {
			changed = append(changed, vs{ValueCount{Value: "(other values)", Before: acc.other[0], After: acc.other[1]}, s})
		}
		sort.Slice(changed, func(i, j int) bool {
			x, y := changed[i], changed[j]
			if c := x.s.cmp(y.s); c != 0 {
				return c > 0
			}
			if zx, zy := x.v.Before == 0 || x.v.After == 0, y.v.Before == 0 || y.v.After == 0; zx != zy {
				return zx
			}
			if dx, dy := absDiff(x.v.Before, x.v.After), absDiff(y.v.Before, y.v.After); dx != dy {
				return dx > dy
			}
			return x.v.Value < y.v.Value
		})
		if ns := acc.num; ns[0].count+ns[1].count > 0 {
			pd.Numbers = &NumberStats{Before: numberSide(ns[0]), After: numberSide(ns[1])}
			if ns[0].count > 0 && ns[1].count > 0 {
				lo, hi := math.Min(ns[0].min, ns[1].min), math.Max(ns[0].max, ns[1].max)
				if hi > lo {
					r.numScore = math.Abs(pd.Numbers.Before.Mean-pd.Numbers.After.Mean) / (hi - lo)
				}
			}
		}
		if len(changed) == 0 {
			d.res.SamePaths++
			continue
		}
		r.best = changed[0].s
		r.zero = changed[0].v.Before == 0 || changed[0].v.After == 0
		r.delta = absDiff(changed[0].v.Before, changed[0].v.After)
		pd.Score = math.Max(r.best.float(), r.numScore)
		for i, c := range changed {
			if i == maxValuesListed {
				pd.MoreValues = len(changed) - i
				break
			}
			pd.Values = append(pd.Values, c.v)
		}
		r.pd = pd
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.numScore > x.best.float() || y.numScore > y.best.float() {
			if x.pd.Score != y.pd.Score {
				return x.pd.Score > y.pd.Score
			}
		} else if c := x.best.cmp(y.best); c != 0 {
			return c > 0
		}
		if x.zero != y.zero {
			return x.zero
		}
		if x.delta != y.delta {
			return x.delta > y.delta
		}
		return x.key < y.key
	})
	res := d.res
	res.Paths = []PathDistribution{}
	for i, r := range out {
		if i == maxDistListed {
			res.Omitted = len(out) - i
			break
		}
		res.Paths = append(res.Paths, r.pd)
	}
	return &res
}

func numberSide(n numAcc) NumberSide {
	if n.count == 0 {
		return NumberSide{}
	}
	return NumberSide{Count: n.count, Min: n.min, Max: n.max, Mean: n.sum / float64(n.count)}
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// appendStep adds the path step for an object key.
func appendStep(p, key []byte) []byte {
	if isIdent(key) {
		return append(append(p, '.'), key...)
	}
	return append(append(append(p, '['), strconv.Quote(string(key))...), ']')
}

func isIdent[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cutText keeps at most n bytes of a value's text, on a character boundary.
func cutText(raw []byte, n int) string {
	if len(raw) <= n {
		return string(raw)
	}
	for n > 0 && !utf8.RuneStart(raw[n]) {
		n--
	}
	return string(raw[:n]) + "…"
}

// stringEnd is where the JSON string at b[i] ends (after its quote).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd is where the JSON value at b[i] ends.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
			j++
		}
		return max(j, i+1)
	}
}
