package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// secRecord is one valid NDJSON record.
const secRecord = `{"hypothesisId":"H1","location":"app.js:1","message":"m","data":1,"timestamp":1784313728231}` + "\n"

// seedPort records a free loopback port as the one the service used last,
// as a previous run would have. The service then prefers it over its default
// first-start port, which other test processes on this machine may be
// starting and stopping services on at the same time.
func seedPort(t *testing.T, e *Env) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if err := os.MkdirAll(e.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]int{"port": port})
	if err := os.WriteFile(filepath.Join(e.Home, "endpoint.json"), append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return port
}

func ingestURL(port int, id string) string {
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/ingest/" + id
}

// servicePort is the port in the discovery file; the test fails without one.
func servicePort(t *testing.T, e *Env) int {
	t.Helper()
	_, port, ok := e.Discovery()
	if !ok {
		t.Fatal("no discovery file while the service should be running")
	}
	return port
}

// stop runs debug-mode stop and checks the service is gone.
func stop(t *testing.T, e *Env) {
	t.Helper()
	pid, _, ok := e.Discovery()
	e.MustRun("stop")
	if ok && !WaitExit(pid, 5*time.Second) {
		t.Fatalf("service %d still runs after stop", pid)
	}
	if _, _, ok := e.Discovery(); ok {
		t.Fatal("discovery file left behind after stop")
	}
}

// post sends one NDJSON record to an Ingest URL.
func post(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Post(url, "application/x-ndjson", strings.NewReader(secRecord))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

type statusJSON struct {
	Events           int64  `json:"events"`
	IngestURL        string `json:"ingestUrl"`
	IngestURLChanged bool   `json:"ingestUrlChanged"`
	PreviousURL      string `json:"previousIngestUrl"`
}

// TestIngestURLStableAcrossRestart: probes keep working after stop (or an
// idle shutdown) because the restarted service binds the port it had.
func TestIngestURLStableAcrossRestart(t *testing.T) {
	e := NewEnv(t)
	seeded := seedPort(t, e)
	s := e.Create()
	port := servicePort(t, e)
	if port != seeded {
		t.Fatalf("service bound %d, not the free port %d it used last", port, seeded)
	}
	if s.IngestURL != ingestURL(port, s.SessionID) {
		t.Fatalf("Ingest URL %s does not name port %d", s.IngestURL, port)
	}

	stop(t, e)
	out := e.MustRun("status", "--session", s.SessionID)
	if got := servicePort(t, e); got != port {
		t.Fatalf("restarted service bound %d, want %d (the port was free)", got, port)
	}
	if e.ServiceStarts() != 2 {
		t.Errorf("%d service starts, want 2", e.ServiceStarts())
	}
	if strings.Contains(out, "Ingest URL changed") {
		t.Errorf("status warns of a change that did not happen:\n%s", out)
	}
	var st statusJSON
	e.JSON(&st, "status", "--session", s.SessionID)
	if st.IngestURL != s.IngestURL || st.IngestURLChanged || st.PreviousURL != "" {
		t.Errorf("status after restart: %+v, want unchanged %s", st, s.IngestURL)
	}

	// A probe still using the URL from create delivers.
	if code := post(t, s.IngestURL); code != http.StatusOK {
		t.Fatalf("POST to the original Ingest URL after restart: %d", code)
	}
	e.JSON(&st, "status", "--session", s.SessionID)
	if st.Events != 1 {
		t.Errorf("%d events after one POST, want 1", st.Events)
	}
}

// TestIngestURLChangeIsReported: when another program took the port while the
// service was stopped, the restarted service binds another one, status warns
// about it, and reset prints the new Ingest URL.
func TestIngestURLChangeIsReported(t *testing.T) {
	e := NewEnv(t)
	seedPort(t, e)
	s := e.Create()
	old := servicePort(t, e)
	stop(t, e)

	squatter, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(old))
	if err != nil {
		t.Fatalf("taking the old port %d: %v", old, err)
	}
	defer squatter.Close()

	r := e.Run("status", "--session", s.SessionID)
	if r.Code != 0 {
		t.Fatalf("status: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	port := servicePort(t, e)
	if port == old {
		t.Fatalf("service claims port %d, which another listener holds", old)
	}
	newURL := ingestURL(port, s.SessionID)
	// The warning says the old port is no longer ours (another program may
	// receive what probes still post there) and how to re-point them, in
	// status and in logs alike.
	risk := "port " + strconv.Itoa(old) + " was taken by another program while debug-mode was stopped and is no longer debug-mode's, so whatever a probe still posts to the old URL may reach that program instead"
	logs := e.MustRun("logs", "--session", s.SessionID)
	for name, out := range map[string]string{"status": r.Stdout, "logs": logs} {
		for _, want := range []string{
			"WARNING: the Ingest URL changed from " + s.IngestURL + " to " + newURL + ": " + risk,
			"debug-mode reset --session " + s.SessionID,
			"debug-mode template --language <language> --ingest http --section helper --session " + s.SessionID,
			"__INGEST_URL__",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", name, want, out)
			}
		}
	}
	var st statusJSON
	e.JSON(&st, "status", "--session", s.SessionID)
	if !st.IngestURLChanged || st.IngestURL != newURL || st.PreviousURL != s.IngestURL {
		t.Errorf("status --json: %+v, want a change from %s to %s", st, s.IngestURL, newURL)
	}

	out := e.MustRun("reset", "--session", s.SessionID)
	for _, want := range []string{
		"Ingest URL    " + newURL + "\n",
		"WARNING: the Ingest URL changed (it was " + s.IngestURL + "): " + risk,
		"__INGEST_URL__",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("reset output lacks %q:\n%s", want, out)
		}
	}

	// Once reset has shown the new URL, the warning is settled...
	out = e.MustRun("status", "--session", s.SessionID)
	if strings.Contains(out, "Ingest URL changed") {
		t.Errorf("status still warns after reset showed the new URL:\n%s", out)
	}
	if code := post(t, newURL); code != http.StatusOK {
		t.Fatalf("POST to the new Ingest URL: %d", code)
	}
	// ...and the new port is the one kept from now on.
	stop(t, e)
	out = e.MustRun("status", "--session", s.SessionID)
	if got := servicePort(t, e); got != port {
		t.Errorf("second restart bound %d, want the new port %d", got, port)
	}
	if strings.Contains(out, "Ingest URL changed") || !strings.Contains(out, "1 event") {
		t.Errorf("status after the second restart:\n%s", out)
	}
}

