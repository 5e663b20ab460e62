package probes

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitListsEveryFile: in a git work tree the ledger reads every file git
// tracks and every untracked file git does not ignore, whatever its folder
// (build/, vendor/, node_modules/ …) or extension (.html, .sh, Makefile,
// .yaml …); it leaves out only what git ignores, links, binary content,
// prose documents, and files deleted since they were added.
func TestGitListsEveryFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	tracked := map[string]string{
		".gitignore":                "build/\nnode_modules/\n*.log\ngen/\n",
		"build/gen.py":              pyRegion, // tracked, although git ignores build/
		"vendor/dep/dep.go":         region,
		"dist/out.js":               region,
		"node_modules/lib/index.js": region,
		"target/a.rs":               region,
		"out/a.java":                region,
		".venv/lib/x.py":            pyRegion,
		"web/page.html":             "<!-- #region agent log -->\n<script>log()</script>\n<!-- #endregion -->\n",
		"views/a.erb":               pyRegion,
		"run.sh":                    pyRegion,
		"run.bash":                  pyRegion,
		"a.lua":                     "-- region agent log\nlog()\n-- endregion\n",
		"A.scala":                   region,
		"build.gradle":              region,
		"V.cshtml":                  region,
		"Makefile":                  pyRegion,
		"Dockerfile":                pyRegion,
		"ci.yaml":                   pyRegion,
		"gone.py":                   pyRegion, // deleted from the work tree below
		"image.png":                 "\x89PNG\x00\x00" + pyRegion,
		"README.md":                 pyRegion, // prose: examples, never run
	}
	writeTree(t, dir, tracked)
	git(t, dir, "add", "-f", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	writeTree(t, dir, map[string]string{
		"new.tsx":             region, // untracked, not ignored
		"scripts/deploy.ps1":  pyRegion,
		"build/local.py":      pyRegion, // untracked in an ignored folder
		"node_modules/x/y.js": region,
		"debug.log":           pyRegion,
		"gen/x.go":            region,
	})
	if err := os.Remove(filepath.Join(dir, "gone.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("run.sh", filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	// An untracked repository inside this one is read too, as its own git says.
	inner := filepath.Join(dir, "inner")
	writeTree(t, inner, map[string]string{".gitignore": "skip/\n", "a.cfg": pyRegion, "skip/b.cfg": pyRegion})
	git(t, inner, "init", "-q")

	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := ".venv/lib/x.py A.scala Dockerfile Makefile V.cshtml a.lua build.gradle build/gen.py ci.yaml dist/out.js " +
		"inner/a.cfg new.tsx node_modules/lib/index.js out/a.java run.bash run.sh scripts/deploy.ps1 target/a.rs " +
		"vendor/dep/dep.go views/a.erb web/page.html"
	if got := files(r); got != want {
		t.Errorf("regions in\n  %s\nwant\n  %s", got, want)
	}
	if r.Skipped.Binary != 1 || r.Skipped.Unreadable != 0 {
		t.Errorf("skipped %+v, want 1 binary and nothing unreadable (a link or a deleted file is no file)", r.Skipped)
	}

	// A subfolder alone: the same rule, paths shown from there.
	writeTree(t, dir, map[string]string{"vendor/dep/x.log": pyRegion})
	r, err = Scan(Options{Dir: filepath.Join(dir, "vendor")})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "dep/dep.go" {
		t.Errorf("from vendor/: %q, want only dep/dep.go", got)
	}

	// A named folder git ignores (or the working directory inside one) is
	// read whole, as any named path is.
	r, err = Scan(Options{Dir: dir, Paths: []string{"gen", "node_modules"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "gen/x.go node_modules/lib/index.js node_modules/x/y.js" {
		t.Errorf("named ignored folders: %q", got)
	}

	// What is staged follows the same rule.
	writeTree(t, dir, map[string]string{"deploy/job.yaml": pyRegion, "vendor/new/x.sh": pyRegion})
	git(t, dir, "add", "deploy/job.yaml", "vendor/new/x.sh")
	r, err = Scan(Options{Dir: dir, Staged: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "deploy/job.yaml vendor/new/x.sh" {
		t.Errorf("staged: %q", got)
	}
}

// TestWalkOutsideGit: outside git every text file is read whatever its
// extension; only the default folders, .gitignore and prose are skipped.
func TestWalkOutsideGit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"Makefile":                       pyRegion,
		"deploy.sh":                      pyRegion,
		"page.vue":                       region,
		"notes.md":                       pyRegion,
		"build/x.py":                     pyRegion,
		"data.bin":                       "\x00" + pyRegion,
		".gitignore":                     "*.tmp\n",
		"scratch.tmp":                    pyRegion,
		"conf/app.toml":                  pyRegion,
		"Upper/CASE.TXT":                 pyRegion,
		"state/sessions/s/events.ndjson": pyRegion, // debug-mode's own state: not the project's code
	})
	t.Setenv("AGENT_DEBUG_MODE_HOME", filepath.Join(dir, "state"))
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := files(r), "Makefile Upper/CASE.TXT conf/app.toml deploy.sh page.vue"; got != want {
		t.Errorf("regions in %q, want %q", got, want)
	}
	if r.Skipped.Binary != 1 {
		t.Errorf("skipped %+v, want 1 binary", r.Skipped)
	}
}

// TestGitPathThroughLinkedFolder: a tracked folder replaced by a symbolic
// link is still listed by git's index; the ledger must not read through
// it (nor would --remove rewrite through it) a file outside the project.
func TestGitPathThroughLinkedFolder(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, outside := t.TempDir(), t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, map[string]string{"lib/a.py": "x = 1\n", "lib/deep/b.py": "y = 2\n", "main.py": pyRegion})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	writeTree(t, outside, map[string]string{"a.py": pyRegion, "deep/b.py": pyRegion})
	if err := os.RemoveAll(filepath.Join(dir, "lib")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "lib")); err != nil {
		t.Fatal(err)
	}
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "main.py" {
		t.Errorf("regions in %q, want main.py only: a path through the linked folder was read", got)
	}
}
