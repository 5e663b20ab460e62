package probes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// After a removal, what a clean `git diff` still needs: each file the
// removal rewrote is compared with its version at git HEAD, and every
// change left outside the regions (a stray blank line, an import, or the
// fix itself) is listed by path:line, so nothing is found later by reading
// the whole diff.

// Git check states.
const (
	GitChecked     = "checked"     // every touched file in a work tree was compared with HEAD
	GitNotWorkTree = "not_git"     // no touched file is in a git work tree
	GitUnavailable = "unavailable" // git is not installed, or failed (Reason says how)
)

const (
	maxLeftovers    = 20 // hunks listed
	maxGitFiles     = 50 // touched files compared
	maxLeftoverText = 80 // characters of a hunk's first line shown
	gitTimeout      = 20 * time.Second
)

// GitCheck compares the files a removal touched with git HEAD.
type GitCheck struct {
	State     string     `json:"state"`
	Reason    string     `json:"reason,omitempty"`
	Files     int        `json:"files"`              // touched files compared with HEAD
	Differ    []string   `json:"differ"`             // of those, the ones that still differ from HEAD
	New       []string   `json:"newFiles"`           // touched files HEAD does not have
	NotInGit  []string   `json:"notInGit,omitempty"` // touched files outside every work tree (when some are in one)
	Leftovers []Leftover `json:"leftovers"`          // the changes, hunk by hunk
	Omitted   int        `json:"omitted"`            // hunks (or files, past 50) not listed
}

// Leftover is one hunk of `git diff HEAD` in a touched file.
type Leftover struct {
	File  string `json:"file"`
	Line  int    `json:"line"`  // its first line in the file now (for lines removed: where they were)
	Text  string `json:"text"`  // its first line added ("+…"), or removed ("-…") when it only removes
	Lines int    `json:"lines"` // lines added and removed in the hunk
}

// gitRepos finds each file's work tree, asking git once per folder.
type gitRepos struct {
	top map[string]string // real folder → work tree root ("" outside one)
	err error             // git missing or failing
}

func newGitRepos() *gitRepos { return &gitRepos{top: map[string]string{}} }

// of is the work tree holding path (a real path) and its path in it.
func (g *gitRepos) of(path string) (top, rel string, ok bool) {
	dir := filepath.Dir(path)
	t, seen := g.top[dir]
	if !seen {
		if _, err := exec.LookPath("git"); err != nil {
			g.err = errors.New("git is not installed")
			return "", "", false
		}
		out, err := gitOutput(dir, "rev-parse", "--show-toplevel")
		if err == nil {
			t = strings.TrimSpace(string(out))
		}
		g.top[dir] = t
	}
	if t == "" {
		return "", "", false
	}
	r, err := filepath.Rel(t, path)
	if err != nil || strings.HasPrefix(r, "..") {
		return "", "", false
	}
	return t, filepath.ToSlash(r), true
}

// head is the file's content at HEAD, or false when HEAD has no such file
// (or there is no commit yet).
func (g *gitRepos) head(top, rel string) ([]byte, bool) {
	out, err := gitOutput(top, "cat-file", "blob", "HEAD:"+rel)
	return out, err == nil
}

// tracked says whether HEAD has the file.
func (g *gitRepos) tracked(top, rel string) bool {
	_, err := gitOutput(top, "cat-file", "-e", "HEAD:"+rel)
	return err == nil
}

// gitOutput runs one git command with a timeout and without taking locks.
func gitOutput(dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
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

// checkGit compares the touched files (shown names and real paths) with
// git HEAD.
func checkGit(g *gitRepos, names, paths []string) *GitCheck {
	c := &GitCheck{State: GitChecked, Differ: []string{}, New: []string{}, Leftovers: []Leftover{}}
	var outside []string
	for i, name := range names {
		if c.Files+len(c.New) == maxGitFiles {
			c.Omitted += len(names) - i
			break
		}
		top, rel, ok := g.of(paths[i])
		if g.err != nil {
			return &GitCheck{State: GitUnavailable, Reason: g.err.Error(), Differ: []string{}, New: []string{}, Leftovers: []Leftover{}}
		}
		if !ok {
			outside = append(outside, name)
			continue
		}
		if !g.tracked(top, rel) {
			c.New = append(c.New, name)
			continue
		}
		out, err := gitOutput(top, "diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", "HEAD", "--", rel)
		if err != nil {
			return &GitCheck{State: GitUnavailable, Reason: "git diff: " + err.Error(), Differ: []string{}, New: []string{}, Leftovers: []Leftover{}}
		}
		c.Files++
		hunks := parseHunks(name, out)
		if len(hunks) > 0 {
			c.Differ = append(c.Differ, name)
		}
		for _, h := range hunks {
			if len(c.Leftovers) == maxLeftovers {
				c.Omitted++
				continue
			}
			c.Leftovers = append(c.Leftovers, h)
		}
	}
	if c.Files+len(c.New) == 0 {
		return &GitCheck{State: GitNotWorkTree, Differ: []string{}, New: []string{}, Leftovers: []Leftover{}}
	}
	c.NotInGit = outside
	return c
}

var hunkRE = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// parseHunks reads `git diff -U0` of one file: one Leftover per hunk.
func parseHunks(name string, diff []byte) []Leftover {
	var out []Leftover
	var cur *Leftover
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 64<<10), maxFileBytes+1)
	for sc.Scan() {
		line := sc.Text()
		if m := hunkRE.FindStringSubmatch(line); m != nil {
			start, _ := strconv.Atoi(m[1])
			if m[2] == "0" { // only lines removed, after line start
				start++
			}
			out = append(out, Leftover{File: name, Line: max(start, 1)})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil || line == "" || (line[0] != '+' && line[0] != '-') {
			continue
		}
		cur.Lines++
		if cur.Text == "" || line[0] == '+' && cur.Text[0] == '-' {
			cur.Text = leftoverText(line)
		}
	}
	return out
}

// leftoverText is a changed line as the report shows it.
func leftoverText(line string) string {
	sign, text := line[:1], strings.TrimRight(line[1:], "\r")
	if strings.TrimSpace(text) == "" {
		return sign + "(blank line)"
	}
	if utf8.RuneCountInString(text) > maxLeftoverText {
		text = string([]rune(text)[:maxLeftoverText-1]) + "…"
	}
	return sign + text
}
