package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// ErrStale means the evidence was reset after the reader's version.
var ErrStale = errors.New("evidence was reset")

// NoCycleError is a cycle the session never had: below 1, or past the
// current one. It is the reader's mistake, not a reset.
type NoCycleError struct {
	Asked, Current int64
}

func (e *NoCycleError) Error() string {
	return fmt.Sprintf("cycle %d is not a cycle of this session: the current cycle is %d (cycles count up from 1, one per reset, and only the current one can be read)", e.Asked, e.Current)
}

// Filter selects events; the zero Filter selects every event.
type Filter struct {
	Hypotheses []string `json:"hypotheses,omitempty"` // any of these labels
	Location   string   `json:"location,omitempty"`   // substring of location, e.g. "cart.py" or "cart.py:42"
	Message    string   `json:"message,omitempty"`    // case-insensitive substring of message
	SeqFrom    int64    `json:"seqFrom,omitempty"`    // first sequence, inclusive
	SeqTo      int64    `json:"seqTo,omitempty"`      // last sequence, inclusive
	Since      int64    `json:"since,omitempty"`      // earliest timestamp, epoch ms, inclusive
	Until      int64    `json:"until,omitempty"`      // latest timestamp, epoch ms, inclusive
}

// Empty reports whether f selects everything.
func (f Filter) Empty() bool {
	return len(f.Hypotheses) == 0 && f.Location == "" && f.Message == "" && f.SeqFrom == 0 && f.SeqTo == 0 && f.Since == 0 && f.Until == 0
}

// needsText reports whether matching has to look at the stored line.
func (f Filter) needsText() bool { return f.Location != "" || f.Message != "" }

// Snapshot is a consistent view of one cycle's evidence for a reader. The
// evidence file is append-only within a cycle, so the first N lines never
// change until a reset, which Check detects.
type Snapshot struct {
	s     *Session
	Epoch int64
	N     int
	size  int64
	indexView
	file *os.File
	// Rejected and RedactedEvents are the cycle's counts when the view was taken.
	Rejected       int64
	RedactedEvents int64
}

// Version is the evidence version this view shows.
func (v *Snapshot) Version() string { return Version(v.Epoch, int64(v.N)) }

// Snapshot drains the append path and returns a view of the evidence. If
// epoch is non-zero and the session has been reset since, it fails with
// ErrStale.
func (s *Session) Snapshot(epoch int64) (*Snapshot, error) {
	if err := s.DrainSpool(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrNotFound
	}
	if epoch < 0 || epoch > s.meta.Epoch {
		return nil, &NoCycleError{Asked: epoch, Current: s.meta.Epoch}
	}
	if epoch != 0 && epoch != s.meta.Epoch {
		return nil, fmt.Errorf("%w: read in cycle %d, the session is now in cycle %d", ErrStale, epoch, s.meta.Epoch)
	}
	v := s.index.view()
	return &Snapshot{s: s, Epoch: s.meta.Epoch, N: v.n, size: s.eventsSz, indexView: v, file: s.events,
		Rejected: s.stats.rejected, RedactedEvents: s.stats.redacted}, nil
}

// Check fails if the session was reset after the view was taken.
func (v *Snapshot) Check() error {
	if v.s == nil {
		return nil // frozen: it never changes
	}
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	if v.s.closed {
		return ErrNotFound
	}
	if v.s.meta.Epoch != v.Epoch {
		return fmt.Errorf("%w while it was being read; read again", ErrStale)
	}
	return nil
}

// Cursor walks matching events in logs order.
type Cursor struct {
	v      *Snapshot
	f      Filter
	hypSet []bool
	pos    int // index into v.order
	buf    []byte
	bufOff int64
}

// Iter returns a walk over the events matching f.
func (v *Snapshot) Iter(f Filter) *Cursor {
	c := &Cursor{v: v, f: f}
	if len(f.Hypotheses) > 0 {
		c.hypSet = make([]bool, len(v.labels))
		for _, h := range f.Hypotheses {
			for i, l := range v.labels {
				if l == h {
					c.hypSet[i] = true
				}
			}
		}
	}
	return c
}

// Next returns the next matching event's sequence and stored line (valid
// until the next call), or ok false at the end.
func (c *Cursor) Next() (seq int64, line []byte, ok bool, err error) {
	v, f := c.v, c.f
	for c.pos < v.N {
		i := v.at(c.pos)
		c.pos++
		seq := int64(i) + 1
		if f.SeqFrom > 0 && seq < f.SeqFrom || f.SeqTo > 0 && seq > f.SeqTo {
			continue
		}
		if f.Since > 0 && v.ts(i) < f.Since || f.Until > 0 && v.ts(i) > f.Until {
			continue
		}
		if c.hypSet != nil && !c.hypSet[v.hyp[i]] {
			continue
		}
		if !f.needsText() {
			return seq, nil, true, nil
		}
		line, err := c.Line(seq)
		if err != nil {
			return 0, nil, false, err
		}
		if matchText(f, line) {
			return seq, line, true, nil
		}
	}
	return 0, nil, false, nil
}

