package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Lifecycle tests: real CLI processes against a real background service.
// Nothing here sleeps to assert; every wait polls with a generous deadline.

const (
	lcExitWait  = 10 * time.Second // for a service that must end
	lcPollEvery = 10 * time.Millisecond
)

// newLifeEnv is NewEnv that also ends every service process of the Env
// when the test ends, not only the one the discovery file names, so a
// failing convergence test leaves no stray services behind.
func newLifeEnv(t *testing.T) *Env {
	t.Helper()
	e := NewEnv(t)
	t.Cleanup(func() {
		for _, pid := range e.lcServicePIDs() {
			syscall.Kill(pid, syscall.SIGTERM)
			if !WaitExit(pid, 5*time.Second) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return e
}

// lifeStatus is the part of status --json these tests read.
type lifeStatus struct {
	SessionID  string `json:"sessionId"`
	Cycle      int64  `json:"cycle"`
	Version    string `json:"evidenceVersion"`
	Events     int64  `json:"events"`
	IngestURL  string `json:"ingestUrl"`
	AppendPath string `json:"appendPath"`
	URLChanged bool   `json:"ingestUrlChanged"`
	PrevURL    string `json:"previousIngestUrl"`
	Hypotheses []struct {
		ID     string `json:"id"`
		Events int64  `json:"events"`
	} `json:"hypotheses"`
}

func (e *Env) lcStatus(id string) lifeStatus {
	e.t.Helper()
	var st lifeStatus
	e.JSON(&st, "status", "--session", id)
	if st.SessionID != id {
		e.t.Fatalf("status of %s answered for %q", id, st.SessionID)
	}
	return st
}

// hyps renders a status's per-hypothesis counts, e.g. "A1=2 A2=1".
func (s lifeStatus) hyps() string {
	var parts []string
	for _, h := range s.Hypotheses {
		parts = append(parts, fmt.Sprintf("%s=%d", h.ID, h.Events))
	}
	return strings.Join(parts, " ")
}

func lcEvent(hyp, msg string) string {
	return fmt.Sprintf(`{"hypothesisId":%q,"location":"app.go:7","message":%q,"data":{"n":1},"timestamp":1784313728231}`+"\n", hyp, msg)
}

func lcAppend(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l); err != nil {
			t.Fatal(err)
		}
	}
}

func lcPost(t *testing.T, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/x-ndjson", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
}

// lcServicePIDs lists the live `debug-mode __service` processes whose state
// root is this Env's, from /proc.
func (e *Env) lcServicePIDs() []int {
	e.t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		e.t.Skipf("no /proc: %v", err)
	}
	want := []byte("AGENT_DEBUG_MODE_HOME=" + e.Home)
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimSuffix(cmdline, []byte{0}), []byte{0})
		if len(args) < 2 || string(args[1]) != "__service" || filepath.Base(string(args[0])) != filepath.Base(binary) {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil {
			continue
		}
		found := false
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if bytes.Equal(kv, want) {
				found = true
				break
			}
		}
		if found && Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// lcOneService waits until exactly one service process runs for this Env and
// it is the one the discovery file names, and returns its pid.
func (e *Env) lcOneService() int {
	e.t.Helper()
	deadline := time.Now().Add(lcExitWait)
	for {
		pids := e.lcServicePIDs()
		dpid, _, ok := e.Discovery()
		if len(pids) == 1 && ok && pids[0] == dpid {
			return dpid
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("want exactly one service for %s; running: %v, discovery pid %d (found %v)", e.Home, pids, dpid, ok)
		}
		time.Sleep(lcPollEvery)
	}
}

// lcServicePID is the discovered pid of a live service, failing otherwise.
func (e *Env) lcServicePID() int {
	e.t.Helper()
	pid, _, ok := e.Discovery()
	if !ok || !Alive(pid) {
		e.t.Fatalf("no live service (discovery pid %d, found %v)", pid, ok)
	}
	return pid
}

func (e *Env) lcMustExit(pid int, why string) {
	e.t.Helper()
	if !WaitExit(pid, lcExitWait) {
		e.t.Fatalf("%s: service pid %d is still running", why, pid)
	}
}

func (e *Env) lcWantStarts(n int) {
	e.t.Helper()
	if got := e.ServiceStarts(); got != n {
		log, _ := os.ReadFile(filepath.Join(e.Home, "service.log"))
		e.t.Fatalf("services started: %d, want %d\nservice.log:\n%s", got, n, log)
	}
}

