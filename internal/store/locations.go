package store

import (
	"bytes"
	"encoding/json"
	"sort"
)

// MaxLocations bounds the distinct locations one answer lists; the rest
// are counted in Omitted.
const MaxLocations = 10000

// LocationCount is how many events came from one location, per label.
type LocationCount struct {
	Location   string            `json:"location"`
	Events     int64             `json:"events"`
	Hypotheses []HypothesisCount `json:"hypotheses"`
}

// Locations is the evidence of a cycle grouped by location, most events
// first.
type Locations struct {
	SessionID string          `json:"sessionId"`
	Cycle     int64           `json:"cycle"`
	Version   string          `json:"evidenceVersion"`
	Events    int64           `json:"events"`
	Locations []LocationCount `json:"locations"`
	Omitted   int             `json:"omittedLocations"` // distinct locations beyond MaxLocations
	// ProjectRoot is the folder locations are relative to ("" when the
	// session has none), so joins compare root-relative paths.
	ProjectRoot string `json:"projectRoot,omitempty"`
}

var keyLocation = []byte(`,"location":"`)

// Locations drains the append path, then counts the cycle's events by
// location and hypothesis label in one walk of a snapshot.
func (s *Session) Locations() (Locations, error) {
	v, err := s.Snapshot(0)
	if err != nil {
		return Locations{}, err
	}
	out := Locations{SessionID: s.id, Cycle: v.Epoch, Version: v.Version(), Events: int64(v.N), Locations: []LocationCount{}, ProjectRoot: s.Meta().ProjectRoot}
	type key struct{ loc, hyp string }
	counts := map[key]int64{}
	it := v.Iter(Filter{})
	for seq := int64(1); seq <= int64(v.N); seq++ {
		line, err := it.Line(seq)
		if err != nil {
			return Locations{}, err
		}
		counts[key{storedLocation(line), v.Label(seq)}]++
	}
	byLoc := map[string]*LocationCount{}
	for k, n := range counts {
		lc := byLoc[k.loc]
		if lc == nil {
			lc = &LocationCount{Location: k.loc}
			byLoc[k.loc] = lc
		}
		lc.Events += n
		lc.Hypotheses = append(lc.Hypotheses, HypothesisCount{k.hyp, n})
	}
	for _, lc := range byLoc {
		sortCounts(lc.Hypotheses)
		out.Locations = append(out.Locations, *lc)
	}
	sort.Slice(out.Locations, func(i, j int) bool {
		a, b := out.Locations[i], out.Locations[j]
		if a.Events != b.Events {
			return a.Events > b.Events
		}
		return a.Location < b.Location
	})
	if len(out.Locations) > MaxLocations {
		out.Omitted = len(out.Locations) - MaxLocations
		out.Locations = out.Locations[:MaxLocations]
	}
	return out, v.Check()
}

// storedLocation reads the location of a stored line. The field order is
// fixed (AppendStored), so the first `,"location":"` is the field: the
// hypothesis id before it would have its quotes escaped.
func storedLocation(line []byte) string {
	i := bytes.Index(line, keyLocation)
	if i >= 0 {
		rest := line[i+len(keyLocation):]
		if j := bytes.IndexByte(rest, '"'); j >= 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			return string(rest[:j])
		}
	}
	var e struct {
		Location string `json:"location"`
	}
	json.Unmarshal(line, &e)
	return e.Location
}
