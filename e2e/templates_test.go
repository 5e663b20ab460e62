package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// templateCase is one language + transport proven live: a test program with
// markers where the rendered helper and calls go, how to build and run it,
// and the data expressions, written in that language, for each standard call.
//
// Program contract (testdata/templates/<file>):
//   - a line containing @HELPER@ is replaced by the helper template;
//   - a line containing @CALL:<name>@ is replaced by the call template, with
//     data from Exprs[name] (the line's indentation is kept);
//   - the @CALL:thread@ call runs in 4 threads × 25 iterations with data
//     {"thread": t, "i": i} (where the language has threads; else 1 × 25);
//   - the program prints exactly "program done" and exits 0.
type templateCase struct {
	Language, Ingest string
	Runtimes         []string   // executables that must be on PATH
	Source           string     // file under testdata/templates
	FileName         string     // the program's file name in the work dir
	Build            [][]string // commands run in the work dir first
	Run              []string   // the command that runs the program
	Exprs            map[string]string
	Threads          int // threads in the thread section (1 when the language has none)
	Timeout          time.Duration
	HelperFile       string   // when set, the helper goes into this file of the work dir, not at @HELPER@ (its import, if any, goes there)
	TemplateArgs     []string // extra template flags (e.g. --package for Go and Java)
	Variant          string   // names a second build of the same combination (e.g. another compiler)
	// Compiled names the file the runtime reports locations in when it is
	// not FileName (TypeScript run without source maps reports its .js):
	// the expected line is where that file has the call.
	Compiled string
	// NotInstallableHere marks a runtime this project's machines cannot install:
	// the case skips even under DEBUG_MODE_REQUIRE_RUNTIMES.
	NotInstallableHere bool
	// Skip, when set and it returns a reason, skips the case (e.g. the
	// runtime here is too old for what the case proves).
	Skip func() string
}

var templateCases []templateCase

func registerTemplateCase(c templateCase) { templateCases = append(templateCases, c) }

// requireRuntimes skips when a runtime is missing, unless CI demands them.
func requireRuntimes(t *testing.T, names []string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			missingRuntime(t, "runtime "+n+" is missing")
		}
	}
}

// missingRuntime skips the test because what it names is missing here, or
// fails it when DEBUG_MODE_REQUIRE_RUNTIMES=1 (CI), where everything must run.
func missingRuntime(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("DEBUG_MODE_REQUIRE_RUNTIMES") == "1" {
		t.Fatalf("%s and DEBUG_MODE_REQUIRE_RUNTIMES=1 (install it with scripts/setup.sh)", what)
	}
	t.Skipf("%s (scripts/setup.sh installs it)", what)
}

const trickyString = "quote\" backslash\\ newline\n tab\t ctrl\u0001 é 日本 🎉"

func TestTemplatesLive(t *testing.T) {
	sort.Slice(templateCases, func(i, j int) bool { return templateCases[i].Language < templateCases[j].Language })
	for _, c := range templateCases {
		name := c.Language + "+" + c.Ingest
		if c.Variant != "" {
			name += "+" + c.Variant
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, n := range c.Runtimes {
				if _, err := exec.LookPath(n); err != nil && c.NotInstallableHere {
					t.Skipf("runtime %s not installed (it cannot be installed on this project's machines)", n)
				}
			}
			requireRuntimes(t, c.Runtimes)
			if c.Skip != nil {
				if reason := c.Skip(); reason != "" {
					t.Skip(reason)
				}
			}
			runTemplateCase(t, c)
		})
	}
}