// TestSessionLifecycleAndIsolation: create, ingest over both paths, reset,
// clean — and two sessions never see each other's evidence.
func TestSessionLifecycleAndIsolation(t *testing.T) {
	e := newLifeEnv(t)
	a, b := e.Create(), e.Create()
	if a.SessionID == b.SessionID || a.AppendPath == b.AppendPath || a.IngestURL == b.IngestURL {
		t.Fatalf("two sessions share an identity: %+v %+v", a, b)
	}

	lcAppend(t, a.AppendPath, lcEvent("A1", "a one"), lcEvent("A1", "a two"))
	lcPost(t, a.IngestURL, lcEvent("A2", "a three"))
	lcAppend(t, b.AppendPath, lcEvent("B1", "b one"))

	sa, sb := e.lcStatus(a.SessionID), e.lcStatus(b.SessionID)
	if sa.Events != 3 || sa.hyps() != "A1=2 A2=1" {
		t.Fatalf("session A: %d events (%s), want 3 (A1=2 A2=1)", sa.Events, sa.hyps())
	}
	if sb.Events != 1 || sb.hyps() != "B1=1" {
		t.Fatalf("session B: %d events (%s), want 1 (B1=1): evidence leaked between sessions", sb.Events, sb.hyps())
	}
	for _, ev := range e.Events(b.SessionID) {
		if ev["hypothesisId"] != "B1" {
			t.Fatalf("session B stored another session's event: %v", ev)
		}
	}

	// reset keeps the id, the append path and the ingest URL; clears evidence.
	var r struct {
		SessionID  string `json:"sessionId"`
		Cycle      int64  `json:"cycle"`
		IngestURL  string `json:"ingestUrl"`
		AppendPath string `json:"appendPath"`
	}
	e.JSON(&r, "reset", "--session", a.SessionID)
	if r.SessionID != a.SessionID || r.AppendPath != a.AppendPath || r.IngestURL != a.IngestURL || r.Cycle != 2 {
		t.Fatalf("reset answered %+v; want id, append path and ingest URL of %+v, cycle 2", r, a)
	}
	if st := e.lcStatus(a.SessionID); st.Events != 0 || st.Cycle != 2 || st.Version != "2.0" {
		t.Fatalf("after reset: %d events, cycle %d, version %s; want 0, 2, 2.0", st.Events, st.Cycle, st.Version)
	}
	if st := e.lcStatus(b.SessionID); st.Events != 1 {
		t.Fatalf("resetting A changed B: %d events", st.Events)
	}
	lcAppend(t, a.AppendPath, lcEvent("A3", "after reset"))
	if st := e.lcStatus(a.SessionID); st.Events != 1 || st.hyps() != "A3=1" || st.Version != "2.1" {
		t.Fatalf("after reset + append: %d events (%s) version %s; want 1 (A3=1) 2.1", st.Events, st.hyps(), st.Version)
	}
	evs := e.Events(a.SessionID)
	if len(evs) != 1 || evs[0]["sequence"] != float64(1) || evs[0]["message"] != "after reset" {
		t.Fatalf("stored after reset: %v; want one event with sequence 1", evs)
	}

	// clean removes the directory; every later command on it exits 3.
	e.MustRun("clean", "--session", a.SessionID)
	if _, err := os.Stat(filepath.Join(e.Home, "sessions", a.SessionID)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("session directory after clean: %v", err)
	}
	for _, cmd := range []string{"status", "reset", "clean"} {
		if r := e.Run(cmd, "--session", a.SessionID); r.Code != 3 {
			t.Fatalf("%s on a cleaned session: exit %d, want 3\nstdout: %s\nstderr: %s", cmd, r.Code, r.Stdout, r.Stderr)
		}
	}
	if st := e.lcStatus(b.SessionID); st.Events != 1 {
		t.Fatalf("cleaning A changed B: %d events", st.Events)
	}
	out := e.MustRun("sessions", "--all")
	if strings.Contains(out, a.SessionID) || !strings.Contains(out, b.SessionID) {
		t.Fatalf("sessions after clean:\n%s", out)
	}
	e.lcWantStarts(1)
}

// lcRace starts n CLI processes at once and waits for all of them.
func (e *Env) lcRace(n int, args ...string) {
	e.t.Helper()
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = exec.Command(binary, args...)
		cmds[i].Env = e.Environ()
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = c.Run()
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			e.t.Errorf("racer %d (debug-mode %s): %v\n%s", i, strings.Join(args, " "), err, outs[i])
		}
	}
	if e.t.Failed() {
		e.t.FailNow()
	}
}

