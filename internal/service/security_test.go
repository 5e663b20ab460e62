package service

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// These tests pin down the loopback server's security rules (DESIGN.md,
// "Security of the loopback server"): only loopback Host names with our port,
// an ingest endpoint a browser can reach only through a CORS preflight and
// that never reveals evidence, a control API that browsers cannot reach at
// all, bounded requests, and a state root that no symbolic link can redirect.

// secMarker is a value carried in test records; no ingest answer may echo it.
const secMarker = "evidence-marker-7f3a"

// secRecord is one valid NDJSON record, newline included.
func secRecord(hyp string) string {
	return `{"hypothesisId":"` + hyp + `","location":"app.js:10","message":"m","data":{"v":"` + secMarker + `"},"timestamp":1784313728231}` + "\n"
}

func (ts *testServer) port() string {
	_, p, _ := net.SplitHostPort(strings.TrimPrefix(ts.Base, "http://"))
	return p
}

// secDo sends req and returns the answer with its body read.
func secDo(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, b
}

func secRequest(t *testing.T, method, url string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// ingestReq is a well-formed ingest request that only its Host or headers
// may spoil.
func (ts *testServer) ingestReq(t *testing.T, id, body string) *http.Request {
	req := secRequest(t, http.MethodPost, ts.Base+"/ingest/"+id, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-ndjson")
	return req
}

// controlReq is a well-formed control request carrying the token.
func (ts *testServer) controlReq(t *testing.T, method, path string) *http.Request {
	req := secRequest(t, method, ts.Base+path, nil)
	req.Header.Set("Authorization", "Bearer "+ts.Token)
	return req
}

// checkIngestAnswer asserts an ingest answer holds nothing but counts and an
// error text: no stored evidence, no record content, no session data.
// checkRefusedIngest: a record for a session whose storage is refused is
// answered 403 (not a server error an exporter retries), naming the
// session and the command that says what to do, and no path.
func checkRefusedIngest(t *testing.T, resp *http.Response, body []byte, id, root string) {
	t.Helper()
	if resp.StatusCode != http.StatusForbidden || !bytes.Contains(body, []byte("debug-mode status --session "+id+": it names the path")) ||
		bytes.Contains(body, []byte(root)) {
		t.Errorf("ingest into refused storage answered %d %s; want 403 naming debug-mode status --session %s and no path", resp.StatusCode, body, id)
	}
}

func checkIngestAnswer(t *testing.T, body []byte) {
	t.Helper()
	if bytes.Contains(body, []byte(secMarker)) || bytes.Contains(body, []byte("evt_")) || bytes.Contains(body, []byte("hypothesisId")) {
		t.Errorf("ingest answer reveals evidence: %s", body)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Errorf("ingest answer is not a JSON object: %q", body)
		return
	}
	for k := range m {
		if k != "accepted" && k != "rejected" && k != "error" {
			t.Errorf("ingest answer has unexpected field %q: %s", k, body)
		}
	}
}

// noCORS asserts a control answer carries no Access-Control-* header.
func noCORS(t *testing.T, what string, h http.Header) {
	t.Helper()
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s: control answer carries %s: %q", what, k, h.Get(k))
		}
	}
}

func TestSecurityForeignHostRefused(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	port := ts.port()
	other := "1"
	if port == "1" {
		other = "2"
	}
	cases := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:" + port, true},
		{"localhost:" + port, true},
		{"LocalHost:" + port, true},
		{"[::1]:" + port, true},

		{"evil.example:" + port, false},
		{"evil.example", false},
		{"127.0.0.1:" + other, false},
		{"localhost:" + other, false},
		{"[::1]:" + other, false},
		{"localhost.evil.com:" + port, false},
		{"127.0.0.1.nip.io:" + port, false},
		{"127.0.0.1", false},
		{"localhost", false},
		{"[::1]", false},
		{"127.0.0.1:" + port + "0", false},
		{"127.0.0.1:0" + port, false},
		{"0.0.0.0:" + port, false},
		{"[::ffff:127.0.0.1]:" + port, false},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			// Ingest.
			req := ts.ingestReq(t, sess.SessionID, secRecord("HOST"))
			req.Host = c.host
			resp, body := secDo(t, req)
			if c.ok && resp.StatusCode != http.StatusOK {
				t.Errorf("ingest with Host %q: %d %s, want 200", c.host, resp.StatusCode, body)
			}
			if !c.ok {
				if resp.StatusCode != http.StatusForbidden {
					t.Errorf("ingest with Host %q: %d %s, want 403", c.host, resp.StatusCode, body)
				}
				if bytes.Contains(body, []byte(secMarker)) {
					t.Errorf("refusal echoes the record: %s", body)
				}
			}

			// Control: health with the right token.
			req = ts.controlReq(t, http.MethodGet, "/v1/health")
			req.Host = c.host
			resp, body = secDo(t, req)
			want := http.StatusForbidden
			if c.ok {
				want = http.StatusOK
			}
			if resp.StatusCode != want {
				t.Errorf("control with Host %q: %d %s, want %d", c.host, resp.StatusCode, body, want)
			}
			if !c.ok && bytes.Contains(body, []byte("test-build")) {
				t.Errorf("refused control answer reveals the build: %s", body)
			}
			noCORS(t, "health", resp.Header)

			// Control with a state change: a refused create makes nothing.
			if !c.ok {
				req = ts.controlReq(t, http.MethodPost, "/v1/sessions")
				req.Host = c.host
				if resp, body := secDo(t, req); resp.StatusCode != http.StatusForbidden {
					t.Errorf("create with Host %q: %d %s, want 403", c.host, resp.StatusCode, body)
				}
			}
		})
	}
	accepted := 0
	for _, c := range cases {
		if c.ok {
			accepted++
		}
	}
	st := ts.status(t, sess.SessionID)
	if st.Events != int64(accepted) || st.Rejected != 0 {
		t.Errorf("stored %d events (%d rejected), want exactly the %d from loopback hosts", st.Events, st.Rejected, accepted)
	}
	var list SessionList
	if code := ts.control(t, http.MethodGet, "/v1/sessions", &list); code != http.StatusOK || list.Total != 1 {
		t.Errorf("sessions after refused creates: %d, total %d, want 1", code, list.Total)
	}
}

