package capture

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Capture is an opened capture whose content matched its hash when it was
// read. Close it when done.
type Capture struct {
	Index  Index
	Header Header

	snap    *store.Snapshot
	file    *os.File
	locOf   []uint32 // location number of each sequence-1
	locs    []string // location text by number
	sources map[string]*Source
	regions []probes.Region

	// Read only with OpenOptions.Details.
	Diagnostics []store.Diagnostic
	Notes       []store.UserNote
	Files       []store.UserFile
	Sources     []Source

	regionLinks map[string]Link
}

// OpenOptions say what a reader needs besides the events.
type OpenOptions struct {
	Details bool                     // keep diagnostics, user evidence and source records
	onEvent func(seq int64, e event) // sees every event as it is verified (diff)
}

// Snapshot is the capture's events, read like live evidence.
func (c *Capture) Snapshot() *store.Snapshot { return c.snap }

// ID is the capture's short id.
func (c *Capture) ID() string { return c.Index.ID }

// Regions are the probe regions frozen with the capture.
func (c *Capture) Regions() []probes.Region { return c.regions }

// Close releases the capture's file.
func (c *Capture) Close() {
	if c.file != nil {
		c.file.Close()
	}
}

func (cs *Store) readIndex(sessionID, id string) (Index, error) {
	var idx Index
	b, err := cs.root.ReadFile(Dir(sessionID) + "/" + indexName(id))
	if err != nil {
		return idx, err
	}
	if json.Unmarshal(b, &idx) != nil || idx.ID != id || len(idx.SHA256) != 64 || IDOf(idx.SHA256) != id {
		return idx, damaged(id, "its index file is unreadable or names another hash")
	}
	return idx, nil
}

// verify reads the whole capture and checks it.
func (cs *Store) verify(sessionID string, idx Index) error {
	c, err := cs.open(sessionID, idx, OpenOptions{})
	if err == nil {
		c.Close()
	}
	return err
}

// Open reads and checks a capture of the session: its content must match
// its hash and its structure, in one streaming pass that also indexes the
// events. A capture that does not is a *DamagedError.
// id may be any form Resolve takes.
func (cs *Store) Open(sessionID, id string, o OpenOptions) (*Capture, error) {
	id, err := cs.Resolve(sessionID, id)
	if err != nil {
		return nil, err
	}
	idx, err := cs.readIndex(sessionID, id)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := cs.root.Stat(Dir(sessionID) + "/" + contentName(id)); serr == nil {
			return nil, damaged(id, "its index file is missing")
		}
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return cs.open(sessionID, idx, o)
}

func (cs *Store) open(sessionID string, idx Index, o OpenOptions) (*Capture, error) {
	id := idx.ID
	f, err := cs.root.OpenFile(Dir(sessionID)+"/"+contentName(id), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, damaged(id, "its content file is missing")
	}
	if err != nil {
		return nil, err
	}
	c := &Capture{Index: idx, file: f, sources: map[string]*Source{}}
	if err := c.read(sessionID, o); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// lineReader reads lines of a file while hashing every byte.
type lineReader struct {
	br      *bufio.Reader
	off     int64 // offset of the next line
	long    []byte
	id      string
	lastLen int
}

// next returns the next line without its newline, valid until the next call;
// io.EOF at a clean end.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, line...)
			if len(lr.long) > maxRecordLine {
				return nil, damaged(lr.id, "a line is longer than %d bytes", maxRecordLine)
			}
		}
		line = lr.long
	}
	switch {
	case err == io.EOF && len(line) == 0:
		return nil, io.EOF
	case err == io.EOF:
		return nil, damaged(lr.id, "it ends in the middle of a line")
	case err != nil:
		return nil, err
	}
	lr.lastLen = len(line)
	lr.off += int64(len(line))
	return line[:len(line)-1], nil
}

