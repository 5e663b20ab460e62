package capture

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Bounds of a comparison. Variables so tests can make them small.
var (
	MaxDiffEvents = 1_000_000 // events read from each side, by sequence; the rest are not compared
	MaxDiffGroups = 10_000    // distinct groups per side; events of further groups are not compared
	MaxDiffEdits  = 2_000     // insertions and deletions aligned per group; past it the group is paired by position
)

const (
	maxExamplesPerGroup = 3
	maxExamples         = 30
	maxListedGroups     = 500
	maxExampleBytes     = 1024
	maxPaths            = 5
)

// Group statuses.
//
// A group's events on the two sides are aligned by their data, as a line
// diff aligns lines: equal events match, an event with no counterpart is
// only before (removed) or only after (added), and where events were removed
// and added at the same point of the alignment they pair up as changed
// values.
const (
	GroupSame       = "same"        // the same number of events, the same data in the same order
	GroupChanged    = "changed"     // some aligned pair of events has different data
	GroupCount      = "count"       // no changed value, but events added or removed: another number of events
	GroupEdited     = "edited"      // no changed value and the same number of events, but some added and as many removed elsewhere
	GroupOnlyBefore = "only_before" // no event of this group after
	GroupOnlyAfter  = "only_after"  // no event of this group before
)

// Comparison modes.
const (
	ModeAuto         = "auto"         // distribution when aligning would be approximate or most aligned events changed, align otherwise
	ModeAlign        = "align"        // align each group's events by their data, as a line diff aligns lines
	ModeDistribution = "distribution" // compare how often each value occurs, per group and data path
)

// DiffOptions say what to compare, and how.
type DiffOptions struct {
	From   string   `json:"from"`             // the capture before
	To     string   `json:"to,omitempty"`     // the capture after; "" is the live cycle
	Mode   string   `json:"mode,omitempty"`   // "" is ModeAuto
	Fields []string `json:"fields,omitempty"` // compare only these data paths
	Ignore []string `json:"ignore,omitempty"` // leave these data paths out of alignment and comparison
}

// Check validates the mode and the paths.
func (o DiffOptions) Check() error {
	switch o.Mode {
	case "", ModeAuto, ModeAlign, ModeDistribution:
	default:
		return badRequest("--mode %q: use auto, align or distribution", o.Mode)
	}
	if err := CheckPaths(o.Fields); err != nil {
		return badRequest("--fields %v", err)
	}
	if err := CheckPaths(o.Ignore); err != nil {
		return badRequest("--ignore %v", err)
	}
	return nil
}

// Side describes one evidence set of a comparison and how much of it was read.
type Side struct {
	Kind            string `json:"kind"` // capture or live
	Capture         string `json:"capture,omitempty"`
	Label           string `json:"label,omitempty"`
	SHA256          string `json:"sha256,omitempty"`
	Cycle           int64  `json:"cycle"`
	Version         string `json:"evidenceVersion"`
	Events          int64  `json:"events"`
	Compared        int64  `json:"compared"`        // events that took part (the first ones by sequence)
	Truncated       bool   `json:"truncated"`       // more events than MaxDiffEvents: only Compared were read
	GroupsBound     bool   `json:"groupsBound"`     // more distinct groups than MaxDiffGroups: events of the rest were not compared
	Ungrouped       int64  `json:"ungrouped"`       // events left out by the group bound
	RejectedRecords int64  `json:"rejectedRecords"` // refused before storage: never part of any evidence set
}

