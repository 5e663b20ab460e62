package service

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentic-debug-mode/debug-mode/internal/reproduce"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Control API for reproduce: begin a reproduction (a new cycle unless
// kept), then end it (settle, keep its output, report), and page the output.

// SessionSettings is the optional body of create and reset.
type SessionSettings struct {
	MaxPerLocation int64 `json:"maxPerLocation,omitempty"` // 0 leaves the cap as it is
}

// ReproduceRequest is the body of POST /v1/sessions/{id}/reproduce.
type ReproduceRequest struct {
	Keep           bool  `json:"keep"` // append to the current cycle instead of starting one
	MaxPerLocation int64 `json:"maxPerLocation,omitempty"`
}

// ReproduceStarted is its answer: the endpoints to export, and the number
// the end of this reproduction must name.
type ReproduceStarted struct {
	SessionInfo
	Reproduction int64 `json:"reproduction"`
	Kept         bool  `json:"kept"`
}

// Settle bounds of the wait for deliveries after the last process ended.
const (
	DefaultSettleQuiet = 200 * time.Millisecond // no delivery for this long: everything sent has arrived
	DefaultSettleMax   = 2 * time.Second        // never wait longer than this
	maxSettle          = 30 * time.Second
)

// ReproduceEndRequest is the body of POST /v1/sessions/{id}/reproduce/end.
type ReproduceEndRequest struct {
	Reproduction int64      `json:"reproduction"`
	Cycle        int64      `json:"cycle"`
	QuietMs      int64      `json:"quietMs,omitempty"` // 0: DefaultSettleQuiet
	MaxMs        int64      `json:"maxMs,omitempty"`   // 0: DefaultSettleMax
	Command      []string   `json:"command"`
	Exit         store.Exit `json:"exit"`
	Stdout       RawStream  `json:"stdout"`
	Stderr       RawStream  `json:"stderr"`
}

// RawStream is one stream as the CLI kept it (bytes travel as base64, so
// any output survives the trip); the service redacts it before storing.
type RawStream struct {
	Kept         []byte `json:"kept"`
	TotalBytes   int64  `json:"totalBytes"`
	OmittedBytes int64  `json:"omittedBytes"`
}

// SettleResult says how long the service waited for deliveries.
type SettleResult struct {
	WaitedMs   int64 `json:"waitedMs"`
	QuietMs    int64 `json:"quietMs"`
	MaxMs      int64 `json:"maxMs"`
	Complete   bool  `json:"complete"`   // a quiet period was reached; false: deliveries were still arriving at MaxMs
	Deliveries int64 `json:"deliveries"` // HTTP ingest requests that ended while it waited
}

// StreamTail is the end of one stored stream, for the report.
type StreamTail struct {
	Lines        []string `json:"lines"`      // the last lines (each at most MaxTailLineBytes)
	TotalLines   int      `json:"totalLines"` // lines kept (a marker line stands for an omitted middle)
	TotalBytes   int64    `json:"totalBytes"`
	OmittedBytes int64    `json:"omittedBytes"`
	Redactions   int      `json:"redactions"`
}

// Bounds of a report's tail.
const (
	TailLines        = 20
	MaxTailLineBytes = 400
)

// ReproduceEnded is the answer to the end of a reproduction: the settle,
// the evidence as it stands after it, and the tails of the stored output.
type ReproduceEnded struct {
	Settle SettleResult `json:"settle"`
	Status StatusInfo   `json:"status"`
	Stdout StreamTail   `json:"stdout"`
	Stderr StreamTail   `json:"stderr"`
}

// deliveries tracks each session's HTTP ingest requests, so that a settle
// can wait for the ones still being read and for a quiet period after the
// last.
type deliveries struct {
	mu sync.Mutex
	by map[string]*delivery
}

type delivery struct {
	inFlight int
	last     time.Time // when the last request ended
	ended    int64
}

func (d *deliveries) get(id string) *delivery {
	if d.by == nil {
		d.by = map[string]*delivery{}
	}
	x := d.by[id]
	if x == nil {
		x = &delivery{}
		d.by[id] = x
	}
	return x
}

func (d *deliveries) begin(id string) {
	d.mu.Lock()
	d.get(id).inFlight++
	d.mu.Unlock()
}

func (d *deliveries) end(id string) {
	d.mu.Lock()
	x := d.get(id)
	x.inFlight--
	x.last = time.Now()
	x.ended++
	d.mu.Unlock()
}

