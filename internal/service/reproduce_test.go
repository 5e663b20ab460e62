package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// call sends a JSON body to the control API and decodes the answer.
func (ts *testServer) call(t *testing.T, method, path string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, ts.Base+path, body)
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

func (ts *testServer) begin(t *testing.T, id string, req ReproduceRequest) ReproduceStarted {
	t.Helper()
	var st ReproduceStarted
	if code := ts.call(t, http.MethodPost, "/v1/sessions/"+id+"/reproduce", req, &st); code != http.StatusOK {
		t.Fatalf("reproduce: %d", code)
	}
	return st
}

func (ts *testServer) end(t *testing.T, id string, req ReproduceEndRequest) (int, ReproduceEnded) {
	t.Helper()
	var out ReproduceEnded
	return ts.call(t, http.MethodPost, "/v1/sessions/"+id+"/reproduce/end", req, &out), out
}

// TestSettleWaitsForADeliveryInFlight: a request whose body is still being
// read when the reproduction ends is waited for, however much longer than
// the quiet period it takes, so its event is in the counts. Without the
// in-flight count the settle would end after the quiet period without it.
func TestSettleWaitsForADeliveryInFlight(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	st := ts.begin(t, info.SessionID, ReproduceRequest{})
	body := rec() + "\n"
	conn, err := net.Dial("tcp4", strings.TrimPrefix(ts.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /ingest/%s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\n\r\n%s",
		info.SessionID, strings.TrimPrefix(ts.Base, "http://"), len(body), body[:10])
	// The request is in flight once its handler runs.
	for deadline := time.Now().Add(5 * time.Second); ; {
		if n, _, _ := ts.deliv.state(info.SessionID); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the handler")
		}
		time.Sleep(5 * time.Millisecond)
	}
	go func() {
		time.Sleep(400 * time.Millisecond)
		io.WriteString(conn, body[10:])
	}()
	code, ended := ts.end(t, info.SessionID, ReproduceEndRequest{Reproduction: st.Reproduction, Cycle: st.Cycle, QuietMs: 50, MaxMs: 5000})
	if code != http.StatusOK {
		t.Fatalf("end: %d", code)
	}
	if ended.Status.Events != 1 || !ended.Settle.Complete || ended.Settle.Deliveries != 1 || ended.Settle.WaitedMs < 400 {
		t.Fatalf("settle %+v with %d events, want the late request's event counted", ended.Settle, ended.Status.Events)
	}
}

// TestSettleIsBounded: deliveries that never stop do not hold the answer
// past the maximum, and the answer says it was not complete.
func TestSettleIsBounded(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	st := ts.begin(t, info.SessionID, ReproduceRequest{})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				ingest(t, info.IngestURL, "application/x-ndjson", []byte(rec()+"\n"))
			}
		}
	}()
	code, ended := ts.end(t, info.SessionID, ReproduceEndRequest{Reproduction: st.Reproduction, Cycle: st.Cycle, QuietMs: 200, MaxMs: 300})
	close(stop)
	<-done
	if code != http.StatusOK || ended.Settle.Complete || ended.Settle.WaitedMs < 300 || ended.Settle.Deliveries == 0 {
		t.Fatalf("settle %+v (%d), want incomplete after 300 ms", ended.Settle, code)
	}
}

const heldH1 = `{"agentDebugHeldBack":{"hypothesisId":"H1","location":"src/a.go:42","process":"%s","count":%d,"cap":10000}}`

