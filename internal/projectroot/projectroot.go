// Package projectroot is the folder a session's event locations are relative
// to: how the CLI finds it at create, and how the service turns the location
// a program sends (an absolute path, a file:// or page URL, a path relative
// to a build folder) into the path the tool shows everywhere else, relative
// to that root, so events join their probe regions exactly.
package projectroot

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
)

// Find is the project root for a working directory: the top of the git
// work tree holding it, else the directory itself.
func Find(dir string) string {
	if r := probes.RepoRoot(dir); r != "" {
		return r
	}
	return filepath.Clean(dir)
}

// Bounds of one normalizer (one per session).
const (
	MaxCached   = 4096             // distinct paths remembered; the cache starts over when full
	MaxIndexed  = 100_000          // source files indexed for suffix matches; beyond, no suffix match is trusted
	IndexBudget = 2 * time.Second  // wall time one index walk may take
	RetryAfter  = 30 * time.Second // a path that did not resolve is tried again after this long
)

// Normalizer rewrites event locations against one project root. It is safe
// for concurrent use; each distinct path costs file system work once.
type Normalizer struct {
	root, real string // the root as recorded, and with symbolic links resolved
	now        func() time.Time

	mu      sync.Mutex
	cache   map[string]resolution
	index   map[string][]string // file name → root-relative paths
	indexed time.Time
	whole   bool // the last walk saw every source file
}

type resolution struct {
	path string    // root-relative, or "" to keep the location as sent
	at   time.Time // when a miss was decided
}

// New returns a normalizer for root, an absolute folder.
func New(root string) *Normalizer {
	root = filepath.Clean(root)
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	return &Normalizer{root: root, real: real, now: time.Now, cache: map[string]resolution{}}
}

// Root is the folder locations are made relative to.
func (n *Normalizer) Root() string { return n.root }

// Location returns loc ("path:line" or "path:line:column") with its path
// relative to the root when it names a file there: an absolute path (or a
// file:// URL) under the root; a relative path that exists under the root;
// a page URL whose path does; or a relative path that does not exist as
// given but ends in the path of exactly one source file under the root
// (Java's com/acme/Foo.java, C's ../src/x.c). Anything else is kept as sent.
func (n *Normalizer) Location(loc string) string {
	p, tail, ok := splitTail(loc)
	if !ok {
		return loc
	}
	now := n.now()
	n.mu.Lock()
	r, hit := n.cache[p]
	n.mu.Unlock()
	if !hit || r.path == "" && now.Sub(r.at) > RetryAfter {
		r = resolution{path: n.resolve(p), at: now}
		n.mu.Lock()
		if len(n.cache) >= MaxCached {
			clear(n.cache)
		}
		n.cache[p] = r
		n.mu.Unlock()
	}
	if r.path == "" {
		return loc
	}
	return r.path + tail
}

// splitTail cuts ":line" or ":line:column" off loc.
func splitTail(loc string) (p, tail string, ok bool) {
	digits := func(s string) bool {
		if s == "" || s[0] == '0' {
			return false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	i := strings.LastIndexByte(loc, ':')
	if i <= 0 || !digits(loc[i+1:]) {
		return "", "", false
	}
	if k := strings.LastIndexByte(loc[:i], ':'); k > 0 && digits(loc[k+1:i]) {
		i = k
	}
	return loc[:i], loc[i:], true
}

// resolve returns the root-relative path p names, or "".
func (n *Normalizer) resolve(p string) string {
	switch {
	case strings.HasPrefix(p, "file://"):
		u, err := url.Parse(p)
		if err != nil || u.Path == "" || u.Host != "" && u.Host != "localhost" {
			return ""
		}
		p = u.Path
	case strings.HasPrefix(p, "http://"), strings.HasPrefix(p, "https://"):
		// A page's script: its URL path is often its path in the project
		// (a dev server serves the project folder; Vite's /@fs/ is absolute).
		u, err := url.Parse(p)
		if err != nil {
			return ""
		}
		p = u.Path
		if rest, ok := strings.CutPrefix(p, "/@fs/"); ok {
			p = "/" + rest
		} else {
			p = strings.TrimPrefix(p, "/")
		}
	}
	if p == "" || strings.ContainsRune(p, 0) {
		return ""
	}
	if filepath.IsAbs(p) {
		c := filepath.Clean(p)
		for _, r := range []string{n.root, n.real} {
			if rel, ok := inside(r, c); ok {
				return rel
			}
		}
		return ""
	}
	rel := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if rel != ".." && !strings.HasPrefix(rel, "../") && n.isFile(rel) {
		return rel
	}
	return n.bySuffix(rel)
}

// inside is abs relative to root, slash-separated, when it is below root.
func inside(root, abs string) (string, bool) {
	r, err := filepath.Rel(root, abs)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// isFile says whether rel is a regular file under the root, reached without
// a symbolic link that leads out of it.
func (n *Normalizer) isFile(rel string) bool {
	real, err := filepath.EvalSymlinks(filepath.Join(n.root, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	if _, ok := inside(n.real, real); !ok {
		return false
	}
	fi, err := os.Stat(real)
	return err == nil && fi.Mode().IsRegular()
}

// bySuffix returns the one source file under the root whose path ends with
// rel's components (leading ".." dropped), or "" when none or several do, or
// when the index could not see every file.
func (n *Normalizer) bySuffix(rel string) string {
	parts := probes.PathParts(rel)
	for len(parts) > 0 && parts[0] == ".." {
		parts = parts[1:]
	}
	if len(parts) == 0 {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.index == nil || n.now().Sub(n.indexed) > RetryAfter {
		n.reindex()
	}
	if !n.whole {
		return ""
	}
	found := ""
	for _, cand := range n.index[parts[len(parts)-1]] {
		if probes.CommonSuffix(probes.PathParts(cand), parts) == len(parts) {
			if found != "" {
				return "" // two files fit: not this tool's guess to make
			}
			found = cand
		}
	}
	return found
}

// reindex walks the root's source files (as the probe ledger does: links
// not followed, .gitignore honoured), bounded in files and time. Caller
// holds n.mu.
func (n *Normalizer) reindex() {
	n.index, n.indexed, n.whole = map[string][]string{}, n.now(), true
	count, deadline := 0, time.Now().Add(IndexBudget)
	probes.WalkSourceFiles(n.root, func(abs string) bool {
		if count++; count > MaxIndexed || count%256 == 0 && time.Now().After(deadline) {
			n.whole = false
			return false
		}
		if rel, ok := inside(n.root, abs); ok {
			n.index[path.Base(rel)] = append(n.index[path.Base(rel)], rel)
		}
		return true
	})
}
