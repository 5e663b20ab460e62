package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

const verifyRecord = `{"hypothesisId":"H1","location":"a:1","message":"m","data":1,"timestamp":1784313728231}` + "\n"

// TestGetChecksLoadedSession: a loaded session whose directory became a link
// is refused by the next Get (and unloaded); one replaced by a real copy is
// loaded again from the copy, so what is read is what the path holds.
func TestGetChecksLoadedSession(t *testing.T) {
	st, root := testStore(t)
	s, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.IngestHTTP([]byte(verifyRecord)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root.Path(), statedir.SessionDir(s.ID()))
	copyDir := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", dir, copyDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}

	// Replaced by a real directory (a copy with one more record).
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", copyDir, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(dir, statedir.EventsFile), append(mustRead(t, filepath.Join(dir, statedir.EventsFile)), mustRead(t, filepath.Join(dir, statedir.EventsFile))...), 0o600)
	again, err := st.Get(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if again == s {
		t.Error("Get kept serving the session from the directory moved away")
	}
	if stat, err := again.Status(); err != nil || stat.Events != 2 {
		t.Errorf("status of the reloaded session: %d events, %v; want the copy's 2", stat.Events, err)
	}

	// Swapped for a link: refused, and the old descriptors are closed.
	os.RemoveAll(dir)
	if err := os.Symlink(copyDir, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(s.ID()); !errors.Is(err, safefs.ErrSymlink) {
		t.Errorf("Get through a link = %v, want ErrSymlink", err)
	}
	if _, err := again.Status(); !errors.Is(err, ErrNotFound) {
		t.Errorf("the refused session is still usable: %v", err)
	}
	if err := st.Clean(s.ID()); err != nil {
		t.Errorf("Clean of the linked session: %v", err)
	}
	if _, err := os.Stat(filepath.Join(copyDir, statedir.EventsFile)); err != nil {
		t.Errorf("Clean touched the link's target: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkGetLoaded is the cost of Get for a loaded session, which checks
// the session's directory and open files against their paths every time.
func BenchmarkGetLoaded(b *testing.B) {
	root, err := safefs.OpenRoot(filepath.Join(b.TempDir(), "state"))
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	st, err := Open(root, time.Now, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s, err := st.Create()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := st.Get(s.ID()); err != nil {
			b.Fatal(err)
		}
	}
}