// runUmask runs the CLI under the given umask, so a file created with loose
// permissions would show them.
func runUmask(t *testing.T, e *Env, umask string, args ...string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", `umask ` + umask + ` && exec "$0" "$@"`, binary}, args...)...)
	cmd.Env = e.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("debug-mode %v: %v\n%s", args, err, out)
	}
}

// TestStateFilesPrivate: the state root is 0700, every directory in it 0700
// and every file 0600 (the discovery file holds the control token), whatever
// the umask and even when the root already existed with looser permissions.
func TestStateFilesPrivate(t *testing.T) {
	for _, preexisting := range []bool{false, true} {
		t.Run("preexisting="+strconv.FormatBool(preexisting), func(t *testing.T) {
			e := NewEnv(t)
			if preexisting {
				if err := os.MkdirAll(e.Home, 0o755); err != nil {
					t.Fatal(err)
				}
				os.Chmod(e.Home, 0o755)
			}
			var s Session
			{
				// create under umask 000, so nothing is saved by the umask.
				cmd := exec.Command("/bin/sh", "-c", `umask 000 && exec "$0" create --json`, binary)
				cmd.Env = e.Environ()
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("create: %v\n%s", err, out)
				}
				var env struct{ Result Session }
				if err := json.Unmarshal(out, &env); err != nil {
					t.Fatal(err)
				}
				s = env.Result
			}
			if code := post(t, s.IngestURL); code != http.StatusOK {
				t.Fatalf("POST: %d", code)
			}
			f, err := os.OpenFile(s.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(secRecord + "{torn")
			f.Close()
			runUmask(t, e, "000", "status", "--session", s.SessionID)
			runUmask(t, e, "000", "reset", "--session", s.SessionID)

			for _, name := range []string{"service.json", "endpoint.json"} {
				fi, err := os.Lstat(filepath.Join(e.Home, name))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() {
					t.Errorf("%s has mode %v, want -rw-------", name, fi.Mode())
				}
			}
			fi, err := os.Lstat(e.Home)
			if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
				t.Fatalf("state root: %v %v, want drwx------", fi.Mode(), err)
			}
			files := 0
			filepath.WalkDir(e.Home, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					t.Errorf("%s: %v", p, err)
					return nil
				}
				fi, err := os.Lstat(p)
				if err != nil {
					return nil // a temp file renamed away meanwhile
				}
				switch {
				case fi.IsDir():
					if fi.Mode().Perm() != 0o700 {
						t.Errorf("directory %s has mode %v, want 0700", p, fi.Mode().Perm())
					}
				case fi.Mode().IsRegular():
					files++
					if fi.Mode().Perm() != 0o600 {
						t.Errorf("file %s has mode %v, want 0600", p, fi.Mode().Perm())
					}
				default:
					t.Errorf("%s is a %v", p, fi.Mode().Type())
				}
				return nil
			})
			if files < 6 {
				t.Errorf("only %d files checked under the state root", files)
			}
		})
	}
}

