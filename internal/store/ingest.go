package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/spool"
)

// Sources of evidence, named in diagnostics.
const (
	SourceHTTP  = "http"
	SourceFile  = "file"
	SourceStore = "store"
)

// redactedMark is in every stored line that had something redacted.
var redactedMark = []byte("[REDACTED")

// ErrDiagnosticsLost means the records were stored but the diagnostics about
// refused ones could not be written.
var ErrDiagnosticsLost = errors.New("diagnostics could not be stored")

// ErrEmptyBody means an HTTP ingest request carried no record at all.
var ErrEmptyBody = errors.New("the request body holds no NDJSON record")

// Diagnostic is one bounded, redacted report about evidence that was refused
// or changed on its way in.
type Diagnostic struct {
	Source     string `json:"source"` // http, file, otlp or store
	Level      string `json:"level"`  // rejected or warning
	Reason     string `json:"reason"`
	Position   string `json:"position"`
	Excerpt    string `json:"excerpt,omitempty"`
	ReceivedAt int64  `json:"receivedAt"`
}

// item is one record line on its way through the shared pipeline.
type item struct {
	data     []byte
	line     int64 // 1-based line in the request or the append path
	offset   int64 // byte offset in the append path (file source)
	oversize bool
	unit     string // what a mapped record was ("log record", "span"); empty for lines
}

func position(source string, it item) string {
	if it.unit != "" {
		return mappedPosition(it)
	}
	if source == SourceFile {
		return fmt.Sprintf("append path line %d (byte %d)", it.line, it.offset)
	}
	return fmt.Sprintf("line %d of an HTTP request", it.line)
}

// A request body is validated and stored a part at a time, so what one
// request costs beyond its body is bounded by these, whatever the body holds:
// a body of a million bad lines costs what a body of one does.
const (
	partLines = 1024      // lines validated and held at once
	partBytes = 256 << 10 // bytes of lines validated and held at once
)

// IngestHTTP validates, redacts, numbers and stores the records of one
// NDJSON request body. The records are on disk before it returns, so an
// acknowledged record survives the service being killed.
//
// The body is taken in parts of at most partLines lines or partBytes bytes:
// each part is validated without the lock (concurrent requests overlap
// there), then numbered and written in one write under it. Refused lines
// are only counted once the cycle's diagnostics are full. If a write fails,
// the parts before it stay stored: accepted and rejected count them, and
// the error says the rest was not.
func (s *Session) IngestHTTP(body []byte) (accepted, rejected int, err error) {
	var items []item
	var checked []checkedItem
	var diagErr error
	size, seen := 0, false
	store := func() error {
		// Once the cycle's diagnostics are full a refused line is only
		// counted, so it need not be explained either.
		checked = checkInto(checked, items, s.diagsFull.Load())
		s.normalizeLocations(items, checked)
		a, r, err := s.ingestPart(items, checked)
		accepted, rejected = accepted+a, rejected+r
		items, size = items[:0], 0
		if errors.Is(err, ErrDiagnosticsLost) {
			diagErr, err = err, nil
		}
		return err
	}
	evidence.SplitLines(body, func(n int, line []byte) bool {
		seen = true
		items = append(items, item{data: line, line: int64(n)})
		size += len(line)
		if len(items) == partLines || size >= partBytes {
			err = store()
		}
		return err == nil
	})
	if err == nil && (len(items) > 0 || !seen) {
		err = store()
	}
	if err == nil {
		err = diagErr
	}
	return accepted, rejected, err
}

// ingestPart stores one validated part of a request body; an empty part
// stands for an empty body.
func (s *Session) ingestPart(items []item, checked []checkedItem) (accepted, rejected int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, 0, ErrNotFound
	}
	if len(items) == 0 {
		s.addDiag(Diagnostic{Source: SourceHTTP, Level: "rejected", Reason: "empty request body; send one JSON object per line", Position: "HTTP request"})
		if err := s.flushDiags(); err != nil {
			return 0, 0, err
		}
		return 0, 0, ErrEmptyBody
	}
	accepted, rejected, err = s.ingest(SourceHTTP, items, checked)
	if accepted > 0 || rejected > 0 {
		s.st.activity()
	}
	return accepted, rejected, err
}

