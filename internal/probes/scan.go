package probes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// maxFileBytes is the largest file read; bigger ones are generated or data.
const maxFileBytes = 2 << 20

// maxUnreadable bounds the unreadable paths a report names.
const maxUnreadable = 20

// Region is one well-formed agent log region.
type Region struct {
	File      string `json:"file"`            // relative to the working directory, slash-separated
	StartLine int    `json:"startLine"`       // the start marker's line
	EndLine   int    `json:"endLine"`         // the end marker's line
	Label     string `json:"label,omitempty"` // text after "agent log" on the start marker
	FirstCode string `json:"firstCode"`       // the first line of code inside, trimmed and cut

	abs      string
	from, to int
}

// Lines is how many lines the region spans, markers included.
func (r Region) Lines() int { return r.EndLine - r.StartLine + 1 }

// Broken is a marker that does not form a region.
type Broken struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Kind        string `json:"kind"` // unclosed, unopened, nested, misspelt
	Message     string `json:"message"`
	RelatedLine int    `json:"relatedLine,omitempty"` // nested: where the enclosing region starts
}

// Skipped counts files not scanned.
type Skipped struct {
	Binary     int      `json:"binary"`
	Large      int      `json:"large"` // over 2 MiB
	Unreadable int      `json:"unreadable"`
	Paths      []string `json:"unreadablePaths,omitempty"` // the first few unreadable files
}

// Report is the ledger of a scan.
type Report struct {
	Paths        []string `json:"paths"`
	Staged       bool     `json:"staged"`
	FilesScanned int      `json:"filesScanned"`
	Skipped      Skipped  `json:"skipped"`
	Regions      []Region `json:"regions"`
	Broken       []Broken `json:"broken"`
}

// Files is the number of distinct files with a well-formed region.
func (r *Report) Files() int {
	seen := map[string]bool{}
	for _, x := range r.Regions {
		seen[x.File] = true
	}
	return len(seen)
}

// Clean says whether no region and no broken marker remains.
func (r *Report) Clean() bool { return len(r.Regions) == 0 && len(r.Broken) == 0 }

// Options say what to scan.
type Options struct {
	Paths   []string // files or folders; none means Dir
	Dir     string   // the working directory paths are relative to; "" means the process's
	Staged  bool     // scan what is staged in git instead of the working tree
	Workers int      // 0 means a default sized to the machine
}

// PathError is a named path that cannot be scanned.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string {
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		return fmt.Sprintf("%s: no such file or folder", e.Path)
	case errors.Is(e.Err, fs.ErrPermission):
		return fmt.Sprintf("%s: permission denied", e.Path)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

// Scan builds the ledger of the paths in o.
func Scan(o Options) (*Report, error) {
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	paths := o.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	workers := o.Workers
	if workers <= 0 {
		workers = min(max(2*runtime.GOMAXPROCS(0), 4), 32)
	}
	s := &scanner{dir: dir, jobs: make(chan job, 256)}
	rep := &Report{Paths: paths, Staged: o.Staged, Regions: []Region{}, Broken: []Broken{}}

	var files []fileResult
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []fileResult
			var buf []byte
			for j := range s.jobs {
				local = append(local, j.run(&buf))
			}
			mu.Lock()
			files = append(files, local...)
			mu.Unlock()
		}()
	}
	var feedErr error
	if o.Staged {
		feedErr = s.feedStaged(paths)
	} else {
		feedErr = s.feedTree(paths)
	}
	close(s.jobs)
	wg.Wait()
	if feedErr != nil {
		return nil, feedErr
	}

	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.abs] {
			continue // named twice, or inside two named folders
		}
		seen[f.abs] = true
		switch f.outcome {
		case scanned:
			rep.FilesScanned++
		case binary:
			rep.Skipped.Binary++
		case large:
			rep.Skipped.Large++
		case unreadable:
			rep.Skipped.Unreadable++
			if len(rep.Skipped.Paths) < maxUnreadable {
				rep.Skipped.Paths = append(rep.Skipped.Paths, f.rel)
			}
		}
		for _, sp := range f.spans {
			rep.Regions = append(rep.Regions, Region{File: f.rel, StartLine: sp.start, EndLine: sp.end, Label: sp.label,
				FirstCode: sp.code, abs: f.abs, from: sp.from, to: sp.to})
		}
		for _, ft := range f.faults {
			rep.Broken = append(rep.Broken, Broken{File: f.rel, Line: ft.line, Kind: ft.kind, Message: faultMessage(ft), RelatedLine: ft.related})
		}
	}
	return rep, nil
}

