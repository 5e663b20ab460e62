package service

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentic-debug-mode/debug-mode/internal/otlp"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Limits of OTLP/HTTP ingest (the body limits are MaxBodyBytes's).
const (
	// MaxConcurrentOTLPDecodes bounds the requests decoded at once (one per
	// core here): a decoded request costs up to about 16 MiB
	// (otlp.MaxMessages).
	MaxConcurrentOTLPDecodes = 2
	// otlpChunk is how many mapped records are validated and stored per
	// write, so a large request never holds all its event lines at once.
	otlpChunk = 1024
)

// OTLPEndpoint is the base URL an OpenTelemetry exporter takes as
// OTEL_EXPORTER_OTLP_ENDPOINT for a session; it appends /v1/logs and
// /v1/traces.
func (s *Server) OTLPEndpoint(id string) string {
	return "http://127.0.0.1:" + strconv.Itoa(s.port) + "/otlp/" + id
}

// otlpAnswer is one OTLP/HTTP response: a code and a body already encoded.
type otlpAnswer struct {
	code int
	body []byte
}

// serveOTLP accepts OTLP/HTTP logs and traces for one session at
// /otlp/<id>/v1/logs and /otlp/<id>/v1/traces, in protobuf or JSON, gzip,
// deflate or uncompressed, and answers as OTLP specifies: 200 (with a
// partial success when some records were refused), else a
// google.rpc.Status. The same rules as /ingest apply: CORS for browser
// exporters, body types a browser cannot send without a preflight, bounded
// bodies (decompressed too).
func (s *Server) serveOTLP(w http.ResponseWriter, r *http.Request) {
	if answerCORS(w, r, "Content-Type, Content-Encoding") {
		return
	}
	enc, ok := otlpEncoding(r)
	if !ok {
		// Neither encoding: answer in JSON, the one a person can read.
		writeOTLP(w, otlp.JSON, otlpAnswer{http.StatusUnsupportedMediaType, otlp.Status(otlp.JSON, otlp.CodeInvalidArgument,
			"Content-Type must be application/x-protobuf or application/json (OTLP/HTTP; set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or http/json, not grpc)")})
		return
	}
	writeOTLP(w, enc, s.otlpRequest(w, r, enc))
}

