package probes

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// FileRemoval is what removal does, or would do, to one file.
type FileRemoval struct {
	File    string   `json:"file"`
	Regions []Region `json:"regions"`
	Lines   int      `json:"lines"`             // lines removed, markers included
	Refused string   `json:"refused,omitempty"` // why the file is left alone
	Written bool     `json:"written"`           // the file was rewritten
	// Nothing but white space, or lines the helper file itself holds (its
	// package clause), is (or would be) left: the file held only probes.
	EmptyAfter bool     `json:"emptyAfter,omitempty"`
	Residue    []string `json:"residue,omitempty"` // those lines, if any
	Deleted    bool     `json:"deleted,omitempty"` // so the file was (or would be) deleted
	Kept       string   `json:"kept,omitempty"`    // why such a file was kept instead
}

// Removal is the outcome of removing regions.
type Removal struct {
	Applied bool          `json:"applied"` // false: a dry run, nothing written
	Files   []FileRemoval `json:"files"`
	Regions int           `json:"regions"` // regions removed (or to remove)
	Lines   int           `json:"lines"`
	Refused int           `json:"refusedFiles"`
	Deleted int           `json:"deletedFiles"`  // files deleted (or to delete): they held only probes
	Git     *GitCheck     `json:"git,omitempty"` // applied: the touched files against git HEAD
}

// RemoveOptions say how to remove.
type RemoveOptions struct {
	Apply bool // false: only say what would be done
	// Residue says whether a line left in a file once its regions are cut
	// belongs to a helper file of that language (its package clause): a
	// file left with only such lines and white space is deleted. nil: only
	// white space.
	Residue func(file, line string) bool
	// Git: in a git work tree, never delete a file HEAD holds with other
	// content, and afterwards compare each rewritten file with HEAD.
	Git bool
}

