package capture

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Store keeps the captures of every session under one state root, in a
// captures folder inside each session's folder: they survive reset and go
// with the session on clean.
type Store struct {
	root *safefs.Root
	now  func() time.Time
}

// NewStore returns the captures under root; now is the clock.
func NewStore(root *safefs.Root, now func() time.Time) *Store {
	return &Store{root: root, now: now}
}

// writeMu lets one capture be written at a time (captures are rare).
var writeMu sync.Mutex

// Dir is a session's capture folder relative to the state root.
func Dir(sessionID string) string { return statedir.SessionDir(sessionID) + "/captures" }

func contentName(id string) string { return id + ".ndjson" }
func indexName(id string) string   { return id + ".json" }

// Created is the answer to a capture.
type Created struct {
	Summary
	Header   Header `json:"header"`
	Existing bool   `json:"existing"` // the same evidence was captured before: that capture is the answer
}

// Create freezes the session's current cycle with what the CLI sent.
func (cs *Store) Create(sess *store.Session, req Request) (Created, error) {
	req, err := checkRequest(req)
	if err != nil {
		return Created{}, err
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	dir := Dir(sess.ID())
	if err := cs.root.Mkdir(dir); err != nil {
		return Created{}, err
	}
	names, err := cs.root.ReadDirNames(dir)
	if err != nil {
		return Created{}, err
	}
	n := 0
	for _, name := range names {
		switch {
		case strings.HasPrefix(name, ".tmp-"):
			cs.root.Remove(dir + "/" + name) // left by an interrupted capture
		case strings.HasSuffix(name, ".ndjson"):
			n++
		}
	}
	if n >= MaxCaptures {
		return Created{}, fmt.Errorf("%w: the session already holds %d captures, the most it keeps; clean the session when done", ErrTooMany, n)
	}

	st, err := sess.Status()
	if err != nil {
		return Created{}, err
	}
	ue, err := sess.UserEvidence()
	if err != nil {
		return Created{}, err
	}
	snap, err := sess.Snapshot(st.Epoch)
	if err != nil {
		return Created{}, err
	}
	h := Header{
		Format: FormatName, Version: FormatVersion, SessionID: sess.ID(), Cycle: snap.Epoch,
		EvidenceVersion: snap.Version(), Events: int64(snap.N), EventBytes: snap.Bytes(),
		RejectedRecords: snap.Rejected, RedactedEvents: snap.RedactedEvents,
		Diagnostics: len(st.Diagnostics), DiagnosticsOmitted: st.DiagnosticsOmitted,
		UserNotes: len(ue.Notes), UserFiles: len(ue.Files),
		SourceRoot: req.SourceRoot, RegionScan: req.RegionScan, SourceScan: req.SourceScan,
	}
	h.RegionScan.Regions = len(req.Regions)
	h.SourceScan.Records = len(req.Sources)

	tmp := dir + "/.tmp-" + rand.Text()
	f, err := cs.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o400)
	if err != nil {
		return Created{}, err
	}
	sum := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, sum)}
	bw := bufio.NewWriterSize(cw, 1<<20)
	werr := writeContent(bw, h, snap, st.Diagnostics, ue, req)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		cs.root.Remove(tmp)
		return Created{}, werr
	}
	sha := hex.EncodeToString(sum.Sum(nil))
	id := IDOf(sha)
	idx := Index{ID: id, SHA256: sha, Bytes: cw.n, Label: req.Label, CreatedAt: cs.now().UnixMilli(), Cycle: h.Cycle, Events: h.Events}
	out := Created{Header: h}
	err = cs.root.RenameNoReplace(tmp, dir+"/"+contentName(id))
	if errors.Is(err, fs.ErrExist) {
		// The same evidence was captured before. Keep that capture (written
		// once); only if it no longer matches its hash does this one replace it.
		cs.root.Remove(tmp)
		if old, oerr := cs.readIndex(sess.ID(), id); oerr == nil && cs.verify(sess.ID(), old) == nil {
			out.Summary, out.Existing = Summary{Index: old, Integrity: IntegrityOK}, true
			return out, nil
		}
		return Created{}, fmt.Errorf("%w: capture %s exists but is damaged; it was left as it is for inspection — clean the session to start again", ErrDamaged, id)
	}
	if err != nil {
		cs.root.Remove(tmp)
		return Created{}, err
	}
	b, _ := marshal(idx)
	if err := cs.root.WriteFileAtomic(dir+"/"+indexName(id), append(b, '\n')); err != nil {
		return Created{}, err
	}
	out.Summary = Summary{Index: idx, Integrity: IntegrityOK}
	return out, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeContent writes the capture file: header, events as stored, then the
// other records, each section in a fixed order so the bytes depend only on
// the evidence.
func writeContent(w *bufio.Writer, h Header, snap *store.Snapshot, diags []store.Diagnostic, ue store.UserEvidence, req Request) error {
	line := func(v any) error {
		b, err := marshal(v)
		if err != nil {
			return err
		}
		w.Write(b)
		return w.WriteByte('\n')
	}
	if err := line(h); err != nil {
		return err
	}
	if err := snap.WriteEvents(w); err != nil {
		return err
	}
	for i := range diags {
		if err := line(record{Diagnostic: &diags[i]}); err != nil {
			return err
		}
	}
	for i := range ue.Notes {
		if err := line(record{UserNote: &ue.Notes[i]}); err != nil {
			return err
		}
	}
	for i := range ue.Files {
		if err := line(record{UserFile: &ue.Files[i]}); err != nil {
			return err
		}
	}
	for i := range req.Regions {
		if err := line(record{Region: &req.Regions[i]}); err != nil {
			return err
		}
	}
	for i := range req.Sources {
		if err := line(record{Source: &req.Sources[i]}); err != nil {
			return err
		}
	}
	return nil
}

