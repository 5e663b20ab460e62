package store

import (
	"errors"
	"os"
	"sort"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// MaxHeldBackEntries bounds the (process, hypothesis, location) triples one
// cycle remembers; a record for a new triple past it is refused with a
// diagnostic, never silently folded into another.
const MaxHeldBackEntries = 10_000

// MaxHeldBackListed bounds the held-back locations one status lists; the
// rest are counted.
const MaxHeldBackListed = 100

// heldBackKey is one helper process's count at one location.
type heldBackKey struct {
	Process      string `json:"process"`
	HypothesisID string `json:"hypothesisId"`
	Location     string `json:"location"`
}

type heldBackValue struct {
	Count int64 `json:"count"`
	Cap   int64 `json:"cap"`
}

// heldBack is a cycle's held-back records. A process may report the same
// location twice (when it first caps, and again at exit with a larger
// count), so each process keeps its largest count and the counts of
// different processes add up. Applying the same record twice changes
// nothing, which makes recovery after a crash safe.
type heldBack struct {
	entries map[heldBackKey]heldBackValue
	dirty   bool
}

// heldBackFile is what is persisted, per cycle.
type heldBackFile struct {
	Cycle   int64           `json:"cycle"`
	Entries []heldBackEntry `json:"entries"`
}

type heldBackEntry struct {
	heldBackKey
	heldBackValue
}

// apply records one held-back record; false when it is a new triple past
// the bound.
func (h *heldBack) apply(r evidence.HeldBack) bool {
	if h.entries == nil {
		h.entries = map[heldBackKey]heldBackValue{}
	}
	k := heldBackKey{r.Process, r.HypothesisID, r.Location}
	old, ok := h.entries[k]
	if !ok && len(h.entries) >= MaxHeldBackEntries {
		return false
	}
	v := heldBackValue{Count: max(old.Count, r.Count), Cap: max(old.Cap, r.Cap)}
	if v != old {
		h.entries[k] = v
		h.dirty = true
	}
	return true
}

// HeldBackCount is what helpers held back at one location in this cycle.
type HeldBackCount struct {
	HypothesisID string `json:"hypothesisId"`
	Location     string `json:"location"`
	Count        int64  `json:"count"`     // events not sent, summed over processes
	Cap          int64  `json:"cap"`       // the cap that was reached (the largest reported)
	Processes    int    `json:"processes"` // how many processes reached it
}

// addHeldBack adds two held-back counts, saturating at
// evidence.MaxHeldBackCount: 10,000 processes may each report up to it, and
// a sum that overflowed would print a negative count. A count at the bound
// reads "at least" (output.HeldBackLine).
func addHeldBack(a, b int64) int64 {
	if a > evidence.MaxHeldBackCount-b {
		return evidence.MaxHeldBackCount
	}
	return a + b
}

// validHeldBack reports whether a persisted entry is one apply could have
// made; heldback.json is read back after a crash and must not bring in
// counts the parser refuses.
func validHeldBack(e heldBackEntry) bool {
	ok := func(n int64) bool { return n >= 1 && n <= evidence.MaxHeldBackCount }
	return ok(e.Count) && ok(e.Cap) && e.Process != "" && e.HypothesisID != "" && e.Location != "" &&
		len(e.Process) <= evidence.MaxProcessBytes && len(e.HypothesisID) <= evidence.DefaultLimits.MaxLabelBytes &&
		len(e.Location) <= evidence.DefaultLimits.MaxLocationBytes
}

// summary groups the entries by (hypothesis, location), most held back
// first, with the total over every location.
func (h *heldBack) summary() (list []HeldBackCount, total int64) {
	type loc struct{ hyp, loc string }
	by := map[loc]*HeldBackCount{}
	for k, v := range h.entries {
		c := by[loc{k.HypothesisID, k.Location}]
		if c == nil {
			c = &HeldBackCount{HypothesisID: k.HypothesisID, Location: k.Location}
			by[loc{k.HypothesisID, k.Location}] = c
		}
		c.Count = addHeldBack(c.Count, v.Count)
		c.Cap = max(c.Cap, v.Cap)
		c.Processes++
		total = addHeldBack(total, v.Count)
	}
	list = make([]HeldBackCount, 0, len(by))
	for _, c := range by {
		list = append(list, *c)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Location != b.Location {
			return a.Location < b.Location
		}
		return a.HypothesisID < b.HypothesisID
	})
	return list, total
}

// loadHeldBack reads the cycle's held-back records; a file from another
// cycle is ignored (a reset clears it, but a crash may have come between).
func (s *Session) loadHeldBack() error {
	var f heldBackFile
	s.held = heldBack{}
	if err := readJSON(s.st.root, s.path(statedir.HeldBackFile), &f); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if f.Cycle != s.meta.Epoch {
		return nil
	}
	for _, e := range f.Entries {
		if !validHeldBack(e) || len(s.held.entries) >= MaxHeldBackEntries {
			continue
		}
		if s.held.entries == nil {
			s.held.entries = map[heldBackKey]heldBackValue{}
		}
		s.held.entries[e.heldBackKey] = e.heldBackValue
	}
	return nil
}

// saveHeldBack persists the held-back records if they changed. Caller
// holds s.mu.
func (s *Session) saveHeldBack() error {
	if !s.held.dirty {
		return nil
	}
	f := heldBackFile{Cycle: s.meta.Epoch, Entries: make([]heldBackEntry, 0, len(s.held.entries))}
	for k, v := range s.held.entries {
		f.Entries = append(f.Entries, heldBackEntry{k, v})
	}
	sort.Slice(f.Entries, func(i, j int) bool {
		a, b := f.Entries[i].heldBackKey, f.Entries[j].heldBackKey
		if a.Location != b.Location {
			return a.Location < b.Location
		}
		if a.HypothesisID != b.HypothesisID {
			return a.HypothesisID < b.HypothesisID
		}
		return a.Process < b.Process
	})
	if err := writeJSON(s.st.root, s.path(statedir.HeldBackFile), f); err != nil {
		return err
	}
	s.held.dirty = false
	return nil
}