// TestSecurityHostMissing sends requests with no Host header at all
// (HTTP/1.0, which allows that): refused.
func TestSecurityHostMissing(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	for _, raw := range []string{
		"GET /v1/health HTTP/1.0\r\nAuthorization: Bearer " + ts.Token + "\r\n\r\n",
		"POST /ingest/" + sess.SessionID + " HTTP/1.0\r\nContent-Type: application/x-ndjson\r\nContent-Length: " +
			strconv.Itoa(len(secRecord("H"))) + "\r\n\r\n" + secRecord("H"),
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.Base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, raw)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		resp.Body.Close()
		conn.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%q: %d, want 403", strings.SplitN(raw, "\r\n", 2)[0], resp.StatusCode)
		}
	}
	if st := ts.status(t, sess.SessionID); st.Events != 0 {
		t.Errorf("stored %d events from Host-less requests", st.Events)
	}
}

func TestSecurityBrowserIngestFlow(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	const origin = "http://localhost:5173"

	// The preflight a browser sends before a cross-origin NDJSON POST to a
	// private-network address.
	req := secRequest(t, http.MethodOptions, sess.IngestURL, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	req.Header.Set("Access-Control-Request-Private-Network", "true")
	resp, body := secDo(t, req)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight: %d %s, want 204", resp.StatusCode, body)
	}
	h := resp.Header
	if ao := h.Get("Access-Control-Allow-Origin"); ao != "*" && ao != origin {
		t.Errorf("preflight Allow-Origin = %q, want * or %s", ao, origin)
	}
	if m := h.Get("Access-Control-Allow-Methods"); !listHas(m, "POST") {
		t.Errorf("preflight Allow-Methods = %q, want POST among them", m)
	}
	if ah := h.Get("Access-Control-Allow-Headers"); ah != "*" && !listHas(ah, "content-type") {
		t.Errorf("preflight Allow-Headers = %q, want Content-Type among them", ah)
	}
	if pn := h.Get("Access-Control-Allow-Private-Network"); pn != "true" {
		t.Errorf("preflight Allow-Private-Network = %q, want true", pn)
	}
	if c := h.Get("Access-Control-Allow-Credentials"); c == "true" {
		t.Errorf("preflight allows credentials")
	}
	if len(body) != 0 {
		t.Errorf("preflight has a body: %q", body)
	}

	// The POST itself.
	req = ts.ingestReq(t, sess.SessionID, secRecord("H1")+secRecord("H2"))
	req.URL, _ = req.URL.Parse(sess.IngestURL)
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, body = secDo(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST from browser: %d %s", resp.StatusCode, body)
	}
	if ao := resp.Header.Get("Access-Control-Allow-Origin"); ao != "*" && ao != origin {
		t.Errorf("POST Allow-Origin = %q, want * or %s", ao, origin)
	}
	checkIngestAnswer(t, body)
	var res IngestResult
	json.Unmarshal(body, &res)
	if res.Accepted != 2 || res.Rejected != 0 {
		t.Errorf("POST answer %+v, want 2 accepted", res)
	}

	// A rejected record: the answer counts it but does not show it.
	req = ts.ingestReq(t, sess.SessionID, `{"hypothesisId":"H3","data":"`+secMarker+`"}`+"\n")
	req.Header.Set("Origin", origin)
	resp, body = secDo(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST of an invalid record: %d %s", resp.StatusCode, body)
	}
	checkIngestAnswer(t, body)

	// application/json is the other accepted type.
	req = ts.ingestReq(t, sess.SessionID, secRecord("H4"))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Origin", origin)
	resp, body = secDo(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("POST application/json: %d %s", resp.StatusCode, body)
	}
	checkIngestAnswer(t, body)

	// Other methods are refused and reveal nothing either.
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete} {
		req := secRequest(t, m, sess.IngestURL, nil)
		req.Header.Set("Origin", origin)
		resp, body := secDo(t, req)
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s on ingest: %d, want 405", m, resp.StatusCode)
		}
		if m != http.MethodHead {
			checkIngestAnswer(t, body)
		}
	}

	if st := ts.status(t, sess.SessionID); st.Events != 3 {
		t.Errorf("stored %d events, want 3", st.Events)
	}
}

