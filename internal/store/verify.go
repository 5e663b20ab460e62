package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// errReplaced means a loaded session's directory or one of its open files is
// no longer what its path names (moved away, or replaced by another real one).
var errReplaced = errors.New("replaced since it was opened")

// openFiles are the session files kept open while it is loaded, in the
// order of Session.fileIDs.
var openFiles = [...]string{statedir.EventsFile, statedir.DiagnosticsFile, statedir.IncomingFile}

// identify records what the loaded session's descriptors refer to.
func (s *Session) identify(dir safefs.FileID) error {
	s.dirID = dir
	for i, f := range []*os.File{s.events, s.diags, s.incoming} {
		id, err := safefs.IDOf(f)
		if err != nil {
			return err
		}
		s.fileIDs[i] = id
	}
	return nil
}

// verify checks that the session's path still names the directory and
// files it has open, without following any link, so a directory swapped for
// a symbolic link (or moved away) is noticed by the next request instead of
// being served from the old descriptors. A few fstatat calls: cheap enough
// for every request.
func (st *Store) verify(s *Session) error {
	dir, files, err := st.root.IdentifyDir(s.dir, openFiles[:]...)
	if err != nil {
		return err
	}
	if dir != s.dirID {
		return fmt.Errorf("session %s: directory %w", s.id, errReplaced)
	}
	for i, id := range files {
		if id != s.fileIDs[i] {
			return fmt.Errorf("session %s: %s %w", s.id, openFiles[i], errReplaced)
		}
	}
	return nil
}

// unload forgets a loaded session and closes its files; the next Get loads
// it again from what its path names now.
func (st *Store) unload(s *Session) {
	st.mu.Lock()
	if st.sessions[s.id] == s {
		delete(st.sessions, s.id)
	}
	st.mu.Unlock()
	s.close()
}

// NoteRepair is told of every permission the state directory had to make
// private again; one inside a session becomes a warning in that session's
// diagnostics, so status shows it.
func (st *Store) NoteRepair(r safefs.Repair) {
	rest, ok := strings.CutPrefix(r.Rel, statedir.SessionsDir+"/")
	if !ok {
		return
	}
	id, name, _ := strings.Cut(rest, "/")
	if name == "" {
		name = "the session directory"
	}
	d := Diagnostic{Source: "store", Level: "warning", Position: name, ReceivedAt: st.now().UnixMilli(),
		Reason: fmt.Sprintf("%s was open to other users (mode %#o) and was made private again (%#o); someone changed its permissions, and another user may have read or changed this session's evidence",
			name, r.From, r.To)}
	st.notesMu.Lock()
	if len(st.notes[id]) < 16 {
		st.notes[id] = append(st.notes[id], d)
	}
	st.notesMu.Unlock()
}

// flushNotes stores the repair warnings noted for s.
func (st *Store) flushNotes(s *Session) {
	st.notesMu.Lock()
	notes := st.notes[s.id]
	delete(st.notes, s.id)
	st.notesMu.Unlock()
	if len(notes) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, d := range notes {
		s.addDiag(d)
	}
	s.flushDiags()
}

// notFound turns a session directory that vanished into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	return err
}
