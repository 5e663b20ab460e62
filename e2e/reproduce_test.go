package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// runIn runs the CLI in dir (reproduce runs its command there).
func (e *Env) runIn(dir string, args ...string) Result {
	e.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Dir = e.Environ(), dir
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

// report is the part of reproduce's JSON the tests read.
type report struct {
	Cycle        int64 `json:"cycle"`
	Reproduction int64 `json:"reproduction"`
	Run          struct {
		ExitCode  int    `json:"exitCode"`
		Signal    string `json:"signal"`
		End       string `json:"end"`
		Processes int    `json:"processes"`
	} `json:"run"`
	Settle struct {
		WaitedMs   int64 `json:"waitedMs"`
		Complete   bool  `json:"complete"`
		Deliveries int64 `json:"deliveries"`
	} `json:"settle"`
	Stdout struct {
		Lines        []string `json:"lines"`
		TotalBytes   int64    `json:"totalBytes"`
		OmittedBytes int64    `json:"omittedBytes"`
		Redactions   int      `json:"redactions"`
	} `json:"stdout"`
	Stderr struct {
		Lines []string `json:"lines"`
	} `json:"stderr"`
	Evidence struct {
		Events     int64 `json:"events"`
		Hypotheses []struct {
			ID     string `json:"id"`
			Events int64  `json:"events"`
		} `json:"hypotheses"`
		Rejected int64 `json:"rejectedRecords"`
		HeldBack []struct {
			Location  string `json:"location"`
			Count     int64  `json:"count"`
			Processes int    `json:"processes"`
		} `json:"heldBack"`
	} `json:"evidence"`
	Regions *struct {
		Scanned    int `json:"regions"`
		Fired      int `json:"fired"`
		Helpers    int `json:"helperRegions"`
		NeverFired []struct {
			File      string `json:"file"`
			StartLine int    `json:"startLine"`
		} `json:"neverFired"`
	} `json:"regions"`
	Capture *struct {
		ID string `json:"id"`
	} `json:"capture"`
	Diff *struct {
		Identical bool   `json:"identical"`
		Mode      string `json:"mode"`
		Counts    struct {
			DataChanged int `json:"dataChanged"`
		} `json:"counts"`
	} `json:"diff"`
	Next []string `json:"next"`
}

// reproduce runs debug-mode reproduce --json in dir and decodes the report.
func (e *Env) reproduce(dir string, wantCode int, args ...string) report {
	e.t.Helper()
	r := e.runIn(dir, append([]string{"reproduce", "--json"}, args...)...)
	if r.Code != wantCode {
		e.t.Fatalf("reproduce %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, r.Code, wantCode, r.Stdout, r.Stderr)
	}
	var env struct {
		Result report `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &env); err != nil {
		e.t.Fatalf("decoding %s: %v", r.Stdout, err)
	}
	e.t.Logf("settle: waited %d ms (complete %v, %d HTTP deliveries during it)", env.Result.Settle.WaitedMs, env.Result.Settle.Complete, env.Result.Settle.Deliveries)
	return env.Result
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// forkingPython forks children, one of which double-forks a grandchild into
// a session of its own that logs after every other process has ended; each
// logs through the Append Path reproduce exports.
const forkingPython = `import json, os, sys, time
PATH = os.environ["AGENT_DEBUG_MODE_APPEND_PATH"]
def log(h, msg, data):
    with open(PATH, "a") as f:
        f.write(json.dumps({"hypothesisId": h, "location": "prog.py:5", "message": msg, "data": data, "timestamp": int(time.time() * 1000)}) + "\n")
for i in range(4):
    if os.fork() == 0:
        for j in range(25):
            log("H1", "child", {"child": i, "j": j})
        if i == 0 and os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(0.7)
                for j in range(10):
                    log("H2", "late grandchild", {"j": j})
            os._exit(0)
        os._exit(0)
log("H3", "parent", {"pid": os.getpid()})
print("parent done")
sys.exit(2)
`

// TestReproduceForkingProgram: every event of a program that forks, and of
// a grandchild that left the tree and logs after its parents ended, is in
// the report's counts.
func TestReproduceForkingProgram(t *testing.T) {
	requireRuntimes(t, []string{"python3"})
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"prog.py": forkingPython})
	rep := e.reproduce(dir, 0, "--session", s.SessionID, "--", "python3", "prog.py")
	counts := map[string]int64{}
	for _, h := range rep.Evidence.Hypotheses {
		counts[h.ID] = h.Events
	}
	if rep.Run.ExitCode != 2 || rep.Run.End != "exited" || rep.Evidence.Events != 111 || counts["H1"] != 100 || counts["H2"] != 10 || counts["H3"] != 1 {
		t.Fatalf("report %+v, want exit 2 and 111 events (H1 100, H2 10, H3 1)", rep)
	}
	if rep.Run.Processes < 3 {
		t.Fatalf("%d processes waited for, want the orphans too", rep.Run.Processes)
	}
	if len(rep.Stdout.Lines) != 1 || rep.Stdout.Lines[0] != "parent done" {
		t.Fatalf("stdout tail %q", rep.Stdout.Lines)
	}
}

// TestReproduceNodeHTTPHelper: a Node program with the JavaScript HTTP
// helper queues every event and sends them in the background, the last
// batches while it ends, and starts a child that does the same; every event
// is in the report.
func TestReproduceNodeHTTPHelper(t *testing.T) {
	requireRuntimes(t, []string{"node"})
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	// The http helper is a module of its own that the program imports.
	helper := e.MustRun("template", "--language", "javascript", "--ingest", "http", "--section", "helper", "--session", s.SessionID)
	imp := e.MustRun("template", "--language", "javascript", "--ingest", "http", "--section", "import")
	program := imp + `import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
const role = process.argv[2] ?? "parent";
const n = role === "parent" ? 3000 : 2000;
for (let i = 0; i < n; i++) agentLog(role === "parent" ? "H1" : "H2", "item", () => ({ i, role }));
if (role === "parent") fork(fileURLToPath(import.meta.url), ["child"]);
console.log(role + " queued " + n);
`
	writeFiles(t, dir, map[string]string{"prog.mjs": program, "agent_debug_log.mjs": helper})
	rep := e.reproduce(dir, 0, "--session", s.SessionID, "--", "node", "prog.mjs")
	if rep.Run.ExitCode != 0 || rep.Evidence.Events != 5000 || rep.Evidence.Rejected != 0 {
		t.Fatalf("report %+v, want 5000 events", rep)
	}
	if !rep.Settle.Complete {
		t.Fatalf("settle %+v", rep.Settle)
	}
	if strings.Join(rep.Stdout.Lines, "\n") != "parent queued 3000\nchild queued 2000" && strings.Join(rep.Stdout.Lines, "\n") != "child queued 2000\nparent queued 3000" {
		t.Fatalf("stdout %q", rep.Stdout.Lines)
	}
}

// TestReproduceTimeoutEndsTheTree: at the timeout the command, a child that
// made a session of its own and a double-forked grandchild (all ignoring
// SIGTERM) are ended; the report is printed and the exit code is 8.
func TestReproduceTimeoutEndsTheTree(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tree.sh": `trap "" TERM
echo $$ >> pids
setsid sh -c 'trap "" TERM; echo $$ >> pids; exec sleep 120' &
( sh -c 'trap "" TERM; echo $$ >> pids; exec sleep 121' & )
echo started
sleep 122
`})
	rep := e.reproduce(dir, 8, "--session", s.SessionID, "--timeout", "1s", "--", "sh", "tree.sh")
	if rep.Run.End != "timeout" || len(rep.Stdout.Lines) != 1 || rep.Stdout.Lines[0] != "started" {
		t.Fatalf("report %+v", rep)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	pids := strings.Fields(string(b))
	if len(pids) != 3 {
		t.Fatalf("pids %q", pids)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		if Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d outlived the timeout", pid)
		}
	}
	r := e.runIn(dir, "reproduce", "--session", s.SessionID, "--timeout", "300ms", "--", "sleep", "30")
	if r.Code != 8 || !strings.Contains(r.Stdout, "TIMEOUT after 300 ms: the whole process tree (1 process) was ended") || !strings.Contains(r.Stderr, "did not end within 300ms") {
		t.Fatalf("pretty timeout: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestReproduceOutputBoundedAndRedacted: a program writing 3 MiB with a
// secret near its start, in its middle and at its end: at most about 1 MiB
// is kept (head and tail), no secret reaches the report, the stored output
// or a page, and the pages read the kept text.
func TestReproduceOutputBoundedAndRedacted(t *testing.T) {
	requireRuntimes(t, []string{"python3"})
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"loud.py": `import sys
print("start api_key=sk_live_0123456789abcdefABCDEF")
line = "x" * 99 + "\n"
for i in range(3 * 1024 * 1024 // 100):
    sys.stdout.write(line)
    if i == 15000:
        sys.stdout.write("middle token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
print("end password=hunter2-but-longer")
print("end of stderr AKIAABCDEFGHIJKLMNOP", file=sys.stderr)
`})
	rep := e.reproduce(dir, 0, "--session", s.SessionID, "--", "python3", "loud.py")
	if rep.Stdout.TotalBytes < 3<<20 || rep.Stdout.OmittedBytes < 2<<20 || rep.Stdout.Redactions != 2 {
		t.Fatalf("stdout %+v", rep.Stdout)
	}
	secrets := []string{"sk_live_0123", "ghp_abcdef", "hunter2", "AKIAABCD"}
	last := rep.Stdout.Lines[len(rep.Stdout.Lines)-1]
	if !strings.HasPrefix(last, "end password=[REDACTED") || !strings.Contains(rep.Stderr.Lines[0], "[REDACTED:aws-key]") {
		t.Fatalf("tails %q %q", last, rep.Stderr.Lines)
	}
	stored, err := os.ReadFile(filepath.Join(e.Home, "sessions", s.SessionID, "output.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) > 1<<20+64<<10 {
		t.Fatalf("stored output is %d bytes", len(stored))
	}
	pretty := e.runIn(dir, "reproduce", "--session", s.SessionID, "--", "python3", "loud.py").Stdout
	page := e.MustRun("output", "--session", s.SessionID, "--limit", "3")
	for _, sec := range secrets {
		for what, text := range map[string]string{"stored output": string(stored), "report": pretty, "page": page} {
			if strings.Contains(text, sec) {
				t.Errorf("%s holds the secret %s", what, sec)
			}
		}
	}
	if !strings.Contains(page, "1  start api_key=[REDACTED") || !strings.Contains(page, "Next page: debug-mode output") {
		t.Fatalf("first page:\n%s", page)
	}
	var p struct {
		Lines      []string `json:"lines"`
		TotalLines int      `json:"totalLines"`
	}
	e.JSON(&p, "output", "--session", s.SessionID, "--offset", "2600", "--limit", "1000")
	marker := false
	for _, l := range p.Lines {
		marker = marker || strings.HasPrefix(l, "[debug-mode: ") && strings.Contains(l, "bytes of output omitted here")
	}
	if !marker {
		t.Fatalf("no omitted-bytes marker around line 2600 of %d", p.TotalLines)
	}
}

// TestReproduceCaptureKeepDiff: --capture freezes the new cycle, --keep
// appends to it, and --diff compares a later cycle with the capture.
func TestReproduceCaptureKeepDiff(t *testing.T) {
	requireRuntimes(t, []string{"python3"})
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	prog := func(total int) string {
		return fmt.Sprintf(`import json, os, time
def total():
    # region agent log
    with open(os.environ["AGENT_DEBUG_MODE_APPEND_PATH"], "a") as f: f.write(json.dumps({"hypothesisId": "H1", "location": "app.py:4", "message": "total", "data": {"total": %d}, "timestamp": int(time.time() * 1000)}) + "\n")
    # endregion
    return %d

def never():
    # region agent log
    pass
    # endregion

print(total())
# region agent log helper
# endregion
`, total, total)
	}
	writeFiles(t, dir, map[string]string{"app.py": prog(-5)})
	before := e.reproduce(dir, 0, "--session", s.SessionID, "--capture", "before-fix", "--", "python3", "app.py")
	if before.Capture == nil || before.Evidence.Events != 1 || before.Regions == nil || before.Regions.Scanned != 2 || before.Regions.Fired != 1 ||
		before.Regions.Helpers != 1 || len(before.Regions.NeverFired) != 1 || before.Regions.NeverFired[0].StartLine != 9 {
		t.Fatalf("before: %+v regions %+v", before, before.Regions)
	}
	if !strings.Contains(strings.Join(before.Next, "\n"), "--diff "+before.Capture.ID+" -- python3 app.py") {
		t.Fatalf("next after --capture: %q", before.Next)
	}
	kept := e.reproduce(dir, 0, "--session", s.SessionID, "--keep", "--", "python3", "app.py")
	if kept.Cycle != before.Cycle || kept.Evidence.Events != 2 {
		t.Fatalf("--keep: cycle %d (want %d), %d events (want 2)", kept.Cycle, before.Cycle, kept.Evidence.Events)
	}
	writeFiles(t, dir, map[string]string{"app.py": prog(5)})
	after := e.reproduce(dir, 0, "--session", s.SessionID, "--diff", before.Capture.ID, "--", "python3", "app.py")
	if after.Cycle != before.Cycle+1 || after.Diff == nil || after.Diff.Identical || after.Diff.Counts.DataChanged != 1 {
		t.Fatalf("after: %+v", after)
	}
	// The comparison's own flags reach the diff: .total left out, nothing differs.
	ignored := e.reproduce(dir, 0, "--session", s.SessionID, "--diff", before.Capture.ID, "--ignore", ".total", "--mode", "align", "--", "python3", "app.py")
	if ignored.Diff == nil || !ignored.Diff.Identical || ignored.Diff.Mode != "align" {
		t.Fatalf("--ignore .total --mode align: %+v", ignored.Diff)
	}
	pretty := e.runIn(dir, "reproduce", "--session", s.SessionID, "--diff", before.Capture.ID, "--", "python3", "app.py").Stdout
	if !strings.Contains(pretty, "DIFF session "+s.SessionID) || !strings.Contains(pretty, ".total") {
		t.Fatalf("pretty diff:\n%s", pretty)
	}
}

// TestHeldBackLive: held-back records over HTTP and the Append Path are
// counted per process, survive the service being stopped, and go with
// reproduce's new cycle.
func TestHeldBackLive(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"held.sh": `
printf '{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a.go:42","process":"%s-a","count":100,"cap":%s}}\n' $$ "$AGENT_DEBUG_MODE_MAX_PER_LOCATION" >> "$AGENT_DEBUG_MODE_APPEND_PATH"
printf '{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a.go:42","process":"%s-a","count":250,"cap":%s}}\n' $$ "$AGENT_DEBUG_MODE_MAX_PER_LOCATION" >> "$AGENT_DEBUG_MODE_APPEND_PATH"
`})
	e.reproduce(dir, 0, "--session", s.SessionID, "--max-per-location", "7", "--", "sh", "held.sh")
	body := `{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a.go:42","process":"browser-1","count":30,"cap":7}}` + "\n"
	cmd := exec.Command("curl", "-sS", "-H", "Content-Type: application/x-ndjson", "--data-binary", body, s.IngestURL)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `"accepted":0,"rejected":0`) {
		t.Fatalf("curl: %v %s", err, out)
	}
	check := func(when string) {
		t.Helper()
		out := e.MustRun("status", "--session", s.SessionID)
		if !regexp.MustCompile(`Held back +280 events at a\.go:42 \(H1\) from 2 processes: the helper's cap of 7 per location per process was reached`).MatchString(out) {
			t.Fatalf("%s:\n%s", when, out)
		}
	}
	check("live")
	e.MustRun("stop")
	check("after the service stopped")
	rep := e.reproduce(dir, 0, "--session", s.SessionID, "--", "true")
	if len(rep.Evidence.HeldBack) != 0 {
		t.Fatalf("a new cycle kept the held-back counts: %+v", rep.Evidence.HeldBack)
	}
	var st struct {
		MaxPerLocation int64 `json:"maxPerLocation"`
	}
	e.JSON(&st, "status", "--session", s.SessionID)
	if st.MaxPerLocation != 7 {
		t.Fatalf("cap %d, want 7 (kept)", st.MaxPerLocation)
	}
}

// TestReproduceNotStarted: a command that does not exist or is not
// executable gets exit 9 and a message that says what to do, and the
// session's evidence is left as it was.
func TestReproduceNotStarted(t *testing.T) {
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"x.sh": "echo hi\n"})
	os.Chmod(filepath.Join(dir, "x.sh"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"no-such-program-xyz"}, `cannot run "no-such-program-xyz": not found in PATH`},
		{[]string{"./x.sh"}, `cannot run "./x.sh": it is not executable`},
		{[]string{"x.sh"}, `cannot run "x.sh": not found in PATH`},
	} {
		r := e.runIn(dir, append([]string{"reproduce", "--session", s.SessionID, "--"}, c.args...)...)
		if r.Code != 9 || !strings.Contains(r.Stderr, c.want) || r.Stdout != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args, r.Code, r.Stderr)
		}
	}
	var st struct {
		Cycle int64 `json:"cycle"`
	}
	e.JSON(&st, "status", "--session", s.SessionID)
	if st.Cycle != 1 {
		t.Fatalf("cycle %d: a command that could not start began a cycle", st.Cycle)
	}
}

