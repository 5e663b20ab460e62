package probes

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DefaultDrift is how many lines away from a region an event's location may
// be and still be attributed to it, when no region contains the line.
// Locations drift when lines are added above a probe after its location was
// written (the helper, an import, a fix).
const DefaultDrift = 10

// LabelCount is the number of events carrying one hypothesis label.
type LabelCount struct {
	ID     string `json:"id"`
	Events int64  `json:"events"`
}

// LocationCount is the number of events a session received from one
// location, per hypothesis label.
type LocationCount struct {
	Location   string       `json:"location"`
	Events     int64        `json:"events"`
	Hypotheses []LabelCount `json:"hypotheses"`
}

// RegionEvidence is a region with the events attributed to it.
type RegionEvidence struct {
	Region
	Events        int64        `json:"events"`
	NearestEvents int64        `json:"nearestEvents"` // of Events, those whose line is outside the region but nearest to it
	Hypotheses    []LabelCount `json:"hypotheses"`
	NeverFired    bool         `json:"neverFired"`
	Helper        bool         `json:"helper,omitempty"` // a helper's region (its import, or the helper module): it fires nothing itself
}

// HelperLabel marks the region of a helper or its import ("agent log
// helper"): such a region sends no events of its own, so it never counts
// as one that never fired.
const HelperLabel = "helper"

// Link states of an unmatched location.
const (
	UnmatchedNoLine    = "no_line"   // the location has no :line
	UnmatchedNoFile    = "no_file"   // no file with a region has that name
	UnmatchedNoRegion  = "no_region" // the file has regions, none within the drift
	UnmatchedAmbiguous = "ambiguous" // two or more regions fit equally well
)

// Unmatched is a location whose events fall in no region.
type Unmatched struct {
	LocationCount
	Reason     string   `json:"reason"`
	Candidates []string `json:"candidates,omitempty"` // ambiguous: the regions that fit equally well
}

// Joined is the ledger joined with a session's evidence.
type Joined struct {
	Regions    []RegionEvidence `json:"regions"`
	Unmatched  []Unmatched      `json:"unmatched"`
	NeverFired int              `json:"neverFired"`
	Drift      int              `json:"drift"`
}

// Join is JoinAt with the locations taken as relative to the folder the
// regions were scanned from.
func Join(regions []Region, locs []LocationCount, drift int) Joined {
	return JoinAt("", regions, locs, drift)
}