// TestConvergence: many CLIs starting at once on a fresh state root end with
// exactly one service.
func TestConvergence(t *testing.T) {
	const racers = 16
	for round := 1; round <= 3; round++ {
		t.Run(fmt.Sprintf("fresh root %d", round), func(t *testing.T) {
			e := newLifeEnv(t)
			e.lcRace(racers, "sessions")
			e.lcWantStarts(1)
			e.lcOneService()
		})
	}
	t.Run("existing session, no service", func(t *testing.T) {
		e := newLifeEnv(t)
		s := e.Create()
		lcAppend(t, s.AppendPath, lcEvent("H1", "before the race"))
		e.MustRun("stop")
		e.lcRace(racers, "status", "--session", s.SessionID)
		e.lcWantStarts(2)
		e.lcOneService()
		if st := e.lcStatus(s.SessionID); st.Events != 1 {
			t.Fatalf("after the race: %d events, want 1 (taken in exactly once)", st.Events)
		}
	})
}

// TestServiceDoesNotHoldCallerOutput: a caller reading the CLI's stdout and
// stderr to EOF gets EOF when the CLI exits, although the service it
// started keeps running.
func TestServiceDoesNotHoldCallerOutput(t *testing.T) {
	e := newLifeEnv(t)
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer errR.Close()
	cmd := exec.Command(binary, "create")
	cmd.Env = e.Environ()
	cmd.Stdout, cmd.Stderr = outW, errW // *os.File: the child gets the pipe itself
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	deadline := time.Now().Add(lcExitWait)
	outR.SetReadDeadline(deadline)
	errR.SetReadDeadline(deadline)
	out, err := io.ReadAll(outR)
	if err != nil {
		t.Fatalf("reading create's stdout to EOF: %v (the service holds the caller's stdout?)", err)
	}
	errOut, err := io.ReadAll(errR)
	if err != nil {
		t.Fatalf("reading create's stderr to EOF: %v (the service holds the caller's stderr?)", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("create: %v\n%s", err, errOut)
	}
	if !bytes.Contains(out, []byte("SESSION CREATED")) {
		t.Fatalf("create printed:\n%s", out)
	}
	pid := e.lcOneService()
	if !Alive(pid) {
		t.Fatal("the service is not running after create")
	}
}

// TestIdleShutdownAndTransparentRestart: with a 1s idle timeout the service
// exits by itself; the next command starts a new one, on the same port when
// it is still free.
func TestIdleShutdownAndTransparentRestart(t *testing.T) {
	e := newLifeEnv(t)
	e.Extra = []string{"AGENT_DEBUG_MODE_IDLE_TIMEOUT=1s"}
	s := e.Create()
	pid1, port1, _ := e.Discovery()
	e.lcMustExit(pid1, "idle for 1s")
	if _, _, ok := e.Discovery(); ok {
		t.Fatal("the discovery file outlived the service that wrote it")
	}
	if len(e.lcServicePIDs()) != 0 {
		t.Fatalf("services still running after idle shutdown: %v", e.lcServicePIDs())
	}
	lcAppend(t, s.AppendPath, lcEvent("H1", "while stopped"))
	st := e.lcStatus(s.SessionID)
	if st.Events != 1 {
		t.Fatalf("status after restart: %d events, want 1 (appended while no service ran)", st.Events)
	}
	pid2, port2, ok := e.Discovery()
	if !ok || pid2 == pid1 {
		t.Fatalf("no new service after idle shutdown: discovery pid %d (old %d), found %v", pid2, pid1, ok)
	}
	switch {
	case port2 == port1 && st.IngestURL == s.IngestURL && !st.URLChanged:
		// The usual case: the port was still free, probes keep working.
	case port2 != port1 && st.URLChanged && st.PrevURL == s.IngestURL:
		// Another program took the port in between; status must say so.
		t.Logf("port %d was taken during the restart; status reported the move to %d", port1, port2)
	default:
		t.Fatalf("after restart: port %d (was %d), ingest URL %s (was %s), changed=%v previous=%q",
			port2, port1, st.IngestURL, s.IngestURL, st.URLChanged, st.PrevURL)
	}
	e.lcWantStarts(2)
	e.lcMustExit(pid2, "idle again")
}

// TestStopAndRestart: stop ends the service at once and keeps sessions; a
// second stop finds nothing; the next data command starts it again.
func TestStopAndRestart(t *testing.T) {
	e := newLifeEnv(t)
	s := e.Create()
	pid1 := e.lcServicePID()
	if out := e.MustRun("stop"); !strings.HasPrefix(out, "STOPPED") {
		t.Fatalf("first stop:\n%s", out)
	}
	// stop returns once the service has let go of its lock; the process
	// itself ends right after.
	e.lcMustExit(pid1, "stop")
	if pids := e.lcServicePIDs(); len(pids) != 0 {
		t.Fatalf("services running after stop: %v", pids)
	}
	if out := e.MustRun("stop"); !strings.HasPrefix(out, "NOT RUNNING") {
		t.Fatalf("second stop:\n%s", out)
	}
	e.lcWantStarts(1) // stop never starts a service
	var stop struct {
		WasRunning bool `json:"wasRunning"`
	}
	e.JSON(&stop, "stop")
	if stop.WasRunning {
		t.Fatal("stop --json said a service was running")
	}
	if _, err := os.Stat(filepath.Join(e.Home, "sessions", s.SessionID, "meta.json")); err != nil {
		t.Fatalf("stop lost the session: %v", err)
	}
	if out := e.MustRun("sessions"); !strings.Contains(out, s.SessionID) {
		t.Fatalf("sessions after stop does not list %s:\n%s", s.SessionID, out)
	}
	pid2 := e.lcOneService()
	if pid2 == pid1 {
		t.Fatalf("the same pid %d serves after stop", pid1)
	}
	e.lcWantStarts(2)
	e.lcStatus(s.SessionID)
	e.lcWantStarts(2)
}

// TestOtherBuildIsReplaced: a service of another build gives way to the
// caller's build; sessions survive.
func TestOtherBuildIsReplaced(t *testing.T) {
	e := newLifeEnv(t)
	e.Extra = []string{"AGENT_DEBUG_MODE_BUILD_ID=old"}
	s := e.Create()
	lcAppend(t, s.AppendPath, lcEvent("H1", "seen by old"))
	if st := e.lcStatus(s.SessionID); st.Events != 1 {
		t.Fatalf("old build: %d events", st.Events)
	}
	old := e.lcOneService()

	e.Extra = []string{"AGENT_DEBUG_MODE_BUILD_ID=new"}
	lcAppend(t, s.AppendPath, lcEvent("H1", "seen by new"))
	st := e.lcStatus(s.SessionID)
	if st.Events != 2 {
		t.Fatalf("new build: %d events, want 2", st.Events)
	}
	e.lcMustExit(old, "replaced by another build")
	if cur := e.lcOneService(); cur == old {
		t.Fatalf("the old build's pid %d still serves", old)
	}
	e.lcWantStarts(2)

	// And back to the real build, with no override at all.
	e.Extra = nil
	newer := e.lcOneService()
	if st := e.lcStatus(s.SessionID); st.Events != 2 {
		t.Fatalf("real build: %d events, want 2", st.Events)
	}
	e.lcMustExit(newer, "replaced by the real build")
	e.lcOneService()
	e.lcWantStarts(3)
}

// TestStaleDiscoveryAfterKill: a discovery file left by a SIGKILLed service
// names a dead pid and a closed port; the next command starts a fresh one.
func TestStaleDiscoveryAfterKill(t *testing.T) {
	e := newLifeEnv(t)
	s := e.Create()
	pid1, port1, _ := e.Discovery()
	if err := syscall.Kill(pid1, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.lcMustExit(pid1, "SIGKILL")
	if p, port, ok := e.Discovery(); !ok || p != pid1 || port != port1 {
		t.Fatalf("expected the stale discovery file to remain (pid %d port %d), got pid %d port %d found %v", pid1, port1, p, port, ok)
	}
	lcAppend(t, s.AppendPath, lcEvent("H1", "after kill"))
	if st := e.lcStatus(s.SessionID); st.Events != 1 {
		t.Fatalf("after restart: %d events, want 1", st.Events)
	}
	pid2 := e.lcOneService()
	if pid2 == pid1 {
		t.Fatalf("discovery still names the killed pid %d", pid1)
	}
	e.lcWantStarts(2)

	// A discovery file that is not even JSON is replaced too.
	pid2 = e.lcServicePID()
	if err := syscall.Kill(pid2, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.lcMustExit(pid2, "SIGKILL")
	if err := os.WriteFile(filepath.Join(e.Home, "service.json"), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := e.lcStatus(s.SessionID); st.Events != 1 {
		t.Fatalf("after garbage discovery: %d events, want 1", st.Events)
	}
	e.lcOneService()
	e.lcWantStarts(3)
}
