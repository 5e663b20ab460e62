package probes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// goPackage is what the Go helper file keeps besides its region.
func goPackage(file, line string) bool {
	return strings.HasSuffix(file, ".go") && strings.HasPrefix(line, "package ")
}

// TestRemoveDeletesHelperFiles: a file that held nothing but probes (and
// its helper's own package clause) is deleted; a file with anything else is
// only rewritten, and a dry run says which.
func TestRemoveDeletesHelperFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"cache/agent_debug_log.go": "package cache\n\n" + region + "\n",
		"cache/cache.go":           "package cache\n\nfunc get() {\n" + region + "}\n",
		"agent_debug_log.py":       "# region agent log\nimport json\n# endregion\n\n",
		"lib/other.go":             "package lib\n\nimport \"os\"\n\n" + region,
	})
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	dry, err := Remove(r, RemoveOptions{Residue: goPackage})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"cache/agent_debug_log.go": true, "agent_debug_log.py": true}
	for _, f := range dry.Files {
		if f.Deleted != want[f.File] || f.EmptyAfter != want[f.File] {
			t.Errorf("dry run, %s: %+v", f.File, f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "agent_debug_log.py")); err != nil || dry.Deleted != 2 {
		t.Fatalf("the dry run deleted a file, or counts %d", dry.Deleted)
	}
	done, err := Remove(r, RemoveOptions{Apply: true, Residue: goPackage})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range done.Files {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.File)))
		if gone := os.IsNotExist(err); gone != want[f.File] || f.Deleted != want[f.File] || f.Written == want[f.File] {
			t.Errorf("%s: deleted %v (%+v)", f.File, gone, f)
		}
	}
	if f := done.Files[1]; f.File != "cache/agent_debug_log.go" || strings.Join(f.Residue, "|") != "package cache" {
		t.Errorf("residue: %+v", f)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lib/other.go")); string(b) != "package lib\n\nimport \"os\"\n\n" {
		t.Errorf("other.go: %q", b)
	}
	// Without the language's residue, a package clause is content.
	writeTree(t, dir, map[string]string{"x/agent_debug_log.go": "package x\n" + region})
	r, _ = Scan(Options{Dir: dir, Paths: []string{"x"}})
	if done, _ := Remove(r, RemoveOptions{Apply: true}); done.Files[0].Deleted || !done.Files[0].Written {
		t.Errorf("deleted without a residue rule: %+v", done.Files[0])
	}
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_SYSTEM", "/dev/null")
}

// TestRemoveReportsLeftovers: in a git work tree, each rewritten file is
// compared with HEAD and every hunk left outside the regions is listed; a
// helper-only file HEAD holds with other content is never deleted.
func TestRemoveReportsLeftovers(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, map[string]string{
		"app.py":         "import os\n\ndef f():\n    return 1\n",
		"clean.py":       "x = 1\n",
		"tracked_log.py": "print('keep me')\n",
	})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	// The agent's session: probes in, a stray blank line, a leftover
	// import, a region-only file git has with other content, a new helper.
	writeTree(t, dir, map[string]string{
		"app.py":             "import os\nimport json\n\ndef f():\n\n    # region agent log\n    log()\n    # endregion\n    return 1\n",
		"clean.py":           "# region agent log\nlog()\n# endregion\nx = 1\n",
		"tracked_log.py":     "# region agent log\nlog()\n# endregion\n",
		"agent_debug_log.py": "# region agent log\nimport json\n# endregion\n",
		"new_mod.py":         "y = 2\n# region agent log\nlog()\n# endregion\n",
	})
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	done, err := Remove(r, RemoveOptions{Apply: true, Git: true})
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]FileRemoval{}
	for _, f := range done.Files {
		byFile[f.File] = f
	}
	if f := byFile["agent_debug_log.py"]; !f.Deleted {
		t.Errorf("the new helper file is not deleted: %+v", f)
	}
	if f := byFile["tracked_log.py"]; f.Deleted || !f.Written || f.Kept != "git HEAD holds it with other content" {
		t.Errorf("a file HEAD holds with other content: %+v", f)
	}
	g := done.Git
	if g == nil || g.State != GitChecked || g.Files != 3 || strings.Join(g.Differ, ",") != "app.py,tracked_log.py" || strings.Join(g.New, ",") != "new_mod.py" {
		t.Fatalf("git check: %+v", g)
	}
	var got []string
	for _, l := range g.Leftovers {
		got = append(got, l.File+":"+strconv.Itoa(l.Line)+" "+l.Text+" "+strconv.Itoa(l.Lines))
	}
	if strings.Join(got, "; ") != "app.py:2 +import json 1; app.py:5 +(blank line) 1; tracked_log.py:1 -print('keep me') 1" {
		t.Errorf("leftovers: %s", strings.Join(got, "; "))
	}

	// Outside a work tree: not checked, and said so.
	plain := t.TempDir()
	writeTree(t, plain, map[string]string{"a.py": "x = 1\n# region agent log\nlog()\n# endregion\n"})
	r, _ = Scan(Options{Dir: plain})
	if done, _ := Remove(r, RemoveOptions{Apply: true, Git: true}); done.Git == nil || done.Git.State != GitNotWorkTree {
		t.Errorf("outside git: %+v", done.Git)
	}
}

func TestParseHunks(t *testing.T) {
	diff := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -3,0 +4 @@ def f():\n+\n@@ -10 +10,0 @@\n-import os\n@@ -20,2 +19,2 @@\n--- old\n-b\n+" + strings.Repeat("é", 100) + "\n+d\r\n"
	got := parseHunks("x", []byte(diff))
	if len(got) != 3 || got[0] != (Leftover{"x", 4, "+(blank line)", 1}) || got[1] != (Leftover{"x", 11, "-import os", 1}) ||
		got[2].Line != 19 || got[2].Text != "+"+strings.Repeat("é", maxLeftoverText-1)+"…" || got[2].Lines != 4 {
		t.Fatalf("hunks: %+v", got)
	}
	if l := leftoverText("+" + strings.Repeat("é", 100)); len([]rune(l)) != maxLeftoverText+1 || !strings.HasSuffix(l, "…") {
		t.Fatalf("cut: %q", l)
	}
}
