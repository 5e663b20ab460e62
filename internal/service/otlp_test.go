package service

// OTLP/HTTP ingest: both encodings, gzip, the answers OTLP specifies, and
// the same rules as /ingest (one pipeline, bounds, Host, CORS, body types).

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agentic-debug-mode/debug-mode/internal/otlp"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

const otlpTS = pcommon.Timestamp(1784313728231_000_000)

// otlpLogs is a logs request: one record per message, labelled H1.
func otlpLogs(messages ...string) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "cart")
	sl := rl.ScopeLogs().AppendEmpty()
	for i, m := range messages {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(otlpTS + pcommon.Timestamp(i)*1e6)
		lr.Body().SetStr(m)
		lr.Attributes().PutStr("debug.hypothesis", "H1")
		lr.Attributes().PutStr("code.file.path", "cart.py")
		lr.Attributes().PutInt("code.line.number", int64(10+i))
		lr.Attributes().PutInt("i", int64(i))
	}
	return ld
}

func otlpTraces(names ...string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "api")
	ss := rs.ScopeSpans().AppendEmpty()
	for i, n := range names {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(n)
		sp.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, byte(i)})
		sp.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, 7, byte(i)})
		sp.SetStartTimestamp(otlpTS)
		sp.SetEndTimestamp(otlpTS + 2e6)
		sp.Attributes().PutStr("debug.hypothesis", "H2")
	}
	return td
}