// marshal encodes without HTML escaping, on one line.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

func badRequest(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrRequest, fmt.Sprintf(format, a...))
}

// checkRequest bounds and validates what the CLI sent, redacts secret-shaped
// values in the source lines, and puts regions and sources in a fixed order.
func checkRequest(r Request) (Request, error) {
	switch {
	case !utf8.ValidString(r.Label) || strings.ContainsAny(r.Label, "\n\r\x00"):
		return r, badRequest("the label must be one line of text")
	case utf8.RuneCountInString(r.Label) > MaxLabelChars:
		return r, badRequest("the label is longer than %d characters", MaxLabelChars)
	case r.SourceRoot == "" || !path.IsAbs(r.SourceRoot) || len(r.SourceRoot) > 4096 || !utf8.ValidString(r.SourceRoot):
		return r, badRequest("the source root must be an absolute path")
	case len(r.Regions) > MaxRegions:
		return r, badRequest("more than %d regions", MaxRegions)
	case len(r.Sources) > MaxSourceLocations:
		return r, badRequest("more than %d source records", MaxSourceLocations)
	}
	switch r.RegionScan.State {
	case Complete:
	case "failed":
		if len(r.Regions) > 0 {
			return r, badRequest("a failed region scan sent regions")
		}
	default:
		return r, badRequest("region scan state %q", r.RegionScan.State)
	}
	r.RegionScan.Reason = cut(r.RegionScan.Reason, 400)
	for i := range r.Regions {
		g := &r.Regions[i]
		if !relPath(g.File) || g.StartLine < 1 || g.EndLine < g.StartLine || !utf8.ValidString(g.Label) || !utf8.ValidString(g.FirstCode) {
			return r, badRequest("region %d is malformed", i+1)
		}
		g.Label, g.FirstCode = cut(g.Label, 200), cut(g.FirstCode, 200)
		g.FirstCode, _ = evidence.RedactCode(g.FirstCode)
	}
	sort.SliceStable(r.Regions, func(a, b int) bool {
		x, y := r.Regions[a], r.Regions[b]
		if x.File != y.File {
			return x.File < y.File
		}
		return x.StartLine < y.StartLine
	})
	var total int64
	redactions, cutLines := 0, 0
	seen := map[string]bool{}
	for i := range r.Sources {
		s := &r.Sources[i]
		if s.Location == "" || len(s.Location) > evidence.DefaultLimits.MaxLocationBytes || !utf8.ValidString(s.Location) || seen[s.Location] {
			return r, badRequest("source record %d has a missing, repeated or malformed location", i+1)
		}
		seen[s.Location] = true
		s.Reason = cut(s.Reason, 400)
		switch s.State {
		case Complete:
			if len(s.Files) != 1 {
				return r, badRequest("a complete source record must hold one file")
			}
		case Ambiguous:
			if len(s.Files) < 2 || len(s.Files) > MaxCandidates || s.Matches < len(s.Files) {
				return r, badRequest("an ambiguous source record must hold 2 to %d files and count its matches", MaxCandidates)
			}
		case Incomplete, Unavailable:
			if len(s.Files) != 0 || s.Reason == "" {
				return r, badRequest("an %s source record holds no file and says why", s.State)
			}
		default:
			return r, badRequest("source state %q", s.State)
		}
		for j := range s.Files {
			f := &s.Files[j]
			if !relPath(f.File) || f.Line < 1 || f.StartLine < 1 || f.StartLine > f.Line || len(f.Lines) == 0 ||
				len(f.Lines) > 2*ContextLines+1 || f.EndLine() < f.Line || f.TotalLines < f.EndLine() {
				return r, badRequest("source record %d has a malformed file", i+1)
			}
			for k, l := range f.Lines {
				if !utf8.ValidString(l) || strings.ContainsAny(l, "\n\r") {
					return r, badRequest("source record %d has a line that is not one line of text", i+1)
				}
				if len(l) > MaxSourceLineBytes+len("…") {
					l = cut(l, MaxSourceLineBytes)
					f.CutLines++
				}
				red, n := evidence.RedactCode(l)
				f.Lines[k] = red
				redactions += n
				total += int64(len(red))
			}
			cutLines += f.CutLines
		}
	}
	if total > MaxSourceBytes+MaxSourceBytes/4 {
		return r, badRequest("more than %d bytes of source lines", MaxSourceBytes)
	}
	sort.Slice(r.Sources, func(a, b int) bool { return r.Sources[a].Location < r.Sources[b].Location })
	r.SourceScan.ContextLines = ContextLines
	r.SourceScan.Redactions = redactions
	r.SourceScan.CutLines = cutLines
	r.SourceScan.Bytes = total
	if r.SourceScan.Bound != "" && r.SourceScan.Bound != "locations" && r.SourceScan.Bound != "bytes" {
		return r, badRequest("source bound %q", r.SourceScan.Bound)
	}
	if r.SourceScan.Omitted < 0 || r.SourceScan.Locations < 0 {
		return r, badRequest("negative source counts")
	}
	return r, nil
}

// relPath accepts a clean, relative, slash-separated path inside the root.
// A file name may hold any character but NUL (a new line or a terminal
// escape included): the capture stores it as a JSON string, and every
// printer escapes it.
func relPath(p string) bool {
	return p != "" && len(p) <= 4096 && utf8.ValidString(p) && !strings.Contains(p, "\x00") &&
		!path.IsAbs(p) && path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../")
}

// cut shortens s to at most n bytes on a character boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
