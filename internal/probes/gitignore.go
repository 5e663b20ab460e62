package probes

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	negate   bool
	dirOnly  bool
	anchored bool // the pattern has a slash: it matches paths relative to its file's folder
	segs     []globSeg
}

// globSeg is one slash-separated piece of a pattern.
type globSeg struct {
	pat        string
	literal    bool // no wildcard: compare as text
	doubleStar bool // "**": any number of folders
}

func (g globSeg) match(name string) bool {
	if g.literal {
		return g.pat == name
	}
	ok, err := path.Match(g.pat, name)
	return ok && err == nil
}

// ignoreFile is the rules of one .gitignore (or .git/info/exclude), which
// apply to paths below base.
type ignoreFile struct {
	base  string // absolute folder, ending in a separator
	rules []ignoreRule
}

// ignoreStack holds the ignore files that apply to a folder, shallowest
// first. Deeper files take precedence, and within a file the last matching
// line wins, as in git.
type ignoreStack []*ignoreFile

// push returns the stack with f added, never sharing a backing array with a
// sibling folder's stack.
func (s ignoreStack) push(f *ignoreFile) ignoreStack {
	if f == nil || len(f.rules) == 0 {
		return s
	}
	out := make(ignoreStack, len(s), len(s)+1)
	copy(out, s)
	return append(out, f)
}

// ignored says whether abs (inside every file's base) is ignored.
func (s ignoreStack) ignored(abs string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		if !strings.HasPrefix(abs, f.base) {
			continue
		}
		rel := filepath.ToSlash(abs[len(f.base):])
		for j := len(f.rules) - 1; j >= 0; j-- {
			if f.rules[j].match(rel, isDir) {
				return !f.rules[j].negate
			}
		}
	}
	return false
}

func (r *ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if !r.anchored {
		base := rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			base = rel[i+1:]
		}
		return r.segs[0].match(base)
	}
	return matchSegs(r.segs, strings.Split(rel, "/"))
}

func matchSegs(p []globSeg, n []string) bool {
	for len(p) > 0 {
		if p[0].doubleStar {
			if len(p) == 1 {
				return len(n) > 0 // a trailing "/**" matches what is inside, not the folder itself
			}
			for i := 0; i <= len(n); i++ {
				if matchSegs(p[1:], n[i:]) {
					return true
				}
			}
			return false
		}
		if len(n) == 0 || !p[0].match(n[0]) {
			return false
		}
		p, n = p[1:], n[1:]
	}
	return len(n) == 0
}

// loadIgnoreFile reads a .gitignore; a missing or unreadable one has no rules.
func loadIgnoreFile(file, base string) *ignoreFile {
	data, err := os.ReadFile(file)
	if err != nil || len(data) > maxFileBytes {
		return nil
	}
	return parseIgnore(data, base)
}

// parseIgnore parses .gitignore text for the folder base.
func parseIgnore(data []byte, base string) *ignoreFile {
	f := &ignoreFile{base: strings.TrimSuffix(base, string(filepath.Separator)) + string(filepath.Separator)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text()); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	var r ignoreRule
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return r, false
	}
	switch {
	case line[0] == '!':
		r.negate, line = true, line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	for _, s := range strings.Split(line, "/") {
		if s == "" {
			continue // "a//b" is "a/b"
		}
		r.segs = append(r.segs, makeSeg(s))
	}
	if len(r.segs) == 0 {
		return r, false
	}
	if !r.anchored && r.segs[0].doubleStar {
		r.segs[0] = globSeg{pat: "*"} // a lone "**" matches everything, like "*"
	}
	return r, true
}

func makeSeg(s string) globSeg {
	if s == "**" {
		return globSeg{pat: s, doubleStar: true}
	}
	if !strings.ContainsAny(s, `*?[\`) {
		return globSeg{pat: s, literal: true}
	}
	// fnmatch spells a negated class "[!…]"; path.Match spells it "[^…]".
	s = strings.ReplaceAll(s, "[!", "[^")
	for strings.Contains(s, "***") {
		s = strings.ReplaceAll(s, "***", "**")
	}
	return globSeg{pat: s}
}

// repoRoot is the nearest folder at or above dir holding .git, or "".
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// ancestorIgnores returns the ignore rules that apply to folder dir from
// above it: .git/info/exclude and every .gitignore from the repository root
// down to dir's parent. Outside a repository, the .gitignore files from the
// working directory wd down apply, when dir is inside it. dir's own
// .gitignore is read by the walk.
func ancestorIgnores(dir, wd string) ignoreStack {
	var s ignoreStack
	root := repoRoot(dir)
	if root != "" {
		s = s.push(loadIgnoreFile(filepath.Join(root, ".git", "info", "exclude"), root))
	} else if rel, err := filepath.Rel(wd, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		root = wd
	} else {
		return nil
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return s
	}
	d := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		s = s.push(loadIgnoreFile(filepath.Join(d, ".gitignore"), d))
		d = filepath.Join(d, part)
	}
	return s
}