// listHas reports whether a comma-separated header value names want.
func listHas(list, want string) bool {
	for _, v := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(v), want) {
			return true
		}
	}
	return false
}

// TestSecurityIngestSimpleRequestTypes: every body type a browser may send
// without a preflight ("simple" requests) is refused, and nothing is stored.
func TestSecurityIngestSimpleRequestTypes(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	for _, ct := range []string{
		"text/plain",
		"text/plain; charset=utf-8",
		"application/x-www-form-urlencoded",
		"multipart/form-data; boundary=xyz",
		"", // no Content-Type header at all
		"application/x-ndjson-but-not",
		"text/x-ndjson",
		"application/json, text/plain",
		"garbage;;;",
	} {
		t.Run(fmt.Sprintf("%q", ct), func(t *testing.T) {
			req := ts.ingestReq(t, sess.SessionID, secRecord("CT"))
			req.Header.Set("Origin", "http://localhost:5173")
			if ct == "" {
				req.Header.Del("Content-Type")
			} else {
				req.Header.Set("Content-Type", ct)
			}
			resp, body := secDo(t, req)
			if resp.StatusCode != http.StatusUnsupportedMediaType {
				t.Errorf("Content-Type %q: %d %s, want 415", ct, resp.StatusCode, body)
			}
			checkIngestAnswer(t, body)
		})
	}
	st := ts.status(t, sess.SessionID)
	if st.Events != 0 || st.Rejected != 0 || len(st.Diagnostics) != 0 {
		t.Errorf("refused requests left evidence: %d events, %d rejected, %d diagnostics", st.Events, st.Rejected, len(st.Diagnostics))
	}
	if b, err := ts.Root.ReadFile(statedir.SessionDir(sess.SessionID) + "/" + statedir.EventsFile); err != nil || len(b) != 0 {
		t.Errorf("events file after refused requests: %q, %v", b, err)
	}
}

