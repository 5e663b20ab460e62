package probes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// GitError is a failure to ask git for what is staged.
type GitError struct{ Msg string }

func (e *GitError) Error() string { return e.Msg }

// feedStaged queues the staged content (the index, not the working tree) of
// every added, copied, modified or renamed file under paths, whatever its
// folder or extension (prose documents only when named).
func (s *scanner) feedStaged(paths []string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return &GitError{"--staged needs git on PATH"}
	}
	topOut, err := runGit(s.dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return &GitError{"--staged needs a git repository: " + err.Error()}
	}
	top := strings.TrimSpace(string(topOut))
	// git names files under the real path of the repository; compare and
	// show them against the real path of the working directory.
	real := &scanner{dir: s.dir, jobs: s.jobs}
	if d, err := filepath.EvalSymlinks(s.dir); err == nil {
		real.dir = d
	}
	named := map[string]bool{}
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(real.dir, p)
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		named[filepath.Clean(abs)] = true
	}
	args := append([]string{"diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", "--diff-filter=ACMR", "--"}, paths...)
	raw, err := runGit(s.dir, nil, args...)
	if err != nil {
		return &GitError{"git could not list the staged files: " + err.Error()}
	}
	type entry struct{ abs, oid string }
	var entries []entry
	fields := bytes.Split(raw, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		// ":<old mode> <new mode> <old oid> <new oid> <status>" NUL "<path>" NUL
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		name := string(fields[i+1])
		if len(meta) < 5 {
			continue
		}
		mode, oid := meta[1], meta[3]
		if mode != "100644" && mode != "100755" {
			continue // a symbolic link or a submodule
		}
		abs := filepath.Join(top, filepath.FromSlash(name))
		if !named[abs] && isDocFile(name) {
			continue
		}
		entries = append(entries, entry{abs, oid})
	}
	if len(entries) == 0 {
		return nil
	}
	// One git process streams every blob.
	var req bytes.Buffer
	for _, e := range entries {
		req.WriteString(e.oid + "\n")
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = top
	cmd.Stdin = &req
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return &GitError{"git cat-file: " + err.Error()}
	}
	br := bufio.NewReaderSize(out, 256<<10)
	var readErr error
	for _, e := range entries {
		header, err := br.ReadString('\n')
		if err != nil {
			readErr = err
			break
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			continue // "<oid> missing"
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			readErr = fmt.Errorf("unexpected git cat-file header %q", header)
			break
		}
		rel := real.rel(e.abs)
		if size > maxFileBytes {
			if _, err := io.CopyN(io.Discard, br, int64(size)+1); err != nil {
				readErr = err
				break
			}
			s.jobs <- job{abs: e.abs, rel: rel, content: make([]byte, maxFileBytes+1), given: true}
			continue
		}
		content := make([]byte, size+1)
		if _, err := io.ReadFull(br, content); err != nil {
			readErr = err
			break
		}
		s.jobs <- job{abs: e.abs, rel: rel, content: content[:size], given: true}
	}
	io.Copy(io.Discard, br)
	werr := cmd.Wait()
	if readErr != nil || werr != nil {
		return &GitError{"git cat-file failed: " + strings.TrimSpace(stderr.String()+" "+errString(readErr, werr))}
	}
	return nil
}

func errString(errs ...error) string {
	return strings.TrimSpace(errors.Join(errs...).Error())
}

// runGit runs git in dir and returns its stdout; the error carries stderr.
func runGit(dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, errors.New(firstLine(msg))
		}
		return nil, err
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