// Group is one (hypothesis, location, message) on both sides.
type Group struct {
	Hypothesis    string      `json:"hypothesis"`
	Location      string      `json:"location"`
	LocationAfter string      `json:"locationAfter,omitempty"` // set when the location moved (same file, another line)
	Message       string      `json:"message"`
	Status        string      `json:"status"`
	Before        int64       `json:"before"`
	After         int64       `json:"after"`
	Changed       int64       `json:"changed"`          // aligned pairs of events whose data differ
	OnlyBefore    int64       `json:"onlyBeforeEvents"` // events with no counterpart after (removed)
	OnlyAfter     int64       `json:"onlyAfterEvents"`  // events with no counterpart before (added)
	Approximate   bool        `json:"approximate"`      // more than MaxDiffEdits edits: paired by position, not aligned
	FirstBefore   int64       `json:"firstBeforeSeq,omitempty"`
	FirstAfter    int64       `json:"firstAfterSeq,omitempty"`
	Examples      []Change    `json:"examples,omitempty"`  // the first few changed values, with the fields that differ
	Unmatched     []Unmatched `json:"unmatched,omitempty"` // the first few events only before or only after, in a group on both sides
}

// Change is one data value that differs: an aligned pair of events of a
// group, one on each side.
type Change struct {
	BeforeSeq  int64           `json:"beforeSeq"`
	AfterSeq   int64           `json:"afterSeq"`
	Before     json.RawMessage `json:"before"`
	After      json.RawMessage `json:"after"`
	Cut        bool            `json:"cut,omitempty"` // a data value over 1 KiB, given as a string of its start
	Fields     []FieldChange   `json:"fields"`        // each data path that differs, with both values (the first 8)
	MoreFields int             `json:"moreFields"`    // further paths that differ, not listed
}

// Unmatched is an event of a group on both sides that has no counterpart
// on the other side: removed (before) or added (after).
type Unmatched struct {
	Side string          `json:"side"` // before or after
	Seq  int64           `json:"seq"`
	Data json.RawMessage `json:"data"`
	Cut  bool            `json:"cut,omitempty"`
}

// EventBrief is an event as a comparison cites it.
type EventBrief struct {
	Seq        int64           `json:"seq"`
	Position   int64           `json:"position"` // 1-based, in its side's logs order
	Hypothesis string          `json:"hypothesis"`
	Location   string          `json:"location"`
	Message    string          `json:"message"`
	Data       json.RawMessage `json:"data"`
	Cut        bool            `json:"cut,omitempty"` // data over 1 KiB, given as a string of its start
}

// Reasons of a divergence. Each names events of one group, never a pair
// from two different groups.
const (
	DivergedData       = "data"              // an event aligned with its counterpart, with other data
	DivergedOnlyBefore = "only_before"       // an event before with no counterpart after, in a group on both sides
	DivergedOnlyAfter  = "only_after"        // an event after with no counterpart before, in a group on both sides
	DivergedNoAfter    = "group_only_before" // the first event of a group that has no events after
	DivergedNoBefore   = "group_only_after"  // the first event of a group that has no events before
	DivergedOrder      = "order"             // every group has the same events, interleaved in another order
)

// Divergence is the first event, in logs order, where the two runs differ:
// the earlier of the first differing event before and the first after.
type Divergence struct {
	Position int64         `json:"position"` // 1-based, in logs order, of that event on its side
	Reason   string        `json:"reason"`
	Before   *EventBrief   `json:"before,omitempty"` // with After, the same group's counterpart
	After    *EventBrief   `json:"after,omitempty"`
	Fields   []FieldChange `json:"fields,omitempty"` // data: the paths that differ
}

// DiffCounts sum up the groups and their events.
type DiffCounts struct {
	Groups       int   `json:"groups"`
	InBoth       int   `json:"inBoth"`
	OnlyBefore   int   `json:"onlyBefore"`
	OnlyAfter    int   `json:"onlyAfter"`
	Moved        int   `json:"moved"`
	Same         int   `json:"same"`
	DataChanged  int   `json:"dataChanged"`  // groups with a changed data value
	CountChanged int   `json:"countChanged"` // groups in both whose event counts differ
	Edited       int   `json:"edited"`       // groups with status edited
	Approximate  int   `json:"approximate"`  // groups paired by position, past MaxDiffEdits
	ChangedPairs int64 `json:"changedValues"`
	// Events compared, each counted once: before = sameEvents + changedValues
	// + onlyBeforeEvents, after = sameEvents + changedValues + onlyAfterEvents.
	SameEvents       int64 `json:"sameEvents"`
	OnlyBeforeEvents int64 `json:"onlyBeforeEvents"` // in groups on both sides or before only
	OnlyAfterEvents  int64 `json:"onlyAfterEvents"`
}