func TestSecurityControlAPI(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	cases := []struct {
		name   string
		method string
		path   string
		set    func(*http.Request)
		code   int
		kind   string // APIError.Code, when an error
	}{
		{"token", "GET", "/v1/health", func(*http.Request) {}, 200, ""},
		{"same build", "GET", "/v1/health", func(r *http.Request) { r.Header.Set(BuildHeader, "test-build") }, 200, ""},
		{"no token", "GET", "/v1/health", func(r *http.Request) { r.Header.Del("Authorization") }, 401, "unauthorized"},
		{"wrong token", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong-token") }, 401, "unauthorized"},
		{"token prefix", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Authorization", "Bearer test-toke") }, 401, "unauthorized"},
		{"token longer", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Authorization", "Bearer test-token-x") }, 401, "unauthorized"},
		{"bare token", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Authorization", "test-token") }, 401, "unauthorized"},
		{"empty bearer", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, 401, "unauthorized"},
		{"basic auth", "GET", "/v1/health", func(r *http.Request) { r.SetBasicAuth("x", "test-token") }, 401, "unauthorized"},
		{"token in query", "GET", "/v1/health?token=test-token", func(r *http.Request) { r.Header.Del("Authorization") }, 401, "unauthorized"},
		{"no token create", "POST", "/v1/sessions", func(r *http.Request) { r.Header.Del("Authorization") }, 401, "unauthorized"},
		{"no token stop", "POST", "/v1/stop", func(r *http.Request) { r.Header.Del("Authorization") }, 401, "unauthorized"},
		{"no token clean", "DELETE", "/v1/sessions/" + sess.SessionID, func(r *http.Request) { r.Header.Del("Authorization") }, 401, "unauthorized"},
		{"origin", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Origin", "http://localhost:5173") }, 403, "forbidden"},
		{"origin null", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Origin", "null") }, 403, "forbidden"},
		{"origin loopback", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:"+ts.port()) }, 403, "forbidden"},
		{"origin on status", "GET", "/v1/sessions/" + sess.SessionID + "/status", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403, "forbidden"},
		{"origin on create", "POST", "/v1/sessions", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403, "forbidden"},
		{"origin on stop", "POST", "/v1/stop", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403, "forbidden"},
		{"origin on clean", "DELETE", "/v1/sessions/" + sess.SessionID, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403, "forbidden"},
		{"origin no token", "GET", "/v1/health", func(r *http.Request) {
			r.Header.Del("Authorization")
			r.Header.Set("Origin", "https://evil.example")
		}, 403, "forbidden"},
		{"referer", "GET", "/v1/health", func(r *http.Request) { r.Header.Set("Referer", "http://localhost:5173/app") }, 403, "forbidden"},
		{"referer on reset", "POST", "/v1/sessions/" + sess.SessionID + "/reset", func(r *http.Request) { r.Header.Set("Referer", "https://evil.example/") }, 403, "forbidden"},
		{"preflight", "OPTIONS", "/v1/sessions", func(r *http.Request) {
			r.Header.Del("Authorization")
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Access-Control-Request-Method", "POST")
			r.Header.Set("Access-Control-Request-Headers", "authorization")
			r.Header.Set("Access-Control-Request-Private-Network", "true")
		}, 403, "forbidden"},
		{"options no origin", "OPTIONS", "/v1/sessions", func(r *http.Request) { r.Header.Del("Authorization") }, 401, "unauthorized"},
		{"options with token", "OPTIONS", "/v1/health", func(*http.Request) {}, 405, ""},
		{"other build", "GET", "/v1/health", func(r *http.Request) { r.Header.Set(BuildHeader, "other-build") }, 409, "build_mismatch"},
		{"other build create", "POST", "/v1/sessions", func(r *http.Request) { r.Header.Set(BuildHeader, "other-build") }, 409, "build_mismatch"},
		{"other build stop", "POST", "/v1/stop", func(r *http.Request) { r.Header.Set(BuildHeader, "other-build") }, 409, "build_mismatch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := ts.controlReq(t, c.method, c.path)
			c.set(req)
			resp, body := secDo(t, req)
			if resp.StatusCode != c.code {
				t.Fatalf("%s %s: %d %s, want %d", c.method, c.path, resp.StatusCode, body, c.code)
			}
			noCORS(t, c.name, resp.Header)
			if c.kind != "" {
				var ae APIError
				if err := json.Unmarshal(body, &ae); err != nil || ae.Code != c.kind {
					t.Errorf("error body %s, want code %q", body, c.kind)
				}
			}
			if c.code >= 300 && bytes.Contains(body, []byte(ts.Token)) {
				t.Errorf("refusal reveals the token: %s", body)
			}
		})
	}
	// None of the refused state changes happened: the service still runs,
	// the session still exists in cycle 1, and no session was added.
	select {
	case <-ts.Done():
		t.Fatal("a refused stop request stopped the service")
	default:
	}
	if st := ts.status(t, sess.SessionID); st.Epoch != 1 {
		t.Errorf("a refused reset ran: cycle %d", st.Epoch)
	}
	var list SessionList
	if code := ts.control(t, http.MethodGet, "/v1/sessions", &list); code != 200 || list.Total != 1 {
		t.Errorf("sessions: %d total %d, want 1", code, list.Total)
	}
}

func TestSecurityIngestLimits(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)

	t.Run("body over 8 MiB", func(t *testing.T) {
		line := secRecord("BIG")
		n := MaxBodyBytes/len(line) + 2
		body := strings.Repeat(line, n)
		if len(body) <= MaxBodyBytes {
			t.Fatalf("test body only %d bytes", len(body))
		}
		for _, chunked := range []bool{false, true} {
			req := ts.ingestReq(t, sess.SessionID, body)
			if chunked {
				req.ContentLength = -1 // no length announced: the limit must hold while reading
				req.Body = io.NopCloser(strings.NewReader(body))
			}
			resp, rb := secDo(t, req)
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("chunked=%v: %d %s, want 413", chunked, resp.StatusCode, rb)
			}
			checkIngestAnswer(t, rb)
		}
		st := ts.status(t, sess.SessionID)
		if st.Events != 0 || st.Rejected != 0 {
			t.Errorf("oversized bodies left %d events, %d rejected", st.Events, st.Rejected)
		}
	})

	t.Run("unknown or malformed session", func(t *testing.T) {
		for _, id := range []string{
			"707225a6-8e0f-4db4-b64b-e261bd6a861a", // well formed, never created
			"not-a-session",
			"",
			strings.ReplaceAll(sess.SessionID, "-", ""),
			sess.SessionID + "/",
			sess.SessionID + "/../" + sess.SessionID,
			"../sessions/" + sess.SessionID,
			"..%2f..%2fservice.json",
			"%2e%2e",
			sess.SessionID + "x",
			"{" + sess.SessionID + "}",
			"urn:uuid:" + sess.SessionID,
		} {
			req := ts.ingestReq(t, "", secRecord("ID"))
			req.URL.Opaque = "/ingest/" + id // sent exactly as written
			resp, body := secDo(t, req)
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("ingest to %q: %d %s, want 404", id, resp.StatusCode, body)
			}
			checkIngestAnswer(t, body)
		}
		if st := ts.status(t, sess.SessionID); st.Events != 0 {
			t.Errorf("stored %d events through bad ids", st.Events)
		}
		names, err := ts.Root.ReadDirNames(statedir.SessionsDir)
		if err != nil || len(names) != 1 || names[0] != sess.SessionID {
			t.Errorf("sessions directory holds %v (%v), want only %s", names, err, sess.SessionID)
		}
	})
}

// TestSecuritySlowHeaders: a client that never finishes its headers is
// disconnected once the header timeout passes.
func TestSecuritySlowHeaders(t *testing.T) {
	old := readHeaderTimeout
	readHeaderTimeout = 200 * time.Millisecond
	t.Cleanup(func() { readHeaderTimeout = old }) // runs after the server stopped
	ts := startServer(t, Config{})
	sess := ts.create(t)
	for name, partial := range map[string]string{
		"nothing":       "",
		"request line":  "POST /ingest/" + sess.SessionID + " HTTP/1.1\r\n",
		"half a header": "POST /ingest/" + sess.SessionID + " HTTP/1.1\r\nHost: 127.0.0.1:" + ts.port() + "\r\nContent-Ty",
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(ts.Base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, partial)
			// Far beyond the header timeout, far below the other timeouts.
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			start := time.Now()
			b, err := io.ReadAll(conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("connection still open after %s", time.Since(start))
			}
			// Go may answer 408 before closing; it must never serve the request.
			if len(b) > 0 && !bytes.HasPrefix(b, []byte("HTTP/1.1 408")) && !bytes.HasPrefix(b, []byte("HTTP/1.1 400")) {
				t.Errorf("slow client got %q", b)
			}
		})
	}
}

// TestSecurityConnectionLimit: at most maxConnections are open. A newcomer
// beyond them is served by closing the connection that has waited longest
// between requests (idle keep-alive, or headers sent a byte at a time), so
// such connections cannot keep a good request out; connections inside a
// request are never closed for room, and then the newcomer waits.
func TestSecurityConnectionLimit(t *testing.T) {
	oldMax, oldGrace, oldBody := maxConnections, evictGrace, bodyGrace
	maxConnections, evictGrace, bodyGrace = 8, 20*time.Millisecond, time.Minute
	t.Cleanup(func() { maxConnections, evictGrace, bodyGrace = oldMax, oldGrace, oldBody })
	ts := startServer(t, Config{})
	sess := ts.create(t)
	addr := strings.TrimPrefix(ts.Base, "http://")
	health := "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:" + ts.port() + "\r\nAuthorization: Bearer " + ts.Token + "\r\n\r\n"
	roundTrip := func(conn net.Conn, br *bufio.Reader, wait time.Duration) (*http.Response, error) {
		conn.SetDeadline(time.Now().Add(wait))
		if _, err := io.WriteString(conn, health); err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(br, nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return resp, err
	}
	// closedByServer says whether the service has closed conn (a read ends
	// with EOF or a reset rather than the deadline).
	closedByServer := func(conn net.Conn) bool {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := conn.Read(make([]byte, 1))
		var ne net.Error
		return err != nil && !(errors.As(err, &ne) && ne.Timeout())
	}
	// fill opens maxConnections connections, each put in its state by
	// prepare, and returns them with the server certainly holding them all.
	fill := func(t *testing.T, prepare func(net.Conn)) []net.Conn {
		var held []net.Conn
		t.Cleanup(func() {
			for _, c := range held {
				c.Close()
			}
		})
		for i := 0; i < maxConnections; i++ {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, conn)
			prepare(conn)
		}
		return held
	}
	// servedByClosing: a newcomer beyond the limit is served, and oldest
	// (what) was closed to make room for it.
	servedByClosing := func(t *testing.T, oldest net.Conn, what string) {
		t.Helper()
		extra, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer extra.Close()
		if resp, err := roundTrip(extra, bufio.NewReader(extra), 10*time.Second); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("newcomer beyond the limit: %v %v", resp, err)
		}
		if !closedByServer(oldest) {
			t.Error(what + " was not closed to make room")
		}
	}
	t.Run("without a newcomer no connection is closed", func(t *testing.T) {
		// Exactly the limit, all idle past the grace, and nobody else
		// connecting: there is nothing to make room for.
		before := ts.conns.evictions()
		var held []net.Conn
		t.Cleanup(func() {
			for _, c := range held {
				c.Close()
			}
		})
		for open := 0; open < maxConnections; {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, conn)
			if resp, err := roundTrip(conn, bufio.NewReader(conn), 10*time.Second); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%v %v", resp, err)
			}
			ts.conns.mu.Lock()
			open = len(ts.conns.conns)
			ts.conns.mu.Unlock()
		}
		time.Sleep(10 * evictGrace)
		if got := ts.conns.evictions() - before; got != 0 {
			t.Errorf("%d idle connections closed with the limit reached and nobody waiting for a place", got)
		}
	})
	start := ts.conns.evictions()

	t.Run("idle keep-alive connections make room", func(t *testing.T) {
		held := fill(t, func(c net.Conn) {
			if resp, err := roundTrip(c, bufio.NewReader(c), 10*time.Second); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%v %v", resp, err)
			}
		})
		servedByClosing(t, held[0], "the longest-idle connection")
	})
	t.Run("connections still sending headers make room", func(t *testing.T) {
		held := fill(t, func(c net.Conn) {
			io.WriteString(c, "POST /ingest/"+sess.SessionID+" HTTP/1.1\r\nHost: 127.0.0.1:"+ts.port()+"\r\nContent-Ty")
		})
		time.Sleep(50 * time.Millisecond) // let the server take them all
		servedByClosing(t, held[0], "the longest-waiting slow-header connection")
	})
	if got := ts.conns.evictions() - start; got < 2 {
		t.Errorf("%d connections closed for room, want at least 2", got)
	}

	t.Run("connections inside a request keep their place", func(t *testing.T) {
		held := fill(t, func(c net.Conn) {
			// Headers whole and part of the body: the request is being read.
			io.WriteString(c, "POST /ingest/"+sess.SessionID+" HTTP/1.1\r\nHost: 127.0.0.1:"+ts.port()+
				"\r\nContent-Type: application/x-ndjson\r\nContent-Length: 1000\r\n\r\n{")
		})
		time.Sleep(50 * time.Millisecond)
		before := ts.conns.evictions()
		extra, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer extra.Close()
		br := bufio.NewReader(extra)
		if resp, err := roundTrip(extra, br, 300*time.Millisecond); err == nil {
			t.Fatalf("served beyond the limit while every connection is in a request: %s", resp.Status)
		}
		if ts.conns.evictions() != before {
			t.Error("a connection inside a request was closed for room")
		}
		held[0].Close()
		extra.SetDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("after a place was freed: %v %v", resp, err)
		}
		resp.Body.Close()
	})
}

