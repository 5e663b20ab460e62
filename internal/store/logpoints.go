package store

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// Logpoints are kept in two files of the session directory: the specs
// (logpoints.json, which the hooks read, and which a reset leaves alone)
// and what the hooks reported in the current cycle (logpointreports.json,
// which a reset clears).

// ErrLogpoint marks a logpoint request the session cannot take: a
// duplicate, one too many, an id it does not have. The message says which.
var ErrLogpoint = errors.New("logpoint refused")

// ErrNoLogpoint means the session has no logpoint with that id.
var ErrNoLogpoint = errors.New("no such logpoint")

// MaxLogpointReports bounds the (logpoint, process, state) reports one
// cycle remembers; a report past it is refused with a diagnostic.
const MaxLogpointReports = 10_000

type lpReportKey struct {
	ID      string `json:"id"`
	Process string `json:"process"`
	State   string `json:"state"`
}

// lpReports is a cycle's logpoint reports. Applying the same report twice
// changes nothing, which makes recovery after a crash safe.
type lpReports struct {
	entries map[lpReportKey]string // → the reason of a failure
	dirty   bool
}

type lpReportsFile struct {
	Cycle   int64           `json:"cycle"`
	Entries []lpReportEntry `json:"entries"`
}

type lpReportEntry struct {
	lpReportKey
	Reason string `json:"reason,omitempty"`
}

// apply records one report; false when it is new and the cycle is full.
func (r *lpReports) apply(rep evidence.LogpointReport) bool {
	if r.entries == nil {
		r.entries = map[lpReportKey]string{}
	}
	k := lpReportKey{rep.ID, rep.Process, rep.State}
	old, ok := r.entries[k]
	if !ok && len(r.entries) >= MaxLogpointReports {
		return false
	}
	if !ok || old != rep.Reason {
		r.entries[k] = rep.Reason
		r.dirty = true
	}
	return true
}

// LogpointsPath is the absolute path of the session's logpoints file, which
// hooks read.
func (s *Session) LogpointsPath() string {
	return s.st.root.Path() + "/" + s.path(statedir.LogpointsFile)
}

// Logpoints reads the session's logpoints (none yet is an empty file).
func (s *Session) Logpoints() (logpoints.File, error) {
	s.lpMu.Lock()
	defer s.lpMu.Unlock()
	return s.readLogpoints()
}

func (s *Session) readLogpoints() (logpoints.File, error) {
	f := logpoints.File{Version: logpoints.FileVersion, SessionID: s.id, NextID: 1, Logpoints: []logpoints.Logpoint{}}
	err := readJSON(s.st.root, s.path(statedir.LogpointsFile), &f)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if f.Logpoints == nil {
		f.Logpoints = []logpoints.Logpoint{}
	}
	return f, err
}

// AddLogpoint stores a validated logpoint under the next id.
func (s *Session) AddLogpoint(lp logpoints.Logpoint) (logpoints.Logpoint, error) {
	if err := lp.Validate(); err != nil {
		return lp, err
	}
	s.lpMu.Lock()
	defer s.lpMu.Unlock()
	if s.isClosed() {
		return lp, ErrNotFound
	}
	f, err := s.readLogpoints()
	if err != nil {
		return lp, err
	}
	if len(f.Logpoints) >= logpoints.MaxLogpoints {
		return lp, fmt.Errorf("%w: the session has %d logpoints, the most it keeps; remove some first (debug-mode logpoint remove --session %s <id>)", ErrLogpoint, len(f.Logpoints), s.id)
	}
	for _, o := range f.Logpoints {
		if o.RealFile == lp.RealFile && o.Line == lp.Line && o.HypothesisID == lp.HypothesisID {
			return lp, fmt.Errorf("%w: %s is already at %s for %s; remove it first to change it (debug-mode logpoint remove --session %s %s)", ErrLogpoint, o.ID, o.Location, o.HypothesisID, s.id, o.ID)
		}
	}
	lp.ID = logpoints.FormatID(f.NextID)
	lp.CreatedAt = s.st.now().UnixMilli()
	f.NextID++
	f.Logpoints = append(f.Logpoints, lp)
	return lp, writeJSON(s.st.root, s.path(statedir.LogpointsFile), f)
}