// DrainSpool takes in every complete line already in the append path. Each
// batch is bracketed by checkpoints so a crash mid-batch can be settled.
func (s *Session) DrainSpool() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrNotFound
	}
	for {
		lines, next, truncated, err := s.reader.Read(s.incoming, s.ck.Spool)
		if err != nil {
			return err
		}
		if truncated {
			s.addDiag(Diagnostic{Source: SourceFile, Level: "warning",
				Reason:   "the append path was truncated by another program; reading it again from its start",
				Position: "append path line 1 (byte 0)"})
			s.ck.Released = 0
		}
		if len(lines) == 0 {
			if next != s.ck.Spool || truncated {
				s.ck.Spool = next
				if err := s.flushDiags(); err != nil {
					return err
				}
				if err := s.saveCheckpoint(); err != nil {
					return err
				}
			}
			return s.releaseConsumed()
		}
		items := spoolItems(lines)
		s.ck.Pending = &pendingBatch{EventsStart: s.eventsSz, DiagStart: s.diagSz, From: s.ck.Spool, To: next}
		if err := s.saveCheckpoint(); err != nil {
			return err
		}
		if _, _, err := s.ingest(SourceFile, items, s.checked(items)); err != nil && !errors.Is(err, ErrDiagnosticsLost) {
			return err // nothing stored: the batch is read again next time
		}
		s.ck.Spool, s.ck.Pending = next, nil
		if err := s.saveCheckpoint(); err != nil {
			return err
		}
		s.st.activity()
	}
}

// spoolItems turns append-path lines into pipeline items. Blank lines are
// skipped, as in an HTTP body.
func spoolItems(lines []spool.Line) []item {
	items := make([]item, 0, len(lines))
	for _, ln := range lines {
		if !ln.Oversize && len(bytes.Trim(ln.Data, " \t\r")) == 0 {
			continue
		}
		items = append(items, item{data: ln.Data, line: ln.Number, offset: ln.Offset, oversize: ln.Oversize})
	}
	return items
}

// ingest is the one pipeline both transports share: validate and redact
// each line, number the accepted ones, append them in one write, then append
// the diagnostics. Caller holds s.mu.
// checkedItem is an item after validation and redaction: an event, a
// control record (held-back count, logpoint report), or a rejection.
type checkedItem struct {
	rec      evidence.Record
	rej      *evidence.Rejection
	held     *evidence.HeldBack
	lpReport *evidence.LogpointReport
}

// check validates and redacts every item; it touches no session state.
func check(items []item) []checkedItem { return checkInto(nil, items, false) }

// checkInto is check reusing dst's array. With brief, refused lines get
// evidence.Refused instead of a reason (ingest asks for the reason again if
// the cycle still has room for its diagnostic).
func checkInto(dst []checkedItem, items []item, brief bool) []checkedItem {
	dst = slices.Grow(dst[:0], len(items))[:len(items)]
	for i, it := range items {
		dst[i] = checkedItem{}
		if !it.oversize {
			dst[i] = checkLine(it.data, brief)
		}
	}
	return dst
}

// checkLine classifies one line. Only a line that is no valid event, or
// that carries a control record's member beside event fields, is looked at
// as a control record, so events pay nothing for them. With brief, a
// refused line gets evidence.Refused (see checkInto).
func checkLine(line []byte, brief bool) checkedItem {
	normalize := evidence.Normalize
	if brief {
		normalize = evidence.NormalizeBrief
	}
	rec, rej := normalize(line, evidence.DefaultLimits)
	if !evidence.IsControl(rec, rej) {
		return checkedItem{rec: rec}
	}
	if hb, hrej, ok := evidence.ParseHeldBack(line, evidence.DefaultLimits); ok {
		if hrej != nil {
			return checkedItem{rej: hrej}
		}
		return checkedItem{held: &hb}
	}
	if r, rrej, ok := evidence.ParseLogpointReport(line, evidence.DefaultLimits); ok {
		if rrej != nil {
			return checkedItem{rej: rrej}
		}
		return checkedItem{lpReport: &r}
	}
	return checkedItem{rec: rec, rej: rej}
}

