package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Go and TypeScript examples (the Python one is the demo's): each bug
// is real, shows its symptom, is revealed by the runtime values one probe
// records, is fixed by the change the evidence points to, and the probes
// come out again leaving only the fix.

// copyDir copies a folder of small files.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// run runs a command in dir and returns its stdout; it fails the test on error.
func run(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%v: %v\n%s%s", argv, err, out, msg)
	}
	return string(out)
}

// edit replaces the one occurrence of old in a file.
func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), old) != 1 {
		t.Fatalf("%s: %q occurs %d times, want once", file, old, strings.Count(string(b), old))
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// probe pastes the call template above the line that reads before (same
// indentation), with its location set to the call's own line.
func probe(t *testing.T, file, rel, before, call, hyp, msg, data string) {
	t.Helper()
	b, _ := os.ReadFile(file)
	text := string(b)
	i := strings.Index(text, before)
	if i < 0 || strings.Count(text, before) != 1 {
		t.Fatalf("%s: %q must occur once", file, before)
	}
	line := strings.Count(text[:i], "\n") + 1
	indent := before[:len(before)-len(strings.TrimLeft(before, " \t"))]
	callLines := strings.Split(strings.TrimRight(call, "\n"), "\n")
	offset := 0
	for j, l := range callLines {
		if strings.Contains(l, "__LOCATION__") {
			offset = j
		}
	}
	block := strings.NewReplacer("__HYPOTHESIS_ID__", hyp, "__LOCATION__", fmt.Sprintf("%s:%d", rel, line+offset),
		"__MESSAGE__", msg, "__DATA_EXPRESSION__", data).Replace(strings.Join(callLines, "\n"))
	var b2 strings.Builder
	for _, l := range strings.Split(block, "\n") {
		b2.WriteString(indent + l + "\n")
	}
	edit(t, file, before, b2.String()+before)
}

func TestExampleGo(t *testing.T) {
	requireRuntimes(t, []string{"go"})
	dir := t.TempDir()
	copyDir(t, "../examples/go", dir)
	if out := run(t, dir, "go", "run", "."); !strings.Contains(out, "editor   posts:publish  denied\n") {
		t.Fatalf("the symptom is gone:\n%s", out)
	}
	orig, _ := os.ReadFile(filepath.Join(dir, "main.go"))

	e := NewEnv(t)
	s := e.Create()
	// The helper takes the package of the folder it is written for; Go has no
	// exit hook, so main flushes it (a region of the helper's own).
	helper := e.MustRun("template", "--language", "go", "--ingest", "file", "--section", "helper", "--session", s.SessionID, "--dir", dir)
	if !strings.Contains(helper, "\npackage main\n") {
		t.Fatalf("the helper does not name the example's package:\n%.300s", helper)
	}
	os.WriteFile(filepath.Join(dir, "agent_debug_log.go"), []byte(helper), 0o644)
	call := e.MustRun("template", "--language", "go", "--ingest", "file", "--section", "call")
	mainGo := filepath.Join(dir, "main.go")
	edit(t, mainGo, "func main() {\n", "func main() {\n\t// #region agent log helper\n\tdefer agentLogFlush()\n\t// #endregion\n")
	// H1: the decoy, the wildcard matcher. H2: the grants a role has when it
	// is resolved, and H3: the grants it has when it is checked.
	probe(t, mainGo, "main.go", "\tr.cache[name] = all\n", call, "H2", "grants resolved",
		`map[string]any{"role": name, "grants": append([]string(nil), all...)}`)
	probe(t, mainGo, "main.go", "\tok, err := path.Match(grant, action)\n", call, "H1", "grant matched", `map[string]any{"grant": grant, "action": action}`)
	probe(t, mainGo, "main.go", "\tfor _, g := range r.grants(role) {\n", call, "H3", "grants checked",
		`map[string]any{"role": role, "action": action, "grants": r.grants(role)}`)
	run(t, dir, "go", "vet", ".")
	run(t, dir, "go", "run", ".")

	q := func(program string, args ...string) string {
		return e.MustRun(append([]string{"query", "--session", s.SessionID}, append(args, program)...)...)
	}
	if out := q(`select(.data.role == "editor") | .data.grants | join(",")`, "--hypothesis", "H2"); !strings.Contains(out, `"posts:read,posts:comment,drafts:*,posts:publish"`) {
		t.Errorf("at resolution the editor should hold posts:publish:\n%s", out)
	}
	if out := q(`select(.data.role == "editor") | .data.grants | join(",")`, "--hypothesis", "H3"); !strings.Contains(out, `"posts:read,posts:comment,drafts:*,posts:approve"`) {
		t.Errorf("at the check the editor's grants should have changed to approve:\n%s", out)
	}

	edit(t, mainGo, "\t\tall = r.grants(role.Parent)\n", "\t\tall = slices.Clone(r.grants(role.Parent))\n")
	e.MustRun("reset", "--session", s.SessionID)
	if out := run(t, dir, "go", "run", "."); !strings.Contains(out, "editor   posts:publish  allowed\n") {
		t.Fatalf("the fix did not fix it:\n%s", out)
	}
	if out := q(`select(.data.role == "editor") | .data.grants | join(",")`, "--hypothesis", "H3"); !strings.Contains(out, `"posts:read,posts:comment,drafts:*,posts:publish"`) {
		t.Errorf("after the fix the editor should keep posts:publish:\n%s", out)
	}

	removeProbesAndCheck(t, e, dir, "agent_debug_log.go")
	fixed, _ := os.ReadFile(mainGo)
	if want := strings.Replace(string(orig), "\t\tall = r.grants(role.Parent)\n", "\t\tall = slices.Clone(r.grants(role.Parent))\n", 1); string(fixed) != want {
		t.Errorf("after removing the probes main.go should hold the fix alone:\n%s", fixed)
	}
	run(t, dir, "go", "vet", ".")
}

func TestExampleTypeScript(t *testing.T) {
	tsc, _ := filepath.Abs("../tools/node_modules/.bin/tsc")
	requireRuntimes(t, []string{"node", tsc})
	dir := t.TempDir()
	copyDir(t, "../examples/typescript", dir)
	os.RemoveAll(filepath.Join(dir, "build"))
	build := func() string {
		run(t, dir, tsc, "-p", ".")
		return run(t, dir, "node", "build/main.js")
	}
	if out := build(); !strings.Contains(out, "/search  n=20  p50 77 ms  p95 95 ms\n") {
		t.Fatalf("the symptom is gone:\n%s", out)
	}
	mainTs := filepath.Join(dir, "src", "main.ts")
	orig, _ := os.ReadFile(mainTs)

	e := NewEnv(t)
	s := e.Create()
	// A Node program: the helper stays outside the project; main.ts gets
	// its import line.
	imp := e.MustRun("template", "--language", "typescript", "--ingest", "file", "--section", "import", "--session", s.SessionID)
	edit(t, mainTs, "import { exportText } from \"./export\";\n", "import { exportText } from \"./export\";\n"+imp)
	call := e.MustRun("template", "--language", "typescript", "--ingest", "file", "--section", "call")
	// H1: the decoy, the percentile rank. H2: what the sort produced.
	probe(t, mainTs, "src/main.ts", "  const p50 = percentile(sorted, 50);\n", call, "H2", "durations sorted",
		`{ endpoint, sorted, types: [...new Set(sorted.map((d) => typeof d))] }`)
	probe(t, mainTs, "src/main.ts", "  return `${endpoint.padEnd(8)}", call, "H1", "percentiles picked",
		`{ endpoint, n: sorted.length, p50, p95 }`)
	build()

	out := e.MustRun("query", "--session", s.SessionID, "--hypothesis", "H2", `select(.data.endpoint == "/search") | {types: .data.types, first: .data.sorted[0:4]}`)
	if !strings.Contains(out, `{"first":["1020","1100","120","130"],"types":["string"]}`) {
		t.Errorf("the /search durations should show up as strings in text order:\n%s", out)
	}

	edit(t, mainTs, "  return JSON.parse(text) as Sample[];\n", "  return (JSON.parse(text) as Sample[]).map((s) => ({ ...s, durationMs: Number(s.durationMs) }));\n")
	e.MustRun("reset", "--session", s.SessionID)
	if out := build(); !strings.Contains(out, "/search  n=20  p50 180 ms  p95 1020 ms\n") {
		t.Fatalf("the fix did not fix it:\n%s", out)
	}
	out = e.MustRun("query", "--session", s.SessionID, "--hypothesis", "H2", `select(.data.endpoint == "/search") | .data.types`)
	if !strings.Contains(out, `["number"]`) {
		t.Errorf("after the fix the durations should be numbers:\n%s", out)
	}

	removeProbesAndCheck(t, e, dir, "")
	fixed, _ := os.ReadFile(mainTs)
	if want := strings.Replace(string(orig), "  return JSON.parse(text) as Sample[];\n", "  return (JSON.parse(text) as Sample[]).map((s) => ({ ...s, durationMs: Number(s.durationMs) }));\n", 1); string(fixed) != want {
		t.Errorf("after removing the probes main.ts should hold the fix alone:\n%s", fixed)
	}
}

// removeProbesAndCheck removes every agent log region under dir in one
// command, which also deletes the helper file if there is one (a file left
// with nothing but its package clause) and ends with the proof --check
// gives; a separate --check agrees.
func removeProbesAndCheck(t *testing.T, e *Env, dir, helperFile string) {
	t.Helper()
	out := e.MustRun("probes", dir, "--remove", "--yes")
	if !strings.Contains(out, "\nCHECK passed: no agent log region or broken marker remains.\n") {
		t.Fatalf("probes --remove --yes:\n%s", out)
	}
	if helperFile != "" {
		if _, err := os.Stat(filepath.Join(dir, helperFile)); !os.IsNotExist(err) || !strings.Contains(out, "\nDeleted "+filepath.ToSlash(filepath.Join(dir, helperFile))+": ") {
			t.Fatalf("the helper file %s was not deleted (%v):\n%s", helperFile, err, out)
		}
	}
	if r := e.Run("probes", dir, "--check"); r.Code != 0 || !strings.Contains(r.Stdout, "CHECK passed") {
		t.Fatalf("probes --check: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