// RemoveLogpoints removes the logpoints with these ids (all of them when
// all is set) and returns them; an id the session does not have removes
// nothing.
func (s *Session) RemoveLogpoints(ids []string, all bool) ([]logpoints.Logpoint, error) {
	s.lpMu.Lock()
	defer s.lpMu.Unlock()
	if s.isClosed() {
		return nil, ErrNotFound
	}
	f, err := s.readLogpoints()
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var kept, removed []logpoints.Logpoint
	for _, lp := range f.Logpoints {
		if all || want[lp.ID] {
			removed = append(removed, lp)
			delete(want, lp.ID)
		} else {
			kept = append(kept, lp)
		}
	}
	if len(want) > 0 {
		var missing []string
		for id := range want {
			missing = append(missing, id)
		}
		sort.Strings(missing)
		return nil, fmt.Errorf("%w: the session has no logpoint %s (list them with debug-mode logpoint list --session %s)", ErrNoLogpoint, missing[0], s.id)
	}
	if len(removed) == 0 {
		return []logpoints.Logpoint{}, nil
	}
	f.Logpoints = kept
	if f.Logpoints == nil {
		f.Logpoints = []logpoints.Logpoint{}
	}
	return removed, writeJSON(s.st.root, s.path(statedir.LogpointsFile), f)
}

// LogpointInstalls sums the cycle's reports per logpoint: how many processes
// placed it, how many could not, and the first reason (in process order).
func (s *Session) LogpointInstalls() map[string]logpoints.Installs {
	s.mu.Lock()
	defer s.mu.Unlock()
	type failure struct{ process, reason string }
	first := map[string]failure{}
	out := map[string]logpoints.Installs{}
	for k, reason := range s.lpReports.entries {
		in := out[k.ID]
		if k.State == evidence.LogpointInstalled {
			in.Installed++
		} else {
			in.Failed++
			if f, ok := first[k.ID]; !ok || k.Process < f.process {
				first[k.ID] = failure{k.Process, reason}
			}
		}
		out[k.ID] = in
	}
	for id, f := range first {
		in := out[id]
		in.Reason = f.reason
		out[id] = in
	}
	return out
}

// loadLogpointReports reads the cycle's reports; a file of another cycle
// is ignored (a reset removes it, but a crash may have come between).
func (s *Session) loadLogpointReports() error {
	var f lpReportsFile
	s.lpReports = lpReports{}
	if err := readJSON(s.st.root, s.path(statedir.LogpointReportsFile), &f); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if f.Cycle != s.meta.Epoch {
		return nil
	}
	s.lpReports.entries = map[lpReportKey]string{}
	for _, e := range f.Entries {
		s.lpReports.entries[e.lpReportKey] = e.Reason
	}
	return nil
}

// saveLogpointReports persists the reports if they changed. Caller holds s.mu.
func (s *Session) saveLogpointReports() error {
	if !s.lpReports.dirty {
		return nil
	}
	f := lpReportsFile{Cycle: s.meta.Epoch, Entries: make([]lpReportEntry, 0, len(s.lpReports.entries))}
	for k, reason := range s.lpReports.entries {
		f.Entries = append(f.Entries, lpReportEntry{k, reason})
	}
	sort.Slice(f.Entries, func(i, j int) bool {
		a, b := f.Entries[i].lpReportKey, f.Entries[j].lpReportKey
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		if a.Process != b.Process {
			return a.Process < b.Process
		}
		return a.State < b.State
	})
	// Bookkeeping, as the spool checkpoint: no fsync.
	b, err := jsonMarshal(f)
	if err != nil {
		return err
	}
	if err := s.st.root.ReplaceFile(s.path(statedir.LogpointReportsFile), append(b, '\n')); err != nil {
		return err
	}
	s.lpReports.dirty = false
	return nil
}

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
