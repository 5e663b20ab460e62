package logpoints

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Target is a resolved --at.
type Target struct {
	File     string // absolute, cleaned
	RealFile string // symbolic links resolved
	Path     string // relative to the project root when under it, else File
	Line     int
	Lines    int // how many lines the file has
	Language *Language
}

// MaxSourceBytes bounds the files logpoints go into (the probe ledger's
// bound too): a bigger file is generated or data, not code to instrument.
const MaxSourceBytes = 2 << 20

// Resolve checks --at PATH:LINE against the file system: the file exists
// (a relative path is resolved from cwd), is a regular file in a supported
// language, and has that line. Its Path is relative to root (the session's
// project root) when it is under it. The errors say what to do.
func Resolve(cwd, root, at string) (Target, error) {
	p, line, err := SplitAt(at)
	if err != nil {
		return Target{}, err
	}
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) || !utf8.ValidString(p) {
		return Target{}, invalidf("--at %s: the file's name holds a line break, a control character or bytes that are not UTF-8; logpoints need a plain name (rename or link the file)", at)
	}
	t := Target{Line: line, File: p}
	if !filepath.IsAbs(p) {
		t.File = filepath.Join(cwd, p)
	}
	t.File = filepath.Clean(t.File)
	fi, err := os.Stat(t.File)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		where := ""
		if !filepath.IsAbs(p) {
			where = " (relative paths are resolved from " + cwd + ")"
		}
		return Target{}, invalidf("--at %s: no such file%s", at, where)
	case err != nil:
		return Target{}, invalidf("--at %s: %v", at, errors.Unwrap(err))
	case fi.IsDir():
		return Target{}, invalidf("--at %s: %s is a folder; name a source file in it", at, p)
	case !fi.Mode().IsRegular():
		return Target{}, invalidf("--at %s: not a regular file", at)
	case fi.Size() > MaxSourceBytes:
		return Target{}, invalidf("--at %s: the file is over %d MiB; logpoints go into source files", at, MaxSourceBytes>>20)
	}
	if t.Language = ForPath(t.File); t.Language == nil {
		return Target{}, invalidf("--at %s: logpoints work in %s files; for other languages paste a code probe (debug-mode template --language <language>)", at, Supported())
	}
	if t.RealFile, err = filepath.EvalSymlinks(t.File); err != nil {
		return Target{}, invalidf("--at %s: %v", at, err)
	}
	src, err := os.ReadFile(t.File)
	if err != nil {
		return Target{}, invalidf("--at %s: cannot read it: %v", at, errors.Unwrap(err))
	}
	t.Lines = bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		t.Lines++
	}
	if line > t.Lines {
		return Target{}, invalidf("--at %s: line %d is past the end of the file (%d lines)", at, line, t.Lines)
	}
	t.Path = t.File
	if rel, err := filepath.Rel(root, t.File); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		t.Path = filepath.ToSlash(rel)
	}
	return t, nil
}