func faultMessage(f fault) string {
	switch f.kind {
	case BrokenUnclosed:
		return "agent log region starts here but has no end marker"
	case BrokenUnopened:
		return "end marker with no region start before it"
	case BrokenNested:
		return fmt.Sprintf("agent log region starts inside the one opened at line %d", f.related)
	case BrokenMisspelt:
		return `mentions "region agent log" but is no marker: put the marker alone on its own comment line, or delete it`
	}
	return f.kind
}

type outcome uint8

const (
	scanned outcome = iota
	binary
	large
	unreadable
	absent // a listed link, or a file deleted since git listed it: nothing to count
)

// job is one file to read: from disk, or given content (a staged blob).
type job struct {
	abs, rel string
	content  []byte
	given    bool
	listed   bool // found in a folder, not named: a link or a vanished file is no file to read
}

type fileResult struct {
	abs, rel string
	outcome  outcome
	spans    []span
	faults   []fault
}

func (j job) run(buf *[]byte) fileResult {
	r := fileResult{abs: j.abs, rel: j.rel}
	data := j.content
	if !j.given {
		var err error
		data, r.outcome, err = readSource(j.abs, buf)
		if err != nil || r.outcome != scanned {
			if err != nil {
				r.outcome = unreadable
				if j.listed && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP)) {
					r.outcome = absent
				}
			}
			return r
		}
	} else if len(data) > maxFileBytes {
		r.outcome = large
		return r
	}
	if isBinary(data) {
		r.outcome = binary
		return r
	}
	r.spans, r.faults = parse(data)
	return r
}

// readSource reads a regular text file of at most maxFileBytes without
// following a symbolic link, into buf (reused between files). A binary file
// is known by its first bytes and not read further.
func readSource(abs string, buf *[]byte) ([]byte, outcome, error) {
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unreadable, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, unreadable, err
	}
	if !fi.Mode().IsRegular() {
		return nil, unreadable, errors.New("not a regular file")
	}
	if fi.Size() > maxFileBytes {
		return nil, large, nil
	}
	n := int(fi.Size())
	if cap(*buf) < n+1 {
		*buf = make([]byte, n+1, max(n+1, 64<<10))
	}
	b := (*buf)[:n+1]
	head := min(n+1, sniffBytes)
	m, err := io.ReadFull(f, b[:head])
	if err == nil && isBinary(b[:m]) {
		return nil, binary, nil
	}
	if err == nil && head < n+1 {
		var k int
		k, err = io.ReadFull(f, b[head:])
		m += k
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	if err != nil {
		return nil, unreadable, err
	}
	if m > n {
		return nil, large, nil // grew while read; a log being written, not source
	}
	return b[:m], scanned, nil
}

// sniffBytes is how much of a file git looks at to call it binary.
const sniffBytes = 8000

// isBinary uses git's rule: a NUL byte in the first 8,000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0
}

type scanner struct {
	dir  string
	jobs chan job
}