type renderedTemplate struct {
	Helper     string `json:"helper"`
	Import     string `json:"import"`
	HelperPath string `json:"helperPath"`
	Call       string `json:"call"`
	Placement  struct {
		Helper     string `json:"helper"`
		HelperFile string `json:"helperFile"`
	} `json:"placement"`
	Regions struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"regionMarkers"`
}

var markerRE = regexp.MustCompile(`@CALL:([a-z_]+)@`)

// builtProgram is what buildProgram wrote: the call names in order and the
// line of each call's code (the line the helper must report).
type builtProgram struct {
	names []string
	lines map[string]int
}

// buildProgram writes the program with the helper (or its import) and calls
// in place. shift adds that many lines above the first call (a region of
// other code and blank lines), as an edit after the first run would.
func buildProgram(t *testing.T, c templateCase, tmpl renderedTemplate, dir string, shift int) builtProgram {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "templates", c.Source))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tmpl.Helper+tmpl.Call, "__PACKAGE_NAME__") {
		t.Fatal("template left __PACKAGE_NAME__ in the helper")
	}
	// The machine-readable placement is the one this program compiles with.
	if own := tmpl.Placement.Helper == "own-file"; own != (c.HelperFile != "") || own && tmpl.Placement.HelperFile != path.Base(c.HelperFile) {
		t.Fatalf("placement says helper %q in %q; this case saves it in %q", tmpl.Placement.Helper, tmpl.Placement.HelperFile, c.HelperFile)
	}
	if outside := tmpl.Placement.Helper == "outside-project"; outside != (tmpl.Helper == "" && tmpl.HelperPath != "" && tmpl.Import != "") {
		t.Fatalf("placement says helper %q, but helper %d bytes, helper path %q, import %q", tmpl.Placement.Helper, len(tmpl.Helper), tmpl.HelperPath, tmpl.Import)
	}
	for _, f := range []string{c.HelperFile, c.FileName} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if c.HelperFile != "" {
		if err := os.WriteFile(filepath.Join(dir, c.HelperFile), []byte(tmpl.Helper), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	callLine := 0 // the call template's line with the call itself
	for i, l := range strings.Split(tmpl.Call, "\n") {
		if strings.Contains(l, "__HYPOTHESIS_ID__") {
			callLine = i
		}
	}
	var out strings.Builder
	b := builtProgram{lines: map[string]int{}}
	lineNo := 0
	sc := bufio.NewScanner(strings.NewReader(string(src)))
	for sc.Scan() {
		line := sc.Text()
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		switch {
		case strings.Contains(line, "@HELPER@"):
			switch {
			case tmpl.Import != "":
				out.WriteString(withNewline(tmpl.Import))
			case c.HelperFile == "":
				out.WriteString(withNewline(tmpl.Helper))
			}
			if shift > 0 { // lines added above every probe: an empty region and blank lines
				out.WriteString(tmpl.Regions.Start + "\n" + tmpl.Regions.End + "\n" + strings.Repeat("\n", shift-2))
			}
		case markerRE.MatchString(line):
			name := markerRE.FindStringSubmatch(line)[1]
			expr, ok := c.Exprs[name]
			if !ok {
				continue // this language has no such call
			}
			b.names = append(b.names, name)
			b.lines[name] = lineNo + 1 + callLine
			call := strings.NewReplacer(
				"__HYPOTHESIS_ID__", "H-"+name,
				"__LOCATION__", fmt.Sprintf("%s:%d", c.FileName, b.lines[name]),
				"__MESSAGE__", "call "+name,
				"__DATA_EXPRESSION__", expr,
				"__DATA_JSON_EXPRESSION__", expr,
			).Replace(tmpl.Call)
			for _, cl := range strings.Split(strings.TrimRight(call, "\n"), "\n") {
				out.WriteString(indent + cl + "\n")
			}
		default:
			out.WriteString(line + "\n")
		}
		lineNo = strings.Count(out.String(), "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, c.FileName), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// expectedLocations is where each call's events must say they come from,
// relative to the project root (the program's folder): the program's own
// file and line, or the compiled file's line the runtime reports.
func expectedLocations(t *testing.T, c templateCase, b builtProgram, dir string) map[string]string {
	t.Helper()
	want := map[string]string{}
	for _, name := range b.names {
		want[name] = fmt.Sprintf("%s:%d", c.FileName, b.lines[name])
	}
	if c.Compiled == "" {
		return want
	}
	compiled, err := os.ReadFile(filepath.Join(dir, c.Compiled))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(compiled), "\n") {
		for _, name := range b.names {
			if strings.Contains(l, `"H-`+name+`"`) {
				want[name] = fmt.Sprintf("%s:%d", c.Compiled, i+1)
			}
		}
	}
	return want
}

// runProgram builds and runs the program; it returns stdout.
func runProgram(t *testing.T, c templateCase, dir string) string {
	t.Helper()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 3 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, argv := range append(append([][]string{}, c.Build...), c.Run) {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+os.Getenv("HOME"))
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			src, _ := os.ReadFile(filepath.Join(dir, c.FileName))
			t.Fatalf("%v: %v\nstdout: %s\nstderr: %s\nprogram:\n%s", argv, err, stdout.String(), stderr.String(), src)
		}
		if reflect.DeepEqual(argv, c.Run) {
			if stderr.Len() > 0 {
				t.Logf("program stderr: %s", stderr.String())
			}
			return stdout.String()
		}
	}
	return ""
}

func runTemplateCase(t *testing.T, c templateCase) {
	e := NewEnv(t)
	dir := t.TempDir() // the program's folder is the session's project root
	s := e.CreateAt(dir)
	var tmpl renderedTemplate
	e.JSON(&tmpl, append([]string{"template", "--language", c.Language, "--ingest", c.Ingest, "--session", s.SessionID}, c.TemplateArgs...)...)
	if strings.Contains(tmpl.Helper+tmpl.Import+tmpl.Call, "__INGEST_URL__") || strings.Contains(tmpl.Helper+tmpl.Import+tmpl.Call, "__APPEND_PATH__") {
		t.Fatal("--session did not fill in the endpoint")
	}
	for _, part := range []string{tmpl.Helper, tmpl.Import, tmpl.Call} {
		if part != "" && (!strings.Contains(part, tmpl.Regions.Start) || !strings.Contains(part, tmpl.Regions.End)) {
			t.Fatalf("template part not wrapped in %q … %q:\n%s", tmpl.Regions.Start, tmpl.Regions.End, part)
		}
	}
	selfLocating := !strings.Contains(tmpl.Call, "__LOCATION__")

	// Run once, then again with lines added above every probe: a helper that
	// names its own location reports the new lines, with no drift.
	shifts := []int{0}
	if selfLocating {
		shifts = append(shifts, 5)
	}
	for _, shift := range shifts {
		if shift > 0 {
			e.MustRun("reset", "--session", s.SessionID)
		}
		start := time.Now().UnixMilli()
		built := buildProgram(t, c, tmpl, dir, shift)
		if out := runProgram(t, c, dir); out != "program done\n" {
			t.Fatalf("the program's own output changed: %q", out)
		}
		end := time.Now().UnixMilli()
		checkTemplateRun(t, e, s, c, built, expectedLocations(t, c, built, dir), start, end)
	}

	// The same program pointed at a dead endpoint still runs to completion.
	dead := "/nonexistent-debug-mode-dir/incoming.ndjson"
	real := s.AppendPath
	if c.Ingest == "http" {
		dead, real = "http://127.0.0.1:9/ingest/00000000-0000-4000-8000-000000000000", s.IngestURL
	}
	dt := tmpl
	dt.Helper, dt.Import, dt.Call = strings.ReplaceAll(dt.Helper, real, dead), strings.ReplaceAll(dt.Import, real, dead), strings.ReplaceAll(dt.Call, real, dead)
	runElsewhere(t, c, dt, "a dead endpoint")
	// And with the helper it imports gone (a cleaned state directory).
	if tmpl.HelperPath != "" {
		mt := tmpl
		mt.Import = strings.ReplaceAll(mt.Import, tmpl.HelperPath, filepath.Join(t.TempDir(), "gone", filepath.Base(tmpl.HelperPath)))
		runElsewhere(t, c, mt, "its helper file missing")
	}
}

// runElsewhere builds and runs the program in a fresh folder; it must still
// print exactly "program done".
func runElsewhere(t *testing.T, c templateCase, tmpl renderedTemplate, what string) {
	t.Helper()
	dir := t.TempDir()
	buildProgram(t, c, tmpl, dir, 0)
	began := time.Now()
	if out := runProgram(t, c, dir); out != "program done\n" {
		t.Fatalf("with %s the program's output changed: %q", what, out)
	}
	t.Logf("run with %s took %s", what, time.Since(began))
}

// checkTemplateRun asserts what one run delivered: every call's events, each
// at exactly its location, with its data, and nothing rejected.
func checkTemplateRun(t *testing.T, e *Env, s Session, c templateCase, built builtProgram, locations map[string]string, start, end int64) {
	t.Helper()
	var page struct {
		Events []map[string]any `json:"events"`
	}
	e.JSON(&page, "logs", "--session", s.SessionID, "--limit", "1000")
	byHyp := map[string][]map[string]any{}
	for _, ev := range page.Events {
		ts, _ := ev["timestamp"].(float64)
		if int64(ts) < start-2000 || int64(ts) > end+2000 {
			t.Errorf("timestamp %v is not epoch milliseconds of the run (%d–%d)", ev["timestamp"], start, end)
		}
		h := ev["hypothesisId"].(string)
		name := strings.TrimPrefix(h, "H-")
		byHyp[h] = append(byHyp[h], ev)
		if ev["message"] != "call "+name {
			t.Errorf("event fields not as called: %v", ev)
		}
		if ev["location"] != locations[name] {
			t.Errorf("call %s: location %v, want %s (the call's line, relative to the project root)", name, ev["location"], locations[name])
		}
	}
	threads := max(c.Threads, 1)
	for _, name := range built.names {
		evs := byHyp["H-"+name]
		want := 1
		if name == "thread" {
			want = threads * 25
		}
		if len(evs) != want {
			t.Errorf("call %s: %d events arrived, want %d", name, len(evs), want)
			continue
		}
		checkTemplateData(t, name, evs, threads)
	}
	var st struct {
		Rejected int64 `json:"rejectedRecords"`
	}
	if e.JSON(&st, "status", "--session", s.SessionID); st.Rejected != 0 {
		t.Errorf("%d records were rejected:\n%s", st.Rejected, e.MustRun("status", "--session", s.SessionID))
	}
}

// checkTemplateData asserts what each standard call must deliver.
func checkTemplateData(t *testing.T, name string, evs []map[string]any, threads int) {
	t.Helper()
	data := evs[0]["data"]
	raw, _ := json.Marshal(data)
	want := func(v any) {
		if !reflect.DeepEqual(data, v) {
			t.Errorf("call %s: data %s, want %#v", name, raw, v)
		}
	}
	switch name {
	case "nested":
		want(map[string]any{"a": map[string]any{"b": []any{1.0, 2.5, map[string]any{"c": nil}}}, "ok": true, "n": -7.0})
	case "strings":
		want(map[string]any{"s": trickyString})
	case "scalars":
		want([]any{1.0, 2.5, true, nil, "x"})
	case "oversize":
		m, _ := data.(map[string]any)
		if m["agentDebugTruncated"] != true || len(raw) > 20000 {
			t.Errorf("call oversize: want a truncation marker, got %.200s", raw)
		}
	case "unserializable":
		if s := strings.ToLower(string(raw)); !strings.Contains(s, "unserializable") && !strings.Contains(s, "cycle") {
			t.Errorf("call unserializable: want a marker, got %s", raw)
		}
	case "throws":
		m, _ := data.(map[string]any)
		if _, ok := m["agentDebugDataError"]; !ok {
			t.Errorf("call throws: want an agentDebugDataError marker, got %s", raw)
		}
	case "secret":
		want(map[string]any{"password": "[REDACTED]", "apiToken": "[REDACTED]", "user": "ann"})
	case "thread":
		seen := map[string]bool{}
		for _, ev := range evs {
			m, _ := ev["data"].(map[string]any)
			seen[fmt.Sprint(m["thread"], "/", m["i"])] = true
		}
		if len(seen) != threads*25 {
			t.Errorf("call thread: %d distinct (thread, i) pairs, want %d", len(seen), threads*25)
		}
	default:
		t.Fatalf("unknown standard call %q", name)
	}
}
