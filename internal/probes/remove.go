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
	File       string   `json:"file"`
	Regions    []Region `json:"regions"`
	Lines      int      `json:"lines"`                // lines removed, markers included
	Refused    string   `json:"refused,omitempty"`    // why the file is left alone
	Written    bool     `json:"written"`              // the file was rewritten
	EmptyAfter bool     `json:"emptyAfter,omitempty"` // only white space would be left
}

// Removal is the outcome of removing regions.
type Removal struct {
	Applied bool          `json:"applied"` // false: a dry run, nothing written
	Files   []FileRemoval `json:"files"`
	Regions int           `json:"regions"` // regions removed (or to remove)
	Lines   int           `json:"lines"`
	Refused int           `json:"refusedFiles"`
}

// Remove removes every well-formed region of the report from its file, or
// with apply false only says what it would remove. A file with a broken
// marker is refused whole. Everything outside the regions stays
// byte-identical: other lines, their line endings, the final newline (or its
// absence), the file's mode. Each file is replaced atomically.
func Remove(rep *Report, apply bool) (*Removal, error) {
	if rep.Staged {
		return nil, errors.New("regions can only be removed from the working tree, not from what is staged")
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
	for _, name := range names {
		f := byFile[name]
		if bs := broken[name]; len(bs) > 0 {
			f.Refused = "broken markers (" + strings.Join(bs, ", ") + "); fix them by hand first"
		} else if apply {
			if err := rewrite(abs[name], f); err != nil {
				f.Refused = err.Error()
			}
		} else {
			f.EmptyAfter = emptyAfter(abs[name], f.Regions)
		}
		if f.Refused != "" {
			out.Refused++
		} else {
			out.Regions += len(f.Regions)
			out.Lines += f.Lines
		}
		out.Files = append(out.Files, *f)
	}
	return out, nil
}

// emptyAfter says whether only white space would remain (a dry run's hint).
func emptyAfter(path string, regions []Region) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if !sameSpans(data, regions) {
		return false
	}
	return len(bytes.TrimSpace(cutSpans(data, spansOf(regions)))) == 0
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
// and replaces it atomically without the regions.
func rewrite(path string, f *FileRemoval) error {
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
	if err := replaceFile(path, fi, out); err != nil {
		return err
	}
	f.Written = true
	f.EmptyAfter = len(bytes.TrimSpace(out)) == 0
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