func encodeLogs(t *testing.T, ld plog.Logs, enc otlp.Encoding) []byte {
	t.Helper()
	var b []byte
	if enc == otlp.JSON {
		b, _ = (&plog.JSONMarshaler{}).MarshalLogs(ld)
	} else {
		b, _ = (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	}
	return b
}

func encodeTraces(t *testing.T, td ptrace.Traces, enc otlp.Encoding) []byte {
	t.Helper()
	var b []byte
	if enc == otlp.JSON {
		b, _ = (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	} else {
		b, _ = (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	}
	return b
}

func compressed(encoding string, b []byte) []byte {
	var buf bytes.Buffer
	var zw io.WriteCloser = gzip.NewWriter(&buf)
	if encoding == "deflate" {
		zw = zlib.NewWriter(&buf)
	}
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// otlpPost sends an OTLP request and returns the status, the Content-Type
// and the body of the answer.
func otlpPost(t *testing.T, url string, enc otlp.Encoding, contentEncoding string, body []byte) (int, string, []byte) {
	t.Helper()
	req := secRequest(t, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", enc.ContentType())
	if contentEncoding != "" {
		req.Header.Set("Content-Encoding", contentEncoding)
	}
	resp, b := secDo(t, req)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// partial decodes an answer's partial_success (protobuf or JSON).
func partial(t *testing.T, enc otlp.Encoding, body []byte) (rejected int64, msg string) {
	t.Helper()
	if enc == otlp.JSON {
		var a struct {
			PartialSuccess struct {
				RejectedLogRecords, RejectedSpans json.Number
				ErrorMessage                      string
			}
		}
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("answer %q: %v", body, err)
		}
		n := a.PartialSuccess.RejectedLogRecords + a.PartialSuccess.RejectedSpans
		r, _ := n.Int64()
		return r, a.PartialSuccess.ErrorMessage
	}
	if len(body) == 0 {
		return 0, ""
	}
	_, _, n := protowire.ConsumeTag(body)
	ps, _ := protowire.ConsumeBytes(body[n:])
	for len(ps) > 0 {
		num, _, n := protowire.ConsumeTag(ps)
		ps = ps[n:]
		if num == 1 {
			v, n := protowire.ConsumeVarint(ps)
			rejected, ps = int64(v), ps[n:]
		} else {
			v, n := protowire.ConsumeBytes(ps)
			msg, ps = string(v), ps[n:]
		}
	}
	return rejected, msg
}

func TestOTLPLogsAndTracesInBothEncodings(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	if sess.OTLPEndpoint != ts.Base+"/otlp/"+sess.SessionID {
		t.Fatalf("OTLP Endpoint %q", sess.OTLPEndpoint)
	}
	// An NDJSON record first: OTLP events are numbered after it, as one sequence.
	if code, _ := ingest(t, sess.IngestURL, "application/x-ndjson", []byte(rec()+"\n")); code != http.StatusOK {
		t.Fatal(code)
	}
	for _, enc := range []otlp.Encoding{otlp.Protobuf, otlp.JSON} {
		for _, ce := range []string{"", "gzip", "deflate"} {
			body := encodeLogs(t, otlpLogs("a", "b"), enc)
			if ce != "" {
				body = compressed(ce, body)
			}
			code, ct, ans := otlpPost(t, sess.OTLPEndpoint+"/v1/logs", enc, ce, body)
			if code != http.StatusOK || ct != enc.ContentType() {
				t.Fatalf("logs %s %s: %d %s %q", enc.ContentType(), ce, code, ct, ans)
			}
			if r, msg := partial(t, enc, ans); r != 0 || msg != "" {
				t.Errorf("logs %s: partial success %d %q", enc.ContentType(), r, msg)
			}
			body = encodeTraces(t, otlpTraces("GET /cart"), enc)
			if ce != "" {
				body = compressed(ce, body)
			}
			if code, ct, ans := otlpPost(t, sess.OTLPEndpoint+"/v1/traces", enc, ce, body); code != http.StatusOK || ct != enc.ContentType() {
				t.Fatalf("traces %s %s: %d %s %q", enc.ContentType(), ce, code, ct, ans)
			}
		}
	}
	st := ts.status(t, sess.SessionID)
	if st.Events != 1+6*3 || st.Rejected != 0 || st.OTLPEndpoint != sess.OTLPEndpoint {
		t.Fatalf("status: %d events, %d rejected, endpoint %q", st.Events, st.Rejected, st.OTLPEndpoint)
	}
	evs := ts.storedEvents(t, sess.SessionID) // checks the sequence is gapless
	log, span := evs[1], evs[3]
	if log.HypothesisID != "H1" || log.Location != "cart.py:10" || log.Message != "a" || log.Timestamp != 1784313728231 ||
		string(log.Data) != `{"serviceName":"cart","attributes":{"i":0}}` {
		t.Errorf("log event %+v %s", log, log.Data)
	}
	if span.HypothesisID != "H2" || span.Message != "GET /cart" || span.Timestamp != 1784313728233 ||
		string(span.Data) != `{"serviceName":"api","traceId":"0102030405060708090a0b0c0d0e0f00","spanId":"0102030405060700","durationMs":2}` {
		t.Errorf("span event %+v %s", span, span.Data)
	}
}

// Records the pipeline refuses are counted in partial_success, named in
// diagnostics, and the rest is stored; secrets are redacted on the way in.
func TestOTLPPartialSuccessAndRedaction(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	for _, enc := range []otlp.Encoding{otlp.Protobuf, otlp.JSON} {
		ld := otlpLogs("kept", "too long label", "no time", "secret")
		lrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
		lrs.At(1).Attributes().PutStr("debug.hypothesis", strings.Repeat("H", 200))
		lrs.At(2).SetTimestamp(0)
		lrs.At(3).Attributes().PutStr("password", "hunter2-"+secMarker)
		code, _, ans := otlpPost(t, sess.OTLPEndpoint+"/v1/logs", enc, "", encodeLogs(t, ld, enc))
		if code != http.StatusOK {
			t.Fatalf("%d %q", code, ans)
		}
		r, msg := partial(t, enc, ans)
		if r != 2 || !strings.Contains(msg, "2 of 4 log records were not stored") ||
			!strings.Contains(msg, "log record 2 of an OTLP request") || !strings.Contains(msg, "debug-mode status --session "+sess.SessionID) {
			t.Errorf("%s: partial success %d %q", enc.ContentType(), r, msg)
		}
		if bytes.Contains(ans, []byte(secMarker)) {
			t.Errorf("the answer reveals evidence: %q", ans)
		}
	}
	st := ts.status(t, sess.SessionID)
	if st.Events != 4 || st.Rejected != 4 || st.RedactedEvents != 2 {
		t.Fatalf("status: %d events, %d rejected, %d redacted", st.Events, st.Rejected, st.RedactedEvents)
	}
	var positions, reasons []string
	for _, d := range st.Diagnostics {
		if d.Source != "otlp" || d.Level != "rejected" {
			t.Errorf("diagnostic %+v", d)
		}
		positions = append(positions, d.Position)
		reasons = append(reasons, d.Reason)
	}
	two, three := "log record 2 of an OTLP request", "log record 3 of an OTLP request"
	if !slices.Equal(positions, []string{two, three, two, three}) {
		t.Errorf("positions %q", positions)
	}
	if !strings.Contains(reasons[0], `"hypothesisId" is 200 bytes`) || !strings.Contains(reasons[1], "neither timeUnixNano") {
		t.Errorf("reasons %q", reasons)
	}
	b, _ := ts.Root.ReadFile(statedir.SessionDir(sess.SessionID) + "/" + statedir.EventsFile)
	if bytes.Contains(b, []byte("hunter2")) || !bytes.Contains(b, []byte(`"password":"[REDACTED]"`)) {
		t.Errorf("secret not redacted in %s", b)
	}
}

func TestOTLPRefusedRequests(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	logsURL := sess.OTLPEndpoint + "/v1/logs"
	status := func(enc otlp.Encoding, b []byte) (code uint64, msg string) {
		if enc == otlp.JSON {
			var s struct {
				Code    uint64
				Message string
			}
			json.Unmarshal(b, &s)
			return s.Code, s.Message
		}
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			b = b[n:]
			if typ == protowire.VarintType {
				v, n := protowire.ConsumeVarint(b)
				code, b = v, b[n:]
			} else {
				v, n := protowire.ConsumeBytes(b)
				b = b[n:]
				if num == 2 {
					msg = string(v)
				}
			}
		}
		return code, msg
	}
	cases := []struct {
		name   string
		enc    otlp.Encoding
		ce     string // Content-Encoding
		body   []byte
		code   int
		grpc   uint64
		reason string
	}{
		{"malformed protobuf", otlp.Protobuf, "", []byte{0x0a, 0x05, 0x12}, 400, otlp.CodeInvalidArgument, "not a valid OTLP export request"},
		{"malformed JSON", otlp.JSON, "", []byte(`{"resourceLogs":[{`), 400, otlp.CodeInvalidArgument, "not a valid OTLP export request"},
		{"not gzip", otlp.Protobuf, "gzip", []byte("plain"), 400, otlp.CodeInvalidArgument, "not valid gzip"},
		{"not deflate", otlp.JSON, "deflate", []byte("{}"), 400, otlp.CodeInvalidArgument, "not valid deflate"},
		{"too many messages", otlp.Protobuf, "", bytes.Repeat([]byte{0x0a, 0x00}, otlp.MaxMessages+1), 413, otlp.CodeResourceExhausted, "more than 65536 OTLP messages"},
		{"body over 8 MiB", otlp.Protobuf, "", make([]byte, MaxBodyBytes+1), 413, otlp.CodeResourceExhausted, "body larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, ct, ans := otlpPost(t, logsURL, c.enc, c.ce, c.body)
			g, msg := status(c.enc, ans)
			if code != c.code || ct != c.enc.ContentType() || g != c.grpc || !strings.Contains(msg, c.reason) {
				t.Errorf("%d %s status{%d %q}, want %d %d %q", code, ct, g, msg, c.code, c.grpc, c.reason)
			}
		})
	}
	// Each refused request leaves a diagnostic that says why.
	st := ts.status(t, sess.SessionID)
	if st.Events != 0 || len(st.Diagnostics) != len(cases) {
		t.Fatalf("%d events, %d diagnostics: %+v", st.Events, len(st.Diagnostics), st.Diagnostics)
	}
	for _, d := range st.Diagnostics {
		if d.Source != "otlp" || d.Position != "OTLP logs request" {
			t.Errorf("diagnostic %+v", d)
		}
	}

	// Wrong paths, methods, types and encodings: refused, nothing stored.
	for _, c := range []struct {
		method, path, ct, ce string
		code                 int
		reason               string
	}{
		{"POST", "/v1/metrics", "application/x-protobuf", "", 404, "not metrics"},
		{"POST", "/v1/profiles", "application/x-protobuf", "", 404, "appends /v1/logs or /v1/traces"},
		{"POST", "", "application/x-protobuf", "", 404, "appends /v1/logs"},
		{"GET", "/v1/logs", "application/json", "", 405, "use POST"},
		{"POST", "/v1/logs", "text/plain", "", 415, "Content-Type must be"},
		{"POST", "/v1/logs", "application/x-www-form-urlencoded", "", 415, "Content-Type must be"},
		{"POST", "/v1/logs", "", "", 415, "Content-Type must be"},
		{"POST", "/v1/logs", "application/grpc", "", 415, "not grpc"},
		{"POST", "/v1/logs", "application/x-protobuf", "br", 415, "Content-Encoding must be gzip, deflate or none"},
	} {
		req := secRequest(t, c.method, sess.OTLPEndpoint+c.path, bytes.NewReader(encodeLogs(t, otlpLogs("x"), otlp.Protobuf)))
		if c.ct != "" {
			req.Header.Set("Content-Type", c.ct)
		}
		if c.ce != "" {
			req.Header.Set("Content-Encoding", c.ce)
		}
		resp, ans := secDo(t, req)
		enc, ok := otlp.ParseContentType(c.ct)
		if !ok {
			enc = otlp.JSON
		}
		if _, msg := status(enc, ans); resp.StatusCode != c.code || !strings.Contains(msg, c.reason) {
			t.Errorf("%s %s %q %q: %d %q, want %d %q", c.method, c.path, c.ct, c.ce, resp.StatusCode, msg, c.code, c.reason)
		}
	}
	for _, id := range []string{"707225a6-8e0f-4db4-b64b-e261bd6a861a", "not-a-session", "..", ""} {
		code, _, _ := otlpPost(t, ts.Base+"/otlp/"+id+"/v1/logs", otlp.Protobuf, "", encodeLogs(t, otlpLogs("x"), otlp.Protobuf))
		if code != http.StatusNotFound {
			t.Errorf("session %q: %d, want 404", id, code)
		}
	}
	if st := ts.status(t, sess.SessionID); st.Events != 0 || len(st.Diagnostics) != len(cases) {
		t.Errorf("refused requests stored %d events, %d diagnostics", st.Events, len(st.Diagnostics))
	}
}

// A gzip bomb costs less memory than an 8 MiB body: it is counted while it
// inflates, and refused at the limit without being kept.
func TestOTLPGzipBombCostsBoundedMemory(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	// 256 MiB of zeroes in about 256 KiB: one gzip member of 1 MiB of
	// zeroes, repeated (a reader decompresses concatenated members as one
	// stream), so building the bomb costs the test nothing.
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	const expands = 256 << 20
	bomb := bytes.Repeat(member.Bytes(), expands>>20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, ans := otlpPost(t, sess.OTLPEndpoint+"/v1/traces", otlp.Protobuf, "gzip", bomb)
	runtime.ReadMemStats(&after)
	if code != http.StatusRequestEntityTooLarge || !bytes.Contains(ans, []byte("inflates to more than 8388608 bytes (8 MiB), the limit after decompression")) {
		t.Errorf("gzip bomb: %d %q", code, ans)
	}
	// The bomb is counted, not kept: what the request allocates (its body,
	// one buffer of its last member's size, the test's client, the race
	// detector's share) stays under the 8 MiB the limit would hold.
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("a gzip bomb of %d MiB made the service allocate %d MiB", expands>>20, got>>20)
	}
}

// The same rules as /ingest: a browser exporter's preflight is answered,
// foreign Hosts are refused.
func TestOTLPBrowserAndHostRules(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	url := sess.OTLPEndpoint + "/v1/traces"
	req := secRequest(t, http.MethodOptions, url, nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	req.Header.Set("Access-Control-Request-Private-Network", "true")
	resp, body := secDo(t, req)
	h := resp.Header
	if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" || !listHas(h.Get("Access-Control-Allow-Headers"), "content-type") ||
		!listHas(h.Get("Access-Control-Allow-Methods"), "POST") || h.Get("Access-Control-Allow-Private-Network") != "true" || len(body) != 0 {
		t.Errorf("preflight: %d %v %q", resp.StatusCode, h, body)
	}
	req = secRequest(t, http.MethodPost, url, bytes.NewReader(encodeTraces(t, otlpTraces("browser"), otlp.JSON)))
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Content-Type", "application/json")
	if resp, body := secDo(t, req); resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("POST from a page: %d %q", resp.StatusCode, body)
	}
	for _, host := range []string{"evil.example:" + ts.port(), "127.0.0.1"} {
		req = secRequest(t, http.MethodPost, url, bytes.NewReader(encodeTraces(t, otlpTraces("x"), otlp.Protobuf)))
		req.Header.Set("Content-Type", "application/x-protobuf")
		req.Host = host
		if resp, _ := secDo(t, req); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %q: %d, want 403", host, resp.StatusCode)
		}
	}
	if st := ts.status(t, sess.SessionID); st.Events != 1 {
		t.Errorf("stored %d events, want 1", st.Events)
	}
}

// Many exporters at once: every record stored once, numbered without gaps
// (decoding is bounded to MaxConcurrentOTLPDecodes at a time).
func TestOTLPConcurrentExporters(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	const posters, requests, perRequest = 6, 10, 300
	msgs := make([]string, perRequest)
	for i := range msgs {
		msgs[i] = "m"
	}
	body := encodeLogs(t, otlpLogs(msgs...), otlp.Protobuf)
	var wg sync.WaitGroup
	for range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range requests {
				resp, err := http.Post(sess.OTLPEndpoint+"/v1/logs", "application/x-protobuf", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%d", resp.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	if st := ts.status(t, sess.SessionID); st.Events != posters*requests*perRequest || st.Rejected != 0 {
		t.Errorf("%d events, %d rejected", st.Events, st.Rejected)
	}
}
