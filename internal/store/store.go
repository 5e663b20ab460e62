// Package store keeps each session's canonical evidence: one append-only
// NDJSON file of numbered events, bounded diagnostics, and the checkpoint of
// the append-path spool. Only the service uses it, so there is one writer.
package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// SchemaVersion is the event schema version, stored once per session.
const SchemaVersion = 1

// ErrNotFound means no session has that id.
var ErrNotFound = errors.New("session not found")

// ErrBadID means the text is not a session id at all.
var ErrBadID = errors.New("not a session id")

// Meta is a session's metadata file.
type Meta struct {
	SchemaVersion int    `json:"schemaVersion"`
	SessionID     string `json:"sessionId"`
	CreatedAt     int64  `json:"createdAt"` // epoch milliseconds
	Epoch         int64  `json:"epoch"`     // reset cycle, from 1; invalidates earlier reads
	IngestURL     string `json:"ingestUrl,omitempty"`
	ProjectRoot   string `json:"projectRoot,omitempty"` // locations are stored relative to it (see projectroot.go)
	// MaxPerLocation is the cap of events per location per process that
	// helpers apply; 0 means sessionenv.DefaultMaxPerLocation.
	MaxPerLocation int64 `json:"maxPerLocation,omitempty"`
	// Reproductions counts the reproduce runs of the session; the output
	// kept is the last one's.
	Reproductions int64 `json:"reproductions,omitempty"`
}

// Cap is the session's cap of events per location per process.
func (m Meta) Cap() int64 {
	if m.MaxPerLocation > 0 {
		return m.MaxPerLocation
	}
	return sessionenv.DefaultMaxPerLocation
}

// Store is the set of sessions under one state root.
type Store struct {
	root     *safefs.Root
	now      func() time.Time
	activity func()

	mu       sync.Mutex
	sessions map[string]*Session
	loading  map[string]chan struct{} // sessions being loaded; closed when done
	unloaded map[string]int64         // spool size last seen for sessions not yet loaded

	notesMu sync.Mutex              // not mu: repairs are noted while mu is held
	notes   map[string][]Diagnostic // repair warnings waiting for their session
}

// Open returns a store over root. now is the clock; activity is called
// whenever evidence arrives (the service's idle timer listens).
func Open(root *safefs.Root, now func() time.Time, activity func()) (*Store, error) {
	if err := root.MkdirAll(statedir.SessionsDir); err != nil {
		return nil, err
	}
	if activity == nil {
		activity = func() {}
	}
	return &Store{root: root, now: now, activity: activity, sessions: map[string]*Session{}, loading: map[string]chan struct{}{},
		unloaded: map[string]int64{}, notes: map[string][]Diagnostic{}}, nil
}

// ParseID validates a session id and returns its canonical form. Only
// validated UUIDs ever become directory names.
func ParseID(s string) (string, error) {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", fmt.Errorf("%w: %q (expected a UUID such as 707225a6-8e0f-4db4-b64b-e261bd6a861a)", ErrBadID, s)
	}
	return u.String(), nil
}