// DiffResult compares two evidence sets.
type DiffResult struct {
	SessionID       string      `json:"sessionId"`
	Before          Side        `json:"before"`
	After           Side        `json:"after"`
	Complete        bool        `json:"complete"`  // every event of both sides took part, and every group was aligned, not approximated
	Identical       bool        `json:"identical"` // complete, and no group, count or value differs
	Counts          DiffCounts  `json:"counts"`
	FirstDivergence *Divergence `json:"firstDivergence"`
	Groups          []Group     `json:"groups"` // differing groups first
	GroupsOmitted   int         `json:"groupsOmitted"`
	// How the comparison was made, and why: align pairs events one by one,
	// distribution compares how often each value occurs.
	Mode         string        `json:"mode"`
	ModeReason   string        `json:"modeReason"`
	Fields       []string      `json:"fields,omitempty"` // only these data paths were compared
	Ignore       []string      `json:"ignore,omitempty"` // these data paths were left out
	Distribution *Distribution `json:"distribution,omitempty"`
}

const noGroup = math.MaxUint32

// set is one side reduced to what comparing needs, about 16 bytes an event.
type set struct {
	side   Side
	filter *pathNode // what of the data is compared; nil: all of it
	grp    []uint32  // group number of each compared sequence-1
	dh     []uint64  // data hash of each compared sequence-1
	keys   []string  // hypothesis \x00 location \x00 message, raw JSON-escaped
	keyNo  map[string]uint32
	buf    []byte
	order  []int32 // compared sequences-1 in logs order
	line   func(seq int64) ([]byte, error)
}

func newSet(filter *pathNode) *set { return &set{keyNo: map[string]uint32{}, filter: filter} }

func (s *set) add(seq int64, e event) {
	if seq > int64(MaxDiffEvents) {
		s.side.Truncated = true
		return
	}
	s.buf = append(append(append(append(append(s.buf[:0], e.hyp...), 0), e.loc...), 0), e.msg...)
	n, ok := s.keyNo[string(s.buf)]
	if !ok {
		if len(s.keys) >= MaxDiffGroups {
			n = noGroup
			s.side.GroupsBound = true
			s.side.Ungrouped++
		} else {
			n = uint32(len(s.keys))
			k := string(s.buf)
			s.keys = append(s.keys, k)
			s.keyNo[k] = n
		}
	} else if n == noGroup {
		s.side.Ungrouped++
	}
	s.grp = append(s.grp, n)
	if s.filter == nil {
		s.dh = append(s.dh, dataHash(e.data))
	} else {
		s.dh = append(s.dh, filteredHash(e.data, s.filter))
	}
}

// finish takes the logs order from the view and keeps a reader for examples.
func (s *set) finish(v *store.Snapshot) error {
	s.side.Compared = int64(len(s.grp))
	s.order = make([]int32, 0, len(s.grp))
	it := v.Iter(store.Filter{})
	for {
		seq, _, ok, err := it.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if seq <= int64(len(s.grp)) {
			s.order = append(s.order, int32(seq-1))
		}
	}
	s.line = v.Iter(store.Filter{}).Line
	return nil
}

