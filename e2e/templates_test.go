package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	HelperFile       string            // when set, the helper goes into this file of the work dir, not at @HELPER@
	Fills            map[string]string // extra placeholders (e.g. a package name) and their values
	Variant          string            // names a second build of the same combination (e.g. another compiler)
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
			if os.Getenv("DEBUG_MODE_REQUIRE_RUNTIMES") == "1" {
				t.Fatalf("runtime %s is missing and DEBUG_MODE_REQUIRE_RUNTIMES=1 (install it with scripts/setup.sh)", n)
			}
			t.Skipf("runtime %s not installed", n)
		}
	}
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
	Helper    string `json:"helper"`
	Call      string `json:"call"`
	Placement struct {
		Helper     string `json:"helper"`
		HelperFile string `json:"helperFile"`
	} `json:"placement"`
	Regions struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"regionMarkers"`
}

var markerRE = regexp.MustCompile(`@CALL:([a-z_]+)@`)

// buildProgram writes the program with the helper and calls in place and
// returns the call names in order.
func buildProgram(t *testing.T, c templateCase, tmpl renderedTemplate, dir string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "templates", c.Source))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.Fills {
		tmpl.Helper, tmpl.Call = strings.ReplaceAll(tmpl.Helper, k, v), strings.ReplaceAll(tmpl.Call, k, v)
	}
	// The machine-readable placement is the one this program compiles with.
	if own := tmpl.Placement.Helper == "own-file"; own != (c.HelperFile != "") || own && tmpl.Placement.HelperFile != c.HelperFile {
		t.Fatalf("placement says helper %q in %q; this case saves it in %q", tmpl.Placement.Helper, tmpl.Placement.HelperFile, c.HelperFile)
	}
	if c.HelperFile != "" {
		if err := os.WriteFile(filepath.Join(dir, c.HelperFile), []byte(tmpl.Helper), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	var names []string
	lineNo := 0
	sc := bufio.NewScanner(strings.NewReader(string(src)))
	for sc.Scan() {
		line := sc.Text()
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		switch {
		case strings.Contains(line, "@HELPER@") && c.HelperFile != "":
			// the helper is in a file of its own
		case strings.Contains(line, "@HELPER@"):
			out.WriteString(tmpl.Helper)
			if !strings.HasSuffix(tmpl.Helper, "\n") {
				out.WriteString("\n")
			}
		case markerRE.MatchString(line):
			name := markerRE.FindStringSubmatch(line)[1]
			expr, ok := c.Exprs[name]
			if !ok {
				continue // this language has no such call
			}
			names = append(names, name)
			call := strings.NewReplacer(
				"__HYPOTHESIS_ID__", "H-"+name,
				"__LOCATION__", fmt.Sprintf("%s:%d", c.FileName, lineNo+1),
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
	return names
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
	s := e.Create()
	var tmpl renderedTemplate
	e.JSON(&tmpl, "template", "--language", c.Language, "--ingest", c.Ingest, "--session", s.SessionID)
	if strings.Contains(tmpl.Helper+tmpl.Call, "__INGEST_URL__") || strings.Contains(tmpl.Helper+tmpl.Call, "__APPEND_PATH__") {
		t.Fatal("--session did not fill in the endpoint")
	}
	for _, part := range []string{tmpl.Helper, tmpl.Call} {
		if !strings.Contains(part, tmpl.Regions.Start) || !strings.Contains(part, tmpl.Regions.End) {
			t.Fatalf("template part not wrapped in %q … %q:\n%s", tmpl.Regions.Start, tmpl.Regions.End, part)
		}
	}

	dir := t.TempDir()
	start := time.Now().UnixMilli()
	names := buildProgram(t, c, tmpl, dir)
	if out := runProgram(t, c, dir); out != "program done\n" {
		t.Fatalf("the program's own output changed: %q", out)
	}
	end := time.Now().UnixMilli()

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
		byHyp[h] = append(byHyp[h], ev)
		if !strings.HasPrefix(ev["location"].(string), c.FileName+":") || ev["message"] != "call "+strings.TrimPrefix(h, "H-") {
			t.Errorf("event fields not as called: %v", ev)
		}
	}
	threads := max(c.Threads, 1)
	for _, name := range names {
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
	if st := e.MustRun("status", "--session", s.SessionID); !strings.Contains(st, "Rejected    0 records") {
		t.Errorf("some records were rejected:\n%s", st)
	}

	// The same program pointed at a dead endpoint still runs to completion.
	dead := "/nonexistent-debug-mode-dir/incoming.ndjson"
	real := s.AppendPath
	if c.Ingest == "http" {
		dead, real = "http://127.0.0.1:9/ingest/00000000-0000-4000-8000-000000000000", s.IngestURL
	}
	tmpl.Helper = strings.ReplaceAll(tmpl.Helper, real, dead)
	tmpl.Call = strings.ReplaceAll(tmpl.Call, real, dead)
	dir2 := t.TempDir()
	buildProgram(t, c, tmpl, dir2)
	began := time.Now()
	if out := runProgram(t, c, dir2); out != "program done\n" {
		t.Fatalf("with a dead endpoint the program's output changed: %q", out)
	}
	t.Logf("run against a dead endpoint took %s", time.Since(began))
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