// TestSecurityFilePermissions: the state root and everything under it are
// private after sessions were created, fed, read, reset and cleaned.
func TestSecurityFilePermissions(t *testing.T) {
	ts := startServer(t, Config{})
	a, b := ts.create(t), ts.create(t)
	for _, s := range []SessionInfo{a, b} {
		if code, _ := ingest(t, s.IngestURL, "application/x-ndjson", []byte(secRecord("P")+"not json\n")); code != 200 {
			t.Fatalf("ingest: %d", code)
		}
	}
	f, err := os.OpenFile(a.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(secRecord("F") + "{torn")
	f.Close()
	ts.status(t, a.SessionID)
	if code := ts.control(t, http.MethodPost, "/v1/sessions/"+b.SessionID+"/reset", nil); code != 200 {
		t.Fatalf("reset: %d", code)
	}
	ts.status(t, b.SessionID)
	checkPrivateTree(t, ts.Root.Path())
}

// checkPrivateTree asserts root is 0700 and every directory below it 0700,
// every file 0600, and that nothing is a symlink.
func checkPrivateTree(t *testing.T, root string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t.Errorf("%s is a symlink", p)
		case fi.IsDir():
			if fi.Mode().Perm() != 0o700 {
				t.Errorf("directory %s has mode %#o, want 0700", p, fi.Mode().Perm())
			}
		case fi.Mode().IsRegular():
			files++
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("file %s has mode %#o, want 0600", p, fi.Mode().Perm())
			}
		default:
			t.Errorf("%s is a %v", p, fi.Mode().Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no files under the state root")
	}
}