// liveSet reads the session's current cycle into a set.
func liveSet(sess *store.Session, filter *pathNode) (*set, error) {
	v, err := sess.Snapshot(0)
	if err != nil {
		return nil, err
	}
	s := newSet(filter)
	it := v.Iter(store.Filter{})
	for seq := int64(1); seq <= int64(min(v.N, MaxDiffEvents+1)); seq++ {
		line, err := it.Line(seq)
		if err != nil {
			return nil, err
		}
		e, ok := parseEvent(line)
		if !ok {
			return nil, errUnreadable(seq)
		}
		s.add(seq, e)
	}
	s.side = Side{Kind: "live", Cycle: v.Epoch, Version: v.Version(), Events: int64(v.N), RejectedRecords: v.Rejected,
		Truncated: s.side.Truncated, GroupsBound: s.side.GroupsBound, Ungrouped: s.side.Ungrouped}
	if err := s.finish(v); err != nil {
		return nil, err
	}
	return s, v.Check()
}

// Diff compares capture o.From (before) with capture o.To (after), or with
// the session's live cycle when o.To is "".
func (cs *Store) Diff(sess *store.Session, o DiffOptions) (DiffResult, error) {
	if err := o.Check(); err != nil {
		return DiffResult{}, err
	}
	filter, err := newFilter(o.Fields, o.Ignore)
	if err != nil {
		return DiffResult{}, badRequest("%v", err)
	}
	var opened []*Capture
	defer func() {
		for _, c := range opened {
			c.Close()
		}
	}()
	side := func(id string) (*set, error) {
		if id == "" {
			return liveSet(sess, filter)
		}
		s := newSet(filter)
		c, err := cs.Open(sess.ID(), id, OpenOptions{onEvent: s.add})
		if err != nil {
			return nil, err
		}
		opened = append(opened, c)
		s.side = Side{Kind: "capture", Capture: c.ID(), Label: c.Index.Label, SHA256: c.Index.SHA256, Cycle: c.Header.Cycle,
			Version: c.Header.EvidenceVersion, Events: c.Header.Events, RejectedRecords: c.Header.RejectedRecords,
			Truncated: s.side.Truncated, GroupsBound: s.side.GroupsBound, Ungrouped: s.side.Ungrouped}
		return s, s.finish(c.snap)
	}
	a, err := side(o.From)
	if err != nil {
		return DiffResult{}, err
	}
	b, err := side(o.To)
	if err != nil {
		return DiffResult{}, err
	}
	r, err := compare(a, b, o.Mode)
	r.SessionID = sess.ID()
	r.Fields, r.Ignore = o.Fields, o.Ignore
	return r, err
}

func errUnreadable(seq int64) error { return fmt.Errorf("stored event SEQ %d is unreadable", seq) }

// members lists, per group, its sequences-1 in logs order.
type members struct {
	start []int32 // group g's members are pos[start[g]:start[g+1]]
	pos   []int32
}

func (s *set) members() members {
	m := members{start: make([]int32, len(s.keys)+1)}
	for _, i := range s.order {
		if g := s.grp[i]; g != noGroup {
			m.start[g+1]++
		}
	}
	for g := range s.keys {
		m.start[g+1] += m.start[g]
	}
	m.pos = make([]int32, m.start[len(s.keys)])
	fill := append([]int32(nil), m.start[:len(s.keys)]...)
	for _, i := range s.order {
		if g := s.grp[i]; g != noGroup {
			m.pos[fill[g]] = i
			fill[g]++
		}
	}
	return m
}

func (m members) of(g uint32) []int32 { return m.pos[m.start[g]:m.start[g+1]] }

// oneSide is a one-sided group's event count and its first position (1-based).
func oneSide(pos []int32) (n, first int64) { return int64(len(pos)), int64(pos[0]) + 1 }

type pair struct {
	a, b  int32 // group numbers, -1 when absent on that side
	moved bool
}

