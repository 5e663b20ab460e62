package probes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestStaged reads what is staged, not the working tree: a region staged
// and then deleted from the file is still found; a region only in the
// working tree is not; unchanged committed files are not looked at.
func TestStaged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeTree(t, dir, map[string]string{
		"committed.js": region, // committed earlier: not part of this commit
		"clean.py":     "x = 1\n",
	})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")

	writeTree(t, dir, map[string]string{
		"staged.js":         region,
		"sub/broken.py":     "# region agent log\nx\n",
		"worktree.go":       "package x\n",
		"vendor/dep/dep.go": region,
		"notes.md":          region,
		".gitignore":        "ignored.js\n",
		"ignored.js":        region,
	})
	git(t, dir, "add", "staged.js", "sub/broken.py", "worktree.go", "vendor/dep/dep.go", "notes.md", ".gitignore")
	git(t, dir, "add", "-f", "ignored.js") // force-added: staged, so checked
	git(t, dir, "rm", "-q", "--cached", "clean.py")
	// After staging: the working tree drops the region from staged.js and
	// gains one in worktree.go.
	writeTree(t, dir, map[string]string{"staged.js": "clean\n", "worktree.go": "package x\n" + region})
	if err := os.Symlink("staged.js", filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "link.js")

	r, err := Scan(Options{Dir: dir, Staged: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "ignored.js staged.js vendor/dep/dep.go sub/broken.py!" { // vendor/ is not skipped: git tracks it
		t.Errorf("staged: %q", got)
	}
	if !r.Staged {
		t.Error("report not marked staged")
	}

	// From a subfolder, paths stay relative to it and the default is that
	// folder only; naming the root widens it.
	r, err = Scan(Options{Dir: filepath.Join(dir, "sub"), Staged: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "broken.py!" {
		t.Errorf("staged from sub: %q", got)
	}
	r, err = Scan(Options{Dir: filepath.Join(dir, "sub"), Staged: true, Paths: []string{".."}})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != filepath.ToSlash(filepath.Join(dir, "ignored.js"))+" "+filepath.ToSlash(filepath.Join(dir, "staged.js"))+" "+
		filepath.ToSlash(filepath.Join(dir, "vendor/dep/dep.go"))+" broken.py!" {
		// outside the working directory, paths are shown absolute
		t.Errorf("staged from sub with ..: %q", got)
	}

	// Through a link to the repository, paths are still relative.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	r, err = Scan(Options{Dir: link, Staged: true, Paths: []string{"staged.js"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := files(r); got != "staged.js" {
		t.Errorf("staged through a link: %q", got)
	}

	// The working tree scan sees the other picture.
	r, err = Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// (ignored.js is tracked, force-added: git's ignore rules no longer apply)
	if got := files(r); got != "committed.js ignored.js vendor/dep/dep.go worktree.go sub/broken.py!" {
		t.Errorf("working tree: %q", got)
	}

	// Nothing staged is clean.
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "all")
	r, err = Scan(Options{Dir: dir, Staged: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Clean() || r.FilesScanned != 0 {
		t.Errorf("after commit: %s (%d scanned)", files(r), r.FilesScanned)
	}

	// Outside a repository --staged is a clear error.
	_, err = Scan(Options{Dir: t.TempDir(), Staged: true})
	if _, ok := err.(*GitError); !ok || !strings.Contains(err.Error(), "needs a git repository") {
		t.Errorf("outside a repository: %v", err)
	}
}
