package logpoints

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
)

func TestSplitAt(t *testing.T) {
	for _, c := range []struct {
		at, path string
		line     int
		bad      string
	}{
		{at: "src/a.py:12", path: "src/a.py", line: 12},
		{at: "C:/x:y.py:3", path: "C:/x:y.py", line: 3},
		{at: "a.py", bad: "must be PATH:LINE"},
		{at: "a.py:", bad: "must be PATH:LINE"},
		{at: ":3", bad: "must be PATH:LINE"},
		{at: "a.py:0", bad: "a number from 1"},
		{at: "a.py:x", bad: "a number from 1"},
	} {
		p, n, err := SplitAt(c.at)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("%s: %v, want %q", c.at, err, c.bad)
			}
			continue
		}
		if err != nil || p != c.path || n != c.line {
			t.Errorf("%s: %q %d %v", c.at, p, n, err)
		}
	}
}

// Resolve: relative to the folder, root-relative path under the project
// root, absolute outside it, symbolic links resolved for the hooks.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(repo, "pkg"), 0o755)
	os.WriteFile(filepath.Join(repo, "pkg", "m.py"), []byte("a = 1\nb = 2"), 0o644)
	os.Symlink(filepath.Join(repo, "pkg", "m.py"), filepath.Join(repo, "link.py"))
	outside := filepath.Join(dir, "o.py")
	os.WriteFile(outside, []byte("x = 1\n"), 0o644)

	tg, err := Resolve(filepath.Join(repo, "pkg"), repo, "m.py:2")
	if err != nil || tg.Path != "pkg/m.py" || tg.File != filepath.Join(repo, "pkg", "m.py") || tg.Lines != 2 || tg.Language.ID != "python" {
		t.Fatalf("%+v %v", tg, err)
	}
	tg, err = Resolve(repo, repo, "link.py:1")
	if err != nil || tg.Path != "link.py" || tg.RealFile != filepath.Join(repo, "pkg", "m.py") {
		t.Fatalf("link: %+v %v", tg, err)
	}
	tg, err = Resolve(repo, repo, outside+":1")
	if err != nil || tg.Path != outside {
		t.Fatalf("outside: %+v %v", tg, err)
	}
	os.WriteFile(filepath.Join(repo, "x.rb"), []byte("x\n"), 0o644)
	for at, want := range map[string]string{
		"pkg/m.py:3": "line 3 is past the end of the file (2 lines)",
		"nope.py:1":  "no such file (relative paths are resolved from " + repo + ")",
		"pkg:1":      "is a folder",
		"x.rb:1":     "logpoints work in Node.js (.js .mjs .cjs .ts .mts .cts), Python (.py) files",
		"a\x1b.py:1": "holds a line break, a control character",
	} {
		if _, err := Resolve(repo, repo, at); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", at, err, want)
		}
	}
}

// Inject sets the session's variables and puts the hook first on
// PYTHONPATH, keeping the user's entries and dropping the hook folders of
// an earlier injection (of this build or another).
func TestInject(t *testing.T) {
	h := Hooks{Dir: "/state/hooks/new", Languages: map[string]string{"python": "/state/hooks/new/python"}}
	v := sessionenv.Values{SessionID: "S", IngestURL: "http://u", AppendPath: "/a", LogpointsFile: "/l"}
	e := Inject([]string{"HOME=/h", "PYTHONPATH=/state/hooks/old/python:/mine:/state/hooksx/python", "AGENT_DEBUG_MODE_SESSION=old"}, v, h)
	got := map[string]string{}
	for _, kv := range e.Entries() {
		k, val, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Fatalf("%s set twice: %q", k, e.Entries())
		}
		got[k] = val
	}
	if got["PYTHONPATH"] != "/state/hooks/new/python:/mine:/state/hooksx/python" || got["AGENT_DEBUG_MODE_SESSION"] != "S" ||
		got["AGENT_DEBUG_MODE_LOGPOINTS"] != "/l" || got["HOME"] != "/h" || got["AGENT_DEBUG_MODE_MAX_PER_LOCATION"] != "10000" {
		t.Fatalf("%q", e.Entries())
	}
	again := Inject(e.Entries(), v, h)
	if p, _ := again.Get("PYTHONPATH"); p != got["PYTHONPATH"] {
		t.Fatalf("injecting twice: %q", p)
	}
	var names []string
	for _, sv := range e.SetVariables() {
		names = append(names, sv.Name)
	}
	if strings.Join(names, " ") != "AGENT_DEBUG_MODE_SESSION AGENT_DEBUG_MODE_INGEST_URL AGENT_DEBUG_MODE_APPEND_PATH AGENT_DEBUG_MODE_MAX_PER_LOCATION AGENT_DEBUG_MODE_LOGPOINTS PYTHONPATH" {
		t.Fatalf("set: %v", names)
	}
	if p, _ := Inject(nil, v, h).Get("PYTHONPATH"); p != "/state/hooks/new/python" {
		t.Fatalf("no PYTHONPATH before: %q", p)
	}
}