// compare pairs the groups of both sides, aligns each pair's events by
// their data, finds the first divergence, and in distribution mode counts
// the values of both sides.
func compare(a, b *set, mode string) (DiffResult, error) {
	r := DiffResult{Before: a.side, After: b.side, Groups: []Group{}}
	r.Complete = !a.side.Truncated && !a.side.GroupsBound && !b.side.Truncated && !b.side.GroupsBound
	pairA := fill(len(a.keys), -1)
	pairB := fill(len(b.keys), -1)
	var pairs []pair
	for ga, k := range a.keys {
		if gb, ok := b.keyNo[k]; ok && gb != noGroup {
			pairA[ga], pairB[gb] = int32(len(pairs)), int32(len(pairs))
			pairs = append(pairs, pair{a: int32(ga), b: int32(gb)})
		}
	}
	// A group whose location moved within the same file (lines added above
	// a probe) pairs with the one group on the other side that differs
	// only by the line.
	moveKey := func(k string) (string, bool) {
		hyp, rest, _ := strings.Cut(k, "\x00")
		loc, msg, _ := strings.Cut(rest, "\x00")
		p, _, ok := probes.SplitLocation(unescape([]byte(loc)))
		return hyp + "\x00" + p + "\x00" + msg, ok
	}
	type cand struct {
		a, b   []int32
		aN, bN int
	}
	moves := map[string]*cand{}
	for ga, k := range a.keys {
		if pairA[ga] < 0 {
			if mk, ok := moveKey(k); ok {
				c := moves[mk]
				if c == nil {
					c = &cand{}
					moves[mk] = c
				}
				c.a = append(c.a, int32(ga))
			}
		}
	}
	for gb, k := range b.keys {
		if pairB[gb] < 0 {
			if mk, ok := moveKey(k); ok {
				if c := moves[mk]; c != nil {
					c.b = append(c.b, int32(gb))
				}
			}
		}
	}
	mkeys := make([]string, 0, len(moves))
	for k := range moves {
		mkeys = append(mkeys, k)
	}
	sort.Strings(mkeys)
	for _, k := range mkeys {
		if c := moves[k]; len(c.a) == 1 && len(c.b) == 1 {
			pairA[c.a[0]], pairB[c.b[0]] = int32(len(pairs)), int32(len(pairs))
			pairs = append(pairs, pair{a: c.a[0], b: c.b[0], moved: true})
		}
	}

	ma, mb := a.members(), b.members()
	// partA[i] is the sequence-1 after that event i before is aligned
	// with, or -1; partB the other way round.
	partA, partB := fill(len(a.grp), -1), fill(len(b.grp), -1)
	type example struct {
		group      int
		seqA, seqB int64
	}
	type single struct {
		group int
		side  string
		seq   int64
	}
	var examples []example
	var singles []single
	var al aligner
	var ha, hb []uint64
	for _, p := range pairs {
		pa, pb := ma.of(uint32(p.a)), mb.of(uint32(p.b))
		g := newGroup(a.keys[p.a])
		if p.moved {
			g.LocationAfter = newGroup(b.keys[p.b]).Location
			r.Counts.Moved++
		}
		g.Before, g.After = int64(len(pa)), int64(len(pb))
		g.FirstBefore, g.FirstAfter = int64(pa[0])+1, int64(pb[0])+1

		// Align the two sequences by data; what is left between two
		// aligned events was removed and added at that point: the first
		// ones of each side pair up as changed values, the rest are only
		// before or only after. A group past the edit bound aligns only its
		// common start and end, and pairs its middle by position.
		ha, hb = ha[:0], hb[:0]
		for _, i := range pa {
			ha = append(ha, a.dh[i])
		}
		for _, j := range pb {
			hb = append(hb, b.dh[j])
		}
		g.Approximate = !al.align(ha, hb, MaxDiffEdits, func(i, j int) {
			partA[pa[i]], partB[pb[j]] = pb[j], pa[i]
		})
		shown, shownSingle := 0, 0
		for i, j := 0, 0; i < len(pa) || j < len(pb); {
			i0, j0 := i, j
			for i < len(pa) && partA[pa[i]] < 0 {
				i++
			}
			for j < len(pb) && partB[pb[j]] < 0 {
				j++
			}
			for k := 0; k < i-i0 || k < j-j0; k++ {
				switch {
				case k < i-i0 && k < j-j0:
					x, y := pa[i0+k], pb[j0+k]
					partA[x], partB[y] = y, x
					if a.dh[x] == b.dh[y] { // only by position, past the edit bound
						r.Counts.SameEvents++
						continue
					}
					g.Changed++
					if shown < maxExamplesPerGroup && len(examples) < maxExamples {
						examples = append(examples, example{len(r.Groups), int64(x) + 1, int64(y) + 1})
						shown++
					}
				case k < i-i0:
					g.OnlyBefore++
					if shownSingle < maxExamplesPerGroup && len(singles) < maxExamples {
						singles = append(singles, single{len(r.Groups), "before", int64(pa[i0+k]) + 1})
						shownSingle++
					}
				default:
					g.OnlyAfter++
					if shownSingle < maxExamplesPerGroup && len(singles) < maxExamples {
						singles = append(singles, single{len(r.Groups), "after", int64(pb[j0+k]) + 1})
						shownSingle++
					}
				}
			}
			if i < len(pa) && j < len(pb) { // aligned, the same data
				i++
				j++
				r.Counts.SameEvents++
			}
		}
		r.Counts.InBoth++
		r.Counts.ChangedPairs += g.Changed
		r.Counts.OnlyBeforeEvents += g.OnlyBefore
		r.Counts.OnlyAfterEvents += g.OnlyAfter
		switch {
		case g.Changed > 0:
			g.Status = GroupChanged
			r.Counts.DataChanged++
		case g.Before != g.After:
			g.Status = GroupCount
		case g.OnlyBefore > 0:
			g.Status = GroupEdited
			r.Counts.Edited++
		default:
			g.Status = GroupSame
			r.Counts.Same++
		}
		if g.Before != g.After {
			r.Counts.CountChanged++
		}
		if g.Approximate {
			r.Counts.Approximate++
			r.Complete = false
		}
		r.Groups = append(r.Groups, g)
	}
	// Groups seen on one side only.
	for ga, k := range a.keys {
		if pairA[ga] < 0 {
			g := newGroup(k)
			n, first := oneSide(ma.of(uint32(ga)))
			g.Status, g.Before, g.FirstBefore, g.OnlyBefore = GroupOnlyBefore, n, first, n
			r.Groups = append(r.Groups, g)
			r.Counts.OnlyBefore++
			r.Counts.OnlyBeforeEvents += n
		}
	}
	for gb, k := range b.keys {
		if pairB[gb] < 0 {
			g := newGroup(k)
			n, first := oneSide(mb.of(uint32(gb)))
			g.Status, g.After, g.FirstAfter, g.OnlyAfter = GroupOnlyAfter, n, first, n
			r.Groups = append(r.Groups, g)
			r.Counts.OnlyAfter++
			r.Counts.OnlyAfterEvents += n
		}
	}
	r.Counts.Groups = len(r.Groups)

	// Events on one side only: read their data.
	for _, sg := range singles {
		s := a
		if sg.side == "after" {
			s = b
		}
		data, err := rawData(s, sg.seq)
		if err != nil {
			return r, err
		}
		u := Unmatched{Side: sg.side, Seq: sg.seq}
		u.Data, u.Cut = clip(data)
		r.Groups[sg.group].Unmatched = append(r.Groups[sg.group].Unmatched, u)
	}

	// Examples: read both data values and name the fields that differ.
	for _, ex := range examples {
		da, err := rawData(a, ex.seqA)
		if err != nil {
			return r, err
		}
		db, err := rawData(b, ex.seqB)
		if err != nil {
			return r, err
		}
		ch := Change{BeforeSeq: ex.seqA, AfterSeq: ex.seqB}
		ch.Fields, ch.MoreFields = fieldChanges(da, db, a.filter)
		ch.MoreFields -= len(ch.Fields)
		ch.Before, ch.Cut = clip(da)
		var cutB bool
		ch.After, cutB = clip(db)
		ch.Cut = ch.Cut || cutB
		r.Groups[ex.group].Examples = append(r.Groups[ex.group].Examples, ch)
	}

	var err error
	if r.FirstDivergence, err = divergence(a, b, pairA, pairB, partA, partB); err != nil {
		return r, err
	}
	r.Identical = r.Complete && r.FirstDivergence == nil && r.Counts.Same == r.Counts.Groups &&
		a.side.Events == b.side.Events

	r.Mode, r.ModeReason = chooseMode(mode, r.Counts)
	if r.Mode == ModeDistribution {
		// Every event of the paired groups is counted: whether aligning
		// them was approximate no longer matters.
		if r.Distribution, err = distribute(a, b, pairA, pairB, r.Groups[:len(pairs)], a.filter); err != nil {
			return r, err
		}
		dist := r.Distribution
		r.Complete = !a.side.Truncated && !a.side.GroupsBound && !b.side.Truncated && !b.side.GroupsBound &&
			!dist.ValuesBound && !dist.PathsBound
	}

	rank := map[string]int{GroupChanged: 0, GroupCount: 1, GroupEdited: 2, GroupOnlyBefore: 3, GroupOnlyAfter: 4, GroupSame: 5}
	sort.SliceStable(r.Groups, func(i, j int) bool {
		x, y := r.Groups[i], r.Groups[j]
		if rank[x.Status] != rank[y.Status] {
			return rank[x.Status] < rank[y.Status]
		}
		dx, dy := x.Changed+x.OnlyBefore+x.OnlyAfter, y.Changed+y.OnlyBefore+y.OnlyAfter
		if dx != dy {
			return dx > dy
		}
		if x.Before+x.After != y.Before+y.After {
			return x.Before+x.After > y.Before+y.After
		}
		return x.Hypothesis+x.Location+x.Message < y.Hypothesis+y.Location+y.Message
	})
	if len(r.Groups) > maxListedGroups {
		r.GroupsOmitted = len(r.Groups) - maxListedGroups
		r.Groups = r.Groups[:maxListedGroups]
	}
	return r, nil
}

