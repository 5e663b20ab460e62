package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The Python logpoint hook, live, on every Python 3.8+ found: python3, any
// python3.N on PATH, and the interpreters listed (colon-separated) in
// DEBUG_MODE_EXTRA_PYTHONS. The program (testdata/logpoints/python) has a
// logpoint of every kind: module top level, closure, class body, method,
// coroutine, threads, a loop with a comprehension in its data, an
// expression that raises, the main script, a child process, a forked child,
// pool workers (forked, spawned, forkserver) ended by SIGTERM, -m, -c, a
// never-called line, a file never loaded, a line that became
// blank after the logpoint was added. The program's output and exit status
// must be the same with and without the hook, in every way it can end, and
// the project's files byte-identical.
func TestLogpointsPython(t *testing.T) {
	for _, py := range pythons(t) {
		t.Run(py.version, func(t *testing.T) {
			t.Parallel()
			testLogpointsPython(t, py.path)
		})
	}
}

type python struct{ path, version string }

// pythons lists the interpreters to test with, one per version.
func pythons(t *testing.T) []python {
	requireRuntimes(t, []string{"python3"})
	cands := []string{"python3"}
	for _, v := range []string{"3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14"} {
		cands = append(cands, "python"+v)
	}
	if extra := os.Getenv("DEBUG_MODE_EXTRA_PYTHONS"); extra != "" {
		cands = append(cands, strings.Split(extra, ":")...)
	}
	seen := map[string]bool{}
	var out []python
	for _, c := range cands {
		b, err := exec.Command(c, "-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2]); print(sys.version_info >= (3, 8))").Output()
		if err != nil {
			continue // a launcher with no interpreter behind it, say
		}
		f := strings.Fields(string(b))
		if len(f) != 3 || f[2] != "True" || seen[f[1]] {
			continue
		}
		seen[f[1]] = true
		out = append(out, python{f[0], f[1]})
	}
	if len(out) == 0 {
		t.Fatal("python3 is older than 3.8: logpoints need 3.8 or later")
	}
	return out
}

// pyRun is one run of a program: what it printed and how it ended.
type pyRun struct {
	stdout, stderr string
	status         string // "exit 3" or "signal interrupt"
}

func runPython(t *testing.T, dir string, env []string, py string, args ...string) pyRun {
	t.Helper()
	cmd := exec.Command(py, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	status := "exit " + strconv.Itoa(ws.ExitStatus())
	if ws.Signaled() {
		status = "signal " + ws.Signal().String()
	}
	return pyRun{out.String(), errb.String(), status}
}

// addMarkedLogpoints adds a logpoint at each line marked "<marker><label>
// [data]" in the files under dir that source accepts (links never
// followed), labelled by the marker; it returns label → location. With
// mustCheck, a logpoint the runtime could not check at add time fails the
// test.
func addMarkedLogpoints(t *testing.T, e *Env, id, dir, marker string, source func(path string) bool, mustCheck bool) map[string]string {
	t.Helper()
	locs := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 || !source(p) {
			return err
		}
		f, _ := os.Open(p)
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			_, mark, ok := strings.Cut(sc.Text(), marker)
			if !ok {
				continue
			}
			label, data, _ := strings.Cut(mark, " ")
			rel, _ := filepath.Rel(dir, p)
			at := rel + ":" + strconv.Itoa(n)
			args := []string{"logpoint", "add", "--session", id, "--at", at, "--hypothesis", label, "--message", label}
			if data != "" {
				args = append(args, "--data", data)
			}
			if r := e.runIn(dir, args...); r.Code != 0 || mustCheck && strings.Contains(r.Stdout, "Not checked") {
				t.Fatalf("%v: %s%s", args, r.Stdout, r.Stderr)
			}
			locs[label] = at
		}
		return nil
	})
	return locs
}

