package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
)

// The CLI side of a capture: it has the user's working tree, so it finds
// the probe regions and freezes the source lines around each location.

// ScanRegions finds the agent log regions under root, bounded.
func ScanRegions(root string) ([]probes.Region, RegionScan) {
	rep, err := probes.Scan(probes.Options{Dir: root})
	if err != nil {
		return []probes.Region{}, RegionScan{State: "failed", Reason: "scanning the source root failed: " + err.Error()}
	}
	rs := RegionScan{State: Complete, FilesScanned: rep.FilesScanned, Broken: len(rep.Broken),
		Unreadable: rep.Skipped.Unreadable, Large: rep.Skipped.Large}
	regions := rep.Regions
	if len(regions) > MaxRegions {
		rs.Omitted = len(regions) - MaxRegions
		regions = regions[:MaxRegions]
	}
	rs.Regions = len(regions)
	return regions, rs
}

// FreezeSources resolves each location to a file under root and keeps the
// lines around its line, busiest locations first (the order given), until a
// bound is reached. listedAll says whether locs are all of the cycle's.
func FreezeSources(root string, locs []string, listedAll bool) ([]Source, SourceScan) {
	t := &sourceTree{root: root, texts: map[string]*fileText{}}
	sc := SourceScan{ContextLines: ContextLines, Locations: len(locs), Truncated: !listedAll}
	out := []Source{}
	var bytesUsed int64
	for i, loc := range locs {
		if len(out) == MaxSourceLocations {
			sc.Bound, sc.Omitted = "locations", len(locs)-i
			break
		}
		s := t.freeze(loc)
		n := int64(0)
		for _, f := range s.Files {
			for _, l := range f.Lines {
				n += int64(len(l))
			}
		}
		if bytesUsed+n > MaxSourceBytes {
			sc.Bound, sc.Omitted = "bytes", len(locs)-i
			break
		}
		bytesUsed += n
		out = append(out, s)
	}
	sc.Records = len(out)
	sc.Bytes = bytesUsed
	sc.SearchComplete = !t.walked || t.complete
	return out, sc
}

type sourceTree struct {
	root     string
	walked   bool
	complete bool                // the walk saw every file
	byName   map[string][]string // base name → paths relative to root
	texts    map[string]*fileText
}

type fileText struct {
	lines  []string
	reason string // why it cannot be read, or ""
}