// TestHeldBackRecords: held-back records arrive over both transports, are
// no events, keep each process's largest count (a second, larger report
// at exit replaces the first; a smaller, late one changes nothing), add up
// over processes, survive a restart, and go with a reset. Malformed ones
// are rejected with the reason.
func TestHeldBackRecords(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	code, res := ingest(t, info.IngestURL, "application/x-ndjson", []byte(ndjson(
		rec(),
		fmt.Sprintf(heldH1, "100-1", 12345),
		fmt.Sprintf(heldH1, "100-1", 20000), // the same process at exit
		fmt.Sprintf(heldH1, "100-1", 15000), // out of order: the largest stands
		`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"src/a.go:42","count":5,"cap":10}}`,
		`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"src/a.go:42","process":"p","count":-5,"cap":10}}`,
		`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"src/a.go:42","process":"p","count":5,"cap":10},"hypothesisId":"H1"}`,
		`{"agentDebugHeldBack":"lots"}`,
	)))
	if code != http.StatusOK || res.Accepted != 1 || res.Rejected != 4 {
		t.Fatalf("ingest %d %+v, want 1 accepted, 4 rejected", code, res)
	}
	appendSpool(t, info.AppendPath, ndjson(fmt.Sprintf(heldH1, "200-1", 7), `{"agentDebugHeldBack":{"hypothesisId":"H2","location":"b.py:3","process":"200-1","count":3,"cap":2,"extra":1}}`))
	check := func(ts *testServer, when string) {
		t.Helper()
		st := ts.status(t, info.SessionID)
		want := []store.HeldBackCount{{HypothesisID: "H1", Location: "src/a.go:42", Count: 20007, Cap: 10000, Processes: 2}}
		if fmt.Sprint(st.HeldBack) != fmt.Sprint(want) || st.HeldBackEvents != 20007 {
			t.Fatalf("%s: held back %+v (%d), want %+v", when, st.HeldBack, st.HeldBackEvents, want)
		}
		if st.Events != 1 || st.Version != "1.1" {
			t.Fatalf("%s: %d events, version %s: a held-back record must not be an event", when, st.Events, st.Version)
		}
		var reasons []string
		for _, d := range st.Diagnostics {
			reasons = append(reasons, d.Reason)
		}
		all := strings.Join(reasons, "\n")
		for _, want := range []string{`missing "process"`, `"count" must be a whole number from 1 to`, "nothing beside it", `"agentDebugHeldBack" must be an object`, `unknown member "extra"`} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no diagnostic says %q:\n%s", when, want, all)
			}
		}
		if st.Rejected != 5 {
			t.Errorf("%s: %d rejected, want 5", when, st.Rejected)
		}
	}
	check(ts, "live")
	ns, err := restartServer(t, ts)
	if err != nil {
		t.Fatal(err)
	}
	check(ns, "after a restart")
	if code := ns.control(t, http.MethodPost, "/v1/sessions/"+info.SessionID+"/reset", nil); code != http.StatusOK {
		t.Fatalf("reset: %d", code)
	}
	if st := ns.status(t, info.SessionID); len(st.HeldBack) != 0 || st.HeldBackEvents != 0 {
		t.Fatalf("after a reset: held back %+v", st.HeldBack)
	}
	ns2, err := restartServer(t, ns)
	if err != nil {
		t.Fatal(err)
	}
	if st := ns2.status(t, info.SessionID); len(st.HeldBack) != 0 {
		t.Fatalf("after a reset and a restart: held back %+v", st.HeldBack)
	}
}

