// Package e2e runs the real debug-mode binary the way users do: separate
// CLI processes, a real background service, real runtimes.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binary is the debug-mode binary built once for the whole package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "debug-mode-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "debug-mode")
	build := exec.Command("go", "build", "-o", binary, "../cmd/debug-mode")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building debug-mode:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Env is one isolated user: its own state root, its own service.
type Env struct {
	t     *testing.T
	Home  string   // state root (AGENT_DEBUG_MODE_HOME)
	Extra []string // extra environment, KEY=VALUE
}

// NewEnv makes a fresh state root and stops its service when the test ends.
func NewEnv(t *testing.T) *Env {
	t.Helper()
	e := &Env{t: t, Home: filepath.Join(t.TempDir(), "state")}
	t.Cleanup(e.Kill)
	return e
}

// Environ is the environment a CLI process of this Env runs with.
func (e *Env) Environ() []string {
	env := append(os.Environ(), "AGENT_DEBUG_MODE_HOME="+e.Home)
	return append(env, e.Extra...)
}

// Result is one finished CLI process.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs the CLI and returns its output and exit code.
func (e *Env) Run(args ...string) Result {
	e.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = e.Environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("running debug-mode %v: %v", args, err)
	}
	return Result{out.String(), errb.String(), code}
}

// MustRun runs the CLI and fails the test unless it exits 0.
func (e *Env) MustRun(args ...string) string {
	e.t.Helper()
	r := e.Run(args...)
	if r.Code != 0 {
		e.t.Fatalf("debug-mode %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// JSON runs the CLI with --json and decodes the envelope's result into v.
func (e *Env) JSON(v any, args ...string) {
	e.t.Helper()
	out := e.MustRun(append(args, "--json")...)
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		e.t.Fatalf("decoding %s: %v", out, err)
	}
	if err := json.Unmarshal(env.Result, v); err != nil {
		e.t.Fatalf("decoding result %s: %v", env.Result, err)
	}
}

// Session is what create prints.
type Session struct {
	SessionID    string `json:"sessionId"`
	IngestURL    string `json:"ingestUrl"`
	AppendPath   string `json:"appendPath"`
	OTLPEndpoint string `json:"otlpEndpoint"`
}

// Create makes a session.
func (e *Env) Create() Session {
	e.t.Helper()
	var s Session
	e.JSON(&s, "create")
	return s
}

// CreateAt makes a session whose project root is dir.
func (e *Env) CreateAt(dir string) Session {
	e.t.Helper()
	var s Session
	e.JSON(&s, "create", "--root", dir)
	return s
}

// Discovery reads the running service's discovery file (tests only).
func (e *Env) Discovery() (pid, port int, ok bool) {
	b, err := os.ReadFile(filepath.Join(e.Home, "service.json"))
	if err != nil {
		return 0, 0, false
	}
	var d struct {
		PID  int `json:"pid"`
		Port int `json:"port"`
	}
	if json.Unmarshal(b, &d) != nil {
		return 0, 0, false
	}
	return d.PID, d.Port, true
}

// Kill ends this Env's service, if one runs, and waits for it to exit.
func (e *Env) Kill() {
	pid, _, ok := e.Discovery()
	if !ok || pid <= 1 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	WaitExit(pid, 5*time.Second)
}

// Alive reports whether a process exists (and is not a zombie we own).
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Field 3 is the state; Z is a zombie.
	if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
		return false
	}
	return true
}

// WaitExit waits until pid is gone.
func WaitExit(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !Alive(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// Events reads the session's stored events straight from the evidence file
// (the reading commands arrive later; tests may look underneath).
func (e *Env) Events(id string) []map[string]any {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, "sessions", id, "events.ndjson"))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			e.t.Fatalf("stored line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// Logged is the cycle's events as logs reads them (after taking in
// everything delivered), at most 1000.
func (e *Env) Logged(id string) []map[string]any {
	e.t.Helper()
	var page struct {
		Events []map[string]any `json:"events"`
	}
	e.JSON(&page, "logs", "--session", id, "--limit", "1000")
	return page.Events
}

// ServiceStarts counts how many services have started on this state root,
// from the service's own log.
func (e *Env) ServiceStarts() int {
	b, _ := os.ReadFile(filepath.Join(e.Home, "service.log"))
	return strings.Count(string(b), " started pid ")
}