// JoinAt attributes each location's events to the region its line falls in.
// The file is the one whose path equals the location's path, relative to
// root (the session's project root, where the service made locations
// relative; "" means the folder the regions were scanned from) or absolute;
// failing that, the file with the longest run of trailing path components in
// common, unless the path names a file under root (then only that file
// will do). Then the line must fall inside a region, or else within drift lines
// of exactly one nearest region.
func JoinAt(root string, regions []Region, locs []LocationCount, drift int) Joined {
	j := Joined{Regions: make([]RegionEvidence, len(regions)), Unmatched: []Unmatched{}, Drift: drift}
	type fileRegions struct {
		parts []string
		idx   []int // into regions, in line order
	}
	files := map[string]*fileRegions{}
	exact := map[string]*fileRegions{} // root-relative (or scan-relative) and absolute paths
	var order []*fileRegions
	for i, r := range regions {
		j.Regions[i] = RegionEvidence{Region: r, Hypotheses: []LabelCount{}}
		key := r.abs
		if key == "" {
			key = r.File
		}
		f := files[key]
		if f == nil {
			f = &fileRegions{parts: pathParts(key)}
			files[key] = f
			order = append(order, f)
			if r.abs != "" {
				exact[cleanSlash(r.abs)] = f
			}
			if rel, ok := relativeTo(root, r.abs); ok {
				exact[rel] = f
			} else if root == "" {
				exact[cleanSlash(r.File)] = f
			}
		}
		f.idx = append(f.idx, i)
	}
	hyps := make([]map[string]int64, len(regions))
	for _, lc := range locs {
		p, line, ok := splitLocation(lc.Location)
		if !ok {
			j.Unmatched = append(j.Unmatched, Unmatched{LocationCount: lc, Reason: UnmatchedNoLine})
			continue
		}
		var cands []*fileRegions
		if f := exact[cleanSlash(p)]; f != nil {
			cands = []*fileRegions{f}
		} else if !namesFileIn(root, p) {
			parts := pathParts(p)
			best := 0
			for _, f := range order {
				n := commonSuffix(f.parts, parts)
				switch {
				case n == 0 || n < best:
				case n > best:
					best, cands = n, []*fileRegions{f}
				default:
					cands = append(cands, f)
				}
			}
		}
		if len(cands) == 0 {
			j.Unmatched = append(j.Unmatched, Unmatched{LocationCount: lc, Reason: UnmatchedNoFile})
			continue
		}
		var inside, nearest []int
		bestDist := drift + 1
		for _, f := range cands {
			for _, i := range f.idx {
				r := regions[i]
				d := 0
				switch {
				case line < r.StartLine:
					d = r.StartLine - line
				case line > r.EndLine:
					d = line - r.EndLine
				}
				switch {
				case d == 0:
					inside = append(inside, i)
				case d > drift:
				case d < bestDist:
					bestDist, nearest = d, []int{i}
				case d == bestDist:
					nearest = append(nearest, i)
				}
			}
		}
		pick := inside
		if len(pick) == 0 {
			pick = nearest
		}
		switch len(pick) {
		case 0:
			j.Unmatched = append(j.Unmatched, Unmatched{LocationCount: lc, Reason: UnmatchedNoRegion})
			continue
		case 1:
		default:
			u := Unmatched{LocationCount: lc, Reason: UnmatchedAmbiguous}
			for _, i := range pick {
				r := regions[i]
				u.Candidates = append(u.Candidates, r.File+":"+strconv.Itoa(r.StartLine)+"-"+strconv.Itoa(r.EndLine))
			}
			j.Unmatched = append(j.Unmatched, u)
			continue
		}
		i := pick[0]
		re := &j.Regions[i]
		re.Events += lc.Events
		if len(inside) == 0 {
			re.NearestEvents += lc.Events
		}
		if hyps[i] == nil {
			hyps[i] = map[string]int64{}
		}
		for _, h := range lc.Hypotheses {
			hyps[i][h.ID] += h.Events
		}
	}
	for i := range j.Regions {
		for id, n := range hyps[i] {
			j.Regions[i].Hypotheses = append(j.Regions[i].Hypotheses, LabelCount{id, n})
		}
		sort.Slice(j.Regions[i].Hypotheses, func(a, b int) bool { return j.Regions[i].Hypotheses[a].ID < j.Regions[i].Hypotheses[b].ID })
		switch {
		case j.Regions[i].Label == HelperLabel:
			j.Regions[i].Helper = true
		case j.Regions[i].Events == 0:
			j.Regions[i].NeverFired = true
			j.NeverFired++
		}
	}
	sort.SliceStable(j.Unmatched, func(a, b int) bool {
		if j.Unmatched[a].Events != j.Unmatched[b].Events {
			return j.Unmatched[a].Events > j.Unmatched[b].Events
		}
		return j.Unmatched[a].Location < j.Unmatched[b].Location
	})
	return j
}

// splitLocation splits "path:line" or "path:line:column" (also with a
// "file://" prefix or Windows separators) into the path and the line.
func splitLocation(loc string) (string, int, bool) {
	loc = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(loc), "file://"))
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n > 0 && s != "" && s[0] != '+'
	}
	i := strings.LastIndexByte(loc, ':')
	if i < 0 {
		return loc, 0, false
	}
	last, ok := num(loc[i+1:])
	if !ok {
		return loc, 0, false
	}
	head := loc[:i]
	if k := strings.LastIndexByte(head, ':'); k >= 0 {
		if line, ok := num(head[k+1:]); ok {
			return head[:k], line, head[:k] != ""
		}
	}
	return head, last, head != ""
}

// cleanSlash is p with forward slashes, cleaned, for comparing paths as text.
func cleanSlash(p string) string {
	return path.Clean(strings.ReplaceAll(filepath.ToSlash(p), `\`, "/"))
}

// namesFileIn says whether p, absolute or relative to root, is a file: then
// it is that file or none, never another with the same name.
func namesFileIn(root, p string) bool {
	if root == "" {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, filepath.FromSlash(p))
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// relativeTo is abs relative to root, slash-separated, when it is inside root.
func relativeTo(root, abs string) (string, bool) {
	if root == "" || abs == "" {
		return "", false
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// pathParts splits a path on either separator, without empty or "." parts.
func pathParts(p string) []string {
	p = strings.ReplaceAll(filepath.ToSlash(p), `\`, "/")
	raw := strings.Split(p, "/")
	out := raw[:0]
	for _, s := range raw {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// commonSuffix counts the trailing components a and b share.
func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
