package store

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/projectroot"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/spool"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// MaxDiagnostics bounds the diagnostics kept per reset cycle; later ones are
// only counted.
const MaxDiagnostics = 1000

// checkpoint is the spool state, replaced atomically. Pending marks a spool
// batch being written, so recovery after a crash neither loses nor repeats it.
// Released is how far the append path's consumed bytes have been given back
// to the filesystem (see releaseConsumed); ReleaseFailed stops further tries
// in this cycle once the failure was reported.
type checkpoint struct {
	Spool         spool.Position `json:"spool"`
	Pending       *pendingBatch  `json:"pending,omitempty"`
	Suppressed    int64          `json:"suppressedDiagnostics,omitempty"`
	Released      int64          `json:"released,omitempty"`
	ReleaseFailed bool           `json:"releaseFailed,omitempty"`
}

// unreleased reports whether consumed append-path bytes are still on disk
// and could be released.
func (c *checkpoint) unreleased() bool {
	return c.Pending == nil && !c.ReleaseFailed && c.Released < c.Spool.Offset
}

type pendingBatch struct {
	EventsStart int64          `json:"eventsStart"`
	DiagStart   int64          `json:"diagStart"`
	From        spool.Position `json:"from"`
	To          spool.Position `json:"to"`
}

// Session is one loaded session. Its mutex serialises every write, which is
// what keeps sequence numbers gapless and lines whole.
type Session struct {
	st  *Store
	id  string
	dir string

	mu       sync.Mutex
	closed   bool
	dirID    safefs.FileID    // what dir named when loaded
	fileIDs  [3]safefs.FileID // what events, diags and incoming are (openFiles)
	meta     Meta
	events   *os.File
	eventsSz int64
	diags    *os.File
	diagSz   int64
	incoming *os.File
	ck       checkpoint
	reader   spool.Reader
	idPrefix string
	stats    stats
	index    index
	lineBuf  []byte
	diagBuf  []byte
	held     heldBack // this cycle's held-back records
	// diagsFull is whether the cycle's diagnostics were full when a batch
	// was last stored; validation outside the lock reads it as a hint.
	diagsFull atomic.Bool
	locs      atomic.Pointer[projectroot.Normalizer] // nil: locations are kept as sent
	// lpReports is this cycle's logpoint reports (guarded by mu); lpMu
	// serialises changes to the logpoints file.
	lpReports lpReports
	lpMu      sync.Mutex
}

// stats are derived from the evidence file on load and kept current after.
type stats struct {
	events      int64
	byHyp       map[string]int64
	redacted    int64 // events that had something redacted
	rejected    int64 // records refused (stored diagnostics + suppressed)
	warnings    int64
	diagnostics int64 // stored diagnostic lines
	firstTS     int64
	lastTS      int64
	lastRecv    int64
	dropped     map[string]bool // dropped field names already reported this cycle
}

func newStats() stats { return stats{byHyp: map[string]int64{}, dropped: map[string]bool{}} }

func loadSession(st *Store, id string) (*Session, error) {
	s := &Session{st: st, id: id, dir: statedir.SessionDir(id)}
	s.reader.MaxLine = evidence.DefaultLimits.MaxRecordBytes + 1 // room for a "\r" the limit does not count
	dirID, err := st.root.Identify(s.dir)
	if err != nil {
		return nil, notFound(err)
	}
	if err := readJSON(st.root, s.path(statedir.MetaFile), &s.meta); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("session %s metadata: %w", id, err)
	}
	open := func(name string) (*os.File, int64) {
		if err != nil {
			return nil, 0
		}
		var f *os.File
		f, err = st.root.OpenFile(s.path(name), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, 0
		}
		var fi os.FileInfo
		if fi, err = f.Stat(); err != nil {
			return f, 0
		}
		return f, fi.Size()
	}
	s.events, s.eventsSz = open(statedir.EventsFile)
	s.diags, s.diagSz = open(statedir.DiagnosticsFile)
	s.incoming, _ = open(statedir.IncomingFile)
	if err == nil {
		err = s.identify(dirID)
	}
	if err == nil {
		err = st.verify(s) // nothing was swapped while the files were opened
	}
	if err != nil {
		s.close()
		return nil, err
	}
	if err := readJSON(st.root, s.path(statedir.CheckpointFile), &s.ck); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.close()
		return nil, err
	}
	s.setNormalizer(s.meta.ProjectRoot)
	s.idPrefix = randomPrefix()
	// Before recovery, which may apply a control record of an interrupted
	// batch again (harmless: applying one twice changes nothing).
	if err := s.loadHeldBack(); err != nil {
		s.close()
		return nil, err
	}
	if err := s.loadLogpointReports(); err != nil {
		s.close()
		return nil, err
	}
	if err := s.recover(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *Session) path(name string) string { return s.dir + "/" + name }

