package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

func testStore(t *testing.T) (*Store, *safefs.Root) {
	t.Helper()
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1796083200000)
	st, err := Open(root, func() time.Time { return now }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(); root.Close() })
	return st, root
}

func TestUserNotes(t *testing.T) {
	st, root := testStore(t)
	s, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	if c := s.UserEvidenceCount(); c != (UserEvidenceCount{}) {
		t.Fatalf("new session has user evidence: %+v", c)
	}
	n1, err := s.AddUserNote("The total shows -3.50 after SAVE10")
	if err != nil {
		t.Fatal(err)
	}
	if n1.ID != "N1" || n1.Cycle != 1 || n1.AddedAt != 1796083200000 {
		t.Errorf("first note: %+v", n1)
	}
	// Entries survive reset, and record the cycle they were added in.
	if _, err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	n2, err := s.AddUserNote("password=hunter2secret is what I typed")
	if err != nil {
		t.Fatal(err)
	}
	if n2.ID != "N2" || n2.Cycle != 2 || strings.Contains(n2.Text, "hunter2secret") || n2.Redacted == 0 {
		t.Errorf("second note (redacted, cycle 2): %+v", n2)
	}
	ue, err := s.UserEvidence()
	if err != nil {
		t.Fatal(err)
	}
	if len(ue.Notes) != 2 || ue.Notes[0].Text != "The total shows -3.50 after SAVE10" || ue.Cycle != 2 {
		t.Errorf("listing: %+v", ue)
	}
	fi, err := root.Stat(statedir.SessionDir(s.ID()) + "/" + UserEvidenceFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("user-evidence.json: %v %v", fi, err)
	}

	// Bad notes are refused with the reason.
	for _, c := range []struct{ text, want string }{
		{"", "empty"},
		{"  \n\t", "empty"},
		{strings.Repeat("é", MaxNoteChars+1), "4001 characters; the bound is 4000"},
		{"\xff\xfe", "not valid UTF-8"},
	} {
		_, err := s.AddUserNote(c.text)
		if !errors.Is(err, ErrUserEvidence) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("note %q: %v", c.text[:min(len(c.text), 10)], err)
		}
	}
	if _, err := s.AddUserNote(strings.Repeat("é", MaxNoteChars)); err != nil {
		t.Errorf("a note of exactly the bound: %v", err)
	}

	// clean removes them with the session.
	if err := st.Clean(s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Stat(statedir.SessionDir(s.ID())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory after clean: %v", err)
	}
	if _, err := s.AddUserNote("late"); !errors.Is(err, ErrNotFound) {
		t.Errorf("note on a cleaned session: %v", err)
	}
}

func TestUserFiles(t *testing.T) {
	st, _ := testStore(t)
	s, _ := st.Create()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	os.WriteFile(shot, []byte("png bytes"), 0o644)

	ref, err := StatUserFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Path != shot || ref.Size != 9 || ref.ModTime == 0 {
		t.Errorf("ref %+v", ref)
	}
	f1, updated, err := s.AddUserFile(ref, "the broken cart page")
	if err != nil || updated || f1.ID != "F1" || f1.Note != "the broken cart page" || f1.Cycle != 1 {
		t.Fatalf("add: %+v %v %v", f1, updated, err)
	}
	// The same path again updates the entry, keeps its id and note.
	s.Reset()
	os.WriteFile(shot, []byte("png bytes, larger"), 0o644)
	ref2, _ := StatUserFile(shot)
	f1b, updated, err := s.AddUserFile(ref2, "")
	if err != nil || !updated || f1b.ID != "F1" || f1b.Size != 17 || f1b.Note != "the broken cart page" || f1b.Cycle != 1 || f1b.UpdatedCycle != 2 {
		t.Errorf("re-add: %+v %v %v", f1b, updated, err)
	}
	// Through a link, the file it points at is recorded (and is the same entry).
	link := filepath.Join(dir, "latest.png")
	os.Symlink(shot, link)
	ref3, err := StatUserFile(link)
	if err != nil || ref3.Path != shot {
		t.Fatalf("link: %+v %v", ref3, err)
	}
	if f, updated, _ := s.AddUserFile(ref3, "new note"); !updated || f.ID != "F1" || f.Note != "new note" {
		t.Errorf("add through link: %+v", f)
	}
	har := filepath.Join(dir, "trace.har")
	os.WriteFile(har, []byte("{}"), 0o644)
	rh, _ := StatUserFile(har)
	if f, _, _ := s.AddUserFile(rh, ""); f.ID != "F2" {
		t.Errorf("second file id %q", f.ID)
	}
	ue, _ := s.UserEvidence()
	if len(ue.Files) != 2 || s.UserEvidenceCount() != (UserEvidenceCount{Notes: 0, Files: 2}) {
		t.Errorf("files: %+v", ue.Files)
	}
	// The file is never changed by being recorded.
	if b, _ := os.ReadFile(shot); string(b) != "png bytes, larger" {
		t.Error("file content changed")
	}

	// Bad references are refused by the store too (the CLI is not trusted).
	for _, r := range []FileRef{{Path: "relative/x"}, {Path: "/a/../b"}, {Path: "/x", Size: -1}, {Path: "/" + strings.Repeat("a", MaxPathBytes)}} {
		if _, _, err := s.AddUserFile(r, ""); !errors.Is(err, ErrUserEvidence) {
			t.Errorf("ref %+v accepted: %v", r, err)
		}
	}
	if _, _, err := s.AddUserFile(rh, strings.Repeat("x", MaxNoteChars+1)); !errors.Is(err, ErrUserEvidence) {
		t.Errorf("oversize file note: %v", err)
	}
}