func (d *deliveries) state(id string) (inFlight int, last time.Time, ended int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	x := d.get(id)
	return x.inFlight, x.last, x.ended
}

func (d *deliveries) forget(id string) {
	d.mu.Lock()
	delete(d.by, id)
	d.mu.Unlock()
}

// settle waits until no HTTP delivery to the session is in flight and none
// ended for quiet, or max has passed. The processes that could deliver have
// all ended when it is called, so what it waits for was already sent: a
// request still being read, or one the kernel holds for the server. It uses
// the wall clock (not the injectable one), since it waits for real I/O.
func (d *deliveries) settle(ctx context.Context, id string, quiet, limit time.Duration) SettleResult {
	start := time.Now()
	deadline := start.Add(limit)
	_, _, ended0 := d.state(id)
	res := SettleResult{QuietMs: quiet.Milliseconds(), MaxMs: limit.Milliseconds()}
	for {
		inFlight, last, _ := d.state(id)
		ref := start
		if last.After(ref) {
			ref = last
		}
		now := time.Now()
		if inFlight == 0 && now.Sub(ref) >= quiet {
			res.Complete = true
			break
		}
		if !now.Before(deadline) {
			break
		}
		wait := quiet - now.Sub(ref)
		if inFlight > 0 || wait <= 0 {
			wait = 5 * time.Millisecond
		}
		wait = min(wait, deadline.Sub(now))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			res.WaitedMs = time.Since(start).Milliseconds()
			return res
		}
	}
	_, _, ended := d.state(id)
	res.Deliveries = ended - ended0
	res.WaitedMs = time.Since(start).Milliseconds()
	return res
}

// decodeOptional decodes a JSON body if there is one; an empty body leaves
// v as it is.
func decodeOptional(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		writeErr(w, http.StatusBadRequest, "bad_request", "could not read the request")
		return false
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return true
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeErr(w, http.StatusBadRequest, "bad_request", "malformed request: "+err.Error())
		return false
	}
	return true
}

func (s *Server) handleReproduce(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req ReproduceRequest
	if !decodeBody(w, r, &req) {
		return
	}
	meta, err := sess.BeginReproduction(req.Keep, req.MaxPerLocation)
	if err != nil {
		s.fail(w, err)
		return
	}
	info := s.info(sess)
	if err := sess.SetIngestURL(info.IngestURL); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ReproduceStarted{SessionInfo: info, Reproduction: meta.Reproductions, Kept: req.Keep})
}

// maxEndBody bounds the end of a reproduction: two streams of at most
// store.MaxOutputBytes each, as base64, and the command.
const maxEndBody = 4 * store.MaxOutputBytes

func (s *Server) handleReproduceEnd(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req ReproduceEndRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxEndBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, "bad_request", "malformed request: "+err.Error())
		return
	}
	quiet, limit := time.Duration(req.QuietMs)*time.Millisecond, time.Duration(req.MaxMs)*time.Millisecond
	if quiet == 0 {
		quiet = DefaultSettleQuiet
	}
	if limit == 0 {
		limit = DefaultSettleMax
	}
	if quiet < 0 || limit < 0 || quiet > limit || limit > maxSettle || len(req.Command) > 4096 {
		writeErr(w, http.StatusBadRequest, "bad_request", "the settle window must be 0 < quiet ≤ max ≤ 30 s")
		return
	}
	if m := sess.Meta(); m.Epoch != req.Cycle || m.Reproductions != req.Reproduction {
		writeErr(w, http.StatusConflict, "stale", "the session was reset or another reproduction began while this one ran, so its evidence is not this reproduction's alone; run reproduce again")
		return
	}
	settled := s.deliv.settle(r.Context(), sess.ID(), quiet, limit)
	out := store.Output{Cycle: req.Cycle, Reproduction: req.Reproduction, Command: req.Command, Exit: req.Exit,
		Stdout: storedStream(req.Stdout), Stderr: storedStream(req.Stderr)}
	stored, err := sess.SetOutput(out)
	switch {
	case errors.Is(err, store.ErrOutputStale):
		writeErr(w, http.StatusConflict, "stale", "the session was reset or another reproduction began while this one ran; run reproduce again")
		return
	case errors.Is(err, store.ErrBadOutput):
		writeErr(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	case err != nil:
		s.fail(w, err)
		return
	}
	st, err := s.statusInfo(sess)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ReproduceEnded{Settle: settled, Status: st, Stdout: tail(stored.Stdout), Stderr: tail(stored.Stderr)})
}