// ID is the session id.
func (s *Session) ID() string { return s.id }

// Meta returns the session metadata.
func (s *Session) Meta() Meta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta
}

// AppendPath is the absolute path of the session's append path.
func (s *Session) AppendPath() string {
	return s.st.root.Path() + "/" + s.path(statedir.IncomingFile)
}

// recover repairs a torn last line, finishes or rolls forward an interrupted
// spool batch, and rebuilds the statistics from the evidence file.
func (s *Session) recover() error {
	s.stats = newStats()
	if err := s.repairTail(s.events, &s.eventsSz, "evidence"); err != nil {
		return err
	}
	if err := s.repairTail(s.diags, &s.diagSz, "diagnostics"); err != nil {
		return err
	}
	if p := s.ck.Pending; p != nil {
		if err := s.finishPending(p); err != nil {
			return err
		}
	}
	// Only now is the repair's own diagnostic written: finishPending must
	// not mistake it for the interrupted batch's diagnostics.
	if err := s.flushDiags(); err != nil {
		return err
	}
	return s.rescan()
}

// repairTail sets aside an incomplete last line, left by a crash mid-write,
// and reports it instead of dropping it silently.
func (s *Session) repairTail(f *os.File, size *int64, what string) error {
	if *size == 0 {
		return nil
	}
	const window = 128 << 10
	start := max(*size-window, 0)
	buf := make([]byte, *size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return err
	}
	if buf[len(buf)-1] == '\n' {
		return nil
	}
	cut := start + int64(bytes.LastIndexByte(buf, '\n')+1)
	if cut == start && start > 0 {
		cut = start // an oversized torn tail: keep what the window saw
	}
	torn, err := s.st.root.OpenFile(s.path(statedir.TornFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	tail := buf[cut-start:]
	torn.Write(append(append([]byte{}, tail...), '\n'))
	torn.Close()
	if err := f.Truncate(cut); err != nil {
		return err
	}
	*size = cut
	if what == "evidence" {
		s.addDiag(Diagnostic{Source: "store", Level: "warning",
			Reason:   fmt.Sprintf("an incomplete record (%d bytes) at the end of the stored evidence was set aside after an interruption", len(tail)),
			Position: "end of the stored evidence",
			Excerpt:  evidence.Excerpt(tail)}) // written by recover
	}
	return nil
}

// finishPending settles a spool batch that was being written when the
// service stopped: records already stored are not stored again, and the spool
// resumes right after the last line whose outcome is on disk.
func (s *Session) finishPending(p *pendingBatch) error {
	written := int64(0)
	if s.eventsSz > p.EventsStart {
		buf := make([]byte, s.eventsSz-p.EventsStart)
		if _, err := s.events.ReadAt(buf, p.EventsStart); err != nil && err != io.EOF {
			return err
		}
		written = int64(bytes.Count(buf, []byte{'\n'}))
	}
	diagsWritten := s.diagSz > p.DiagStart
	pos := p.From
	if written > 0 || diagsWritten {
		// Walk the batch again; accepted lines already stored are skipped.
		for pos.Offset < p.To.Offset {
			lines, next, _, err := s.reader.Read(s.incoming, pos)
			if err != nil {
				return err
			}
			if len(lines) == 0 {
				break
			}
			stop := false
			var refused []item // refused lines walked over whose diagnostics are not on disk
			for _, it := range spoolItems(lines) {
				c := checkLine(it.data, false)
				ok := c.rej == nil && c.held == nil && c.lpReport == nil && !it.oversize
				if it.offset >= p.To.Offset || ok && written == 0 {
					stop = true
					next = spool.Position{Offset: it.offset, Lines: it.line - 1}
					break
				}
				if ok {
					written--
				} else if !diagsWritten {
					refused = append(refused, it)
				}
			}
			if len(refused) > 0 {
				if _, _, err := s.ingest(SourceFile, refused, check(refused)); err != nil {
					return err
				}
			}
			pos = next
			if stop || next.Offset >= p.To.Offset {
				break
			}
		}
		if diagsWritten && pos.Offset < p.To.Offset {
			pos = p.To // the batch's diagnostics were written after its events: all of it is on disk
		}
	}
	s.ck.Spool = pos
	s.ck.Pending = nil
	return s.saveCheckpoint()
}

// rescan rebuilds statistics by reading the evidence and diagnostics files.
func (s *Session) rescan() error {
	s.stats = newStats()
	s.index.reset(s.eventsSz / 200)
	if err := scanLinesAt(s.events, s.eventsSz, func(off int64, line []byte) {
		h, ok := scanEventHead(line)
		if !ok {
			return
		}
		s.count(off, h.hypothesisID, h.timestamp, h.receivedAt, bytes.Contains(line, redactedMark))
	}); err != nil {
		return err
	}
	if err := scanLines(s.diags, s.diagSz, func(line []byte) {
		var d Diagnostic
		if json.Unmarshal(line, &d) != nil {
			return
		}
		s.stats.diagnostics++
		if d.Level == "rejected" {
			s.stats.rejected++
		} else {
			s.stats.warnings++
		}
	}); err != nil {
		return err
	}
	s.stats.rejected += s.ck.Suppressed
	return nil
}

func (s *Session) count(off int64, hyp string, ts, recv int64, redacted bool) {
	s.index.add(off, ts, hyp)
	st := &s.stats
	st.events++
	st.byHyp[hyp]++
	if redacted {
		st.redacted++
	}
	if st.firstTS == 0 || ts < st.firstTS {
		st.firstTS = ts
	}
	if ts > st.lastTS {
		st.lastTS = ts
	}
	if recv > st.lastRecv {
		st.lastRecv = recv
	}
}

// Reset starts a new evidence cycle: events, diagnostics, spool and sequence
// are cleared; the id and append path stay; the epoch moves on so anything
// read before is recognisably stale.
func (s *Session) Reset() (Meta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Meta{}, ErrNotFound
	}
	if err := s.resetLocked(); err != nil {
		return Meta{}, err
	}
	return s.meta, nil
}

// resetLocked is Reset; caller holds s.mu.
func (s *Session) resetLocked() error {
	s.meta.Epoch++
	if err := writeJSON(s.st.root, s.path(statedir.MetaFile), s.meta); err != nil {
		return err
	}
	for _, f := range []*os.File{s.events, s.diags, s.incoming} {
		if err := f.Truncate(0); err != nil {
			return err
		}
	}
	// Each names its cycle, so a crash before they are gone leaves nothing
	// that could be read as the new cycle's. The logpoints stay.
	for _, name := range []string{statedir.HeldBackFile, statedir.OutputFile, statedir.LogpointReportsFile} {
		if err := s.st.root.Remove(s.path(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	s.held = heldBack{}
	s.lpReports = lpReports{}
	s.eventsSz, s.diagSz = 0, 0
	s.ck = checkpoint{}
	if err := s.saveCheckpoint(); err != nil {
		return err
	}
	s.stats = newStats()
	s.index.reset(0)
	s.setNormalizer(s.meta.ProjectRoot)
	s.idPrefix = randomPrefix()
	return nil
}

// SetIngestURL records the Ingest URL last shown for this session, so a later
// change of endpoint can be pointed out.
func (s *Session) SetIngestURL(u string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta.IngestURL == u {
		return nil
	}
	s.meta.IngestURL = u
	return writeJSON(s.st.root, s.path(statedir.MetaFile), s.meta)
}

// HypothesisCount is the number of events carrying one label.
type HypothesisCount struct {
	ID     string `json:"id"`
	Events int64  `json:"events"`
}

// Status is a session's evidence health.
type Status struct {
	SessionID          string            `json:"sessionId"`
	CreatedAt          int64             `json:"createdAt"`
	Epoch              int64             `json:"cycle"`
	Version            string            `json:"evidenceVersion"`
	Events             int64             `json:"events"`
	Hypotheses         []HypothesisCount `json:"hypotheses"`
	RedactedEvents     int64             `json:"redactedEvents"`
	Rejected           int64             `json:"rejectedRecords"`
	Warnings           int64             `json:"warnings"`
	FirstTimestamp     int64             `json:"firstTimestamp,omitempty"`
	LastTimestamp      int64             `json:"lastTimestamp,omitempty"`
	LastReceivedAt     int64             `json:"lastReceivedAt,omitempty"`
	PendingBytes       int64             `json:"incompleteRecordBytes"`
	SkippingLine       int64             `json:"skippingOversizeLine,omitempty"` // append-path line of a refused oversize record that has no newline yet
	Diagnostics        []Diagnostic      `json:"diagnostics"`
	DiagnosticsOmitted int64             `json:"diagnosticsOmitted"`
	LastShownIngestURL string            `json:"-"`
	UserEvidence       UserEvidenceCount `json:"userEvidence"`    // set by the service
	HeldBack           []HeldBackCount   `json:"heldBack"`        // per location, most first (at most MaxHeldBackListed)
	HeldBackEvents     int64             `json:"heldBackEvents"`  // events helpers held back in this cycle, over every location
	HeldBackOmitted    int               `json:"heldBackOmitted"` // held-back locations not listed
	MaxPerLocation     int64             `json:"maxPerLocation"`  // the session's cap of events per location per process
}

// Version names the evidence a reader saw: the reset cycle and the last
// sequence. Two reads with the same version saw the same evidence.
func Version(epoch, events int64) string { return fmt.Sprintf("%d.%d", epoch, events) }

// Status drains the spool, then reports evidence health and every stored
// diagnostic.
func (s *Session) Status() (Status, error) {
	if err := s.DrainSpool(); err != nil {
		return Status{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Status{}, ErrNotFound
	}
	st := Status{
		SessionID: s.id, CreatedAt: s.meta.CreatedAt, Epoch: s.meta.Epoch,
		Version: Version(s.meta.Epoch, s.stats.events), Events: s.stats.events,
		RedactedEvents: s.stats.redacted, Rejected: s.stats.rejected, Warnings: s.stats.warnings,
		FirstTimestamp: s.stats.firstTS, LastTimestamp: s.stats.lastTS, LastReceivedAt: s.stats.lastRecv,
		PendingBytes:       spool.Pending(s.incoming, s.ck.Spool),
		DiagnosticsOmitted: s.ck.Suppressed, LastShownIngestURL: s.meta.IngestURL,
		Hypotheses: []HypothesisCount{}, Diagnostics: []Diagnostic{},
	}
	if s.ck.Spool.Skipping {
		st.SkippingLine = s.ck.Spool.Lines
	}
	for h, n := range s.stats.byHyp {
		st.Hypotheses = append(st.Hypotheses, HypothesisCount{h, n})
	}
	sortCounts(st.Hypotheses)
	st.HeldBack, st.HeldBackEvents = s.held.summary()
	if len(st.HeldBack) > MaxHeldBackListed {
		st.HeldBackOmitted = len(st.HeldBack) - MaxHeldBackListed
		st.HeldBack = st.HeldBack[:MaxHeldBackListed]
	}
	st.MaxPerLocation = s.meta.Cap()
	err := scanLines(s.diags, s.diagSz, func(line []byte) {
		var d Diagnostic
		if json.Unmarshal(line, &d) == nil {
			st.Diagnostics = append(st.Diagnostics, d)
		}
	})
	return st, err
}

func sortCounts(h []HypothesisCount) {
	sort.Slice(h, func(i, j int) bool { return h[i].ID < h[j].ID })
}

func (s *Session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, f := range []*os.File{s.events, s.diags, s.incoming} {
		if f != nil {
			f.Close()
		}
	}
}

// saveCheckpoint replaces the spool checkpoint. No fsync: it guards against
// the service being killed, where the page cache survives; a power cut can
// at worst make recovery read a batch again, which the pending marker settles.
func (s *Session) saveCheckpoint() error {
	b, err := json.Marshal(s.ck)
	if err != nil {
		return err
	}
	return s.st.root.ReplaceFile(s.path(statedir.CheckpointFile), append(b, '\n'))
}

// releaseSpool gives append-path bytes back to the filesystem; tests replace
// it to stand in for a crash or a filesystem without hole punching.
var releaseSpool = spool.Release

// releaseConsumed punches out the append-path bytes already taken in, so
// their raw text (secrets included) does not stay on disk. A released byte
// can never be read again, so first the evidence and the checkpoint that
// accounts for it are made durable (fsync): a power cut after the punch must
// not roll the checkpoint back into zeros. Failure is reported once per
// cycle as a warning and never fails the caller: the evidence is safe, only
// the raw copy stays. There is no fallback: truncating a fully consumed file
// could drop a line another program appends between our size check and the
// truncate, and nothing makes the truncate conditional. Caller holds s.mu.
func (s *Session) releaseConsumed() error {
	if !s.ck.unreleased() {
		return nil
	}
	to := s.ck.Spool.Offset
	if fi, err := s.incoming.Stat(); err != nil || fi.Size() < to {
		return nil // truncated behind our back: the next read starts over
	}
	if err := errors.Join(s.events.Sync(), s.diags.Sync()); err != nil {
		return err
	}
	b, err := json.Marshal(s.ck)
	if err != nil {
		return err
	}
	if err := s.st.root.WriteFileAtomic(s.path(statedir.CheckpointFile), append(b, '\n')); err != nil {
		return err
	}
	if err := releaseSpool(s.incoming, s.ck.Released, to); err != nil {
		s.ck.ReleaseFailed = true
		reason := fmt.Sprintf("records already taken in could not be removed from the append path (%v); their raw text, secrets included, stays in it until debug-mode reset or clean", err)
		if errors.Is(err, spool.ErrReleaseUnsupported) {
			reason = "this filesystem cannot punch holes, so records already taken in stay in the append path, secrets included, until debug-mode reset or clean; keep the state directory (" + statedir.Env + ") on ext4, xfs, btrfs or tmpfs to have them removed"
		}
		s.addDiag(Diagnostic{Source: SourceFile, Level: "warning", Reason: reason, Position: "append path", ReceivedAt: s.st.now().UnixMilli()})
		if err := s.flushDiags(); err != nil {
			return err
		}
		return s.saveCheckpoint()
	}
	s.ck.Released = to
	return s.saveCheckpoint()
}

func randomPrefix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeJSON(root *safefs.Root, rel string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return root.WriteFileAtomic(rel, append(b, '\n'))
}

func readJSON(root *safefs.Root, rel string, v any) error {
	b, err := root.ReadFile(rel)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