func (c *Capture) read(sessionID string, o OpenOptions) error {
	id := c.Index.ID
	fi, err := c.file.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != c.Index.Bytes {
		return damaged(id, "its size is %d bytes, %d when it was written", fi.Size(), c.Index.Bytes)
	}
	sum := sha256.New()
	lr := &lineReader{br: bufio.NewReaderSize(io.TeeReader(c.file, sum), 1<<20), id: id}
	line, err := lr.next()
	if err == io.EOF {
		return damaged(id, "it is empty")
	}
	if err != nil {
		return err
	}
	h := &c.Header
	if json.Unmarshal(line, h) != nil || h.Format != FormatName {
		return damaged(id, "its first line is not a capture header")
	}
	if h.Version != FormatVersion {
		return damaged(id, "format version %d is not one this debug-mode reads", h.Version)
	}
	if h.SessionID != sessionID || h.Cycle != c.Index.Cycle || h.Events != c.Index.Events || h.Events < 0 {
		return damaged(id, "its header does not match its index")
	}
	evStart := lr.off
	fx := store.NewFrozenIndex(int(min(h.Events, 1<<22)))
	locNo := map[string]uint32{}
	c.locOf = make([]uint32, 0, min(h.Events, 1<<22))
	for seq := int64(1); seq <= h.Events; seq++ {
		off := lr.off
		line, err := lr.next()
		if err == io.EOF {
			return damaged(id, "it holds %d events, its header says %d", seq-1, h.Events)
		}
		if err != nil {
			return err
		}
		e, ok := parseEvent(line)
		if !ok || e.seq != seq {
			return damaged(id, "event %d is not a stored event with that sequence", seq)
		}
		fx.Add(off, e.hyp, e.ts)
		n, ok := locNo[string(e.loc)]
		if !ok {
			n = uint32(len(c.locs))
			c.locs = append(c.locs, unescape(e.loc))
			locNo[string(e.loc)] = n
		}
		c.locOf = append(c.locOf, n)
		if o.onEvent != nil {
			o.onEvent(seq, e)
		}
	}
	evEnd := lr.off
	if evEnd-evStart != h.EventBytes {
		return damaged(id, "its events take %d bytes, its header says %d", evEnd-evStart, h.EventBytes)
	}
	// The other records, section by section.
	for _, sec := range []struct {
		name string
		n    int
		take func(r *record) bool
	}{
		{"diagnostic", h.Diagnostics, func(r *record) bool {
			if r.Diagnostic != nil && o.Details {
				c.Diagnostics = append(c.Diagnostics, *r.Diagnostic)
			}
			return r.Diagnostic != nil
		}},
		{"user note", h.UserNotes, func(r *record) bool {
			if r.UserNote != nil && o.Details {
				c.Notes = append(c.Notes, *r.UserNote)
			}
			return r.UserNote != nil
		}},
		{"user file", h.UserFiles, func(r *record) bool {
			if r.UserFile != nil && o.Details {
				c.Files = append(c.Files, *r.UserFile)
			}
			return r.UserFile != nil
		}},
		{"region", h.RegionScan.Regions, func(r *record) bool {
			if r.Region != nil {
				c.regions = append(c.regions, *r.Region)
			}
			return r.Region != nil
		}},
		{"source", h.SourceScan.Records, func(r *record) bool {
			if r.Source != nil {
				c.sources[r.Source.Location] = r.Source
				if o.Details {
					c.Sources = append(c.Sources, *r.Source)
				}
			}
			return r.Source != nil
		}},
	} {
		for i := 0; i < sec.n; i++ {
			line, err := lr.next()
			if err == io.EOF {
				return damaged(id, "it ends before its %d %s records", sec.n, sec.name)
			}
			if err != nil {
				return err
			}
			var r record
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			if dec.Decode(&r) != nil || !sec.take(&r) {
				return damaged(id, "%s record %d is malformed", sec.name, i+1)
			}
		}
	}
	if _, err := lr.next(); err != io.EOF {
		if err != nil {
			return err
		}
		return damaged(id, "it has lines after its last record")
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != c.Index.SHA256 {
		return damaged(id, "its content no longer matches its SHA-256 (it was changed after it was written)")
	}
	c.snap = fx.Snapshot(c.file, evEnd, h.Cycle, h.RejectedRecords, h.RedactedEvents)
	return nil
}

// List reads every capture of a session, checking each one, oldest first.
func (cs *Store) List(sessionID string) ([]Summary, error) {
	ids, err := cs.ids(sessionID)
	if err != nil {
		return nil, err
	}
	out := []Summary{}
	for id := range ids {
		s := Summary{Index: Index{ID: id}, Integrity: IntegrityOK}
		c, err := cs.Open(sessionID, id, OpenOptions{})
		var de *DamagedError
		switch {
		case errors.As(err, &de):
			s.Integrity, s.Problem = IntegrityDamaged, de.Reason
			if idx, ierr := cs.readIndex(sessionID, id); ierr == nil {
				s.Index = idx
			}
		case err != nil:
			return nil, err
		default:
			s.Index = c.Index
			c.Close()
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt < out[j].CreatedAt
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// ids are the captures of a session, by their files (content or index).
func (cs *Store) ids(sessionID string) (map[string]bool, error) {
	names, err := cs.root.ReadDirNames(Dir(sessionID))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, n := range names {
		if id, ok := strings.CutSuffix(n, ".ndjson"); ok && idRE.MatchString(id) {
			ids[id] = true
		}
		if id, ok := strings.CutSuffix(n, ".json"); ok && idRE.MatchString(id) {
			ids[id] = true
		}
	}
	return ids, nil
}

// Resolve finds the one capture of the session that ref names: its id, the
// id without c-, or a unique prefix of at least MinRefDigits hex digits (more
// than 12 are checked against the capture's SHA-256). A prefix several
// captures share is an *AmbiguousError that lists them; a prefix none has is
// ErrNotFound. A whole id is returned as it is (Open says whether it exists).
func (cs *Store) Resolve(sessionID, ref string) (string, error) {
	hex, err := ParseRef(ref)
	if err != nil {
		return "", err
	}
	if len(hex) == 12 {
		return "c-" + hex, nil // a whole id: Open tells whether it exists
	}
	ids, err := cs.ids(sessionID)
	if err != nil {
		return "", err
	}
	var found []string
	for id := range ids {
		if !strings.HasPrefix(id[2:], hex[:min(len(hex), 12)]) {
			continue
		}
		if len(hex) > 12 {
			if idx, err := cs.readIndex(sessionID, id); err == nil && !strings.HasPrefix(idx.SHA256, hex) {
				continue // an unreadable index stays a candidate, so opening it reports the damage
			}
		}
		found = append(found, id)
	}
	switch len(found) {
	case 0:
		return "", ErrNotFound
	case 1:
		return found[0], nil
	}
	sort.Strings(found)
	return "", &AmbiguousError{Ref: ref, Candidates: found}
}