// TestRealServiceRefusesBrowsers: against the real service, the token from
// service.json works only for requests no browser could send.
func TestRealServiceRefusesBrowsers(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	b, err := os.ReadFile(filepath.Join(e.Home, "service.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		PID   int    `json:"pid"`
		Port  int    `json:"port"`
		Token string `json:"token"`
	}
	if err := json.Unmarshal(b, &d); err != nil || d.Token == "" {
		t.Fatalf("service.json: %s %v", b, err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(d.Port)
	cases := []struct {
		name, method, path string
		header             map[string]string
		host               string
		code               int
	}{
		{"token", "GET", "/v1/health", nil, "", 200},
		{"origin", "GET", "/v1/health", map[string]string{"Origin": "http://localhost:5173"}, "", 403},
		{"origin on sessions", "GET", "/v1/sessions", map[string]string{"Origin": "https://evil.example"}, "", 403},
		{"origin on stop", "POST", "/v1/stop", map[string]string{"Origin": "https://evil.example"}, "", 403},
		{"referer", "GET", "/v1/sessions/" + s.SessionID + "/status", map[string]string{"Referer": "http://localhost:5173/"}, "", 403},
		{"no token", "GET", "/v1/health", map[string]string{"Authorization": ""}, "", 401},
		{"wrong token", "GET", "/v1/health", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", len(d.Token))}, "", 401},
		{"rebinding host", "GET", "/v1/health", nil, "attacker.example:" + strconv.Itoa(d.Port), 403},
		{"other build", "GET", "/v1/health", map[string]string{"X-Debug-Mode-Build": "someone-else"}, "", 409},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, base+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+d.Token)
			for k, v := range c.header {
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			if c.host != "" {
				req.Host = c.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.code {
				t.Errorf("%d %s, want %d", resp.StatusCode, body, c.code)
			}
			for k := range resp.Header {
				if strings.HasPrefix(strings.ToLower(k), "access-control-") {
					t.Errorf("control answer carries %s", k)
				}
			}
			if c.code != 200 && bytes.Contains(body, []byte(d.Token)) {
				t.Errorf("refusal reveals the token")
			}
		})
	}
	if !Alive(d.PID) {
		t.Fatal("a refused stop request stopped the service")
	}

	// The ingest side of the same service does serve browsers, through a preflight.
	req, _ := http.NewRequest(http.MethodOptions, s.IngestURL, nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	req.Header.Set("Access-Control-Request-Private-Network", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") == "" ||
		resp.Header.Get("Access-Control-Allow-Private-Network") != "true" {
		t.Errorf("ingest preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestSymlinkedStateRootRefused: a state root that is a symbolic link is
// refused by the CLI before anything is written through it.
func TestSymlinkedStateRootRefused(t *testing.T) {
	e := NewEnv(t)
	target := t.TempDir()
	os.Chmod(target, 0o700)
	if err := os.MkdirAll(filepath.Dir(e.Home), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, e.Home); err != nil {
		t.Fatal(err)
	}
	r := e.Run("create")
	if r.Code == 0 {
		t.Fatalf("create succeeded with a symlinked state root:\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stderr, "symbolic link") {
		t.Errorf("the error does not name the link:\n%s", r.Stderr)
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		names := []string{}
		for _, en := range entries {
			names = append(names, en.Name())
		}
		t.Errorf("files were created through the link: %v", names)
	}
	if fi, err := os.Lstat(e.Home); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link itself was replaced: %v %v", fi, err)
	}
}
