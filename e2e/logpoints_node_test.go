package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The Node.js logpoint hook, live, with the node on PATH and TypeScript
// through tsx (scripts/setup.d/tsx.sh). The program
// (testdata/logpoints/node) has a logpoint of every kind: the main script's
// top level, a required module's top level (with the CommonJS wrapper's
// exports in scope), a function hit 200 times a run (past the hook's first 100
// direct writes, so batches and the exit flush carry the rest), a method, a
// closure, a loop, an async function, an expression that throws, an ES
// module imported later (a function and its top level), a worker thread, a
// child node process, a never-called line, a file never loaded, a line that
// became blank after the logpoint was added, a file run in a vm context of
// its own (as Jest runs tests: reported, not silently never hit), and two
// TypeScript files run through tsx and compiled by tsc --sourceMap. Lines that cannot take a logpoint are refused when added.
// The program's output and exit status must be the same with and without
// the hook, however it ends, and the project's files byte-identical.
func TestLogpointsNode(t *testing.T) {
	requireRuntimes(t, []string{"node"})
	tsx, _ := filepath.Abs("../tools/tsx/node_modules/.bin/tsx")
	if _, err := os.Stat(tsx); err != nil {
		missingRuntime(t, "tsx is missing (scripts/setup.d/tsx.sh installs it in tools/tsx)")
	}
	e := NewEnv(t)
	proj := filepath.Join(t.TempDir(), "proj")
	if err := os.CopyFS(proj, os.DirFS("testdata/logpoints/node")); err != nil {
		t.Fatal(err)
	}
	// A TypeScript project has its loader in node_modules: the add-time
	// check compiles a .ts file with the esbuild it finds there.
	if err := os.Symlink(filepath.Dir(filepath.Dir(tsx)), filepath.Join(proj, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cr := e.runIn(proj, "create", "--json")
	var created struct{ Result Session }
	if cr.Code != 0 || json.Unmarshal([]byte(cr.Stdout), &created) != nil {
		t.Fatalf("create: %s%s", cr.Stdout, cr.Stderr)
	}
	id := created.Result.SessionID

	// Refused when added, each with the line to use.
	for at, want := range map[string]string{
		"lib.js:3":     "--at lib.js:3: line 3 has no code V8 can stop at (a declaration line such as function f() {, a brace, a type, the inside of a string or expression that starts higher up, or code in a function nothing refers to); the next line that can take a logpoint is 4",
		"lib.js:2":     "--at lib.js:2: line 2 is a comment; the next line that can take a logpoint is 4",
		"lib.js:7":     "--at lib.js:7: line 7 is blank; the next line that can take a logpoint is 10",
		"ts/util.ts:2": "--at ts/util.ts:2: line 2 has no code V8 can stop at",
	} {
		r := e.runIn(proj, "logpoint", "add", "--session", id, "--at", at, "--hypothesis", "H1", "--message", "m")
		if r.Code == 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("add %s: exit %d %s, want %q", at, r.Code, r.Stderr, want)
		}
	}
	if r := e.runIn(proj, "logpoint", "add", "--session", id, "--at", "lib.js:4", "--hypothesis", "H1", "--message", "m", "--data", "x); y; (z"); r.Code == 0 ||
		!strings.Contains(r.Stderr, "--data is not a JavaScript expression") {
		t.Errorf("bad data: %d %s", r.Code, r.Stderr)
	}

	// tsc, from the shared tools: the add-time check of a .ts file where
	// only typescript can be found, and TypeScript compiled with source maps.
	tsc, _ := filepath.Abs("../tools/node_modules/.bin/tsc")
	if _, err := os.Stat(tsc); err != nil {
		missingRuntime(t, "tsc is missing (scripts/setup.sh installs it in tools/node_modules)")
	}
	// Where only typescript is found (no esbuild), the check compiles with it.
	tsOnly := filepath.Join(t.TempDir(), "tsonly")
	os.MkdirAll(tsOnly, 0o755)
	if err := os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(tsc))), filepath.Join(tsOnly, "node_modules")); err != nil {
		t.Fatal(err)
	}
	utilTS, _ := os.ReadFile(filepath.Join(proj, "ts", "util.ts"))
	os.WriteFile(filepath.Join(tsOnly, "util.ts"), utilTS, 0o644)
	if r := e.runIn(tsOnly, "logpoint", "add", "--session", id, "--at", "util.ts:2", "--hypothesis", "H1", "--message", "m"); r.Code == 0 ||
		!strings.Contains(r.Stderr, "line 2 has no code V8 can stop at") {
		t.Errorf("typescript check, a type's line: %d %s", r.Code, r.Stderr)
	}
	if r := e.runIn(tsOnly, "logpoint", "add", "--session", id, "--at", "util.ts:9", "--hypothesis", "tsonly", "--message", "m"); r.Code != 0 ||
		strings.Contains(r.Stdout, "Not checked") {
		t.Errorf("typescript check, a statement: %d %s%s", r.Code, r.Stdout, r.Stderr)
	}

	// changed.js:2 holds code when its logpoint is added, and is blank when
	// the program runs: the hook reports why it could not place it.
	changed := filepath.Join(proj, "changed.js")
	final, _ := os.ReadFile(changed)
	os.WriteFile(changed, []byte("'use strict';\nconst Z = 3;\nconst Y = 2;\nmodule.exports = Y;\n"), 0o644)
	if r := e.runIn(proj, "logpoint", "add", "--session", id, "--at", "changed.js:2", "--hypothesis", "changed", "--message", "changed"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	os.WriteFile(changed, final, 0o644)
	locs := addMarkedLogpoints(t, e, id, proj, "// LP:", func(p string) bool {
		ext := filepath.Ext(p)
		return ext == ".js" || ext == ".mjs" || ext == ".ts" || ext == ".mts"
	}, true)
	// A second logpoint on a line that has one: V8 takes one breakpoint per
	// place, so the hook puts both in one condition.
	for _, lp := range [][]string{{locs["function"], "function2", "({y: x + 1})"}, {locs["tsloop"], "tsloop2", ""}, {locs["method"], "unseen", "({n: nowhere})"}} {
		args := []string{"logpoint", "add", "--session", id, "--at", lp[0], "--hypothesis", lp[1], "--message", lp[1]}
		if lp[2] != "" {
			args = append(args, "--data", lp[2])
		}
		if r := e.runIn(proj, args...); r.Code != 0 {
			t.Fatalf("%v: %s", args, r.Stderr)
		}
		locs[lp[1]] = lp[0]
	}

	skipLinks := func(rel string) bool { return rel == "node_modules" }
	source := treeHash(t, proj, skipLinks)
	base := slicesWithout(os.Environ(), "NODE_OPTIONS", "PYTHONPATH", "AGENT_DEBUG_MODE_")
	hooked := sessionEnv(t, e, id, base)

	// The same TypeScript compiled by tsc with source maps, outside the
	// project, run by plain node.
	dist := filepath.Join(t.TempDir(), "dist")
	if out, err := exec.Command(tsc, "--sourceMap", "--outDir", dist, "--module", "commonjs", "--target", "es2020", filepath.Join(proj, "ts", "app.ts")).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}

	type scenario struct {
		name string
		args []string
		want string
	}
	scenarios := []scenario{
		{"main", []string{"node", "main.js"}, "exit 0"},
		{"uncaught exception", []string{"node", "main.js", "raise"}, "exit 1"},
		{"process.exit(3)", []string{"node", "main.js", "exit3"}, "exit 3"},
		{"unhandled rejection", []string{"node", "main.js", "reject"}, "exit 1"},
		{"ES module main", []string{"node", "later.mjs"}, "exit 0"},
		{"TypeScript through tsx", []string{tsx, "ts/app.ts"}, "exit 0"},
		{"a TypeScript ES module through tsx", []string{tsx, "ts/esm.mts"}, "exit 0"},
		{"TypeScript compiled by tsc --sourceMap", []string{"node", filepath.Join(dist, "app.js")}, "exit 0"},
	}
	plain := map[string]pyRun{}
	for _, sc := range scenarios {
		plain[sc.name] = runPython(t, proj, base, sc.args[0], sc.args[1:]...)
		if plain[sc.name].status != sc.want {
			t.Fatalf("%s without the hook: %s, want %s\n%s", sc.name, plain[sc.name].status, sc.want, plain[sc.name].stderr)
		}
	}
	if !strings.Contains(plain["uncaught exception"].stderr, "Error: boom on purpose\n    at Object.boom ("+filepath.Join(proj, "lib.js")+":47:9)") ||
		!strings.Contains(plain["unhandled rejection"].stderr, "rejected on purpose") || !strings.Contains(plain["main"].stdout, "worker said 6") ||
		!strings.Contains(plain["TypeScript through tsx"].stdout, "ts total 10") {
		t.Fatalf("the program does not do what this test relies on:\n%+v", plain)
	}
	e.MustRun("reset", "--session", id)
	for _, sc := range scenarios {
		got := runPython(t, proj, hooked, sc.args[0], sc.args[1:]...)
		if got != plain[sc.name] {
			t.Errorf("%s: the hook changed the run\nwithout: %s\n%s\n%s\nwith: %s\n%s\n%s", sc.name,
				plain[sc.name].status, plain[sc.name].stdout, plain[sc.name].stderr, got.status, got.stdout, got.stderr)
		}
	}
	sameTree(t, "the runs with the hook", source, treeHash(t, proj, skipLinks))

	var list struct {
		Logpoints []struct {
			HypothesisID string `json:"hypothesisId"`
			State        string `json:"state"`
			Hits         int64  `json:"hits"`
			Installed    int    `json:"installedProcesses"`
			Reason       string `json:"reason"`
		} `json:"logpoints"`
	}
	e.JSON(&list, "logpoint", "list", "--session", id)
	hits := map[string]int64{}
	installed := map[string]int{}
	for _, lp := range list.Logpoints {
		hits[lp.HypothesisID] = lp.Hits
		installed[lp.HypothesisID] = lp.Installed
	}
	// Four runs of main.js (each: a child.js 3 and a worker of 4), one of
	// later.mjs, two of ts/app.ts (tsx, tsc), one of ts/esm.mts (two items
	// through util.ts).
	for label, want := range map[string]int64{"top": 4, "function": 800, "method": 4, "closure": 8, "loop": 12, "async": 8, "throws": 4,
		"boom": 1, "moduletop": 4, "esm": 4, "esmtop": 5, "child": 12, "worker": 16, "tsloop": 6, "tsloop2": 6, "function2": 800, "unseen": 4, "tstop": 2, "tsesm": 2, "tsonly": 0, "neverhit": 0, "unused": 0, "changed": 0, "sandboxed": 0} {
		if hits[label] != want {
			t.Errorf("%s: %d hits, want %d", label, hits[label], want)
		}
	}
	// One report per process or thread: four main processes, four workers.
	if installed["worker"] != 4 || installed["top"] != 4 || installed["neverhit"] != 4 || installed["child"] != 4 {
		t.Errorf("installed in %v processes", installed)
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
	r := e.runIn(proj, "reproduce", "--session", id, "--json", "--", "node", "main.js")
	var envl struct{ Result json.RawMessage }
	json.Unmarshal([]byte(r.Stdout), &envl)
	if err := json.Unmarshal(envl.Result, &rep); err != nil || r.Code != 0 || rep.Run.ExitCode != 0 {
		t.Fatalf("reproduce: %v %s%s", err, r.Stdout, r.Stderr)
	}
	states := map[string]string{}
	for _, lp := range rep.Logpoints {
		states[lp.HypothesisID] = fmt.Sprintf("%s %d %s", lp.State, lp.Hits, lp.Reason)
	}
	for label, want := range map[string]string{
		"top": "hit 1 ", "function": "hit 200 ", "worker": "hit 4 ", "child": "hit 3 ",
		"neverhit":  "never_hit 0 ",
		"unused":    "never_installed 0 its file was not loaded in this cycle",
		"tsloop":    "never_installed 0 its file was not loaded in this cycle",
		"changed":   "never_installed 0 line 2 is blank; the next line that can take a logpoint is 3",
		"sandboxed": "never_installed 0 sandboxed.js was run in a vm context of its own (a test runner's sandbox, such as Jest's), where a logpoint cannot record; run that code outside the sandbox, or use a code probe",
	} {
		if states[label] != want {
			t.Errorf("reproduce: %s is %q, want %q", label, states[label], want)
		}
	}
	data := map[string][]string{}
	for _, ev := range e.Events(id) {
		h := ev["hypothesisId"].(string)
		if ev["location"] != locs[h] {
			t.Errorf("%s: location %v, want %s", h, ev["location"], locs[h])
		}
		b, _ := json.Marshal(ev["data"])
		data[h] = append(data[h], string(b))
	}
	for label, want := range map[string]string{
		"top":       `{"argv":2}`,
		"method":    `{"amount":4,"before":10}`,
		"throws":    `{"agentDebugLogpointError":"TypeError: Cannot read properties of undefined (reading 'deeper')"}`,
		"esm":       `{"s":"hi"}`,
		"esmtop":    `null`,
		"moduletop": `{"keys":0}`,
		"unseen":    `{"agentDebugLogpointError":"ReferenceError: nowhere is not defined (not visible here: a typo, or an outer variable this function does not use, which V8 does not keep)"}`,
	} {
		if len(data[label]) != 1 || data[label][0] != want {
			t.Errorf("%s: data %v, want [%s]", label, data[label], want)
		}
	}
	sortedEq := func(label string, want ...string) {
		t.Helper()
		got := append([]string(nil), data[label]...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: data %v, want %v", label, got, want)
		}
	}
	sortedEq("closure", `{"count":0,"step":2}`, `{"count":2,"step":2}`)
	sortedEq("loop", `{"n":3,"total":0,"x":1}`, `{"n":3,"total":1,"x":2}`, `{"n":3,"total":5,"x":3}`)
	sortedEq("async", `{"n":1}`, `{"n":2}`)
	sortedEq("child", `{"argv":["3"],"i":0}`, `{"argv":["3"],"i":1}`, `{"argv":["3"],"i":2}`)
	sortedEq("worker", `{"acc":0,"i":0}`, `{"acc":0,"i":1}`, `{"acc":1,"i":2}`, `{"acc":3,"i":3}`)
	if n := len(data["function"]); n != 200 || data["function"][199] != `{"x":199}` {
		t.Errorf("function: %d events, the last %v", n, data["function"][n-1:])
	}
	if n := len(data["function2"]); n != 200 || data["function2"][199] != `{"y":200}` {
		t.Errorf("function2: %d events, the last %v", n, data["function2"][n-1:])
	}

	// TypeScript: the events carry the .ts file's own lines.
	r = e.runIn(proj, "reproduce", "--session", id, "--json", "--", tsx, "ts/app.ts")
	if r.Code != 0 {
		t.Fatalf("reproduce tsx: %s%s", r.Stdout, r.Stderr)
	}
	data = map[string][]string{}
	for _, ev := range e.Events(id) {
		h := ev["hypothesisId"].(string)
		if ev["location"] != locs[h] {
			t.Errorf("%s: location %v, want %s", h, ev["location"], locs[h])
		}
		b, _ := json.Marshal(ev["data"])
		data[h] = append(data[h], string(b))
	}
	sortedEq("tsloop", `{"name":"a","sum":0}`, `{"name":"b","sum":4}`)
	sortedEq("tstop", `{"n":2}`)
	sameTree(t, "the reproductions", source, treeHash(t, proj, skipLinks))

	// Past the session's cap a logpoint holds its events back and reports
	// the count: 200 hits in one process.
	if r := e.runIn(proj, "reproduce", "--session", id, "--max-per-location", "150", "--", "node", "main.js"); r.Code != 0 ||
		!strings.Contains(r.Stdout, "50 events at "+locs["function"]+" (function): the helper's cap of 150 per location per process was reached") {
		t.Errorf("held back: %s%s", r.Stdout, r.Stderr)
	}
	if n := countLabel(e.Events(id), "function"); n != 150 {
		t.Errorf("function events past the cap: %d, want 150", n)
	}

	// Past the cap the hook counts 1,000 held-back hits, then takes the
	// breakpoint out: a line hit 5,000 times runs at full speed after that.
	if r := e.runIn(proj, "reproduce", "--session", id, "--max-per-location", "2", "--", "node", "child.js", "5000"); r.Code != 0 ||
		!strings.Contains(r.Stdout, "1,000 events at "+locs["child"]+" (child): the helper's cap of 2 per location per process was reached") {
		t.Errorf("held back past the cap: %s%s", r.Stdout, r.Stderr)
	}
	if n := countLabel(e.Events(id), "child"); n != 2 {
		t.Errorf("child events with a cap of 2: %d", n)
	}

	// Removed, they are gone from the next run; the project has nothing to clean.
	e.MustRun("logpoint", "remove", "--session", id, "--all")
	r = e.runIn(proj, "reproduce", "--session", id, "--json", "--", "node", "main.js")
	if r.Code != 0 || len(e.Events(id)) != 0 {
		t.Fatalf("after remove --all: %d events\n%s", len(e.Events(id)), r.Stdout)
	}
	sameTree(t, "after removal", source, treeHash(t, proj, skipLinks))
}

