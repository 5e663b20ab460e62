package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
)

// User evidence is what only the user could provide: a report in their own
// words (a note) and files they point to (a screenshot, a HAR, a crash
// dump). Files are referenced in place: never copied, opened for reading, or
// changed; only their metadata is kept. Entries survive reset and are deleted
// with the session.

// UserEvidenceFile is the session file that holds the entries.
const UserEvidenceFile = "user-evidence.json"

// Bounds of user evidence.
const (
	MaxNoteChars  = 4000 // characters (Unicode code points) in one note
	MaxPathBytes  = 4096
	MaxUserNotes  = 500
	MaxUserFiles  = 500
	userEvidenceV = 1
)

// ErrUserEvidence wraps every refusal of a user evidence entry as given.
var ErrUserEvidence = errors.New("bad user evidence")

// UserNote is a user's report.
type UserNote struct {
	ID       string `json:"id"` // N1, N2, …
	Text     string `json:"text"`
	Cycle    int64  `json:"cycle"`   // the reset cycle it was added in
	AddedAt  int64  `json:"addedAt"` // epoch ms
	Redacted int    `json:"redacted,omitempty"`
}

// FileRef is what the CLI saw of a user's file when it was added.
type FileRef struct {
	Path    string `json:"path"`    // absolute, links resolved
	Size    int64  `json:"size"`    // bytes
	ModTime int64  `json:"modTime"` // epoch ns
}

// UserFile is a user-supplied file, referenced in place.
type UserFile struct {
	ID string `json:"id"` // F1, F2, …
	FileRef
	Note         string `json:"note,omitempty"`
	Cycle        int64  `json:"cycle"` // the reset cycle it was first added in
	AddedAt      int64  `json:"addedAt"`
	UpdatedCycle int64  `json:"updatedCycle,omitempty"` // set when the same path was added again
	UpdatedAt    int64  `json:"updatedAt,omitempty"`
}

// UserEvidence is every entry of a session.
type UserEvidence struct {
	SessionID string     `json:"sessionId"`
	Cycle     int64      `json:"cycle"` // the session's cycle now
	Notes     []UserNote `json:"notes"`
	Files     []UserFile `json:"files"`
}

// UserEvidenceCount is the one-line summary status and logs show.
type UserEvidenceCount struct {
	Notes int `json:"notes"`
	Files int `json:"files"`
}

type userEvidenceDoc struct {
	Version  int        `json:"version"`
	NextNote int        `json:"nextNote"`
	NextFile int        `json:"nextFile"`
	Notes    []UserNote `json:"notes"`
	Files    []UserFile `json:"files"`
}

func badUser(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUserEvidence, fmt.Sprintf(format, a...))
}

// CheckNote validates a note's text.
func CheckNote(text string) error {
	if !utf8.ValidString(text) {
		return badUser("the note is not valid UTF-8 text")
	}
	if strings.TrimSpace(text) == "" {
		return badUser("the note is empty")
	}
	if n := utf8.RuneCountInString(text); n > MaxNoteChars {
		return badUser("the note is %d characters; the bound is %d (keep the user's words that bear on the bug, or attach the full text as a file with --file)", n, MaxNoteChars)
	}
	return nil
}

func checkRef(r FileRef) error {
	switch {
	case r.Path == "" || !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path:
		return badUser("the file path must be absolute and clean")
	case len(r.Path) > MaxPathBytes || strings.IndexByte(r.Path, 0) >= 0 || !utf8.ValidString(r.Path):
		return badUser("the file path is too long or not text")
	case r.Size < 0:
		return badUser("the file size is negative")
	}
	return nil
}

func (s *Session) loadUserEvidence() (userEvidenceDoc, error) {
	var d userEvidenceDoc
	err := readJSON(s.st.root, s.path(UserEvidenceFile), &d)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if d.Notes == nil {
		d.Notes = []UserNote{}
	}
	if d.Files == nil {
		d.Files = []UserFile{}
	}
	return d, err
}

func (s *Session) saveUserEvidence(d userEvidenceDoc) error {
	d.Version = userEvidenceV
	return writeJSON(s.st.root, s.path(UserEvidenceFile), d)
}

