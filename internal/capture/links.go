package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Link is one typed relation of an event, with its state. Only a complete
// or ambiguous link has targets; following an ambiguous one returns them all.
type Link struct {
	Rel     string   `json:"rel"`
	State   string   `json:"state"`
	Targets []Target `json:"targets,omitempty"`
	Reason  string   `json:"reason,omitempty"` // why it is not complete (or, for a region, the drift)
	Drift   int      `json:"drift,omitempty"`  // region: lines between the event's line and the region
}

// Target is what a link points at: an event (Seq) or lines of a file.
type Target struct {
	Seq       int64  `json:"seq,omitempty"`
	File      string `json:"file,omitempty"`
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	Line      int    `json:"line,omitempty"` // source: the event's line
}

// Followable says whether a link may be followed.
func (l Link) Followable() bool { return l.State == Complete || l.State == Ambiguous }

// Location is the location of a sequence in the capture.
func (c *Capture) Location(seq int64) string { return c.locs[c.locOf[seq-1]] }

// Links returns every link of each sequence, in the order given.
func (c *Capture) Links(seqs []int64) ([][]Link, error) {
	prev, next, err := c.neighbours(seqs)
	if err != nil {
		return nil, err
	}
	out := make([][]Link, len(seqs))
	for i, seq := range seqs {
		loc := c.Location(seq)
		out[i] = []Link{c.sourceLink(loc), c.regionLink(loc), neighbourLink(RelPrevious, seq, prev[i], loc), neighbourLink(RelNext, seq, next[i], loc)}
	}
	return out, nil
}

// link returns one relation of a sequence.
func (c *Capture) link(seq int64, rel string) (Link, error) {
	loc := c.Location(seq)
	switch rel {
	case RelSource:
		return c.sourceLink(loc), nil
	case RelRegion:
		return c.regionLink(loc), nil
	case RelPrevious, RelNext:
		prev, next, err := c.neighbours([]int64{seq})
		if err != nil {
			return Link{}, err
		}
		if rel == RelPrevious {
			return neighbourLink(rel, seq, prev[0], loc), nil
		}
		return neighbourLink(rel, seq, next[0], loc), nil
	}
	return Link{}, badRequest("--rel %q is not a relation; use one of %s", rel, strings.Join(Relations, ", "))
}

func neighbourLink(rel string, seq, target int64, loc string) Link {
	if target > 0 {
		return Link{Rel: rel, State: Complete, Targets: []Target{{Seq: target}}}
	}
	which := "first"
	if rel == RelNext {
		which = "last"
	}
	return Link{Rel: rel, State: Unavailable, Reason: fmt.Sprintf("SEQ %d is the %s event at %s in the capture (logs order)", seq, which, loc)}
}

// neighbours finds, for each sequence, the events just before and after it
// at the same location in logs order, in one walk of the capture's order.
func (c *Capture) neighbours(seqs []int64) (prev, next []int64, err error) {
	prev, next = make([]int64, len(seqs)), make([]int64, len(seqs))
	want := map[int64][]int{}
	for i, s := range seqs {
		want[s] = append(want[s], i)
	}
	last := make([]int64, len(c.locs))
	waiting := map[uint32][]int{}
	it := c.snap.Iter(store.Filter{})
	for {
		seq, _, ok, err := it.Next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return prev, next, nil
		}
		l := c.locOf[seq-1]
		if w := waiting[l]; len(w) > 0 {
			for _, i := range w {
				next[i] = seq
			}
			delete(waiting, l)
		}
		if is, ok := want[seq]; ok {
			for _, i := range is {
				prev[i] = last[l]
			}
			waiting[l] = append(waiting[l], is...)
		}
		last[l] = seq
	}
}

// sourceLink is the frozen source lines at a location.
func (c *Capture) sourceLink(loc string) Link {
	s := c.sources[loc]
	if s == nil {
		l := Link{Rel: RelSource, State: Incomplete}
		sc := c.Header.SourceScan
		switch {
		case sc.Omitted > 0 || sc.Truncated:
			l.Reason = fmt.Sprintf("no source lines were frozen for this location: the capture froze source for %d of %d locations (bound: %s)", sc.Records, sc.Records+sc.Omitted, boundName(sc))
		default:
			l.Reason = "no source lines were frozen for this location: its first event arrived after the capture read the source files"
		}
		return l
	}
	l := Link{Rel: RelSource, State: s.State, Reason: s.Reason}
	for _, f := range s.Files {
		l.Targets = append(l.Targets, Target{File: f.File, StartLine: f.StartLine, EndLine: f.EndLine(), Line: f.Line})
	}
	return l
}

func boundName(sc SourceScan) string {
	switch {
	case sc.Bound == "locations":
		return fmt.Sprintf("at most %d locations", MaxSourceLocations)
	case sc.Bound == "bytes":
		return fmt.Sprintf("at most %d bytes of source", MaxSourceBytes)
	case sc.Truncated:
		return "the service listed only the busiest locations"
	}
	return "none"
}