func (t *sourceTree) freeze(loc string) Source {
	s := Source{Location: loc}
	path, line, ok := probes.SplitLocation(loc)
	if !ok {
		s.State, s.Reason = Incomplete, "the location has no line number (path:line), so no lines can be picked"
		return s
	}
	native := filepath.FromSlash(strings.ReplaceAll(path, `\`, "/"))
	direct := native
	if !filepath.IsAbs(direct) {
		direct = filepath.Join(t.root, direct)
	}
	direct = filepath.Clean(direct)
	rel, err := filepath.Rel(t.root, direct)
	inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	if real, err := filepath.EvalSymlinks(direct); err == nil && inside {
		// A location is program data: a link inside the root must not pull
		// in lines from outside it.
		rootReal, rerr := filepath.EvalSymlinks(t.root)
		r, err := filepath.Rel(rootReal, real)
		inside = rerr == nil && err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
	}
	if fi, err := os.Lstat(direct); err == nil && fi.Mode().IsRegular() {
		if !inside {
			s.State, s.Reason = Incomplete, fmt.Sprintf("%s is outside the source root %s; capture with --source-root covering it", path, t.root)
			return s
		}
		return t.cutOut(s, []string{filepath.ToSlash(rel)}, line)
	}
	// Not where the location says: look for files whose trailing path
	// components match it best (a location written on another machine, or
	// relative to another folder).
	cands, complete := t.search(probes.PathParts(path))
	if len(cands) == 0 {
		if complete {
			s.State, s.Reason = Unavailable, fmt.Sprintf("no file named %s is under the source root %s", filepath.Base(native), t.root)
		} else {
			s.State, s.Reason = Incomplete, fmt.Sprintf("no file named %s was found, but the search of the source root stopped after %d files", filepath.Base(native), MaxWalkFiles)
		}
		return s
	}
	return t.cutOut(s, cands, line)
}

// cutOut keeps the lines around line in each candidate file that has it.
func (t *sourceTree) cutOut(s Source, cands []string, line int) Source {
	var files []SourceFile
	var reasons []string
	short := 0
	for _, rel := range cands {
		ft := t.read(rel)
		switch {
		case ft.reason != "":
			reasons = append(reasons, rel+": "+ft.reason)
			continue
		case line > len(ft.lines):
			short++
			reasons = append(reasons, fmt.Sprintf("%s has %d lines; line %d is past its end", rel, len(ft.lines), line))
			continue
		}
		start, end := max(1, line-ContextLines), min(len(ft.lines), line+ContextLines)
		f := SourceFile{File: rel, Line: line, StartLine: start, TotalLines: len(ft.lines)}
		for _, l := range ft.lines[start-1 : end] {
			if len(l) > MaxSourceLineBytes {
				l = cut(l, MaxSourceLineBytes)
				f.CutLines++
			}
			f.Lines = append(f.Lines, l)
		}
		files = append(files, f)
	}
	switch {
	case len(files) == 1:
		s.State, s.Files = Complete, files
	case len(files) > 1:
		s.State, s.Files, s.Matches = Ambiguous, files[:min(len(files), MaxCandidates)], len(files)
		s.Reason = fmt.Sprintf("%d files under the source root match the location's path equally well", len(files))
	case short == len(cands):
		s.State, s.Reason = Unavailable, strings.Join(reasons, "; ")
	default:
		s.State, s.Reason = Incomplete, strings.Join(reasons, "; ")
	}
	return s
}

// read loads a file under the root once, as lines.
func (t *sourceTree) read(rel string) *fileText {
	if ft, ok := t.texts[rel]; ok {
		return ft
	}
	ft := &fileText{}
	t.texts[rel] = ft
	// No links followed, and a FIFO planted in the tree cannot block us.
	f, err := os.OpenFile(filepath.Join(t.root, filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err == nil {
		if fi, serr := f.Stat(); serr != nil || !fi.Mode().IsRegular() {
			f.Close()
			f, err = nil, errors.New("not a regular file")
		}
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		ft.reason = "cannot be read (" + err.Error() + ")"
		return ft
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	switch {
	case err != nil:
		ft.reason = "cannot be read (" + err.Error() + ")"
	case len(data) > MaxFileBytes:
		ft.reason = fmt.Sprintf("is larger than %d MiB, so it was not read", MaxFileBytes>>20)
	case bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0:
		ft.reason = "is a binary file"
	}
	if ft.reason != "" {
		return ft
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	text = strings.TrimSuffix(text, "\n")
	for _, l := range strings.Split(text, "\n") {
		ft.lines = append(ft.lines, strings.ReplaceAll(l, "\r", ""))
	}
	if len(data) == 0 {
		ft.lines = nil
	}
	return ft
}

// search returns the files under the root whose trailing path components
// match parts best (at least the file name), and whether the walk saw every
// file.
func (t *sourceTree) search(parts []string) ([]string, bool) {
	if len(parts) == 0 {
		return nil, true
	}
	if !t.walked {
		t.walk()
	}
	best := 0
	var out []string
	for _, rel := range t.byName[parts[len(parts)-1]] {
		n := probes.CommonSuffix(probes.PathParts(rel), parts)
		switch {
		case n > best:
			best, out = n, []string{rel}
		case n == best:
			out = append(out, rel)
		}
	}
	return out, t.complete
}

// walk indexes the files under the root by name, skipping the folders the
// probe ledger skips and symbolic links, up to MaxWalkFiles files.
func (t *sourceTree) walk() {
	t.walked, t.complete = true, true
	t.byName = map[string][]string{}
	n := 0
	filepath.WalkDir(t.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != t.root {
				t.complete = false // an unreadable folder hides what it holds
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != t.root && probes.SkipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if n++; n > MaxWalkFiles {
			t.complete = false
			return fs.SkipAll
		}
		rel, err := filepath.Rel(t.root, p)
		if err == nil {
			t.byName[d.Name()] = append(t.byName[d.Name()], filepath.ToSlash(rel))
		}
		return nil
	})
}