// AddUserNote records a user's report. Secret-shaped parts are redacted
// before it is stored, as for events.
func (s *Session) AddUserNote(text string) (UserNote, error) {
	if err := CheckNote(text); err != nil {
		return UserNote{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return UserNote{}, ErrNotFound
	}
	d, err := s.loadUserEvidence()
	if err != nil {
		return UserNote{}, err
	}
	if len(d.Notes) >= MaxUserNotes {
		return UserNote{}, badUser("the session already holds %d notes, the most it keeps", MaxUserNotes)
	}
	red, n := evidence.RedactText(text)
	d.NextNote = max(d.NextNote, len(d.Notes)) + 1
	note := UserNote{ID: "N" + strconv.Itoa(d.NextNote), Text: red, Cycle: s.meta.Epoch, AddedAt: s.st.now().UnixMilli(), Redacted: n}
	d.Notes = append(d.Notes, note)
	return note, s.saveUserEvidence(d)
}

// AddUserFile records a file by reference. Adding a path already recorded
// updates that entry (metadata, and the note when one is given) and keeps
// its id; updated reports which happened.
func (s *Session) AddUserFile(ref FileRef, note string) (f UserFile, updated bool, err error) {
	if err := checkRef(ref); err != nil {
		return UserFile{}, false, err
	}
	if note != "" {
		if err := CheckNote(note); err != nil {
			return UserFile{}, false, err
		}
		note, _ = evidence.RedactText(note)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return UserFile{}, false, ErrNotFound
	}
	d, err := s.loadUserEvidence()
	if err != nil {
		return UserFile{}, false, err
	}
	now := s.st.now().UnixMilli()
	for i := range d.Files {
		if d.Files[i].Path == ref.Path {
			e := &d.Files[i]
			e.FileRef, e.UpdatedCycle, e.UpdatedAt = ref, s.meta.Epoch, now
			if note != "" {
				e.Note = note
			}
			return *e, true, s.saveUserEvidence(d)
		}
	}
	if len(d.Files) >= MaxUserFiles {
		return UserFile{}, false, badUser("the session already holds %d files, the most it keeps", MaxUserFiles)
	}
	d.NextFile = max(d.NextFile, len(d.Files)) + 1
	f = UserFile{ID: "F" + strconv.Itoa(d.NextFile), FileRef: ref, Note: note, Cycle: s.meta.Epoch, AddedAt: now}
	d.Files = append(d.Files, f)
	return f, false, s.saveUserEvidence(d)
}

// UserEvidence returns every entry, oldest first.
func (s *Session) UserEvidence() (UserEvidence, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return UserEvidence{}, ErrNotFound
	}
	d, err := s.loadUserEvidence()
	return UserEvidence{SessionID: s.id, Cycle: s.meta.Epoch, Notes: d.Notes, Files: d.Files}, err
}

// UserEvidenceCount counts the entries; an unreadable file counts as none.
func (s *Session) UserEvidenceCount() UserEvidenceCount {
	d, _ := s.loadUserEvidence()
	return UserEvidenceCount{Notes: len(d.Notes), Files: len(d.Files)}
}

// Availability of a user's file, checked by whoever lists it.
const (
	FileAvailable  = "available"
	FileMissing    = "missing"
	FileUnreadable = "unreadable"
	FileChanged    = "changed"   // size or modification time differ from when it was added
	FileSymlink    = "symlink"   // replaced by a symbolic link
	FileDirectory  = "directory" // replaced by a folder
	FileSpecial    = "special"   // replaced by a device, pipe or socket
)

// Availability is what a fresh look at a referenced file found.
type Availability struct {
	State   string `json:"state"`
	Size    int64  `json:"size,omitempty"`    // now, when changed
	ModTime int64  `json:"modTime,omitempty"` // now, when changed
}

// canRead checks read permission without opening the file. Tests replace it
// (a root process may read anything).
var canRead = func(path string) error { return unix.Access(path, unix.R_OK) }

// StatUserFile looks at a file the user named, following links to the file
// they point at, without opening or reading it. It refuses anything but an
// existing regular file the caller may read.
func StatUserFile(path string) (FileRef, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return FileRef{}, badUser("%s: %v", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return FileRef{}, badUser("%s: no such file", path)
		case errors.Is(err, fs.ErrPermission):
			return FileRef{}, badUser("%s: permission denied (the user must make it readable)", path)
		}
		return FileRef{}, badUser("%s: %v", path, err)
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return FileRef{}, badUser("%s: %v", path, err)
	}
	switch {
	case fi.IsDir():
		return FileRef{}, badUser("%s is a folder; name one regular file (an archive of the folder, if it is all needed)", path)
	case !fi.Mode().IsRegular():
		return FileRef{}, badUser("%s is not a regular file (a device, pipe or socket)", path)
	}
	if err := canRead(real); err != nil {
		return FileRef{}, badUser("%s is not readable by this user (%v); ask the user to make it readable", path, err)
	}
	return FileRef{Path: real, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// CheckUserFile looks afresh at a recorded file without opening it.
func CheckUserFile(ref FileRef) Availability {
	fi, err := os.Lstat(ref.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Availability{State: FileMissing}
	case err != nil:
		return Availability{State: FileUnreadable}
	case fi.Mode()&fs.ModeSymlink != 0:
		return Availability{State: FileSymlink}
	case fi.IsDir():
		return Availability{State: FileDirectory}
	case !fi.Mode().IsRegular():
		return Availability{State: FileSpecial}
	}
	if canRead(ref.Path) != nil {
		return Availability{State: FileUnreadable}
	}
	if fi.Size() != ref.Size || fi.ModTime().UnixNano() != ref.ModTime {
		return Availability{State: FileChanged, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	}
	return Availability{State: FileAvailable}
}
