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
	Source     string `json:"source"` // http, file or store
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
}

func position(source string, it item) string {
	if source == SourceFile {
		return fmt.Sprintf("append path line %d (byte %d)", it.line, it.offset)
	}
	return fmt.Sprintf("line %d of an HTTP request", it.line)
}

// IngestHTTP validates, redacts, numbers and stores the records of one
// NDJSON request body. The records are on disk before it returns, so an
// acknowledged record survives the service being killed.
func (s *Session) IngestHTTP(body []byte) (accepted, rejected int, err error) {
	var items []item
	evidence.SplitLines(body, func(n int, line []byte) bool {
		items = append(items, item{data: line, line: int64(n)})
		return true
	})
	// Validation and redaction need no lock: concurrent requests overlap
	// here and queue only to be numbered and written.
	checked := check(items)
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
		}
		if len(lines) == 0 {
			if next != s.ck.Spool || truncated {
				s.ck.Spool = next
				if err := s.flushDiags(); err != nil {
					return err
				}
				return s.saveCheckpoint()
			}
			return nil
		}
		items := spoolItems(lines)
		s.ck.Pending = &pendingBatch{EventsStart: s.eventsSz, DiagStart: s.diagSz, From: s.ck.Spool, To: next}
		if err := s.saveCheckpoint(); err != nil {
			return err
		}
		if _, _, err := s.ingest(SourceFile, items, check(items)); err != nil && !errors.Is(err, ErrDiagnosticsLost) {
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
// held-back record, or a rejection.
type checkedItem struct {
	rec  evidence.Record
	rej  *evidence.Rejection
	held *evidence.HeldBack
}

// check validates and redacts every item; it touches no session state.
func check(items []item) []checkedItem {
	out := make([]checkedItem, len(items))
	for i, it := range items {
		if !it.oversize {
			out[i] = checkLine(it.data)
		}
	}
	return out
}

// checkLine classifies one line. Only a line that is no valid event, or
// that carries the held-back member beside event fields, is looked at as a
// held-back record, so events pay nothing for it.
func checkLine(line []byte) checkedItem {
	rec, rej := evidence.Normalize(line, evidence.DefaultLimits)
	if rej == nil && !slices.Contains(rec.Dropped, evidence.HeldBackKey) {
		return checkedItem{rec: rec}
	}
	if hb, hrej, ok := evidence.ParseHeldBack(line, evidence.DefaultLimits); ok {
		if hrej != nil {
			return checkedItem{rej: hrej}
		}
		return checkedItem{held: &hb}
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
			s.addDiag(Diagnostic{Source: source, Level: "rejected", ReceivedAt: now, Position: position(source, it),
				Reason:  fmt.Sprintf("record longer than %d bytes; keep data small (send only the values that test the hypothesis)", evidence.DefaultLimits.MaxRecordBytes),
				Excerpt: evidence.Excerpt(it.data)})
			continue
		}
		if hb := checked[i].held; hb != nil {
			if !s.held.apply(*hb) {
				rejected++
				s.addDiag(Diagnostic{Source: source, Level: "rejected", ReceivedAt: now, Position: position(source, it),
					Reason:  fmt.Sprintf("held-back record not counted: this cycle already tracks %d (process, location) pairs; reset before the next reproduction", MaxHeldBackEntries),
					Excerpt: evidence.Excerpt(it.data)})
			}
			continue
		}
		rec, rej := &checked[i].rec, checked[i].rej
		if rej != nil {
			rejected++
			s.addDiag(Diagnostic{Source: source, Level: "rejected", Reason: rej.Reason, Position: position(source, it), Excerpt: rej.Excerpt, ReceivedAt: now})
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
	// The events are stored; a failure below loses only reports about the
	// other lines (held-back counts stay in memory, written with the next
	// change).
	herr := s.saveHeldBack()
	if err := s.flushDiags(); err != nil {
		return accepted, rejected, fmt.Errorf("%w: %v", ErrDiagnosticsLost, errors.Join(err, herr))
	}
	if herr != nil {
		return accepted, rejected, fmt.Errorf("%w: held-back counts: %v", ErrDiagnosticsLost, herr)
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
	if d.Level == "rejected" {
		s.stats.rejected++
	} else {
		s.stats.warnings++
	}
	if s.stats.diagnostics >= MaxDiagnostics {
		s.ck.Suppressed++
		return
	}
	s.stats.diagnostics++
	d.Reason = truncateRunes(d.Reason, 400)
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