// fireAndForget sends its events over HTTP the way a helper flushing at
// exit may: it writes each request and ends without reading the answer, so
// the service reads and stores them after the last process is gone.
const fireAndForget = `import json, os, socket, time, urllib.parse
u = urllib.parse.urlparse(os.environ["AGENT_DEBUG_MODE_INGEST_URL"])
for k in range(24):
    body = "".join(json.dumps({"hypothesisId": "H1", "location": "ff.py:5", "message": "queued", "data": {"k": k, "i": i, "pad": "p" * 200}, "timestamp": int(time.time() * 1000)}) + "\n" for i in range(5000)).encode()
    s = socket.create_connection((u.hostname, u.port))
    s.sendall(("POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/x-ndjson\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (u.path, u.hostname, u.port, len(body))).encode() + body)
    socket_keep = globals().setdefault("keep", [])
    socket_keep.append(s)
os._exit(0)
`

// TestReproduceHTTPDeliveredAfterExit: requests written by a program that
// ended without waiting for their answers are all counted: the settle waits
// for the ones the service is still reading or storing.
func TestReproduceHTTPDeliveredAfterExit(t *testing.T) {
	requireRuntimes(t, []string{"python3"})
	e := NewEnv(t)
	s := e.Create()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ff.py": fireAndForget})
	rep := e.reproduce(dir, 0, "--session", s.SessionID, "--", "python3", "ff.py")
	if rep.Evidence.Events != 120000 || !rep.Settle.Complete {
		t.Fatalf("%d events (want 120000), settle %+v", rep.Evidence.Events, rep.Settle)
	}
}