// Install writes the hooks owner-only under a content hash, replaces a file
// that was changed, and refuses a symbolic link in its place.
func TestInstall(t *testing.T) {
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h, err := Install(root)
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(h.Languages["python"], "sitecustomize.py")
	if filepath.Dir(filepath.Dir(h.Dir)) != root.Path() || filepath.Base(filepath.Dir(h.Dir)) != HooksDir {
		t.Fatalf("dir %s", h.Dir)
	}
	fi, err := os.Stat(site)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", fi, err)
	}
	want, _ := os.ReadFile(site)
	os.WriteFile(site, []byte("tampered"), 0o600)
	if _, err := Install(root); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(site); string(b) != string(want) {
		t.Fatal("a changed hook file was not replaced")
	}
	os.Remove(site)
	os.Symlink("/etc/passwd", site)
	if _, err := Install(root); err == nil {
		t.Fatal("a symbolic link in place of a hook file was followed")
	}
}

func TestSummarize(t *testing.T) {
	lps := []Logpoint{{ID: "lp-1", Location: "a.py:1", HypothesisID: "H1", Path: "a.py"}, {ID: "lp-2", Location: "a.py:2", HypothesisID: "H1", Path: "a.py"},
		{ID: "lp-3", Location: "b.py:3", HypothesisID: "H2", Path: "b.py"}, {ID: "lp-4", Location: "c.py:4", HypothesisID: "H2", Path: "c.py"}}
	got := Summarize(lps, map[string]Installs{"lp-1": {Installed: 1}, "lp-2": {Installed: 2}, "lp-3": {Failed: 1, Reason: "blank"}},
		map[HitKey]int64{{"a.py:1", "H1"}: 5, {"a.py:2", "H9"}: 3})
	for i, want := range []string{"hit 5", "never_hit 0", "never_installed 0 blank", "never_installed 0 its file was not loaded in this cycle"} {
		s := got[i]
		if have := strings.TrimSpace(fmt.Sprint(s.State, " ", s.Hits, " ", s.Reason)); have != want {
			t.Errorf("%s: %q, want %q", s.ID, have, want)
		}
	}
}

// The Python check gives the hook's verdict, through python3.
func TestCheckPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("DEBUG_MODE_REQUIRE_RUNTIMES") == "1" {
			t.Fatal("python3 is missing and DEBUG_MODE_REQUIRE_RUNTIMES=1")
		}
		t.Skip("python3 not installed")
	}
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h, _ := Install(root)
	file := filepath.Join(t.TempDir(), "m.py")
	os.WriteFile(file, []byte("def f(x):\n\n    try:\n        return 1 / x\n    except ZeroDivisionError:\n        return 0\n"), 0o644)
	for _, c := range []struct {
		line              int
		data              string
		ok                bool
		reason, placement string
	}{
		{line: 4, data: `{"x": x}`, ok: true},
		{line: 5, ok: true, placement: "runs when this except clause catches"},
		{line: 2, reason: "line 2 is blank; the next line that can take a logpoint is 3"},
		{line: 1, reason: "line 1 is the first line of def f"},
		{line: 4, data: "x +", reason: "--data is not a Python expression"},
	} {
		r := checkPython(context.Background(), h.Languages["python"], CheckRequest{File: file, Line: c.line, Data: c.data})
		if r.OK != c.ok || !strings.Contains(r.Reason, c.reason) || r.Placement != c.placement || r.Unchecked != "" {
			t.Errorf("line %d %q: %+v", c.line, c.data, r)
		}
	}
	if r := checkPython(context.Background(), "", CheckRequest{File: file, Line: 4}); !r.OK || r.Unchecked == "" {
		t.Errorf("without the hook: %+v", r)
	}
}