// Create makes a new session with a random id.
func (st *Store) Create() (*Session, error) {
	id := uuid.NewString()
	dir := statedir.SessionDir(id)
	if err := st.root.Mkdir(dir); err != nil {
		return nil, err
	}
	meta := Meta{SchemaVersion: SchemaVersion, SessionID: id, CreatedAt: st.now().UnixMilli(), Epoch: 1}
	if err := writeJSON(st.root, dir+"/"+statedir.MetaFile, meta); err != nil {
		return nil, err
	}
	for _, name := range []string{statedir.EventsFile, statedir.DiagnosticsFile, statedir.IncomingFile} {
		f, err := st.root.OpenFile(dir+"/"+name, os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	return st.Get(id)
}

// Get returns the loaded session, loading and recovering it on first use.
// A loaded session is first checked against its path: one whose directory
// became a link is refused, one replaced by another real directory is
// loaded again from it.
func (st *Store) Get(id string) (*Session, error) {
	id, err := ParseID(id)
	if err != nil {
		return nil, err
	}
	for {
		s, fresh, err := st.get(id)
		if err != nil {
			return nil, err
		}
		if !fresh {
			if err := st.verify(s); err != nil {
				st.unload(s)
				if errors.Is(err, errReplaced) {
					continue
				}
				return nil, notFound(err)
			}
		}
		st.flushNotes(s)
		return s, nil
	}
}

// get returns the session, loading it unless it is loaded; fresh says it
// was loaded (and so checked) just now.
func (st *Store) get(id string) (s *Session, fresh bool, err error) {
	// Loading reads the whole evidence file: it happens outside the store
	// lock, once per session, while other sessions carry on.
	st.mu.Lock()
	for {
		if s, ok := st.sessions[id]; ok {
			st.mu.Unlock()
			return s, false, nil
		}
		wait, busy := st.loading[id]
		if !busy {
			break
		}
		st.mu.Unlock()
		<-wait
		st.mu.Lock()
	}
	done := make(chan struct{})
	st.loading[id] = done
	st.mu.Unlock()

	s, err = loadSession(st, id)

	st.mu.Lock()
	delete(st.loading, id)
	if err == nil {
		st.sessions[id] = s
		delete(st.unloaded, id)
	}
	st.mu.Unlock()
	close(done)
	return s, true, err
}

// Summary is one row of the session list.
type Summary struct {
	SessionID string `json:"sessionId"`
	CreatedAt int64  `json:"createdAt"`
	Events    int64  `json:"eventCount"`
}

// List returns sessions created at or after since (zero: all), newest first.
// Each listed session is drained first so its count is current.
func (st *Store) List(since time.Time) ([]Summary, error) {
	ids, err := st.ids()
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, id := range ids {
		var meta Meta
		if err := readJSON(st.root, statedir.SessionDir(id)+"/"+statedir.MetaFile, &meta); err != nil {
			continue // half-created or damaged; not a session to offer
		}
		if !since.IsZero() && meta.CreatedAt < since.UnixMilli() {
			continue
		}
		n, err := st.eventCount(id)
		if err != nil {
			continue
		}
		out = append(out, Summary{SessionID: id, CreatedAt: meta.CreatedAt, Events: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt > out[j].CreatedAt
		}
		return out[i].SessionID < out[j].SessionID
	})
	return out, nil
}

// eventCount is a session's number of events, everything delivered counted.
// A loaded session, or one with lines still waiting in its append path, is
// drained and asked; any other is counted from its evidence file without
// being loaded, so listing old sessions keeps nothing open or in memory.
func (st *Store) eventCount(id string) (int64, error) {
	st.mu.Lock()
	_, loaded := st.sessions[id]
	st.mu.Unlock()
	dir := statedir.SessionDir(id) + "/"
	if !loaded {
		var ck checkpoint
		_ = readJSON(st.root, dir+statedir.CheckpointFile, &ck)
		fi, err := st.root.Stat(dir + statedir.IncomingFile)
		if err == nil && fi.Size() == ck.Spool.Offset && ck.Pending == nil {
			return countLines(st.root, dir+statedir.EventsFile)
		}
	}
	s, err := st.Get(id)
	if err != nil {
		return 0, err
	}
	stat, err := s.Status()
	return stat.Events, err
}

// countLines counts the complete lines of a file.
func countLines(root *safefs.Root, rel string) (int64, error) {
	f, err := root.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Clean deletes a session and everything in its directory.
func (st *Store) Clean(id string) error {
	id, err := ParseID(id)
	if err != nil {
		return err
	}
	dir := statedir.SessionDir(id)
	// Hold the store lock until the directory is gone, so no request can
	// load the session again half-way through (it would keep writing into
	// deleted files). A load in progress is waited for first.
	st.mu.Lock()
	defer st.mu.Unlock()
	for {
		wait, busy := st.loading[id]
		if !busy {
			break
		}
		st.mu.Unlock()
		<-wait
		st.mu.Lock()
	}
	// Whatever is there goes, even a link (unlinked, never followed) or a
	// directory of another user: that is how a refused session is cleared.
	if ok, err := st.root.Exists(dir); err != nil {
		return err
	} else if !ok {
		return ErrNotFound
	}
	if s, ok := st.sessions[id]; ok {
		s.close()
		delete(st.sessions, id)
	}
	delete(st.unloaded, id)
	return st.root.RemoveAll(dir)
}

// PollSpools drains every session whose append path grew since it was last
// looked at. Unloaded sessions are loaded only when they have new bytes.
func (st *Store) PollSpools() {
	ids, err := st.ids()
	if err != nil {
		return
	}
	for _, id := range ids {
		st.mu.Lock()
		_, loaded := st.sessions[id]
		last, seen := st.unloaded[id]
		st.mu.Unlock()
		if loaded {
			if s, err := st.Get(id); err == nil { // checked: never drained through a swapped directory
				s.DrainSpool()
			}
			continue
		}
		fi, err := st.root.Stat(statedir.SessionDir(id) + "/" + statedir.IncomingFile)
		if err != nil {
			continue
		}
		if seen && fi.Size() == last {
			continue
		}
		var ck checkpoint
		_ = readJSON(st.root, statedir.SessionDir(id)+"/"+statedir.CheckpointFile, &ck)
		// Loaded also when bytes it took in are still to be released (the
		// service stopped between checkpoint and release).
		if fi.Size() == ck.Spool.Offset && ck.Pending == nil && !ck.unreleased() {
			st.mu.Lock()
			st.unloaded[id] = fi.Size()
			st.mu.Unlock()
			continue
		}
		if s, err := st.Get(id); err == nil {
			s.DrainSpool()
		}
	}
}

// Close closes every loaded session's files.
func (st *Store) Close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for id, s := range st.sessions {
		s.close()
		delete(st.sessions, id)
	}
}

// ids lists the valid session directory names.
func (st *Store) ids() ([]string, error) {
	names, err := st.root.ReadDirNames(statedir.SessionsDir)
	if err != nil {
		return nil, err
	}
	out := names[:0]
	for _, n := range names {
		if id, err := ParseID(n); err == nil && id == n && !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out, nil
}