// storedStream is a stream as it will be stored: valid UTF-8, bytes that
// are not written \xNN, within the store's bound (redaction happens in the
// store). The CLI sends it so already; this keeps a report from being lost
// when a client did not.
func storedStream(r RawStream) store.OutputStream {
	text, omitted := reproduce.KeepText(r.Kept, r.OmittedBytes)
	return store.OutputStream{Text: string(text), TotalBytes: r.TotalBytes, OmittedBytes: omitted}
}

// tail is the end of a stored stream for the report.
func tail(o store.OutputStream) StreamTail {
	lines := store.SplitOutput(o.Text)
	t := StreamTail{Lines: []string{}, TotalLines: len(lines), TotalBytes: o.TotalBytes, OmittedBytes: o.OmittedBytes, Redactions: o.Redactions}
	for _, l := range lines[max(0, len(lines)-TailLines):] {
		t.Lines = append(t.Lines, clip(l, MaxTailLineBytes))
	}
	return t
}

// clip cuts s to at most n bytes on a character boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)-cut) + " more bytes)"
}

// Bounds of an output page.
const (
	DefaultOutputLimit = 100
	MaxOutputLimit     = 1000
	MaxOutputPageBytes = 64 << 10
)

// OutputPage is one page of a stream of the cycle's last reproduction.
type OutputPage struct {
	SessionID    string     `json:"sessionId"`
	Cycle        int64      `json:"cycle"`
	Available    bool       `json:"available"` // false: no reproduction output in this cycle
	Reproduction int64      `json:"reproduction,omitempty"`
	Command      []string   `json:"command,omitempty"`
	Exit         store.Exit `json:"exit"`
	Stream       string     `json:"stream"`
	Offset       int        `json:"offset"`
	Lines        []string   `json:"lines"`
	Returned     int        `json:"returned"`
	TotalLines   int        `json:"totalLines"`
	CutLines     int        `json:"cutLines"` // lines on this page cut at the page's byte bound
	TotalBytes   int64      `json:"totalBytes"`
	OmittedBytes int64      `json:"omittedBytes"`
	Redactions   int        `json:"redactions"`
}

func (s *Server) handleOutput(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	q := r.URL.Query()
	stream := q.Get("stream")
	if stream == "" {
		stream = "stdout"
	}
	offset, err1 := atoiDefault(q.Get("offset"), 0)
	limit, err2 := atoiDefault(q.Get("limit"), DefaultOutputLimit)
	want, err3 := atoiDefault(q.Get("reproduction"), 0)
	if (stream != "stdout" && stream != "stderr") || err1 != nil || err2 != nil || err3 != nil || offset < 0 || limit < 1 || limit > MaxOutputLimit || want < 0 {
		writeErr(w, http.StatusBadRequest, "bad_request", "--stream must be stdout or stderr, --offset 0 or more, --limit between 1 and 1000")
		return
	}
	o, ok, err := sess.Output()
	if err != nil {
		s.fail(w, err)
		return
	}
	page := OutputPage{SessionID: sess.ID(), Cycle: sess.Meta().Epoch, Stream: stream, Offset: offset, Lines: []string{}}
	if want > 0 && (!ok || o.Reproduction != int64(want)) {
		writeErr(w, http.StatusConflict, "stale", "the output of reproduction "+strconv.Itoa(want)+" is gone (a reset or a newer reproduce replaced it); read again from the start without --reproduction")
		return
	}
	if !ok {
		writeJSON(w, http.StatusOK, page)
		return
	}
	st := o.Stdout
	if stream == "stderr" {
		st = o.Stderr
	}
	lines := store.SplitOutput(st.Text)
	page.Available, page.Reproduction, page.Command, page.Exit = true, o.Reproduction, o.Command, o.Exit
	page.TotalLines, page.TotalBytes, page.OmittedBytes, page.Redactions = len(lines), st.TotalBytes, st.OmittedBytes, st.Redactions
	budget := MaxOutputPageBytes
	for i := offset; i < len(lines) && page.Returned < limit && budget > 0; i++ {
		l := lines[i]
		if len(l) > budget {
			l = clip(l, budget)
			page.CutLines++
		}
		budget -= len(l)
		page.Lines = append(page.Lines, l)
		page.Returned++
	}
	writeJSON(w, http.StatusOK, page)
}

func atoiDefault(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	return strconv.Atoi(s)
}