// TestLogpointNodeHeldBackBeforeKill: past the cap the hook sends the
// held-back count as it grows, from its writer's timer, so a program killed
// by SIGKILL (no 'exit' event) has reported it: here 48 hits past a cap of 2.
func TestLogpointNodeHeldBackBeforeKill(t *testing.T) {
	requireRuntimes(t, []string{"node"})
	e := NewEnv(t)
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "hot.js"), `for (let i = 0; i < 50; i++) {
  globalThis.last = i;
}
setTimeout(() => process.kill(process.pid, 'SIGKILL'), 400);
`)
	cr := e.runIn(proj, "create", "--json")
	var created struct{ Result Session }
	if cr.Code != 0 || json.Unmarshal([]byte(cr.Stdout), &created) != nil {
		t.Fatalf("create: %s%s", cr.Stdout, cr.Stderr)
	}
	id := created.Result.SessionID
	if r := e.runIn(proj, "logpoint", "add", "--session", id, "--at", "hot.js:2", "--hypothesis", "H1", "--message", "hot", "--data", "({i})"); r.Code != 0 {
		t.Fatalf("logpoint add: %s%s", r.Stdout, r.Stderr)
	}
	r := e.runIn(proj, "reproduce", "--session", id, "--max-per-location", "2", "--", "node", "hot.js")
	if r.Code != 0 || !strings.Contains(r.Stdout, "48 events at hot.js:2 (H1): the helper's cap of 2 per location per process was reached") {
		t.Errorf("held back before SIGKILL: %s%s", r.Stdout, r.Stderr)
	}
}
