package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runMain runs one command as the CLI would; it returns stdout, stderr and
// the exit code.
func runMain(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Main(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// create --language prints the session, then exactly what template prints
// for that session: one command instead of two, the same text.
func TestCreateLanguage(t *testing.T) {
	for _, c := range []struct{ language, ingest string }{
		{"python", "file"}, // a helper kept outside the project
		{"go", "file"},     // a helper pasted into a file of its own
		{"typescript", "http"},
	} {
		out, errOut, code := runMain("create", "--language", c.language, "--ingest", c.ingest, "--max-per-location", "77")
		if code != 0 {
			t.Fatalf("create --language %s: exit %d: %s", c.language, code, errOut)
		}
		id := regexp.MustCompile(`(?m)^Session ID +(\S+)$`).FindStringSubmatch(out)
		if id == nil {
			t.Fatalf("no session id in:\n%s", out)
		}
		head, tail, ok := strings.Cut(out, "\n\n")
		if !ok || !strings.HasPrefix(head, "SESSION CREATED\n") {
			t.Fatalf("create --language %s: the session block, a blank line, then the template; got:\n%s", c.language, out)
		}
		tmpl, errOut, code := runMain("template", "--language", c.language, "--ingest", c.ingest, "--session", id[1])
		if code != 0 {
			t.Fatalf("template: exit %d: %s", code, errOut)
		}
		if tail != tmpl {
			t.Errorf("create --language %s does not print what template --session prints:\n%s\nwant:\n%s", c.language, tail, tmpl)
		}
		// The session's values are in, its cap included.
		if strings.Contains(tail, "__APPEND_PATH__") || strings.Contains(tail, "__INGEST_URL__") || strings.Contains(tail, "__MAX_PER_LOCATION__") {
			t.Errorf("create --language %s left a session placeholder:\n%s", c.language, tail)
		}
		if c.ingest == "file" && !strings.Contains(tail, id[1]+"/incoming.ndjson") || c.ingest == "http" && !strings.Contains(tail, "/ingest/"+id[1]) {
			t.Errorf("create --language %s: the template does not name this session's endpoint:\n%s", c.language, tail)
		}
		if c.language != "go" && !regexp.MustCompile(`\b77\b`).MatchString(tail) { // Go's helper reads the cap from the environment only
			t.Errorf("create --language %s: the session's cap of 77 is not in the helper:\n%s", c.language, tail)
		}
	}

	// Without --language, create prints the session alone, as before.
	out, _, code := runMain("create")
	if code != 0 || strings.Contains(out, "\n\n") || strings.Contains(out, "CALL TEMPLATE") {
		t.Errorf("create without --language: exit %d\n%s", code, out)
	}

	// --json: the template under result.template, for this session.
	out, errOut, code := runMain("create", "--language", "python", "--ingest", "file", "--json")
	var env struct {
		Result struct {
			SessionID string `json:"sessionId"`
			Template  struct {
				Language  string `json:"language"`
				Import    string `json:"import"`
				Call      string `json:"call"`
				SessionID string `json:"sessionId"`
			} `json:"template"`
		} `json:"result"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &env) != nil {
		t.Fatalf("create --json: exit %d %s %s", code, out, errOut)
	}
	r := env.Result
	if r.Template.Language != "python" || r.Template.SessionID != r.SessionID || !strings.Contains(r.Template.Import, r.SessionID) || r.Template.Call == "" {
		t.Errorf("create --json template: %+v", r)
	}
}

// Go and Java helpers take the package of the current folder, as template
// does; where there is none to read, create still succeeds and the
// placeholder stays listed for template --dir or --package to fill.
func TestCreateLanguagePackage(t *testing.T) {
	out, errOut, code := runMain("create", "--language", "go", "--ingest", "file")
	if code != 0 || !strings.Contains(out, "package cli\n") || strings.Contains(out, "__PACKAGE_NAME__") ||
		!strings.Contains(out, "HELPER TEMPLATE (the package of the current folder: save it there as agent_debug_log.go; for another package, write it with --for <file>)") {
		t.Errorf("create --language go in package cli: exit %d %s\n%s", code, errOut, out)
	}
	t.Chdir(t.TempDir()) // no Go file here
	out, errOut, code = runMain("create", "--language", "go", "--ingest", "file")
	if code != 0 || !strings.Contains(out, "package __PACKAGE_NAME__\n") || !strings.Contains(out, "\n__PACKAGE_NAME__ ") {
		t.Errorf("create --language go where no package can be read: exit %d %s\n%s", code, errOut, out)
	}
}

// A bad --language or --ingest is a usage error, and no session is created.
func TestCreateLanguageRefused(t *testing.T) {
	runMain("create") // so the count below is read from a real list
	before, _, _ := runMain("sessions", "--all", "--json")
	if count(before) == 0 {
		t.Fatalf("sessions --all --json lists no session after a create:\n%s", before)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--language", "python"}, "--language needs --ingest"},
		{[]string{"--ingest", "file"}, "--ingest needs --language"},
		{[]string{"--language", "cobol", "--ingest", "file"}, `no template for language "cobol"`},
		{[]string{"--language", "python", "--ingest", "tcp"}, "--ingest must be http or file"},
		{[]string{"--language", "python", "--ingest", "http"}, "supported combinations"},
	} {
		out, errOut, code := runMain(append([]string{"create"}, c.args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("create %v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errOut, ExitUsage, c.want)
		}
	}
	after, _, _ := runMain("sessions", "--all", "--json")
	if count(before) != count(after) {
		t.Errorf("a refused create made a session: %d sessions before, %d after", count(before), count(after))
	}
}

// count is how many sessions a sessions --json envelope lists.
func count(envelope string) int {
	var env struct {
		Result struct {
			Sessions []json.RawMessage `json:"sessions"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(envelope), &env)
	return len(env.Result.Sessions)
}

// create --for saves a Go helper beside the file to probe, in that file's
// package, run from the repository root (whose own package differs): no
// command to find the package or write the file. A file of that name that
// is not a helper is never overwritten, and no session is made for it.
func TestCreateForFile(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	writeTestFile(t, "go.mod", "module example.com/lru\n\ngo 1.22\n")
	writeTestFile(t, "lru.go", "package lru\n")
	writeTestFile(t, "expirable/expirable.go", "// Package expirable.\npackage expirable\n")
	writeTestFile(t, "expirable/expirable_test.go", "package expirable_test\n")
	out, errOut, code := runMain("create", "--language", "go", "--ingest", "file", "--for", "expirable/expirable.go")
	if code != 0 || !strings.Contains(out, "HELPER written to expirable/agent_debug_log.go") || strings.Contains(out, "package expirable") {
		t.Fatalf("create --for: exit %d %s\n%s", code, errOut, out)
	}
	b, err := os.ReadFile("expirable/agent_debug_log.go")
	if err != nil || !strings.Contains(string(b), "\npackage expirable\n") || strings.Contains(string(b), "__") {
		t.Fatalf("the helper written: %v\n%s", err, b)
	}
	// An external test file: the folder's package. Again: the helper is replaced.
	out, errOut, code = runMain("template", "--language", "go", "--ingest", "file", "--section", "helper", "--for", "expirable/expirable_test.go")
	if code != 0 || out != "Helper written: expirable/agent_debug_log.go\n" {
		t.Errorf("template --for a test file: exit %d %s\n%s", code, errOut, out)
	}
	if b, _ := os.ReadFile("expirable/agent_debug_log.go"); !strings.Contains(string(b), "\npackage expirable\n") {
		t.Errorf("template --for an external test file wrote:\n%s", b)
	}
	writeTestFile(t, "expirable/agent_debug_log.go", "package expirable // the project's own\n")
	before, _, _ := runMain("sessions", "--all", "--json")
	out, errOut, code = runMain("create", "--language", "go", "--ingest", "file", "--for", "expirable")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "is not a debug-mode helper") {
		t.Errorf("create --for over a file of the project's: exit %d, %q, %q", code, out, errOut)
	}
	if b, _ := os.ReadFile("expirable/agent_debug_log.go"); string(b) != "package expirable // the project's own\n" {
		t.Errorf("the project's file was changed:\n%s", b)
	}
	if after, _, _ := runMain("sessions", "--all", "--json"); count(after) != count(before) {
		t.Errorf("a refused create --for made a session")
	}
	if _, errOut, code := runMain("create", "--for", "lru.go"); code != ExitUsage || !strings.Contains(errOut, "--language") {
		t.Errorf("--for without --language: exit %d %q", code, errOut)
	}
}

// create --quiet prints the session id alone (id=$(debug-mode create
// --quiet)); --json is unchanged by it.
func TestCreateQuiet(t *testing.T) {
	out, errOut, code := runMain("create", "--quiet")
	if code != 0 || !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n$`).MatchString(out) {
		t.Errorf("create --quiet: exit %d %q %q", code, out, errOut)
	}
	out, _, code = runMain("create", "--quiet", "--json")
	var env struct {
		Result struct {
			SessionID  string `json:"sessionId"`
			AppendPath string `json:"appendPath"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &env); code != 0 || err != nil || env.Result.SessionID == "" || env.Result.AppendPath == "" {
		t.Errorf("create --quiet --json: exit %d %v\n%s", code, err, out)
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// create --quiet keeps its warnings (on stderr, so id=$(…) stays clean): a
// helper file debug-mode replaced because it had been changed is worth
// knowing about before trusting the evidence.
func TestCreateQuietKeepsWarnings(t *testing.T) {
	if _, errOut, code := runMain("create", "--language", "python", "--ingest", "file"); code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	helpers, _ := filepath.Glob(filepath.Join(os.Getenv("AGENT_DEBUG_MODE_HOME"), "helpers", "*", "*.py"))
	if len(helpers) == 0 {
		t.Fatal("no Python helper in the state directory")
	}
	if err := os.WriteFile(helpers[0], []byte("print('changed')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runMain("create", "--quiet")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(errOut, "WARNING") {
		t.Errorf("create --quiet over a changed helper: exit %d, stdout %q, stderr %q; want the id alone and a warning on stderr", code, out, errOut)
	}
}