// Remove removes every well-formed region of the report from its file, or
// with o.Apply false only says what it would remove. A file with a broken
// marker is refused whole. Everything outside the regions stays
// byte-identical: other lines, their line endings, the final newline (or its
// absence), the file's mode. Each file is replaced atomically; a file left
// with nothing but white space (or its helper's own lines) is deleted.
func Remove(rep *Report, o RemoveOptions) (*Removal, error) {
	if rep.Staged {
		return nil, errors.New("regions can only be removed from the working tree, not from what is staged")
	}
	apply := o.Apply
	var repos *gitRepos
	if o.Git {
		repos = newGitRepos()
	}
	out := &Removal{Applied: apply, Files: []FileRemoval{}}
	byFile := map[string]*FileRemoval{}
	abs := map[string]string{}
	var names []string
	get := func(file, path string) *FileRemoval {
		if f := byFile[file]; f != nil {
			return f
		}
		f := &FileRemoval{File: file, Regions: []Region{}}
		byFile[file] = f
		abs[file] = path
		names = append(names, file)
		return f
	}
	for _, r := range rep.Regions {
		f := get(r.File, r.abs)
		f.Regions = append(f.Regions, r)
		f.Lines += r.Lines()
	}
	broken := map[string][]string{}
	for _, b := range rep.Broken {
		get(b.File, "")
		broken[b.File] = append(broken[b.File], fmt.Sprintf("line %d %s", b.Line, b.Kind))
	}
	sort.Strings(names)
	var touched, touchedPaths []string
	for _, name := range names {
		f := byFile[name]
		if bs := broken[name]; len(bs) > 0 {
			f.Refused = "broken markers (" + strings.Join(bs, ", ") + "); fix them by hand first"
		} else if err := rewrite(abs[name], f, o, repos); err != nil {
			f.Refused = err.Error()
		}
		if f.Refused != "" {
			out.Refused++
		} else {
			out.Regions += len(f.Regions)
			out.Lines += f.Lines
			if f.Deleted {
				out.Deleted++
			}
			if f.Written {
				touched = append(touched, name)
				touchedPaths = append(touchedPaths, realPath(abs[name]))
			}
		}
		out.Files = append(out.Files, *f)
	}
	if apply && o.Git && len(touched) > 0 {
		out.Git = checkGit(repos, touched, touchedPaths)
	}
	return out, nil
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// onlyHelper says whether what is left of a file is only white space and
// its helper's own lines, and lists those lines.
func onlyHelper(name string, rest []byte, residue func(file, line string) bool) (bool, []string) {
	var lines []string
	for _, l := range strings.Split(string(rest), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if residue == nil || !residue(name, l) {
			return false, nil
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	return true, lines
}

// keepTracked says why a helper-only file must stay: git HEAD holds it
// with content other than its regions and the helper's own lines.
func keepTracked(repos *gitRepos, name, path string, residue func(file, line string) bool) string {
	if repos == nil {
		return ""
	}
	top, rel, ok := repos.of(realPath(path))
	if !ok {
		return ""
	}
	head, tracked := repos.head(top, rel)
	if !tracked {
		return ""
	}
	spans, faults := parse(head)
	if len(faults) == 0 {
		if only, _ := onlyHelper(name, cutSpans(head, spans), residue); only {
			return ""
		}
	}
	return "git HEAD holds it with other content"
}

func spansOf(regions []Region) []span {
	spans := make([]span, len(regions))
	for i, r := range regions {
		spans[i] = span{from: r.from, to: r.to}
	}
	return spans
}

// cause is the system's reason without the path, which the report names.
func cause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func sameSpans(data []byte, regions []Region) bool {
	spans, faults := parse(data)
	if len(faults) > 0 || len(spans) != len(regions) {
		return false
	}
	for i, s := range spans {
		r := regions[i]
		if s.start != r.StartLine || s.end != r.EndLine || s.from != r.from || s.to != r.to {
			return false
		}
	}
	return true
}

// cutSpans returns data without the spans (in order, not overlapping). If
// data had no final newline and the last span reached its end, the line now
// last loses its terminator too, so the file still ends without one.
func cutSpans(data []byte, spans []span) []byte {
	out := make([]byte, 0, len(data))
	prev := 0
	for _, s := range spans {
		out = append(out, data[prev:s.from]...)
		prev = s.to
	}
	out = append(out, data[prev:]...)
	if len(data) > 0 && data[len(data)-1] != '\n' && len(spans) > 0 && spans[len(spans)-1].to == len(data) {
		out = bytes.TrimSuffix(out, []byte{'\n'})
		out = bytes.TrimSuffix(out, []byte{'\r'})
	}
	return out
}

// rewrite re-reads and re-parses the file, checks it is what was scanned,
// and replaces it atomically without the regions, or deletes it when
// nothing but white space and its helper's own lines would be left (unless
// git HEAD holds it with other content). With o.Apply false it only says
// which.
func rewrite(path string, f *FileRemoval, o RemoveOptions, repos *gitRepos) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("cannot read it: %v", cause(err))
	}
	if !fi.Mode().IsRegular() {
		return errors.New("it is no longer a regular file")
	}
	data, _, err := readSource(path, new([]byte))
	if err != nil || data == nil {
		return errors.New("cannot read it")
	}
	if !sameSpans(data, f.Regions) {
		return errors.New("it changed since it was scanned; run the command again")
	}
	out := cutSpans(data, spansOf(f.Regions))
	if f.EmptyAfter, f.Residue = onlyHelper(f.File, out, o.Residue); f.EmptyAfter {
		if f.Kept = keepTracked(repos, f.File, path, o.Residue); f.Kept == "" {
			f.Deleted = true
		}
	}
	if !o.Apply {
		return nil
	}
	if f.Deleted {
		return deleteFile(path, fi)
	}
	if err := replaceFile(path, fi, out); err != nil {
		return err
	}
	f.Written = true
	return nil
}

// deleteFile removes path unless it changed since it was read.
func deleteFile(path string, fi os.FileInfo) error {
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(fi, now) || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		return errors.New("it changed while it was being removed; run the command again")
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("cannot delete it: %v", cause(err))
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// replaceFile writes data to a temporary file next to path with path's mode
// and owner, then renames it over path, unless path changed meanwhile.
func replaceFile(path string, fi os.FileInfo, data []byte) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	tmp := filepath.Join(dir, "."+base+".debug-mode-"+rand.Text()[:12])
	t, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("cannot write next to it: %v", cause(err))
	}
	fail := func(err error) error {
		t.Close()
		os.Remove(tmp)
		return fmt.Errorf("cannot write it: %v", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		t.Chown(int(st.Uid), int(st.Gid)) // best effort: only root can give a file away
	}
	if err := t.Chmod(fi.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)); err != nil {
		return fail(err)
	}
	if _, err := t.Write(data); err != nil {
		return fail(err)
	}
	if err := t.Sync(); err != nil {
		return fail(err)
	}
	if err := t.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write it: %v", err)
	}
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(fi, now) || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		os.Remove(tmp)
		return errors.New("it changed while it was being rewritten; run the command again")
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot replace it: %v", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