// treeHash names every file under dir with its content hash.
func treeHash(t *testing.T, dir string, skip func(rel string) bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if skip != nil && skip(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	return out
}

func sameTree(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	var diff []string
	for k, v := range a {
		if b[k] != v {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("%s: files changed, added or removed: %v", what, diff)
	}
}

// sessionEnv is base with what `env --json` exports when it runs in base
// (it keeps the PYTHONPATH it finds there).
func sessionEnv(t *testing.T, e *Env, id string, base []string) []string {
	t.Helper()
	cmd := exec.Command(binary, "env", "--session", id, "--json")
	cmd.Env = append(append([]string(nil), base...), "AGENT_DEBUG_MODE_HOME="+e.Home)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("env: %v", err)
	}
	var v struct {
		Result struct {
			Variables []struct{ Name, Value string } `json:"variables"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out := slicesWithout(base, "PYTHONPATH")
	for _, kv := range v.Result.Variables {
		out = append(out, kv.Name+"="+kv.Value)
	}
	return out
}

func testLogpointsPython(t *testing.T, py string) {
	e := NewEnv(t)
	proj := filepath.Join(t.TempDir(), "proj")
	if err := os.CopyFS(proj, os.DirFS("testdata/logpoints/python")); err != nil {
		t.Fatal(err)
	}
	// The session's project root is proj (created there, outside any git tree).
	var s Session
	cr := e.runIn(proj, "create", "--json")
	var created struct{ Result Session }
	if cr.Code != 0 || json.Unmarshal([]byte(cr.Stdout), &created) != nil {
		t.Fatalf("create: %s%s", cr.Stdout, cr.Stderr)
	}
	s = created.Result
	// changed.py:2 holds code when its logpoint is added, and is blank when
	// the program runs: the hook reports why it could not place it.
	changed := filepath.Join(proj, "changed.py")
	final, _ := os.ReadFile(changed)
	os.WriteFile(changed, []byte("X = 1\nZ = 3\nY = 2\n"), 0o644)
	if r := e.runIn(proj, "logpoint", "add", "--session", s.SessionID, "--at", "changed.py:2", "--hypothesis", "changed", "--message", "changed"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	os.WriteFile(changed, final, 0o644)
	locs := addMarkedLogpoints(t, e, s.SessionID, proj, "# LP:", func(p string) bool {
		return strings.HasSuffix(p, ".py") && !strings.Contains(p, "usersite")
	}, false)

	base := slicesWithout(os.Environ(), "PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "AGENT_DEBUG_MODE_")
	withUserSite := append(append([]string(nil), base...), "PYTHONPATH="+filepath.Join(proj, "usersite"))
	hooked := sessionEnv(t, e, s.SessionID, base)
	hookedUserSite := sessionEnv(t, e, s.SessionID, withUserSite)
	if !strings.HasSuffix(hookedUserSite[len(hookedUserSite)-1], "/python:"+filepath.Join(proj, "usersite")) {
		t.Fatalf("PYTHONPATH does not keep the user's entry after the hook's: %q", hookedUserSite[len(hookedUserSite)-1])
	}

	// Every way a run can end, and -m, -c, a user's sitecustomize.
	type scenario struct {
		name string
		args []string
		user bool // with the user's own sitecustomize on PYTHONPATH
		want string
	}
	scenarios := []scenario{
		{"main", []string{"everything.py"}, false, "exit 0"},
		{"uncaught exception", []string{"everything.py", "raise"}, false, "exit 1"},
		{"main by an unnormalised path", []string{"./pkg/../everything.py", "raise"}, false, "exit 1"},
		{"sys.exit(3)", []string{"everything.py", "exit3"}, false, "exit 3"},
		{"KeyboardInterrupt", []string{"everything.py", "sigint"}, false, "signal interrupt"},
		{"sys.exit(message)", []string{"everything.py", "message"}, false, "exit 1"},
		{"-m pkg.mod", []string{"-m", "pkg.mod", "2"}, false, "exit 2"},
		{"-c", []string{"-c", "import helper; print(helper.compute(3))"}, false, "exit 0"},
		{"user sitecustomize", []string{"child.py", "2"}, true, "exit 0"},
		{"multiprocessing", []string{"workers.py", "fork", "spawn", "forkserver"}, false, "exit 0"},
	}
	source := treeHash(t, proj, nil)
	plain := map[string]pyRun{}
	for _, sc := range scenarios {
		env := base
		if sc.user {
			env = withUserSite
		}
		plain[sc.name] = runPython(t, proj, env, py, sc.args...)
		if plain[sc.name].status != sc.want {
			t.Fatalf("%s without the hook: %s, want %s\n%s", sc.name, plain[sc.name].status, sc.want, plain[sc.name].stderr)
		}
	}
	afterPlain := treeHash(t, proj, nil)
	sameTree(t, "the runs without the hook (apart from __pycache__)", source,
		treeHash(t, proj, func(rel string) bool { return strings.Contains(rel, "__pycache__") }))
	e.MustRun("reset", "--session", s.SessionID)
	for _, sc := range scenarios {
		env := hooked
		if sc.user {
			env = hookedUserSite
		}
		got := runPython(t, proj, env, py, sc.args...)
		if got != plain[sc.name] {
			t.Errorf("%s: the hook changed the run\nwithout: %s\n%s\n%s\nwith: %s\n%s\n%s", sc.name,
				plain[sc.name].status, plain[sc.name].stdout, plain[sc.name].stderr, got.status, got.stdout, got.stderr)
		}
	}
	if !strings.Contains(plain["user sitecustomize"].stderr, "the user's sitecustomize ran") ||
		!strings.Contains(plain["uncaught exception"].stderr, `File "`+filepath.Join(proj, "helper.py")+`", line 8, in fail`) {
		t.Fatalf("the program does not do what this test relies on:\n%+v", plain)
	}
	sameTree(t, "the runs with the hook", afterPlain, treeHash(t, proj, nil))

	var list struct {
		Logpoints []struct {
			HypothesisID string `json:"hypothesisId"`
			State        string `json:"state"`
			Hits         int64  `json:"hits"`
			Installed    int    `json:"installedProcesses"`
			Reason       string `json:"reason"`
		} `json:"logpoints"`
	}
	e.JSON(&list, "logpoint", "list", "--session", s.SessionID)
	hits := map[string]int64{}
	for _, lp := range list.Logpoints {
		hits[lp.HypothesisID] = lp.Hits
	}
	// Six runs of everything.py (each: its forked child and a child.py 3), one -m,
	// one -c, one child.py 2.
	for label, want := range map[string]int64{"top": 6, "closure": 6, "classbody": 6, "method": 6, "async": 12, "thread": 2400,
		"loop": 18, "throws": 6, "helper": 13, "fail": 8, "child": 20, "pkginit": 1, "pkgmod": 1, "worker": 15, "neverhit": 0, "unused": 0, "changed": 0} {
		if hits[label] != want {
			t.Errorf("%s: %d hits, want %d", label, hits[label], want)
		}
	}

	// One reproduction, read event by event: the values, and the report.
	var rep struct {
		Run struct {
			ExitCode int `json:"exitCode"`
		} `json:"run"`
		Logpoints []struct {
			HypothesisID string `json:"hypothesisId"`
			State        string `json:"state"`
			Hits         int64  `json:"hits"`
			Reason       string `json:"reason"`
		} `json:"logpoints"`
	}
	r := e.runIn(proj, "reproduce", "--session", s.SessionID, "--json", "--", py, "everything.py")
	if r.Code != 0 {
		t.Fatalf("reproduce: %s%s", r.Stdout, r.Stderr)
	}
	var envl struct{ Result json.RawMessage }
	json.Unmarshal([]byte(r.Stdout), &envl)
	if err := json.Unmarshal(envl.Result, &rep); err != nil || rep.Run.ExitCode != 0 {
		t.Fatalf("report: %v %s", err, r.Stdout)
	}
	states := map[string]string{}
	for _, lp := range rep.Logpoints {
		states[lp.HypothesisID] = fmt.Sprintf("%s %d %s", lp.State, lp.Hits, lp.Reason)
	}
	for label, want := range map[string]string{
		"top": "hit 1 ", "thread": "hit 400 ", "helper": "hit 2 ", "child": "hit 3 ",
		"neverhit": "never_hit 0 ",
		"unused":   "never_installed 0 its file was not loaded in this cycle",
		"pkgmod":   "never_installed 0 its file was not loaded in this cycle",
		"changed":  "never_installed 0 line 2 is blank; the next line that can take a logpoint is 3",
	} {
		if states[label] != want {
			t.Errorf("reproduce: %s is %q, want %q", label, states[label], want)
		}
	}
	evs := e.Events(s.SessionID)
	data := map[string][]string{}
	for _, ev := range evs {
		h := ev["hypothesisId"].(string)
		if ev["location"] != locs[h] {
			t.Errorf("%s: location %v, want %s", h, ev["location"], locs[h])
		}
		b, _ := json.Marshal(ev["data"])
		data[h] = append(data[h], string(b))
	}
	for label, want := range map[string]string{
		"top":       `{"name":"__main__","top":7}`,
		"closure":   `{"k":3,"v":4}`,
		"classbody": `{"rate":2}`,
		"method":    `{"amount":5,"before":10}`,
		"throws":    `{"agentDebugLogpointError":"ZeroDivisionError: division by zero"}`,
		"fail":      `null`,
	} {
		if len(data[label]) != 1 || data[label][0] != want {
			t.Errorf("%s: data %v, want [%s]", label, data[label], want)
		}
	}
	sortedEq := func(label string, want ...string) {
		got := append([]string(nil), data[label]...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: data %v, want %v", label, got, want)
		}
	}
	sortedEq("async", `{"n":1}`, `{"n":2}`)
	sortedEq("loop", `{"over":[5,9],"x":1}`, `{"over":[5,9],"x":5}`, `{"over":[5,9],"x":9}`)
	sortedEq("helper", `{"x":100}`, `{"x":2}`)
	sortedEq("child", `{"argv":["3"],"i":0}`, `{"argv":["3"],"i":1}`, `{"argv":["3"],"i":2}`)
	perThread := map[string]int{}
	for _, d := range data["thread"] {
		var v struct{ Thread string }
		json.Unmarshal([]byte(d), &v)
		perThread[v.Thread]++
	}
	if len(perThread) != 4 || perThread["t0"] != 100 || perThread["t3"] != 100 {
		t.Errorf("threads: %v", perThread)
	}
	sameTree(t, "the reproduction", afterPlain, treeHash(t, proj, nil))

	// Past the session's cap a logpoint holds its events back and reports
	// the count, as the code helpers do: 4 threads × 100 hits in one process.
	if r := e.runIn(proj, "reproduce", "--session", s.SessionID, "--max-per-location", "150", "--", py, "everything.py"); r.Code != 0 ||
		!strings.Contains(r.Stdout, "250 events at "+locs["thread"]+" (thread): the helper's cap of 150 per location per process was reached") {
		t.Errorf("held back: %s%s", r.Stdout, r.Stderr)
	}
	if n := countLabel(e.Events(s.SessionID), "thread"); n != 150 {
		t.Errorf("thread events past the cap: %d, want 150", n)
	}

	// Removed, they are gone from the next run; the project has nothing to clean.
	e.MustRun("logpoint", "remove", "--session", s.SessionID, "--all")
	r = e.runIn(proj, "reproduce", "--session", s.SessionID, "--json", "--", py, "everything.py")
	if r.Code != 0 || len(e.Events(s.SessionID)) != 0 {
		t.Fatalf("after remove --all: %d events\n%s", len(e.Events(s.SessionID)), r.Stdout)
	}
	sameTree(t, "after removal", afterPlain, treeHash(t, proj, nil))
}

func countLabel(evs []map[string]any, label string) int {
	n := 0
	for _, ev := range evs {
		if ev["hypothesisId"] == label {
			n++
		}
	}
	return n
}

// slicesWithout drops the variables with these names or name prefixes.
func slicesWithout(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			if k == n || (strings.HasSuffix(n, "_") && strings.HasPrefix(k, n)) {
				drop = true
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