// TestStatUserFile: every bad input is refused with a clear reason.
func TestStatUserFile(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "folder"), 0o755)
	syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644)
	os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling"))
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("x"), 0o000)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "nope.txt"), "nope.txt: no such file"},
		{filepath.Join(dir, "dangling"), "dangling: no such file"},
		{filepath.Join(dir, "folder"), "is a folder"},
		{filepath.Join(dir, "pipe"), "not a regular file"},
	} {
		_, err := StatUserFile(c.path)
		if !errors.Is(err, ErrUserEvidence) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	// Unreadable: a root process reads anything, so the permission check is
	// also exercised through the hook.
	if os.Geteuid() != 0 {
		if _, err := StatUserFile(secret); err == nil || !strings.Contains(err.Error(), "not readable") {
			t.Errorf("mode 000 file: %v", err)
		}
	} else {
		t.Log("running as root: mode 000 is readable to root; unreadability is checked through the canRead hook below")
	}
	denyRead(t, secret)
	if _, err := StatUserFile(secret); err == nil || !strings.Contains(err.Error(), "not readable") {
		t.Errorf("unreadable (hook): %v", err)
	}
}

// denyRead makes canRead refuse path for the rest of the test.
func denyRead(t *testing.T, path string) {
	old := canRead
	canRead = func(p string) error {
		if p == path {
			return syscall.EACCES
		}
		return old(p)
	}
	t.Cleanup(func() { canRead = old })
}

// TestCheckUserFile: availability is looked at afresh each time.
func TestCheckUserFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.txt")
	os.WriteFile(p, []byte("hello"), 0o644)
	ref, err := StatUserFile(p)
	if err != nil {
		t.Fatal(err)
	}
	state := func() string { return CheckUserFile(ref).State }
	if s := state(); s != FileAvailable {
		t.Fatalf("fresh: %s", s)
	}
	// Same size, new time.
	later := time.Unix(0, ref.ModTime).Add(3 * time.Second)
	os.Chtimes(p, later, later)
	if a := CheckUserFile(ref); a.State != FileChanged || a.ModTime != later.UnixNano() || a.Size != 5 {
		t.Errorf("touched: %+v", a)
	}
	os.WriteFile(p, []byte("hello, world"), 0o644)
	if a := CheckUserFile(ref); a.State != FileChanged || a.Size != 12 {
		t.Errorf("grown: %+v", a)
	}
	ref, _ = StatUserFile(p)

	if os.Geteuid() != 0 {
		os.Chmod(p, 0o000)
		if s := state(); s != FileUnreadable {
			t.Errorf("mode 000: %s", s)
		}
		os.Chmod(p, 0o644)
	}
	denyRead(t, p) // the states below are found before permission is looked at
	if s := state(); s != FileUnreadable {
		t.Errorf("unreadable (hook): %s", s)
	}

	os.Remove(p)
	if s := state(); s != FileMissing {
		t.Errorf("deleted: %s", s)
	}
	os.Symlink(filepath.Join(dir, "elsewhere"), p)
	if s := state(); s != FileSymlink {
		t.Errorf("replaced by a link: %s", s)
	}
	os.Remove(p)
	os.Mkdir(p, 0o755)
	if s := state(); s != FileDirectory {
		t.Errorf("replaced by a folder: %s", s)
	}
	os.Remove(p)
	syscall.Mkfifo(p, 0o644)
	if s := state(); s != FileSpecial {
		t.Errorf("replaced by a pipe: %s", s)
	}
}