// Node's injection puts the hook's --require first in NODE_OPTIONS, quoted,
// keeps the user's options as written, and replaces an earlier injection's
// (of this build or another), in each form Node reads.
func TestInjectNode(t *testing.T) {
	h := Hooks{Dir: "/state/hooks/new", Languages: map[string]string{"node": "/state/hooks/new/node"}}
	v := sessionenv.Values{SessionID: "S", IngestURL: "http://u", AppendPath: "/a", LogpointsFile: "/l"}
	for _, c := range []struct{ before, want string }{
		{"", `--require "/state/hooks/new/node/hook.cjs"`},
		{`--max-old-space-size=100 -r ./otel.js`, `--require "/state/hooks/new/node/hook.cjs" --max-old-space-size=100 -r ./otel.js`},
		{`--require "/state/hooks/old/node/hook.cjs" --title "a b"`, `--require "/state/hooks/new/node/hook.cjs" --title "a b"`},
		{`-r /state/hooks/old/node/hook.cjs --require=/state/hooks/x/node/hook.cjs --require=/state/hooksx/h.cjs`, `--require "/state/hooks/new/node/hook.cjs" --require=/state/hooksx/h.cjs`},
		{`--require "/my dir/\"q\".cjs"`, `--require "/state/hooks/new/node/hook.cjs" --require "/my dir/\"q\".cjs"`},
	} {
		e := Inject([]string{"NODE_OPTIONS=" + c.before}, v, h)
		got, _ := e.Get("NODE_OPTIONS")
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.before, got, c.want)
		}
		if again, _ := Inject(e.Entries(), v, h).Get("NODE_OPTIONS"); again != c.want {
			t.Errorf("%q injected twice: %q", c.before, again)
		}
	}
	if q := nodeQuote(`/a "b" \c`); q != `"/a \"b\" \\c"` {
		t.Errorf("quote: %s", q)
	}
	if toks := nodeOptionTokens(`a "b c" "d\"e"`); len(toks) != 3 || toks[1].value != "b c" || toks[2].value != `d"e` || toks[2].raw != `"d\"e"` {
		t.Errorf("tokens: %+v", toks)
	}
}

// The Node check gives the hook's verdict, through node: CommonJS, an ES
// module, a data expression that is not one expression, a line V8 cannot
// stop at (with the next one that it can), and no hook: unchecked.
func TestCheckNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("DEBUG_MODE_REQUIRE_RUNTIMES") == "1" {
			t.Fatal("node is missing and DEBUG_MODE_REQUIRE_RUNTIMES=1")
		}
		t.Skip("node not installed")
	}
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h, _ := Install(root)
	dir := t.TempDir()
	cjs := filepath.Join(dir, "m.js")
	os.WriteFile(cjs, []byte("function f(x) {\n\n  // note\n  for (let i = 0; i < x; i++) {\n    x--;\n  }\n  return x;\n}\nmodule.exports = f;\n"), 0o644)
	esm := filepath.Join(dir, "m.mjs")
	os.WriteFile(esm, []byte("import fs from 'node:fs';\nexport function g(a) {\n  return a + 1;\n}\nconsole.log(g(await 1));\n"), 0o644)
	for _, c := range []struct {
		file              string
		line              int
		data              string
		ok                bool
		reason, placement string
	}{
		{file: cjs, line: 5, data: `{x}`, ok: true},
		{file: cjs, line: 4, ok: true, placement: "runs once, when the loop starts; line 5 records every iteration"},
		{file: cjs, line: 2, reason: "line 2 is blank; the next line that can take a logpoint is 4"},
		{file: cjs, line: 3, reason: "line 3 is a comment; the next line that can take a logpoint is 4"},
		{file: cjs, line: 1, reason: "line 1 has no code V8 can stop at"},
		{file: cjs, line: 5, data: "x); y; (z", reason: "--data is not a JavaScript expression"},
		{file: esm, line: 3, data: `{a}`, ok: true},
		{file: esm, line: 5, ok: true},
		{file: esm, line: 2, reason: "line 2 has no code V8 can stop at"},
	} {
		r := checkNode(context.Background(), h.Languages["node"], CheckRequest{File: c.file, Line: c.line, Data: c.data})
		if r.OK != c.ok || !strings.Contains(r.Reason, c.reason) || r.Placement != c.placement || r.Unchecked != "" {
			t.Errorf("%s:%d %q: %+v", filepath.Base(c.file), c.line, c.data, r)
		}
	}
	// TypeScript with no esbuild or typescript to be found from its folder:
	// only blank lines and comments can be judged.
	ts := filepath.Join(dir, "m.ts")
	os.WriteFile(ts, []byte("type T = number;\n\nexport const t: T = 1;\n"), 0o644)
	if r := checkNode(context.Background(), h.Languages["node"], CheckRequest{File: ts, Line: 2}); r.OK || r.Reason != "line 2 is blank" {
		t.Errorf("ts blank: %+v", r)
	}
	if r := checkNode(context.Background(), h.Languages["node"], CheckRequest{File: ts, Line: 3}); !r.OK || !strings.Contains(r.Unchecked, "no esbuild or typescript was found") {
		t.Errorf("ts without a compiler: %+v", r)
	}
	if r := checkNode(context.Background(), "", CheckRequest{File: cjs, Line: 5}); !r.OK || r.Unchecked == "" {
		t.Errorf("without the hook: %+v", r)
	}
}
