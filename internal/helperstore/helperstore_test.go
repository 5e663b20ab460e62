package helperstore

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

var helper = templates.OutsideHelper{Rel: "helpers/0123456789ab/agent_debug_log.py", Source: []byte("def agent_log(): pass\n")}

func setup(t *testing.T) (*safefs.Root, string) {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	root, err := safefs.OpenRoot(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	if notes, err := install(root, []templates.OutsideHelper{helper}); err != nil || len(notes) != 0 {
		t.Fatalf("first install: %v %v", notes, err)
	}
	return root, state
}

// check runs install again and wants the helper back as debug-mode writes
// it (owner-only, a real file in real folders) and one note per wanted
// phrase.
func check(t *testing.T, root *safefs.Root, state string, want ...string) {
	t.Helper()
	notes, err := install(root, []templates.OutsideHelper{helper})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(notes, "\n")
	if len(notes) != len(want) {
		t.Errorf("notes:\n%s\nwant %d: %q", all, len(want), want)
	}
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no note says %q:\n%s", w, all)
		}
	}
	file := filepath.Join(state, filepath.FromSlash(helper.Rel))
	for p, mode := range map[string]os.FileMode{
		filepath.Join(state, "helpers"): os.ModeDir | 0o700,
		filepath.Dir(file):              os.ModeDir | 0o700,
		file:                            0o600,
	} {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v %v, want %v", p, fi.Mode(), err, mode)
		}
	}
	if b, err := os.ReadFile(file); err != nil || !bytes.Equal(b, helper.Source) {
		t.Errorf("helper holds %q (%v)", b, err)
	}
}

// TestInstallRepairs: whatever was done to the helpers folder, the next use
// puts debug-mode's helper back, never follows a link, and says so.
func TestInstallRepairs(t *testing.T) {
	rel := filepath.FromSlash(helper.Rel)
	t.Run("unchanged", func(t *testing.T) {
		root, state := setup(t)
		check(t, root, state)
	})
	t.Run("loose permissions", func(t *testing.T) {
		root, state := setup(t)
		file := filepath.Join(state, rel)
		for p, m := range map[string]os.FileMode{filepath.Join(state, "helpers"): 0o777, filepath.Dir(file): 0o777, file: 0o666} {
			if err := os.Chmod(p, m); err != nil {
				t.Fatal(err)
			}
		}
		check(t, root, state, "helpers was open to other users (mode 0777)", "0123456789ab was open to other users (mode 0777)",
			"agent_debug_log.py was open to other users (mode 0666)")
	})
	t.Run("changed content", func(t *testing.T) {
		root, state := setup(t)
		if err := os.WriteFile(filepath.Join(state, rel), []byte("import os; os.system('evil')\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		check(t, root, state, "had been changed since debug-mode wrote it")
	})
	for _, link := range []string{path.Dir(path.Dir(helper.Rel)), path.Dir(helper.Rel), helper.Rel} {
		t.Run("link at "+link, func(t *testing.T) {
			root, state := setup(t)
			outside := t.TempDir()
			evil := filepath.Join(outside, "agent_debug_log.py")
			if err := os.WriteFile(evil, []byte("evil\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(state, filepath.FromSlash(link))
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			target := outside
			if link == helper.Rel {
				target = evil
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			check(t, root, state, "was a symbolic link")
			if b, _ := os.ReadFile(evil); string(b) != "evil\n" {
				t.Errorf("the link's target was written through: %q", b)
			}
		})
	}
	t.Run("a file in place of the folder", func(t *testing.T) {
		root, state := setup(t)
		d := filepath.Join(state, filepath.Dir(rel))
		os.RemoveAll(d)
		if err := os.WriteFile(d, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		check(t, root, state, "was not a folder")
	})
}

// TestInstallOtherOwner: a helper file of another user is replaced (it is
// in a folder of ours); a folder of another user is refused, with the path
// and what to do.
func TestInstallOtherOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	const nobody = 65534
	root, state := setup(t)
	file := filepath.Join(state, filepath.FromSlash(helper.Rel))
	if err := os.Lchown(file, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	check(t, root, state, "belongs to uid 65534")
	dir := filepath.Dir(file)
	if err := os.Lchown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	_, err := install(root, []templates.OutsideHelper{helper})
	if err == nil || !strings.Contains(err.Error(), dir+" belongs to uid 65534") || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a folder of another user: %v", err)
	}
}
