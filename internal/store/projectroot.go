package store

import (
	"errors"
	"path/filepath"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/projectroot"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// ErrBadRoot means a project root that is not a clean absolute path.
var ErrBadRoot = errors.New("the project root must be an absolute path")

// SetProjectRoot records the folder this session's event locations are
// made relative to (create records it once; "" leaves locations as sent).
func (s *Session) SetProjectRoot(root string) error {
	if root != "" && (!filepath.IsAbs(root) || len(root) > 4096) {
		return ErrBadRoot
	}
	root = cleanRoot(root)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta.ProjectRoot == root {
		return nil
	}
	s.meta.ProjectRoot = root
	s.setNormalizer(root)
	return writeJSON(s.st.root, s.path(statedir.MetaFile), s.meta)
}

func cleanRoot(root string) string {
	if root == "" {
		return ""
	}
	return filepath.Clean(root)
}

// setNormalizer installs the location normalizer for root; ingest reads it
// without the session lock.
func (s *Session) setNormalizer(root string) {
	if root == "" {
		s.locs.Store(nil)
		return
	}
	s.locs.Store(projectroot.New(root))
}

// normalizeLocations makes each accepted record's location (an event's, or
// a held-back record's) relative to the project root: the one place
// locations are normalized, for both transports, after validation (outside
// the session lock for HTTP bodies).
func (s *Session) normalizeLocations(items []item, checked []checkedItem) {
	n := s.locs.Load()
	if n == nil {
		return
	}
	norm := func(loc *string) {
		if l := n.Location(*loc); l != *loc && len(l) <= evidence.DefaultLimits.MaxLocationBytes {
			*loc = l
		}
	}
	for i := range checked {
		switch {
		case checked[i].rej != nil || items[i].oversize:
		case checked[i].held != nil: // a held-back count names its location as the events did
			norm(&checked[i].held.Location)
		default:
			norm(&checked[i].rec.Location)
		}
	}
}

// checked validates and redacts items and normalizes their locations.
func (s *Session) checked(items []item) []checkedItem {
	out := check(items)
	s.normalizeLocations(items, out)
	return out
}