// regionLink is the probe region an event came from. A line inside a region
// proves it; a line outside every region is attributed to the one nearest
// region within probes.DefaultDrift lines (lines move when code is added
// above a probe), and the link says how far it drifted.
func (c *Capture) regionLink(loc string) Link {
	if l, ok := c.regionLinks[loc]; ok {
		return l
	}
	l := c.computeRegionLink(loc)
	if c.regionLinks == nil {
		c.regionLinks = map[string]Link{}
	}
	c.regionLinks[loc] = l
	return l
}

func (c *Capture) computeRegionLink(loc string) Link {
	l := Link{Rel: RelRegion}
	rs := c.Header.RegionScan
	if rs.State != Complete {
		l.State, l.Reason = Incomplete, "the capture has no region scan: "+rs.Reason
		return l
	}
	path, line, hasLine := probes.SplitLocation(loc)
	if !hasLine {
		l.State, l.Reason = Incomplete, fmt.Sprintf("the location %q has no line number, so no region can be told from another", loc)
		return l
	}
	// A complete search can only prove absence when the scan saw every
	// region; bounds and unreadable files leave the answer open.
	partial := ""
	switch {
	case rs.Omitted > 0:
		partial = fmt.Sprintf("the capture froze %d of %d regions", rs.Regions, rs.Regions+rs.Omitted)
	case rs.Unreadable > 0 || rs.Large > 0:
		partial = fmt.Sprintf("%d files under the source root could not be scanned (unreadable or over 2 MiB)", rs.Unreadable+rs.Large)
	}
	j := probes.Join(c.regions, []probes.LocationCount{{Location: loc, Events: 1}}, probes.DefaultDrift)
	if len(j.Unmatched) == 1 {
		u := j.Unmatched[0]
		switch u.Reason {
		case probes.UnmatchedAmbiguous:
			l.State = Ambiguous
			l.Reason = fmt.Sprintf("line %d fits %d regions equally well", line, len(u.Candidates))
			for _, cand := range u.Candidates {
				l.Targets = append(l.Targets, parseRegionRef(cand))
			}
			return l
		case probes.UnmatchedNoFile:
			l.State, l.Reason = Unavailable, fmt.Sprintf("no file under the source root named like %s holds an agent log region", path)
		case probes.UnmatchedNoRegion:
			l.State, l.Reason = Unavailable, fmt.Sprintf("%s has agent log regions, none within %d lines of line %d", path, probes.DefaultDrift, line)
		default:
			l.State, l.Reason = Incomplete, u.Reason
		}
		if partial != "" && l.State == Unavailable {
			l.State, l.Reason = Incomplete, l.Reason+", but "+partial
		}
		return l
	}
	for _, re := range j.Regions {
		if re.Events == 0 {
			continue
		}
		l.State = Complete
		l.Targets = []Target{{File: re.File, StartLine: re.StartLine, EndLine: re.EndLine}}
		if re.NearestEvents > 0 {
			l.Drift = max(re.StartLine-line, line-re.EndLine)
			l.Reason = fmt.Sprintf("line %d is %d lines outside the region, the only one that near (locations drift when code is added above a probe)", line, l.Drift)
		}
		return l
	}
	l.State, l.Reason = Incomplete, "the region join gave no answer"
	return l
}

// parseRegionRef reads "file:start-end".
func parseRegionRef(s string) Target {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return Target{File: s}
	}
	a, b, _ := strings.Cut(s[i+1:], "-")
	start, _ := strconv.Atoi(a)
	end, _ := strconv.Atoi(b)
	return Target{File: s[:i], StartLine: start, EndLine: end}
}

// withLinks adds each event's links to its stored line, as a "links" field.
func (c *Capture) withLinks(events []json.RawMessage) ([]json.RawMessage, error) {
	seqs := make([]int64, len(events))
	for i, raw := range events {
		e, ok := parseEvent(raw)
		if !ok {
			return nil, damaged(c.ID(), "a stored event cannot be read")
		}
		seqs[i] = e.seq
	}
	links, err := c.Links(seqs)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(events))
	for i, raw := range events {
		b, err := marshal(links[i])
		if err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace(raw)
		ev := make([]byte, 0, len(raw)+len(b)+10)
		ev = append(ev, raw[:len(raw)-1]...)
		ev = append(ev, `,"links":`...)
		ev = append(ev, b...)
		out[i] = append(ev, '}')
	}
	return out, nil
}

// LogsPage is one page of a capture's events, each with its links.
func (c *Capture) LogsPage(f store.Filter, offset, limit int) (store.Page, error) {
	p, err := c.snap.Page(c.Header.SessionID, f, offset, limit)
	if err != nil {
		return p, err
	}
	p.Version = c.ID()
	p.UserEvidence = store.UserEvidenceCount{Notes: c.Header.UserNotes, Files: c.Header.UserFiles}
	p.Events, err = c.withLinks(p.Events)
	return p, err
}
