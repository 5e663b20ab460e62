package probes

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// render is a stable text form of a report for golden comparison.
func render(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scanned %d, binary %d, large %d, unreadable %d\n", r.FilesScanned, r.Skipped.Binary, r.Skipped.Large, r.Skipped.Unreadable)
	for _, x := range r.Regions {
		fmt.Fprintf(&b, "region %s:%d-%d label=%q code=%q\n", x.File, x.StartLine, x.EndLine, x.Label, x.FirstCode)
	}
	for _, x := range r.Broken {
		fmt.Fprintf(&b, "broken %s:%d %s related=%d\n", x.File, x.Line, x.Kind, x.RelatedLine)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run %s -update to accept):\n--- got\n%s--- want\n%s", name, t.Name(), got, want)
	}
}

// TestLanguages scans one well-formed and one broken file per template
// language, in each language's comment syntax.
func TestLanguages(t *testing.T) {
	r, err := Scan(Options{Dir: "testdata/langs"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "langs.golden", render(r))
	langs := map[string]bool{}
	for _, x := range r.Regions {
		langs[strings.Split(x.File, "/")[0]] = true
	}
	for _, x := range r.Broken {
		if !strings.Contains(x.File, "/broken.") && !strings.Contains(x.File, "/Broken.") {
			t.Errorf("broken marker reported in a well-formed file: %+v", x)
		}
	}
	if len(langs) != 14 {
		t.Errorf("regions found in %d languages, want 14: %v", len(langs), langs)
	}
	if r.Clean() {
		t.Error("Clean() is true with regions present")
	}
}

func TestClassifyLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		kind  markerKind
		label string
	}{
		{"// #region agent log", agentStart, ""},
		{"    // #region agent log", agentStart, ""},
		{"//#region agent log", agentStart, ""},
		{"// #region agent log H1", agentStart, "H1"},
		{"// #region agent log: H2 cart total", agentStart, "H2 cart total"},
		{"// #region agent log (H3)", agentStart, "H3"},
		{"# region agent log", agentStart, ""},
		{"#region agent log", agentStart, ""},
		{"\t#region agent log\r", agentStart, ""},
		{"/* #region agent log */", agentStart, ""},
		{"/* #region agent log H4 */", agentStart, "H4"},
		{"#Region agent log", agentStart, ""},
		{"// #region Agent Log", agentStart, ""},
		{"// #endregion", regionEnd, ""},
		{"//#endregion", regionEnd, ""},
		{"# endregion", regionEnd, ""},
		{"#endregion", regionEnd, ""},
		{"#endregion agent log", regionEnd, ""},
		{"/* #endregion */", regionEnd, ""},
		{"#EndRegion", regionEnd, ""},
		{"// #region helpers", otherStart, ""},
		{"#region", otherStart, ""},
		{"// #region agent logger", otherStart, ""},
		{"// #region agent logs", otherStart, ""},
		{"# region of interest is computed below", otherStart, ""},
		{"x = 1 // #region agent log", agentMention, ""},
		{`s = "#region agent log"`, agentMention, ""},
		{`s = "region agent log"`, notMarker, ""}, // no comment opener before it: a string
		{"// region agent log", agentStart, ""},
		{"# #region agent log H5", agentStart, "H5"},
		{"#pragma region agent log", agentStart, ""},
		{"<!-- #region agent log H6 -->", agentStart, "H6"},
		{"<# region agent log #>", agentStart, ""},
		{"-- region agent log", agentStart, ""},
		{"#  REGION   AGENT\tLOG", agentStart, ""},
		{"# region agent_log", agentStart, ""},
		{"// #region agent-log H7", agentStart, "H7"},
		{"# #endregion", regionEnd, ""},
		{"# end region", regionEnd, ""},
		{"#pragma endregion", regionEnd, ""},
		{"<!-- #endregion -->", regionEnd, ""},
		{"// ENDREGION agent log", regionEnd, ""},
		{"// region of interest", otherStart, ""},
		{"# region: agent log", agentMention, ""},
		{"# regionagent log", agentMention, ""},
		{"// #region agentlog", agentMention, ""},
		{" * #region agent log is what we look for", agentMention, ""},
		{"// a region agent logger", notMarker, ""},
		{"#pragma once", notMarker, ""},
		{"#include <region.h>", notMarker, ""},
		{"#regional", notMarker, ""},
		{"#endregions", notMarker, ""},
		{"", notMarker, ""},
	} {
		kind, label := classifyLine([]byte(c.line))
		if kind != c.kind || label != c.label {
			t.Errorf("classifyLine(%q) = %v %q, want %v %q", c.line, kind, label, c.kind, c.label)
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, src string
		regions   string // "start-end" list
		faults    string // "line:kind" list
	}{
		{"empty", "", "", ""},
		{"none", "a\nb\n", "", ""},
		{"one", "a\n// #region agent log\nx\n// #endregion\nb\n", "2-4", ""},
		{"no final newline", "// #region agent log\nx\n// #endregion", "1-3", ""},
		{"crlf", "a\r\n// #region agent log\r\nx\r\n// #endregion\r\n", "2-4", ""},
		{"empty region", "// #region agent log\n// #endregion\n", "1-2", ""},
		{"two", "// #region agent log\n// #endregion\n# region agent log\n# endregion\n", "1-2 3-4", ""},
		{"unclosed", "x\n// #region agent log\ny\n", "", "2:unclosed"},
		{"unopened", "x\n// #endregion\n", "", "2:unopened"},
		{"nested", "// #region agent log\n// #region agent log\n// #endregion\n// #endregion\n", "", "2:nested"},
		{"nested then fine", "// #region agent log\n// #region agent log\n// #endregion\n// #endregion\n// #region agent log\n// #endregion\n", "5-6", "2:nested"},
		{"inside other", "#region Helpers\n#region agent log\nx\n#endregion\n#endregion\n", "2-4", ""},
		{"other closes", "#region Helpers\nx\n#endregion\n", "", ""},
		{"other inside agent is text", "# region agent log\n# region of interest\n# endregion\n", "1-3", ""},
		{"stray after region", "// #region agent log\n// #endregion\n// #endregion\n", "1-2", "3:unopened"},
		{"unclosed and unopened", "// #endregion\n// #region agent log\n", "", "1:unopened 2:unclosed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spans, faults := parse([]byte(c.src))
			var rs, fs []string
			for _, s := range spans {
				rs = append(rs, fmt.Sprintf("%d-%d", s.start, s.end))
				if got := c.src[s.from:s.to]; !strings.HasPrefix(strings.TrimLeft(got, " \t"), "//") && !strings.HasPrefix(got, "#") {
					t.Errorf("span bytes %q do not start at the marker", got)
				}
			}
			for _, f := range faults {
				fs = append(fs, fmt.Sprintf("%d:%s", f.line, f.kind))
			}
			if got := strings.Join(rs, " "); got != c.regions {
				t.Errorf("regions %q, want %q", got, c.regions)
			}
			if got := strings.Join(fs, " "); got != c.faults {
				t.Errorf("faults %q, want %q", got, c.faults)
			}
		})
	}
}