func (s *Server) otlpRequest(w http.ResponseWriter, r *http.Request, enc otlp.Encoding) otlpAnswer {
	fail := func(code int, grpc int32, msg string) otlpAnswer {
		return otlpAnswer{code, otlp.Status(enc, grpc, msg)}
	}
	id, signal, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/otlp/"), "/")
	var sig otlp.Signal
	switch signal {
	case "v1/logs":
		sig = otlp.Logs
	case "v1/traces":
		sig = otlp.Traces
	case "v1/metrics":
		return fail(http.StatusNotFound, otlp.CodeNotFound, "debug-mode stores logs and traces, not metrics; send only logs and traces to this endpoint")
	default:
		return fail(http.StatusNotFound, otlp.CodeNotFound, "unknown path; an OTLP exporter appends /v1/logs or /v1/traces to the OTLP Endpoint that debug-mode create prints")
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		return fail(http.StatusMethodNotAllowed, otlp.CodeInvalidArgument, "use POST with an OTLP export request")
	}
	ce := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	switch ce {
	case "", "identity", "gzip", "deflate":
	default:
		return fail(http.StatusUnsupportedMediaType, otlp.CodeInvalidArgument, "Content-Encoding must be gzip, deflate or none")
	}
	sess, err := s.store.Get(id)
	if _, ok := Refusal(err); ok {
		s.cfg.Log.Printf("otlp refused: %v", err)
		code, msg := refusedIngest(id)
		return fail(code, otlp.CodePermissionDenied, msg)
	}
	if err != nil {
		return fail(http.StatusNotFound, otlp.CodeNotFound, "unknown session; create one with debug-mode create and use the OTLP Endpoint it prints")
	}
	s.touch()
	// A reproduction settles only once deliveries in flight are stored.
	s.deliv.begin(sess.ID())
	defer s.deliv.end(sess.ID())
	request := "OTLP " + sig.String() + " request"
	refuse := func(code int, grpc int32, reason string) otlpAnswer {
		if err := sess.RefuseRequest(store.SourceOTLP, request, reason); err != nil {
			s.cfg.Log.Printf("otlp %s: %v", sess.ID(), err)
		}
		return fail(code, grpc, reason)
	}

	// The body is read as /ingest reads it (body.go: bounded, paced, no
	// processing slot while it arrives), then decompressed, bounded again,
	// in one of the processing slots.
	s.ingesting.Add(1)
	defer s.ingesting.Add(-1)
	raw, release, berr := s.readBody(w, r)
	defer release()
	tooLarge := fmt.Sprintf("body larger than %d bytes (before or after decompression); send smaller batches (in a Collector, the batch processor's send_batch_max_size: 1024)", MaxBodyBytes)
	switch {
	case berr == errBodyTooLarge:
		return refuse(http.StatusRequestEntityTooLarge, otlp.CodeResourceExhausted, tooLarge)
	case berr != nil && (berr.code >= 500 || berr == errBodyTooSlow):
		return fail(berr.code, otlp.CodeUnavailable, berr.msg)
	case berr != nil:
		return fail(berr.code, otlp.CodeInvalidArgument, berr.msg)
	}
	// A body read whole was sent: it is stored even if its client has gone
	// (a helper flushing at exit does not wait for the answer).
	if err := s.slots.acquire(context.WithoutCancel(r.Context()), sess.ID()); err != nil {
		return fail(http.StatusServiceUnavailable, otlp.CodeUnavailable, "the request ended while it waited for a processing slot")
	}
	defer s.slots.release(sess.ID())
	// What a body inflates to is held in the inflate budget until the
	// request is answered, as what arrives is held in the body budget, so
	// small compressed bodies cannot together inflate (and decode) past it.
	var inflated int64
	releaseInflated := func() {
		if inflated > 0 {
			s.inflateBudget.Release(inflated)
			inflated = 0
		}
	}
	defer releaseInflated()
	reserve := func(n int64) error {
		releaseInflated()
		if n <= SmallBodyBytes {
			return nil
		}
		ctx, cancel := context.WithTimeout(r.Context(), BodyBudgetWait)
		defer cancel()
		if s.inflateBudget.Acquire(ctx, n) != nil {
			return errInflateBusy
		}
		inflated = n
		return nil
	}
	body, err := inflate(raw, ce, reserve)
	switch {
	case errors.Is(err, errDecompressedTooLarge):
		return refuse(http.StatusRequestEntityTooLarge, otlp.CodeResourceExhausted,
			fmt.Sprintf("the %s body inflates to more than %d bytes (8 MiB), the limit after decompression; send smaller batches (in a Collector, the batch processor's send_batch_max_size: 1024)", ce, MaxBodyBytes))
	case errors.Is(err, errInflateBusy):
		return fail(http.StatusServiceUnavailable, otlp.CodeUnavailable, err.Error())
	case err != nil:
		return refuse(http.StatusBadRequest, otlp.CodeInvalidArgument, "the body is not valid "+ce+" although Content-Encoding says so")
	}

	s.decoding <- struct{}{}
	defer func() { <-s.decoding }()
	var (
		items iter.Seq[otlp.Item]
		total int
	)
	if sig == otlp.Logs {
		var ld plog.Logs
		if ld, err = otlp.DecodeLogs(body, enc); err == nil {
			items, total = otlp.LogItems(ld), ld.LogRecordCount()
		}
	} else {
		var td ptrace.Traces
		if td, err = otlp.DecodeTraces(body, enc); err == nil {
			items, total = otlp.SpanItems(td), td.SpanCount()
		}
	}
	switch {
	case errors.Is(err, otlp.ErrTooLarge):
		return refuse(http.StatusRequestEntityTooLarge, otlp.CodeResourceExhausted, err.Error())
	case err != nil:
		return refuse(http.StatusBadRequest, otlp.CodeInvalidArgument, err.Error())
	}
	body = nil // decoded: the records no longer point into it; the budget stays held while they are stored, as a plain body's does
	return s.storeOTLP(sess, enc, sig, items, total)
}

// storeOTLP runs the mapped records through the evidence pipeline in
// chunks and answers with what was stored.
func (s *Server) storeOTLP(sess *store.Session, enc otlp.Encoding, sig otlp.Signal, items iter.Seq[otlp.Item], total int) otlpAnswer {
	var (
		batch    = make([]store.Mapped, 0, min(total, otlpChunk))
		accepted int
		first    string
		diagLost bool
		err      error
	)
	flush := func() bool {
		res, ierr := sess.IngestMapped(store.SourceOTLP, sig.Unit(), batch)
		batch = batch[:0]
		if errors.Is(ierr, store.ErrDiagnosticsLost) {
			s.cfg.Log.Printf("otlp %s: %v", sess.ID(), ierr)
			diagLost, ierr = true, nil
		}
		if ierr != nil {
			err = ierr
			return false
		}
		accepted += res.Accepted
		if first == "" {
			first = res.FirstRejection
		}
		return true
	}
	for it := range items {
		batch = append(batch, store.Mapped{Line: it.Line, Index: it.Index, Refused: it.Refused})
		if len(batch) == otlpChunk && !flush() {
			break
		}
	}
	if err == nil && len(batch) > 0 {
		flush()
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return otlpAnswer{http.StatusNotFound, otlp.Status(enc, otlp.CodeNotFound, "unknown session; create one with debug-mode create")}
	case err != nil && accepted == 0:
		s.cfg.Log.Printf("otlp %s: %v", sess.ID(), err)
		return otlpAnswer{http.StatusServiceUnavailable, otlp.Status(enc, otlp.CodeUnavailable, "evidence could not be stored; nothing from this request was accepted")}
	case err != nil:
		s.cfg.Log.Printf("otlp %s: %v", sess.ID(), err)
		first = "evidence could not be stored after the first records"
	}
	rejected := total - accepted
	if rejected == 0 {
		return otlpAnswer{http.StatusOK, otlp.Success(enc)}
	}
	msg := fmt.Sprintf("%d of %d %ss were not stored (first: %s); debug-mode status --session %s lists every reason", rejected, total, sig.Unit(), first, sess.ID())
	if diagLost {
		msg += "; the reasons could not all be recorded"
	}
	return otlpAnswer{http.StatusOK, otlp.PartialSuccess(enc, sig, int64(rejected), msg)}
}

