package service

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
)

// fakeClock is a settable clock for idle-shutdown tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testServer is an in-process service on a fresh state root.
type testServer struct {
	*Server
	Root  *safefs.Root
	Base  string // http://127.0.0.1:port
	Token string
	Clock *fakeClock
	done  chan error
}

// startServer starts a service in-process; cfg fields left zero get test
// defaults. It is stopped when the test ends.
func startServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	cfg.Root = root
	if cfg.Clock == nil {
		cfg.Clock = clock
	}
	if cfg.Token == "" {
		cfg.Token = "test-token"
	}
	if cfg.Build == "" {
		cfg.Build = "test-build"
	}
	if cfg.SpoolPoll == 0 {
		cfg.SpoolPoll = 10 * time.Millisecond
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: srv, Root: root, Token: cfg.Token, Clock: clock, done: make(chan error, 1),
		Base: "http://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)}
	go func() { ts.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Stop()
		<-ts.done
		root.Close()
	})
	return ts
}

// control calls the control API with the token and decodes the answer.
func (ts *testServer) control(t *testing.T, method, path string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, ts.Base+path, nil)
	req.Header.Set("Authorization", "Bearer "+ts.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

// create makes a session through the control API.
func (ts *testServer) create(t *testing.T) SessionInfo {
	t.Helper()
	var info SessionInfo
	if code := ts.control(t, http.MethodPost, "/v1/sessions", &info); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	return info
}

// status reads a session's status (which drains the append path first).
func (ts *testServer) status(t *testing.T, id string) StatusInfo {
	t.Helper()
	var st StatusInfo
	if code := ts.control(t, http.MethodGet, "/v1/sessions/"+id+"/status", &st); code != http.StatusOK {
		t.Fatalf("status: %d", code)
	}
	return st
}

// ingest posts an NDJSON body to a session's Ingest URL.
func ingest(t *testing.T, url, contentType string, body []byte) (int, IngestResult) {
	t.Helper()
	resp, err := http.Post(url, contentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res IngestResult
	json.NewDecoder(resp.Body).Decode(&res)
	return resp.StatusCode, res
}