// outsideCopy makes a directory outside the state root holding files a
// symlink will point at, and returns a check that it is byte-for-byte the
// same afterwards (no file added, removed or changed).
func outsideCopy(t *testing.T, files map[string]string) (dir string, unchanged func()) {
	t.Helper()
	dir = t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	snap := snapshot(t, dir)
	return dir, func() {
		t.Helper()
		got := snapshot(t, dir)
		if len(got) != len(snap) {
			t.Errorf("outside directory changed: %d entries, was %d", len(got), len(snap))
		}
		for name, data := range snap {
			if got[name] != data {
				t.Errorf("outside file %s changed: %q, was %q", name, got[name], data)
			}
		}
	}
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return nil
	})
	return out
}

// sessionFiles reads a session's files, as a template for a decoy copy
// outside the root.
func sessionFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, data := range snapshot(t, dir) {
		out[name] = data
	}
	return out
}

// restartServer stops ts and starts a new in-process service on the same
// state directory (a service restart: nothing is loaded yet).
func restartServer(t *testing.T, ts *testServer) (*testServer, error) {
	t.Helper()
	ts.Stop()
	err := <-ts.done
	ts.done <- err // the first server's cleanup waits on it too
	root, err := safefs.OpenRoot(ts.Root.Path())
	if err != nil {
		return nil, err
	}
	srv, err := New(Config{Root: root, Clock: ts.Clock, Token: ts.Token, Build: "test-build", SpoolPoll: 10 * time.Millisecond})
	if err != nil {
		root.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ns := &testServer{Server: srv, Root: root, Token: ts.Token, Clock: ts.Clock, done: make(chan error, 1),
		Base: "http://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)}
	go func() { ns.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Stop()
		<-ns.done
		root.Close()
	})
	return ns, nil
}

// TestSecuritySymlinkRedirection replaces parts of a session's storage with
// symbolic links to files outside the state root. Whether the service was
// running when the link appeared or starts afterwards, it must neither read
// nor write through the link: the decoy outside stays untouched, its records
// are never counted, and a service that meets the link says so.
func TestSecuritySymlinkRedirection(t *testing.T) {
	decoy := `{"hypothesisId":"DECOY","location":"x:1","message":"outside","data":1,"timestamp":1784313728231}` + "\n"
	type tamper func(t *testing.T, ts *testServer, id string) (unchanged func())
	sessDir := func(ts *testServer, id string) string {
		return filepath.Join(ts.Root.Path(), statedir.SessionsDir, id)
	}
	replaceFile := func(name string) tamper {
		return func(t *testing.T, ts *testServer, id string) func() {
			dir, unchanged := outsideCopy(t, map[string]string{name: decoy})
			p := filepath.Join(sessDir(ts, id), name)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(dir, name), p); err != nil {
				t.Fatal(err)
			}
			return unchanged
		}
	}
	cases := []struct {
		name   string
		tamper tamper
	}{
		{"incoming.ndjson", replaceFile(statedir.IncomingFile)},
		{"events.ndjson", replaceFile(statedir.EventsFile)},
		{"session directory", func(t *testing.T, ts *testServer, id string) func() {
			files := sessionFiles(t, sessDir(ts, id))
			files[statedir.IncomingFile] += decoy
			files[statedir.EventsFile] += decoy
			dir, unchanged := outsideCopy(t, files)
			if err := os.RemoveAll(sessDir(ts, id)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dir, sessDir(ts, id)); err != nil {
				t.Fatal(err)
			}
			return unchanged
		}},
		{"sessions directory", func(t *testing.T, ts *testServer, id string) func() {
			files := map[string]string{}
			for name, data := range sessionFiles(t, sessDir(ts, id)) {
				files[filepath.Join(id, name)] = data
			}
			files[filepath.Join(id, statedir.IncomingFile)] += decoy
			dir, unchanged := outsideCopy(t, files)
			sessions := filepath.Join(ts.Root.Path(), statedir.SessionsDir)
			if err := os.RemoveAll(sessions); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dir, sessions); err != nil {
				t.Fatal(err)
			}
			return unchanged
		}},
	}

	for _, c := range cases {
		// The service meets the link when it loads the session (after a
		// restart, idle shutdown, or upgrade): it must refuse to use it.
		t.Run(c.name+"/after restart", func(t *testing.T) {
			ts := startServer(t, Config{})
			sess := ts.create(t)
			if code, _ := ingest(t, sess.IngestURL, "application/x-ndjson", []byte(secRecord("REAL"))); code != 200 {
				t.Fatalf("ingest before tampering: %d", code)
			}
			unchanged := c.tamper(t, ts, sess.SessionID)
			ns, err := restartServer(t, ts)
			if err != nil {
				// Refusing to start at all is a refusal too, if it names the link.
				if !errors.Is(err, safefs.ErrSymlink) {
					t.Fatalf("restart failed, but not because of the link: %v", err)
				}
				unchanged()
				return
			}
			time.Sleep(50 * time.Millisecond) // let the spool poller look at it
			code := ns.control(t, http.MethodGet, "/v1/sessions/"+sess.SessionID+"/status", nil)
			if code < 400 {
				t.Errorf("status through a symlink answered %d, want an error", code)
			}
			resp, body := secDo(t, ns.ingestReq(t, sess.SessionID, secRecord("AFTER")))
			checkRefusedIngest(t, resp, body, sess.SessionID, ns.Root.Path())
			checkIngestAnswer(t, body)
			var list SessionList
			ns.control(t, http.MethodGet, "/v1/sessions", &list)
			for _, s := range list.Sessions {
				if s.SessionID == sess.SessionID {
					t.Errorf("session list offers the tampered session: %+v", s)
				}
			}
			// Creating another session must not land in the linked directory.
			if code := ns.control(t, http.MethodPost, "/v1/sessions", nil); code == http.StatusCreated && c.name == "sessions directory" {
				t.Errorf("create succeeded through a symlinked sessions directory")
			}
			unchanged()
		})

		// The link appears while the session is loaded: the very next
		// request notices that the path no longer names what the service has
		// open, refuses it with the path to blame, and nothing reaches the
		// outside target; clean then clears the session (the link, never its
		// target), or says which link to remove when it is above the session.
		t.Run(c.name+"/while running", func(t *testing.T) {
			ts := startServer(t, Config{SpoolPoll: time.Hour}) // only requests look
			sess := ts.create(t)
			if code, _ := ingest(t, sess.IngestURL, "application/x-ndjson", []byte(secRecord("REAL"))); code != 200 {
				t.Fatalf("ingest before tampering: %d", code)
			}
			ts.status(t, sess.SessionID)
			unchanged := c.tamper(t, ts, sess.SessionID)

			resp, body := secDo(t, ts.controlReq(t, http.MethodGet, "/v1/sessions/"+sess.SessionID+"/status"))
			var ae APIError
			json.Unmarshal(body, &ae)
			link := filepath.Join(ts.Root.Path(), statedir.SessionsDir)
			if c.name != "sessions directory" {
				link = filepath.Join(link, sess.SessionID)
				if c.name != "session directory" {
					link = filepath.Join(link, c.name)
				}
			}
			if resp.StatusCode < 400 || ae.Code != "unsafe" || !strings.Contains(ae.Error, link+" is a symbolic link") {
				t.Errorf("first status after the swap: %d %s, want a refusal naming %s", resp.StatusCode, body, link)
			}
			resp, body = secDo(t, ts.ingestReq(t, sess.SessionID, secRecord("AFTER")))
			checkRefusedIngest(t, resp, body, sess.SessionID, ts.Root.Path())
			checkIngestAnswer(t, body)
			otlpReq := secRequest(t, http.MethodPost, ts.Base+"/otlp/"+sess.SessionID+"/v1/logs", strings.NewReader(`{}`))
			otlpReq.Header.Set("Content-Type", "application/json")
			resp, body = secDo(t, otlpReq)
			checkRefusedIngest(t, resp, body, sess.SessionID, ts.Root.Path())
			unchanged()

			resp, body = secDo(t, ts.controlReq(t, http.MethodDelete, "/v1/sessions/"+sess.SessionID))
			if c.name == "sessions directory" {
				json.Unmarshal(body, &ae)
				if resp.StatusCode < 400 || !strings.Contains(ae.Error, "rm "+link) {
					t.Errorf("clean under a linked sessions directory: %d %s, want the rm command for %s", resp.StatusCode, body, link)
				}
			} else {
				if resp.StatusCode != http.StatusOK {
					t.Errorf("clean of the refused session: %d %s", resp.StatusCode, body)
				}
				if _, err := os.Lstat(filepath.Join(ts.Root.Path(), statedir.SessionsDir, sess.SessionID)); !os.IsNotExist(err) {
					t.Errorf("the session directory is still there after clean: %v", err)
				}
				// A new session works as usual afterwards.
				if code, _ := ingest(t, ts.create(t).IngestURL, "application/x-ndjson", []byte(secRecord("NEW"))); code != 200 {
					t.Errorf("ingest into a new session after clean: %d", code)
				}
			}
			unchanged()
		})
	}
}

// TestSecurityStateRootSymlink: a state root that is itself a symlink is
// refused before anything is created through it.
func TestSecurityStateRootSymlink(t *testing.T) {
	target := t.TempDir()
	if err := os.Chmod(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "state")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	r, err := safefs.OpenRoot(link)
	if err == nil {
		r.Close()
		t.Fatal("OpenRoot accepted a symlinked state root")
	}
	if !errors.Is(err, safefs.ErrSymlink) {
		t.Errorf("OpenRoot: %v, want ErrSymlink", err)
	}
	if names, _ := os.ReadDir(target); len(names) != 0 {
		t.Errorf("something was created through the link: %v", names)
	}
}