func fill(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func newGroup(key string) Group {
	hyp, rest, _ := strings.Cut(key, "\x00")
	loc, msg, _ := strings.Cut(rest, "\x00")
	return Group{Hypothesis: unescape([]byte(hyp)), Location: unescape([]byte(loc)), Message: unescape([]byte(msg))}
}

// brief reads an event of a set for citing.
func brief(s *set, seq int64) (*EventBrief, error) {
	line, err := s.line(seq)
	if err != nil {
		return nil, err
	}
	e, ok := parseEvent(line)
	if !ok {
		return nil, errUnreadable(seq)
	}
	data, cut := clip(e.data)
	return &EventBrief{Seq: seq, Hypothesis: unescape(e.hyp), Location: unescape(e.loc), Message: unescape(e.msg), Data: data, Cut: cut}, nil
}

// rawData reads the data value of an event of a set, whole.
func rawData(s *set, seq int64) ([]byte, error) {
	line, err := s.line(seq)
	if err != nil {
		return nil, err
	}
	e, ok := parseEvent(line)
	if !ok {
		return nil, errUnreadable(seq)
	}
	return e.data, nil
}

// clip keeps a data value whole up to maxExampleBytes; a longer one becomes
// a string of its first bytes.
func clip(data []byte) (json.RawMessage, bool) {
	if len(data) <= maxExampleBytes {
		return append(json.RawMessage(nil), data...), false
	}
	b, _ := marshal(cut(strings.ToValidUTF8(string(data[:maxExampleBytes]), ""), maxExampleBytes))
	return b, true
}

// Automatic mode: distribution when at least this many aligned events
// changed and they are most of the events of the groups on both sides.
const minChangedForDistribution = 50

// chooseMode settles the mode and says why.
func chooseMode(mode string, c DiffCounts) (string, string) {
	switch mode {
	case ModeAlign, ModeDistribution:
		return mode, "asked for with --mode " + mode
	}
	inBoth := c.SameEvents + c.ChangedPairs + c.OnlyBeforeEvents + c.OnlyAfterEvents
	switch {
	case c.Approximate > 0:
		return ModeDistribution, fmt.Sprintf("automatic: %s needed more than %d edits to align, so pairing events one by one would be approximate",
			countNoun(int64(c.Approximate), "group", "groups"), MaxDiffEdits)
	case c.ChangedPairs >= minChangedForDistribution && 2*c.ChangedPairs > inBoth:
		return ModeDistribution, fmt.Sprintf("automatic: %d of the %d events aligned one by one have changed data, as in a run that is not deterministic",
			c.ChangedPairs, c.SameEvents+c.ChangedPairs)
	}
	return ModeAlign, fmt.Sprintf("automatic: every group aligned within %d edits, with few changed values", MaxDiffEdits)
}

func countNoun(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// divergence finds the first event, in logs order, where the runs differ:
// the earlier of the first event before and the first event after that is
// not aligned with an equal event of its group. When there is none but the
// groups interleave in another order, it is the first event whose aligned
// counterpart sits elsewhere. Events past the group bound are not compared.
func divergence(a, b *set, pairA, pairB, partA, partB []int32) (*Divergence, error) {
	differs := func(s *set, part []int32, i int32, other *set) bool {
		if s.grp[i] == noGroup {
			return false
		}
		j := part[i]
		return j < 0 || s.dh[i] != other.dh[j]
	}
	first := func(s *set, part []int32, other *set) int {
		for k, i := range s.order {
			if differs(s, part, i, other) {
				return k
			}
		}
		return -1
	}
	posOf := func(s *set, i int32) int {
		for k, x := range s.order {
			if x == i {
				return k
			}
		}
		return -1
	}
	ka, kb := first(a, partA, b), first(b, partB, a)
	d := &Divergence{}
	var err error
	cite := func(s *set, i int32, k int) *EventBrief {
		if err != nil {
			return nil
		}
		var e *EventBrief
		e, err = brief(s, int64(i)+1)
		if e != nil {
			e.Position = int64(k) + 1
		}
		return e
	}
	switch {
	case ka >= 0 && (kb < 0 || ka <= kb):
		i := a.order[ka]
		d.Position = int64(ka) + 1
		d.Before = cite(a, i, ka)
		switch j := partA[i]; {
		case j >= 0:
			d.Reason = DivergedData
			d.After = cite(b, j, posOf(b, j))
		case pairA[a.grp[i]] >= 0:
			d.Reason = DivergedOnlyBefore
		default:
			d.Reason = DivergedNoAfter
		}
	case kb >= 0:
		j := b.order[kb]
		d.Position = int64(kb) + 1
		d.After = cite(b, j, kb)
		switch i := partB[j]; {
		case i >= 0:
			d.Reason = DivergedData
			d.Before = cite(a, i, posOf(a, i))
		case pairB[b.grp[j]] >= 0:
			d.Reason = DivergedOnlyAfter
		default:
			d.Reason = DivergedNoBefore
		}
	default:
		// The same events in every group: do they interleave alike?
		k := 0
		for ; k < len(a.order) && k < len(b.order); k++ {
			i, j := a.order[k], b.order[k]
			if a.grp[i] == noGroup || partA[i] == j {
				continue
			}
			break
		}
		if k >= len(a.order) || k >= len(b.order) {
			return nil, nil
		}
		i := a.order[k]
		d.Position, d.Reason = int64(k)+1, DivergedOrder
		d.Before = cite(a, i, k)
		d.After = cite(b, partA[i], posOf(b, partA[i]))
	}
	if err != nil {
		return nil, err
	}
	if d.Reason == DivergedData {
		da, err := rawData(a, d.Before.Seq)
		if err != nil {
			return nil, err
		}
		db, err := rawData(b, d.After.Seq)
		if err != nil {
			return nil, err
		}
		d.Fields, _ = fieldChanges(da, db, a.filter)
	}
	return d, nil
}