// TestReproduceOutputKept: the output of a reproduction is redacted before
// it is stored, paged by line, refused once a newer reproduction replaced
// it, and gone after a reset.
func TestReproduceOutputKept(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	st := ts.begin(t, info.SessionID, ReproduceRequest{})
	if st.Cycle != 2 || st.Reproduction != 1 {
		t.Fatalf("started %+v, want cycle 2, reproduction 1", st)
	}
	var out strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&out, "line %d\n", i)
	}
	out.WriteString("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 at the end\n")
	code, ended := ts.end(t, info.SessionID, ReproduceEndRequest{Reproduction: 1, Cycle: 2, QuietMs: 10, MaxMs: 100,
		Command: []string{"prog", "--password=hunter2"}, Exit: store.Exit{Code: 3},
		Stdout: RawStream{Kept: []byte(out.String()), TotalBytes: int64(out.Len())}, Stderr: RawStream{Kept: []byte("boom\n"), TotalBytes: 5}})
	if code != http.StatusOK {
		t.Fatalf("end: %d", code)
	}
	if n := len(ended.Stdout.Lines); n != TailLines || ended.Stdout.TotalLines != 31 || !strings.Contains(ended.Stdout.Lines[n-1], "[REDACTED") || ended.Stdout.Redactions != 1 {
		t.Fatalf("tail %+v", ended.Stdout)
	}
	raw, err := os.ReadFile(filepath.Join(ts.Root.Path(), statedir.SessionDir(info.SessionID), statedir.OutputFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("ghp_abc")) || bytes.Contains(raw, []byte("hunter2")) {
		t.Fatalf("a secret was stored: %s", raw)
	}
	var page OutputPage
	ts.control(t, http.MethodGet, "/v1/sessions/"+info.SessionID+"/output?offset=28&limit=2", &page)
	if !page.Available || page.Returned != 2 || page.Lines[0] != "line 29" || page.TotalLines != 31 || page.Exit.Code != 3 {
		t.Fatalf("page %+v", page)
	}
	ts.control(t, http.MethodGet, "/v1/sessions/"+info.SessionID+"/output?stream=stderr", &page)
	if page.Lines[0] != "boom" {
		t.Fatalf("stderr page %+v", page)
	}
	// A second reproduction (kept in the cycle) replaces the output: a
	// page of the first one is refused, and the first cannot end late.
	second := ts.begin(t, info.SessionID, ReproduceRequest{Keep: true})
	if second.Cycle != 2 || second.Reproduction != 2 {
		t.Fatalf("kept: %+v, want cycle 2, reproduction 2", second)
	}
	if code, _ := ts.end(t, info.SessionID, ReproduceEndRequest{Reproduction: 1, Cycle: 2}); code != http.StatusConflict {
		t.Fatalf("ending a reproduction that is no longer the last: %d, want 409", code)
	}
	if code, _ := ts.end(t, info.SessionID, ReproduceEndRequest{Reproduction: 2, Cycle: 2, QuietMs: 10, MaxMs: 100}); code != http.StatusOK {
		t.Fatalf("end of the second: %d", code)
	}
	if code := ts.control(t, http.MethodGet, "/v1/sessions/"+info.SessionID+"/output?reproduction=1", nil); code != http.StatusConflict {
		t.Fatalf("a page of a replaced output: %d, want 409", code)
	}
	ts.control(t, http.MethodPost, "/v1/sessions/"+info.SessionID+"/reset", nil)
	ts.control(t, http.MethodGet, "/v1/sessions/"+info.SessionID+"/output", &page)
	if page.Available {
		t.Fatalf("output survived a reset: %+v", page)
	}
}

// TestMaxPerLocation: the cap is the default unless create, reset or
// reproduce set it; it is in the session info and the status, and kept.
func TestMaxPerLocation(t *testing.T) {
	ts := startServer(t, Config{})
	var info SessionInfo
	if code := ts.call(t, http.MethodPost, "/v1/sessions", SessionSettings{MaxPerLocation: 50}, &info); code != http.StatusCreated || info.MaxPerLocation != 50 {
		t.Fatalf("create: %d %+v", code, info)
	}
	if st := ts.status(t, info.SessionID); st.MaxPerLocation != 50 {
		t.Fatalf("status cap %d", st.MaxPerLocation)
	}
	plain := ts.create(t)
	if plain.MaxPerLocation != 10000 {
		t.Fatalf("default cap %d", plain.MaxPerLocation)
	}
	if code := ts.call(t, http.MethodPost, "/v1/sessions", SessionSettings{MaxPerLocation: -1}, nil); code != http.StatusBadRequest {
		t.Fatalf("a negative cap: %d", code)
	}
	ts.call(t, http.MethodPost, "/v1/sessions/"+info.SessionID+"/reset", SessionSettings{MaxPerLocation: 70}, &info)
	if info.MaxPerLocation != 70 {
		t.Fatalf("reset cap %d", info.MaxPerLocation)
	}
	st := ts.begin(t, info.SessionID, ReproduceRequest{MaxPerLocation: 90})
	if st.MaxPerLocation != 90 {
		t.Fatalf("reproduce cap %d", st.MaxPerLocation)
	}
	ts.control(t, http.MethodPost, "/v1/sessions/"+info.SessionID+"/reset", &info)
	if info.MaxPerLocation != 90 {
		t.Fatalf("a plain reset changed the cap to %d", info.MaxPerLocation)
	}
}