func TestFirstCode(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"", ""},
		{"\n  \n", ""},
		{"  // comment\n  call(x)\n", "call(x)"},
		{"# note\nagent_log(1)\n", "agent_log(1)"},
		{"#include <stdio.h>\n", "#include <stdio.h>"},
		{"// only a comment\n", "// only a comment"},
		{strings.Repeat("é", 100) + "\n", strings.Repeat("é", maxCode-1) + "…"},
	} {
		if got := firstCode([]byte(c.body)); got != c.want {
			t.Errorf("firstCode(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

// writeTree makes files under dir; a name ending in "/" is a folder.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const region = "// #region agent log\nlog()\n// #endregion\n"
const pyRegion = "# region agent log\nlog()\n# endregion\n"

func files(r *Report) string {
	var out []string
	for _, x := range r.Regions {
		out = append(out, x.File)
	}
	for _, x := range r.Broken {
		out = append(out, x.File+"!")
	}
	return strings.Join(out, " ")
}

// TestWalkSkips covers what the walk outside git leaves out: dependency and
// build folders, version control, links, prose, binary and huge files, and
// whatever root and nested .gitignore files say. Any other text file is
// read, whatever its extension.
func TestWalkSkips(t *testing.T) {
	dir := t.TempDir()
	tree := map[string]string{
		"src/app.js":                  region,
		"src/README.md":               region, // prose
		"src/data.bin.js":             "\x00\x01" + region,
		"src/huge.js":                 region + strings.Repeat("x", maxFileBytes),
		"src/deep/a/b/c.ts":           region,
		".git/hooks/x.js":             region,
		".hg/x.js":                    region,
		"node_modules/lib/index.js":   region,
		"vendor/dep/dep.go":           region,
		"target/debug/main.rs":        region,
		"build/gen.java":              region,
		"dist/out.js":                 region,
		"bin/tool.rb":                 region,
		"obj/Debug/x.cs":              region,
		".venv/lib/x.py":              pyRegion,
		"venv/lib/x.py":               pyRegion,
		"pkg/__pycache__/x.py":        pyRegion,
		".gradle/x.kt":                region,
		".idea/x.java":                region,
		"pkg.egg-info/x.py":           pyRegion,
		".gitignore":                  "# comment\n*.gen.go\n!keep.gen.go\n/rootonly.js\nlogs/\ndocs/**/draft.ts\ncache/**\n!cache/keep.js\n\\#hash.js\ntrail.js   \n",
		"a.gen.go":                    region,
		"sub/b.gen.go":                region,
		"keep.gen.go":                 region,
		"rootonly.js":                 region,
		"sub/rootonly.js":             region, // "/rootonly.js" is anchored to the root
		"logs/x.js":                   region,
		"sub/logs/y.js":               region,
		"logs.js":                     region, // "logs/" matches folders only
		"docs/draft.ts":               region, // "**/" matches zero folders
		"docs/a/b/draft.ts":           region,
		"docs/a/final.ts":             region,
		"cache/x.js":                  region,
		"cache/keep.js":               region,
		"#hash.js":                    region,
		"trail.js":                    region,
		"nested/.gitignore":           "*.py\n!main.py\nlocal/\n",
		"nested/a.py":                 pyRegion,
		"nested/main.py":              pyRegion,
		"nested/local/x.js":           region,
		"nested/inner/.gitignore":     "!a.py\n",
		"nested/inner/a.py":           pyRegion, // re-included by a deeper file
		"nested/inner/b.py":           pyRegion,
		"other/a.py":                  pyRegion, // nested/.gitignore does not reach here
		"other/[x].py":                pyRegion,
		"other/.gitignore":            "[x].py\n\\[x\\].py\n",
		"sub/ignored-by-parent.js":    region,
		"sub/.gitignore":              "ignored-by-*.js\n",
		"sub/deeper/ignored-by-x.js":  region,
		"sub/deeper/ok.js":            region,
		"weird dir/with space.py":     pyRegion,
		"Upper/CASE.JS":               region,
		"notes.txt":                   region,
		"empty/":                      "",
		"src/deep/a/b/.gitignore":     "",
		"src/deep/a/b/unrelated.json": region,
	}
	writeTree(t, dir, tree)
	if err := os.Symlink(filepath.Join(dir, "src/app.js"), filepath.Join(dir, "src/link.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "src"), filepath.Join(dir, "srclink")); err != nil {
		t.Fatal(err)
	}
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := "Upper/CASE.JS cache/keep.js docs/a/final.ts keep.gen.go logs.js nested/inner/a.py nested/main.py notes.txt other/a.py " +
		"src/app.js src/deep/a/b/c.ts src/deep/a/b/unrelated.json sub/deeper/ok.js sub/rootonly.js weird dir/with space.py"
	if got := files(r); got != want {
		t.Errorf("regions in\n  %s\nwant\n  %s", got, want)
	}
	if r.Skipped.Binary != 1 || r.Skipped.Large != 1 {
		t.Errorf("skipped %+v, want 1 binary and 1 large", r.Skipped)
	}

	// A named file is scanned whatever its extension; a named folder is
	// walked even when it is a skipped name.
	r, err = Scan(Options{Dir: dir, Paths: []string{"notes.txt", "node_modules", "srclink"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "node_modules/lib/index.js notes.txt srclink/app.js srclink/deep/a/b/c.ts srclink/deep/a/b/unrelated.json" {
		t.Errorf("named paths: %s", got)
	}

	// Paths outside the working directory are shown absolute.
	r, err = Scan(Options{Dir: filepath.Join(dir, "sub"), Paths: []string{filepath.Join(dir, "src", "app.js")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != filepath.ToSlash(filepath.Join(dir, "src", "app.js")) {
		t.Errorf("outside path shown as %q", got)
	}

	_, err = Scan(Options{Dir: dir, Paths: []string{"missing.js"}})
	if pe, ok := err.(*PathError); !ok || !strings.Contains(pe.Error(), "missing.js: no such file or folder") {
		t.Errorf("missing path: %v", err)
	}
}

// TestGitignoreAncestors: scanning a subfolder still applies the .gitignore
// files above it, up to the repository root, and .git/info/exclude.
func TestGitignoreAncestors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/info/exclude": "excluded.js\n",
		".gitignore":        "gen/\n",
		"a/.gitignore":      "*.tmp.js\n",
		"a/b/gen/x.js":      region,
		"a/b/y.tmp.js":      region,
		"a/b/excluded.js":   region,
		"a/b/ok.js":         region,
	})
	r, err := Scan(Options{Dir: filepath.Join(dir, "a", "b")})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "ok.js" {
		t.Errorf("got %q, want only ok.js", got)
	}
}

func TestIgnoreRules(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		dir, want     bool
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "x/y/a.log", false, true},
		{"*.log", "a.log.txt", false, false},
		{"/a.log", "x/a.log", false, false},
		{"/a.log", "a.log", false, true},
		{"x/*.log", "x/a.log", false, true},
		{"x/*.log", "y/x/a.log", false, false},
		{"**/x/*.log", "y/x/a.log", false, true},
		{"a/**/b", "a/b", true, true},
		{"a/**/b", "a/x/y/b", true, true},
		{"a/**", "a", true, false},
		{"a/**", "a/x", false, true},
		{"build/", "build", false, false},
		{"build/", "build", true, true},
		{"?.go", "a.go", false, true},
		{"?.go", "ab.go", false, false},
		{"[abc].go", "b.go", false, true},
		{"[!abc].go", "b.go", false, false},
		{"[!abc].go", "d.go", false, true},
		{`\#x`, "#x", false, true},
		{`\!x`, "!x", false, true},
		{"**", "any/thing", false, true},
		{"a/b/", "a/b", true, true},
	} {
		r, ok := parseIgnoreLine(c.pattern)
		if !ok {
			t.Errorf("%q: not parsed", c.pattern)
			continue
		}
		if got := r.match(c.path, c.dir); got != c.want {
			t.Errorf("%q matches %q (dir %v) = %v, want %v", c.pattern, c.path, c.dir, got, c.want)
		}
	}
	for _, blank := range []string{"", "   ", "# comment", "!", "/"} {
		if _, ok := parseIgnoreLine(blank); ok {
			t.Errorf("%q should be no rule", blank)
		}
	}
}

func TestReadSourceGrowsBuffer(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.js": strings.Repeat("a", 100), "b.js": strings.Repeat("b", 200000)})
	var buf []byte
	for _, n := range []string{"a.js", "b.js", "a.js"} {
		data, o, err := readSource(filepath.Join(dir, n), &buf)
		if err != nil || o != scanned || !bytes.Equal(data, bytes.Repeat(data[:1], len(data))) {
			t.Fatalf("%s: %v %v", n, o, err)
		}
	}
}

// TestGitignoreWithoutRepository: outside a repository, the .gitignore files
// from the working directory down still apply to a named subfolder.
func TestGitignoreWithoutRepository(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":   "*.min.js\n",
		"web/a.min.js": region,
		"web/ok.js":    region,
	})
	r, err := Scan(Options{Dir: dir, Paths: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "web/ok.js" {
		t.Errorf("got %q, want only web/ok.js", got)
	}
}
