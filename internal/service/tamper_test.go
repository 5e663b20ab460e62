package service

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// syncBuffer is a log destination safe for the service's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLoosePermissionsRepairedAndReported: sessions/ and a session directory
// at 0777 and events.ndjson at 0666 are made private again by the next
// request, and the repair is in the service log and in the session's status.
func TestLoosePermissionsRepairedAndReported(t *testing.T) {
	for _, loaded := range []bool{true, false} {
		name := map[bool]string{true: "while loaded", false: "after restart"}[loaded]
		t.Run(name, func(t *testing.T) {
			var logs syncBuffer
			ts := startServer(t, Config{Log: log.New(&logs, "", 0), SpoolPoll: time.Hour})
			sess := ts.create(t)
			if code, _ := ingest(t, sess.IngestURL, "application/x-ndjson", []byte(secRecord("P"))); code != 200 {
				t.Fatalf("ingest: %d", code)
			}
			sessions := filepath.Join(ts.Root.Path(), statedir.SessionsDir)
			dir := filepath.Join(sessions, sess.SessionID)
			loose := map[string]fs.FileMode{sessions: 0o777, dir: 0o777, filepath.Join(dir, statedir.EventsFile): 0o666}
			for p, m := range loose {
				if err := os.Chmod(p, m); err != nil {
					t.Fatal(err)
				}
			}
			if !loaded {
				var err error
				if ts, err = restartServer(t, ts); err != nil {
					t.Fatal(err)
				}
			}
			st := ts.status(t, sess.SessionID)
			for p := range loose {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm()&0o077 != 0 {
					t.Errorf("%s is still %#o", p, fi.Mode().Perm())
				}
			}
			var reasons []string
			for _, d := range st.Diagnostics {
				if d.Level == "warning" && strings.Contains(d.Reason, "open to other users") {
					reasons = append(reasons, d.Reason)
				}
			}
			all := strings.Join(reasons, "\n")
			for _, want := range []string{"events.ndjson was open to other users (mode 0666)", "the session directory was open to other users (mode 0777)"} {
				if !strings.Contains(all, want) {
					t.Errorf("status diagnostics lack %q:\n%s", want, all)
				}
			}
			if loaded { // the restarted server logs elsewhere
				for p := range loose {
					if !strings.Contains(logs.String(), p+" was open to other users") {
						t.Errorf("service log does not name %s:\n%s", p, logs.String())
					}
				}
			}
			// Reported once, not on every request.
			if again := ts.status(t, sess.SessionID); len(again.Diagnostics) != len(st.Diagnostics) {
				t.Errorf("%d diagnostics on the next status, was %d", len(again.Diagnostics), len(st.Diagnostics))
			}
		})
	}
}

// TestOtherOwnerRefused: a session file or directory given to another user
// is refused with its path and the clean command, whether the service had
// the session loaded or not; clean then removes it.
func TestOtherOwnerRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	const nobody = 65534
	for _, target := range []string{statedir.EventsFile, statedir.IncomingFile, "."} {
		for _, loaded := range []bool{true, false} {
			t.Run(target+"/"+map[bool]string{true: "while loaded", false: "after restart"}[loaded], func(t *testing.T) {
				ts := startServer(t, Config{SpoolPoll: time.Hour})
				sess := ts.create(t)
				ts.status(t, sess.SessionID)
				p := filepath.Join(ts.Root.Path(), statedir.SessionsDir, sess.SessionID, target)
				if err := os.Chown(p, nobody, nobody); err != nil {
					t.Fatal(err)
				}
				if !loaded {
					var err error
					if ts, err = restartServer(t, ts); err != nil {
						t.Fatal(err)
					}
				}
				resp, body := secDo(t, ts.controlReq(t, http.MethodGet, "/v1/sessions/"+sess.SessionID+"/status"))
				var ae APIError
				json.Unmarshal(body, &ae)
				want := filepath.Clean(p) + " belongs to uid 65534, not to you (uid 0)"
				if resp.StatusCode < 400 || ae.Code != "unsafe" || !strings.Contains(ae.Error, want) ||
					!strings.Contains(ae.Error, "debug-mode clean --session "+sess.SessionID) {
					t.Errorf("status: %d %s, want a refusal saying %q and how to clean", resp.StatusCode, body, want)
				}
				r, b := secDo(t, ts.ingestReq(t, sess.SessionID, secRecord("X")))
				if r.StatusCode < 400 {
					t.Errorf("ingest into another user's file: %d %s", r.StatusCode, b)
				}
				if r, b := secDo(t, ts.controlReq(t, http.MethodDelete, "/v1/sessions/"+sess.SessionID)); r.StatusCode != http.StatusOK {
					t.Errorf("clean: %d %s", r.StatusCode, b)
				}
			})
		}
	}
}

// TestStateDirectoryReplaced: a service whose state directory is moved away
// (deleted, or replaced by a copy) stops instead of serving what no command
// sees any more. The next request gets an answer the client retries on, and
// the listener is closed, so a new service can take the port at once.
func TestStateDirectoryReplaced(t *testing.T) {
	for _, byRequest := range []bool{true, false} {
		t.Run(map[bool]string{true: "noticed by a request", false: "noticed by the poller"}[byRequest], func(t *testing.T) {
			poll := time.Hour
			if !byRequest {
				poll = 10 * time.Millisecond
			}
			ts := startServer(t, Config{SpoolPoll: poll})
			sess := ts.create(t)
			path := ts.Root.Path()
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			if byRequest {
				resp, body := secDo(t, ts.controlReq(t, http.MethodGet, "/v1/sessions/"+sess.SessionID+"/status"))
				var ae APIError
				json.Unmarshal(body, &ae)
				if resp.StatusCode != http.StatusServiceUnavailable || ae.Code != RetiredCode || !strings.Contains(ae.Error, path+" was moved, deleted or replaced") {
					t.Errorf("status after the replacement: %d %s", resp.StatusCode, body)
				}
			}
			select {
			case err := <-ts.done:
				ts.done <- err // for the cleanup
				if err != nil {
					t.Errorf("Serve = %v, want nil", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the service kept running on a replaced state directory")
			}
			if _, err := http.Get(ts.Base + "/v1/health"); err == nil {
				t.Error("the old service still answers")
			}
		})
	}
}