// otlpEncoding is the request's encoding, from its Content-Type.
func otlpEncoding(r *http.Request) (otlp.Encoding, bool) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return 0, false
	}
	return otlp.ParseContentType(mt)
}

var (
	errDecompressedTooLarge = errors.New("decompressed body too large")
	errBadCompression       = errors.New("bad compressed body")
	errInflateBusy          = fmt.Errorf("too many compressed bodies are being decompressed at once; retry, or send batches that inflate to under %d KiB", SmallBodyBytes>>10)
)

// InflateBudgetBytes bounds what the OTLP bodies being decoded at once
// inflate to (beyond SmallBodyBytes each): two bodies of the limit.
const InflateBudgetBytes = 2 * MaxBodyBytes

// inflate decompresses raw into one buffer of exactly the decompressed
// size, so memory never doubles while a body grows and a compression bomb
// costs none: the size is gzip's trailer (the last member's size, a lower
// bound of the whole: over the limit means refused at once), checked by
// decompressing into that buffer; otherwise (deflate, several members, a
// forged trailer) a first pass counts the bytes, stopping at the limit, and
// a second fills a buffer of that size. reserve, when set, is asked for
// each buffer's size before it is made (the inflate budget).
func inflate(raw []byte, contentEncoding string, reserve func(n int64) error) ([]byte, error) {
	var open func() (io.Reader, error)
	switch contentEncoding {
	case "gzip":
		open = func() (io.Reader, error) { return gzip.NewReader(bytes.NewReader(raw)) }
	case "deflate": // HTTP's deflate is the zlib format
		open = func() (io.Reader, error) { return zlib.NewReader(bytes.NewReader(raw)) }
	default:
		return raw, nil
	}
	if contentEncoding == "gzip" && len(raw) >= 18 { // a header and a trailer
		size := int64(binary.LittleEndian.Uint32(raw[len(raw)-4:]))
		if size > MaxBodyBytes {
			return nil, errDecompressedTooLarge
		}
		body, fits, err := inflateInto(open, size, reserve)
		if err != nil || fits {
			return body, err
		}
	}
	rd, err := open()
	if err != nil {
		return nil, errBadCompression
	}
	n, err := io.Copy(io.Discard, io.LimitReader(rd, MaxBodyBytes+1))
	switch {
	case err != nil:
		return nil, errBadCompression
	case n > MaxBodyBytes:
		return nil, errDecompressedTooLarge
	}
	body, fits, err := inflateInto(open, n, reserve)
	if err == nil && !fits {
		err = errBadCompression // raw did not change between the passes: cannot happen
	}
	return body, err
}

// inflateInto decompresses into a buffer of size bytes; fits is false when
// the stream holds more than that.
func inflateInto(open func() (io.Reader, error), size int64, reserve func(n int64) error) (body []byte, fits bool, err error) {
	if reserve != nil {
		if err := reserve(size); err != nil {
			return nil, false, err
		}
	}
	rd, err := open()
	if err != nil {
		return nil, false, errBadCompression
	}
	buf := make([]byte, size+1) // one byte more tells a longer stream
	// Not io.ReadFull: it reports a short stream and a cut-off one (the
	// decompressor's own io.ErrUnexpectedEOF) alike. Only io.EOF is a
	// stream that ended whole, its checksum verified.
	n := 0
	for n < len(buf) {
		k, err := rd.Read(buf[n:])
		n += k
		switch {
		case err == io.EOF:
			return buf[:n], true, nil
		case err != nil:
			return nil, false, errBadCompression
		}
	}
	return nil, false, nil
}

func writeOTLP(w http.ResponseWriter, enc otlp.Encoding, a otlpAnswer) {
	w.Header().Set("Content-Type", enc.ContentType())
	w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(a.code)
	w.Write(a.body)
}