// Line reads the stored line of a sequence in this view.
func (c *Cursor) Line(seq int64) ([]byte, error) {
	v := c.v
	i := int(seq - 1)
	start := v.off(i)
	end := v.size
	if i+1 < v.N {
		end = v.off(i + 1)
	}
	end-- // drop the newline
	if start >= c.bufOff && end <= c.bufOff+int64(len(c.buf)) {
		return c.buf[start-c.bufOff : end-c.bufOff], nil
	}
	// Read ahead: readers mostly walk the file forwards.
	want := max(end-start, 1<<20)
	if start+want > v.size {
		want = v.size - start
	}
	if int64(cap(c.buf)) < want {
		c.buf = make([]byte, want)
	}
	c.buf = c.buf[:want]
	n, err := v.file.ReadAt(c.buf, start)
	if err != nil && !(errors.Is(err, io.EOF) && int64(n) >= end-start) {
		if cerr := v.Check(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	c.buf, c.bufOff = c.buf[:n], start
	if end-start > int64(n) {
		return nil, v.Check()
	}
	return c.buf[:end-start], nil
}

// Count counts the events matching f and the bytes of their stored lines
// (newlines not counted). It stops once either count passes its most, so a
// count over a most means "more than that". Filters on hypothesis, sequence
// and time are answered from the index alone; location and message filters
// read the lines, but decode nothing.
func (v *Snapshot) Count(f Filter, mostEvents int, mostBytes int64) (events int, bytes int64, err error) {
	it := v.Iter(f)
	for events <= mostEvents && bytes <= mostBytes {
		seq, _, ok, err := it.Next()
		if err != nil || !ok {
			return events, bytes, err
		}
		events++
		bytes += v.lineSize(int(seq - 1))
	}
	return events, bytes, nil
}

// lineSize is the length of event i's stored line, without its newline.
func (v *Snapshot) lineSize(i int) int64 {
	end := v.size
	if i+1 < v.N {
		end = v.off(i + 1)
	}
	return end - v.off(i) - 1
}

// Pos is how many events of the view's order the walk has passed; Seek
// resumes a walk there (cursors store it).
func (c *Cursor) Pos() int     { return c.pos }
func (c *Cursor) Seek(pos int) { c.pos = pos }

// Label is the hypothesis label of a sequence.
func (v *Snapshot) Label(seq int64) string { return v.labels[v.hyp[seq-1]] }

// matchText applies the location and message filters to a stored line.
func matchText(f Filter, line []byte) bool {
	var e struct {
		Location string `json:"location"`
		Message  string `json:"message"`
	}
	if f.Location != "" && !bytes.Contains(line, []byte(f.Location)) && !strings.Contains(f.Location, `\`) {
		return false // cheap rejection: the text is nowhere in the line
	}
	if json.Unmarshal(line, &e) != nil {
		return false
	}
	if f.Location != "" && !strings.Contains(e.Location, f.Location) {
		return false
	}
	if f.Message != "" && !strings.Contains(strings.ToLower(e.Message), strings.ToLower(f.Message)) {
		return false
	}
	return true
}

// Page is one bounded page of events in logs order.
type Page struct {
	SessionID      string            `json:"sessionId"`
	Cycle          int64             `json:"cycle"`
	Version        string            `json:"evidenceVersion"`
	Total          int64             `json:"total"`
	Matched        int64             `json:"matched"`
	Offset         int               `json:"offset"`
	Limit          int               `json:"limit"`
	Returned       int               `json:"returned"`
	Omitted        int64             `json:"omitted"`
	Hypotheses     []HypothesisCount `json:"hypotheses"`
	Rejected       int64             `json:"rejectedRecords"`
	RedactedEvents int64             `json:"redactedEvents"`
	Events         []json.RawMessage `json:"events"`
	UserEvidence   UserEvidenceCount `json:"userEvidence"` // set by the service

	// Set by the service when the Ingest URL moved since it was last shown.
	IngestURLChanged  bool   `json:"ingestUrlChanged,omitempty"`
	IngestURL         string `json:"ingestUrl,omitempty"`
	PreviousIngestURL string `json:"previousIngestUrl,omitempty"`
}

// Logs returns one page of the events matching f, in logs order, with
// counts over every match. epoch, when non-zero, pins the page to a cycle.
func (s *Session) Logs(f Filter, offset, limit int, epoch int64) (Page, error) {
	v, err := s.Snapshot(epoch)
	if err != nil {
		return Page{}, err
	}
	return v.Page(s.id, f, offset, limit)
}

// Page returns one page of the view's events matching f, in logs order,
// with counts over every match.
func (v *Snapshot) Page(sessionID string, f Filter, offset, limit int) (Page, error) {
	p := Page{SessionID: sessionID, Cycle: v.Epoch, Version: v.Version(), Total: int64(v.N), Offset: offset, Limit: limit,
		Rejected: v.Rejected, RedactedEvents: v.RedactedEvents, Events: []json.RawMessage{}, Hypotheses: []HypothesisCount{}}
	perHyp := make([]int64, len(v.labels))
	var picked []int64
	it := v.Iter(f)
	for {
		seq, _, ok, err := it.Next()
		if err != nil {
			return Page{}, err
		}
		if !ok {
			break
		}
		p.Matched++
		perHyp[v.hyp[seq-1]]++
		if p.Matched > int64(offset) && len(picked) < limit {
			picked = append(picked, seq)
		}
	}
	for _, seq := range picked {
		line, err := it.Line(seq)
		if err != nil {
			return Page{}, err
		}
		p.Events = append(p.Events, json.RawMessage(slices.Clone(line)))
	}
	for i, n := range perHyp {
		if n > 0 {
			p.Hypotheses = append(p.Hypotheses, HypothesisCount{v.labels[i], n})
		}
	}
	sortCounts(p.Hypotheses)
	p.Returned = len(p.Events)
	p.Omitted = p.Matched - int64(p.Returned)
	return p, v.Check()
}
