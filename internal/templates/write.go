package templates

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriteHelper saves an own-file helper (Go, Java, a browser module) as
// dir/Placement.HelperFile, so placing it costs no command of its own. A
// new file is created; a file that already holds a helper (its first line
// is the helper region's marker, from an earlier session) is replaced; any
// other file, and a symlink, is left alone with what to do instead.
func (t *Template) WriteHelper(dir string) (string, error) {
	path, err := t.HelperTarget(dir)
	if err != nil || path == "" {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return "", fmt.Errorf("writing the helper: %w", err)
	}
	_, err = f.WriteString(t.Helper)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("writing the helper: %w", err)
	}
	t.HelperWritten = path
	return path, nil
}

// HelperTarget is the file WriteHelper would write in dir, or why it will
// not: checked before a session is made for it. A helper debug-mode keeps
// outside the project has nothing to place: "".
func (t *Template) HelperTarget(dir string) (string, error) {
	if t.Placement.Helper == OutsideProject {
		return "", nil
	}
	if t.Placement.Helper != OwnFile || t.Helper == "" {
		return "", fmt.Errorf("--for places a helper that lives in a file of its own (Go, Java, browser modules); paste the %s + %s helper where its PLACEMENT says", t.DisplayName, t.Ingest)
	}
	path := filepath.Join(dir, t.Placement.HelperFile)
	first := func(b []byte) string { l, _, _ := bytes.Cut(b, []byte("\n")); return strings.TrimSpace(string(l)) }
	if fi, err := os.Lstat(path); err == nil {
		old, rerr := os.ReadFile(path)
		if !fi.Mode().IsRegular() || rerr != nil || first(old) != first([]byte(t.Helper)) {
			return "", fmt.Errorf("%s exists and is not a debug-mode helper: move it away, or print the helper with template --section helper and save it elsewhere", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return path, nil
}
