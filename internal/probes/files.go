package probes

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Which files the ledger reads. A probe left in any file git tracks is a
// probe that ships, whatever the file's folder or extension, so in a git
// work tree the ledger asks git: every tracked file, plus every untracked
// file git does not ignore. Folders are skipped only because git ignores
// them. Outside git (or without git), the tree is walked instead, skipping
// the default folders of skipDirs and whatever the .gitignore files say.
// Either way binary files are left out by their content, not their name,
// and so are prose documents (Markdown, reStructuredText, AsciiDoc), which
// show probes as examples (the installed skill does) and never run them.

// docExts are prose formats: never scanned unless named.
var docExts = map[string]bool{".md": true, ".markdown": true, ".rst": true, ".adoc": true, ".asciidoc": true}

// isDocFile says whether a file name is a prose document.
func isDocFile(name string) bool { return docExts[strings.ToLower(filepath.Ext(name))] }

// maxRepoDepth bounds how deep submodules and nested repositories are
// followed.
const maxRepoDepth = 8

// listTree calls visit with every file under dir the ledger reads, until
// visit returns false; it returns false when visit stopped it. dir was
// named (or is the working directory wd): it is read even when git ignores
// it or its name is a default skipped folder.
func listTree(dir, wd string, visit func(abs string) bool) bool {
	if ok, done := listGit(dir, true, 0, visit); done {
		return ok
	}
	return walk(dir, ancestorIgnores(dir, wd), visit)
}

// listGit lists dir through git. done is false when dir is not in a git
// work tree (or git is missing or fails, or dir is named and ignored), and
// the caller walks it instead. A folder reached as a submodule or nested
// repository (named false) is listed only when it is that repository's top.
func listGit(dir string, named bool, depth int, visit func(abs string) bool) (ok, done bool) {
	if gitMissing() {
		return true, false
	}
	out, err := gitOutput(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return true, false
	}
	top := strings.TrimSpace(string(out))
	atTop := sameDir(top, dir)
	if !named && !atTop {
		return true, true // a submodule that is not checked out: nothing to read
	}
	if !atTop {
		// git lists nothing untracked inside an ignored folder; one named
		// on the command line is read whole, as any named path is.
		if _, err := gitOutput(dir, "check-ignore", "-q", "--no-index", "--", "."); err == nil {
			return true, false
		}
	}
	var cached, others []byte
	var cerr, oerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		cached, cerr = gitOutput(dir, "ls-files", "-z", "--stage", "--", ".")
	}()
	others, oerr = gitOutput(dir, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	wg.Wait()
	if cerr != nil || oerr != nil {
		return true, false
	}
	var nested []string
	real := realFolders{top: dir, seen: map[string]bool{}}
	last := ""
	for _, rec := range bytes.Split(cached, []byte{0}) {
		// "<mode> <object> <stage>\t<path>"
		tab := bytes.IndexByte(rec, '\t')
		if tab < 0 {
			continue
		}
		name := string(rec[tab+1:])
		if name == last {
			continue // the stages of an unmerged path
		}
		last = name
		mode, _, _ := strings.Cut(string(rec[:tab]), " ")
		abs := filepath.Join(dir, filepath.FromSlash(name))
		switch mode {
		case "160000": // a submodule: a repository of its own
			nested = append(nested, abs)
			continue
		case "120000": // a symbolic link: never followed
			continue
		}
		if isDocFile(name) || !real.parentsOf(name) {
			continue
		}
		if !visit(abs) {
			return false, true
		}
	}
	for _, rec := range bytes.Split(others, []byte{0}) {
		name := string(rec)
		if name == "" {
			continue
		}
		abs := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") { // an untracked repository inside this one
			nested = append(nested, abs)
			continue
		}
		if isDocFile(name) || !real.parentsOf(name) {
			continue
		}
		if !visit(abs) {
			return false, true
		}
	}
	for _, n := range nested {
		if depth >= maxRepoDepth {
			break
		}
		fi, err := os.Lstat(n)
		if err != nil || !fi.IsDir() {
			continue
		}
		if ok, done := listGit(n, false, depth+1, visit); done && !ok {
			return false, true
		}
	}
	return true, true
}

// realFolders tells whether every folder on a listed path is a real folder
// of the work tree. git lists tracked paths from its index, so a tracked
// folder since replaced by a symbolic link is still listed, and opening the
// path would read (and --remove rewrite) a file outside the project: such
// paths are skipped, as links are everywhere else. Each folder is looked
// at once.
type realFolders struct {
	top  string
	seen map[string]bool
}

func (r realFolders) parentsOf(name string) bool {
	parent := path.Dir(name)
	if parent == "." {
		return true
	}
	if ok, done := r.seen[parent]; done {
		return ok
	}
	ok := r.parentsOf(parent)
	if ok {
		fi, err := os.Lstat(filepath.Join(r.top, filepath.FromSlash(parent)))
		ok = err == nil && fi.IsDir()
	}
	r.seen[parent] = ok
	return ok
}

// sameDir says whether a and b name the same folder.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

var gitLookup = sync.OnceValue(func() bool {
	_, err := exec.LookPath("git")
	return err != nil
})

// gitMissing says whether git is not on PATH (looked up once).
func gitMissing() bool { return gitLookup() }