// rel names abs for the report: relative to the working directory when it is
// inside it, absolute otherwise.
func (s *scanner) rel(abs string) string {
	if r, err := filepath.Rel(s.dir, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(abs)
}

// feedTree walks the named paths and queues every source file.
func (s *scanner) feedTree(paths []string) error {
	type root struct {
		abs string
		dir bool
	}
	var roots []root
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(s.dir, p)
		}
		abs = filepath.Clean(abs)
		fi, err := os.Stat(abs) // a named path may be a link; links inside are not followed
		if err != nil {
			return &PathError{Path: p, Err: err}
		}
		roots = append(roots, root{abs, fi.IsDir()})
	}
	for _, r := range roots {
		if !r.dir {
			s.jobs <- job{abs: r.abs, rel: s.rel(r.abs)} // named explicitly: scanned whatever its name
			continue
		}
		skip := stateUnder(r.abs)
		listTree(r.abs, s.dir, func(p string) bool {
			if skip == "" || !strings.HasPrefix(p, skip) {
				s.jobs <- job{abs: p, rel: s.rel(p), listed: true}
			}
			return true
		})
	}
	return nil
}

// stateUnder is the prefix (ending in a separator) of the paths under root
// that are in debug-mode's own state directory, when it is inside root, or
// "": its evidence and helpers are not the project's code.
func stateUnder(root string) string {
	state, err := statedir.Path()
	if err != nil {
		return ""
	}
	realState, err1 := filepath.EvalSymlinks(state)
	realRoot, err2 := filepath.EvalSymlinks(root)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(realRoot, realState)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.Join(root, rel) + string(filepath.Separator)
}

// WalkSourceFiles calls visit with the absolute path of every file under
// root that the ledger reads (what git tracks or does not ignore; outside
// git, the tree without the default skipped folders and what .gitignore
// says; links never followed; never the state directory), until visit returns false. It returns false
// when visit stopped it.
func WalkSourceFiles(root string, visit func(abs string) bool) bool {
	root = filepath.Clean(root)
	skip := stateUnder(root)
	return listTree(root, root, func(p string) bool { return skip != "" && strings.HasPrefix(p, skip) || visit(p) })
}

// RepoRoot is the top of the git work tree holding dir (the nearest folder
// at or above it with a .git entry), or "" outside one.
func RepoRoot(dir string) string { return repoRoot(filepath.Clean(dir)) }

// walk visits the files under dir (outside git), skipping links, prose
// documents, the default dependency and build folders, and whatever the
// .gitignore files say; false means visit asked to stop.
func walk(dir string, ign ignoreStack, visit func(abs string) bool) bool {
	f, err := os.Open(dir)
	if err != nil {
		return true
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(entries) == 0 {
		return true
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			ign = ign.push(loadIgnoreFile(filepath.Join(dir, ".gitignore"), dir))
			break
		}
	}
	var subdirs []string
	for _, e := range entries {
		name := e.Name()
		t := e.Type()
		switch {
		case t&fs.ModeSymlink != 0:
			continue
		case t.IsDir():
			if skipDirs[name] || strings.HasSuffix(name, ".egg-info") {
				continue
			}
			p := dir + string(filepath.Separator) + name
			if ign.ignored(p, true) {
				continue
			}
			subdirs = append(subdirs, p)
		case t.IsRegular():
			if isDocFile(name) {
				continue
			}
			p := dir + string(filepath.Separator) + name
			if ign.ignored(p, false) {
				continue
			}
			if !visit(p) {
				return false
			}
		}
	}
	for _, d := range subdirs {
		if !walk(d, ign, visit) {
			return false
		}
	}
	return true
}

// skipDirs are folders of dependencies, build output, tool caches and
// version control, not walked outside git (in a git work tree, only what
// git ignores is left out).
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true,
	"node_modules": true, "bower_components": true, "jspm_packages": true, "vendor": true, "Pods": true, "Carthage": true,
	"target": true, "build": true, "dist": true, "bin": true, "obj": true, "out": true,
	".build": true, "DerivedData": true, ".swiftpm": true,
	".venv": true, "venv": true, "__pycache__": true, ".tox": true, ".nox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, ".eggs": true, "site-packages": true,
	".gradle": true, ".idea": true, ".vscode": true, ".vs": true,
	".next": true, ".nuxt": true, ".svelte-kit": true, ".turbo": true, ".parcel-cache": true, ".cache": true,
	"coverage": true, ".agent-debug-mode": true, ".terraform": true, ".bundle": true, ".cargo": true, "cmake-build-debug": true, "cmake-build-release": true,
}