func (s *Session) ingest(source string, items []item, checked []checkedItem) (accepted, rejected int, err error) {
	now := s.st.now().UnixMilli()
	buf := s.lineBuf[:0]
	seq := s.stats.events
	type counted struct {
		off      int64
		hyp      string
		ts       int64
		redacted bool
	}
	var added []counted
	for i, it := range items {
		if it.oversize {
			rejected++
			if s.keepDiag("rejected") {
				s.storeDiag(Diagnostic{Source: source, Level: "rejected", ReceivedAt: now, Position: position(source, it),
					Reason:  fmt.Sprintf("record longer than %d bytes (the line is skipped through its newline); keep data small (send only the values that test the hypothesis)", evidence.DefaultLimits.MaxRecordBytes),
					Excerpt: evidence.Excerpt(it.data)})
			}
			continue
		}
		if hb := checked[i].held; hb != nil {
			if !s.held.apply(*hb) {
				rejected++
				if s.keepDiag("rejected") {
					s.storeDiag(Diagnostic{Source: source, Level: "rejected", ReceivedAt: now, Position: position(source, it),
						Reason:  fmt.Sprintf("held-back record not counted: this cycle already tracks %d (process, location) pairs; reset before the next reproduction", MaxHeldBackEntries),
						Excerpt: evidence.Excerpt(it.data)})
				}
			}
			continue
		}
		if r := checked[i].lpReport; r != nil {
			if !s.lpReports.apply(*r) {
				rejected++
				s.addDiag(Diagnostic{Source: source, Level: "rejected", ReceivedAt: now, Position: position(source, it),
					Reason:  fmt.Sprintf("logpoint report not kept: this cycle already holds %d reports; reset before the next reproduction", MaxLogpointReports),
					Excerpt: evidence.Excerpt(it.data)})
			}
			continue
		}
		rec, rej := &checked[i].rec, checked[i].rej
		if rej != nil {
			// Past the cycle's diagnostics a refused line costs a count:
			// nothing about it is built or kept.
			rejected++
			if s.keepDiag("rejected") {
				if rej == evidence.Refused {
					_, rej = evidence.Normalize(it.data, evidence.DefaultLimits)
				}
				s.storeDiag(Diagnostic{Source: source, Level: "rejected", Reason: rej.Reason, Position: position(source, it), Excerpt: rej.Excerpt, ReceivedAt: now})
			}
			continue
		}
		for _, f := range rec.Dropped {
			if !s.stats.dropped[f] && len(s.stats.dropped) < 64 {
				s.stats.dropped[f] = true
				s.addDiag(Diagnostic{Source: source, Level: "warning", ReceivedAt: now, Position: position(source, it),
					Reason: fmt.Sprintf("field %q is not part of the event and was not stored (reported once per cycle); the record itself was accepted", truncateRunes(f, 64))})
			}
		}
		seq++
		off := s.eventsSz + int64(len(buf))
		buf = evidence.AppendStored(buf, s.eventID(seq), seq, now, rec)
		// The same test a restart uses when it recounts from the stored lines.
		added = append(added, counted{off, rec.HypothesisID, rec.Timestamp, bytes.Contains(buf[off-s.eventsSz:], redactedMark)})
		accepted++
	}
	s.lineBuf = buf[:0]
	if len(buf) > 0 {
		if _, err := s.events.Write(buf); err != nil {
			// Put the file back as it was; nothing of this batch was
			// accepted, and the counters are rebuilt from what is on disk.
			s.diagBuf = s.diagBuf[:0]
			if terr := s.events.Truncate(s.eventsSz); terr != nil {
				err = errors.Join(err, terr)
			}
			if rerr := s.rescan(); rerr != nil {
				err = errors.Join(err, rerr)
			}
			return 0, 0, fmt.Errorf("storing evidence: %w", err)
		}
		s.eventsSz += int64(len(buf))
		for _, c := range added {
			s.count(c.off, c.hyp, c.ts, now, c.redacted)
		}
	}
	s.diagsFull.Store(s.stats.diagnostics >= MaxDiagnostics)
	// The events are stored; a failure below loses only reports about the
	// other lines (control records stay in memory, written with the next
	// change).
	cerr := errors.Join(s.saveHeldBack(), s.saveLogpointReports())
	if err := s.flushDiags(); err != nil {
		return accepted, rejected, fmt.Errorf("%w: %v", ErrDiagnosticsLost, errors.Join(err, cerr))
	}
	if cerr != nil {
		return accepted, rejected, fmt.Errorf("%w: control records: %v", ErrDiagnosticsLost, cerr)
	}
	return accepted, rejected, nil
}

func (s *Session) eventID(seq int64) string {
	b := make([]byte, 0, 32)
	b = append(b, "evt_"...)
	b = append(b, s.idPrefix...)
	b = append(b, '_')
	b = strconv.AppendInt(b, seq, 10)
	return string(b)
}

// addDiag queues a diagnostic; past MaxDiagnostics per cycle it is only
// counted. Caller holds s.mu and calls flushDiags.
func (s *Session) addDiag(d Diagnostic) {
	if s.keepDiag(d.Level) {
		s.storeDiag(d)
	}
}

// keepDiag counts a diagnostic of level and reports whether the cycle has
// room to store it; build it only then, and pass it to storeDiag.
func (s *Session) keepDiag(level string) bool {
	if level == "rejected" {
		s.stats.rejected++
	} else {
		s.stats.warnings++
	}
	if s.stats.diagnostics >= MaxDiagnostics {
		s.ck.Suppressed++
		return false
	}
	return true
}

// storeDiag queues a diagnostic keepDiag made room for.
func (s *Session) storeDiag(d Diagnostic) {
	s.stats.diagnostics++
	// Every text of a diagnostic can quote a record (a field name, an
	// excerpt), so all of it passes the redactor before it is stored.
	d.Reason, _ = evidence.RedactText(d.Reason)
	d.Reason = truncateRunes(d.Reason, 400)
	d.Position, _ = evidence.RedactText(d.Position)
	d.Excerpt, _ = evidence.RedactText(d.Excerpt)
	b, _ := jsonMarshal(d)
	s.diagBuf = append(append(s.diagBuf, b...), '\n')
}

func (s *Session) flushDiags() error {
	if len(s.diagBuf) == 0 {
		return nil
	}
	n, err := s.diags.Write(s.diagBuf)
	s.diagSz += int64(n)
	s.diagBuf = s.diagBuf[:0]
	return err
}

func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
