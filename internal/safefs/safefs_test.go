package safefs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bothResolvers runs fn once with openat2 (when the kernel has it) and once
// with the forced component walk.
func bothResolvers(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			old := forceWalk
			forceWalk = walk
			t.Cleanup(func() { forceWalk = old })
			fn(t)
		})
	}
}

func newRoot(t *testing.T) *Root {
	t.Helper()
	r, err := OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// outsideTree makes a directory outside the root holding a file "secret",
// and returns a check that it is unchanged.
func outsideTree(t *testing.T) (dir string, intact func()) {
	t.Helper()
	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "secret"), "keep")
	return dir, func() {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("outside dir: %v", err)
		}
		if len(entries) != 1 || entries[0].Name() != "secret" {
			t.Errorf("outside dir entries changed: %v", entries)
		}
		got, err := os.ReadFile(filepath.Join(dir, "secret"))
		if err != nil || string(got) != "keep" {
			t.Errorf("outside file changed: %q, %v", got, err)
		}
	}
}

func TestOpenRoot(t *testing.T) {
	t.Run("creates 0700 with parents", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "a", "b", "state")
		r, err := OpenRoot(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Path() != path {
			t.Errorf("Path() = %q, want %q", r.Path(), path)
		}
		for _, p := range []string{path, filepath.Dir(path)} {
			if m := mode(t, p); m != 0o700 {
				t.Errorf("%s mode = %v, want 0700", p, m)
			}
		}
	})
	t.Run("tightens existing 0755", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state")
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, 0o755)
		r, err := OpenRoot(path)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		if m := mode(t, path); m != 0o700 {
			t.Errorf("mode = %v, want 0700", m)
		}
	})
	t.Run("refuses symlink", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real")
		os.Mkdir(real, 0o700)
		link := filepath.Join(dir, "link")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenRoot(link); !errors.Is(err, ErrSymlink) {
			t.Errorf("err = %v, want ErrSymlink", err)
		}
	})
	t.Run("refuses regular file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "file")
		writeFile(t, path, "")
		if _, err := OpenRoot(path); !errors.Is(err, ErrUnsafe) {
			t.Errorf("err = %v, want ErrUnsafe", err)
		}
	})
	t.Run("refuses other owner", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("needs root to chown")
		}
		path := filepath.Join(t.TempDir(), "state")
		os.Mkdir(path, 0o700)
		if err := os.Chown(path, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenRoot(path); !errors.Is(err, ErrUnsafe) {
			t.Errorf("err = %v, want ErrUnsafe", err)
		}
	})
	t.Run("close twice", func(t *testing.T) {
		r := newRoot(t)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("second Close = %v, want ErrClosed", err)
		}
	})
}

func TestOpenat2Probe(t *testing.T) {
	r := newRoot(t)
	if !haveOpenat2(r.fd) {
		t.Log("openat2 unavailable: the openat2 subtests exercise the walk too")
	}
}

// ops lists every rel-taking method as a closure for table-driven checks.
func ops(r *Root) map[string]func(rel string) error {
	return map[string]func(rel string) error{
		"OpenFile": func(rel string) error {
			f, err := r.OpenFile(rel, os.O_RDWR|os.O_CREATE, 0o600)
			if err == nil {
				f.Close()
			}
			return err
		},
		"Mkdir":    r.Mkdir,
		"MkdirAll": r.MkdirAll,
		"ReadFile": func(rel string) error { _, err := r.ReadFile(rel); return err },
		"WriteFileAtomic": func(rel string) error {
			return r.WriteFileAtomic(rel, []byte("evil"))
		},
		"Stat":         func(rel string) error { _, err := r.Stat(rel); return err },
		"ReadDirNames": func(rel string) error { _, err := r.ReadDirNames(rel); return err },
		"Remove":       r.Remove,
		"RemoveAll":    r.RemoveAll,
		"Truncate":     func(rel string) error { return r.Truncate(rel, 0) },
	}
}

func TestInvalidRel(t *testing.T) {
	r := newRoot(t)
	for _, rel := range []string{"", "/etc/passwd", "..", "../x", "a/../b", "a/..", "a\x00b"} {
		for name, op := range ops(r) {
			if err := op(rel); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("%s(%q) = %v, want ErrInvalid", name, rel, err)
			}
		}
	}
	if names, _ := os.ReadDir(r.Path()); len(names) != 0 {
		t.Errorf("root not empty: %v", names)
	}
}

func TestSymlinkIntermediate(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		outside, intact := outsideTree(t)
		if err := os.Symlink(outside, filepath.Join(r.Path(), "link")); err != nil {
			t.Fatal(err)
		}
		os.Mkdir(filepath.Join(r.Path(), "d"), 0o700)
		if err := os.Symlink(outside, filepath.Join(r.Path(), "d", "link")); err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"link/secret", "link/new", "d/link/secret", "d/link/new/deeper"} {
			// The error names the link itself: the path to remove.
			link := filepath.Join(r.Path(), rel[:strings.Index(rel, "link")+len("link")])
			for name, op := range ops(r) {
				err := op(rel)
				if !errors.Is(err, ErrSymlink) {
					t.Errorf("%s(%q) = %v, want ErrSymlink", name, rel, err)
				} else if got := Explain(err); got != link+" is a symbolic link" {
					t.Errorf("%s(%q): Explain = %q, want the link %s named", name, rel, got, link)
				}
			}
		}
		intact()
	})
}

func TestSymlinkFinal(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		outside, intact := outsideTree(t)
		links := map[string]string{
			"tofile":   filepath.Join(outside, "secret"),
			"todir":    outside,
			"dangling": filepath.Join(outside, "missing"),
		}
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(r.Path(), name)); err != nil {
				t.Fatal(err)
			}
		}
		checks := map[string]func(rel string) error{
			"OpenFile read": func(rel string) error { _, err := r.OpenFile(rel, os.O_RDONLY, 0); return err },
			"OpenFile create": func(rel string) error {
				_, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
				return err
			},
			"OpenFile dir": func(rel string) error {
				_, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY, 0)
				return err
			},
			"ReadFile":        func(rel string) error { _, err := r.ReadFile(rel); return err },
			"Stat":            func(rel string) error { _, err := r.Stat(rel); return err },
			"ReadDirNames":    func(rel string) error { _, err := r.ReadDirNames(rel); return err },
			"WriteFileAtomic": func(rel string) error { return r.WriteFileAtomic(rel, []byte("evil")) },
			"Truncate":        func(rel string) error { return r.Truncate(rel, 0) },
			"Mkdir":           r.Mkdir,
			"MkdirAll":        r.MkdirAll,
		}
		for link := range links {
			for name, check := range checks {
				if err := check(link); !errors.Is(err, ErrSymlink) {
					t.Errorf("%s(%q) = %v, want ErrSymlink", name, link, err)
				}
			}
		}
		intact()
		// Remove and RemoveAll unlink the link itself, never its target.
		for link := range links {
			if err := r.Remove(link); err != nil {
				t.Errorf("Remove(%q) = %v", link, err)
			}
		}
		if err := os.Symlink(outside, filepath.Join(r.Path(), "todir")); err != nil {
			t.Fatal(err)
		}
		if err := r.RemoveAll("todir"); err != nil {
			t.Errorf("RemoveAll(link) = %v", err)
		}
		intact()
		if names, _ := r.ReadDirNames("."); len(names) != 0 {
			t.Errorf("root entries left: %v", names)
		}
	})
}

func TestFileOps(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		if err := r.MkdirAll("a/b/c"); err != nil {
			t.Fatal(err)
		}
		if err := r.MkdirAll("a/b/c"); err != nil {
			t.Fatalf("MkdirAll again: %v", err)
		}
		if err := r.Mkdir("a/b"); err != nil {
			t.Fatalf("Mkdir existing dir: %v", err)
		}
		if m := mode(t, filepath.Join(r.Path(), "a/b/c")); m != 0o700 {
			t.Errorf("dir mode = %v", m)
		}
		f, err := r.OpenFile("a/b/f", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("hello world")
		f.Close()
		if err := r.Mkdir("a/b/f"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Mkdir over file = %v, want ErrExist", err)
		}
		if m := mode(t, filepath.Join(r.Path(), "a/b/f")); m != 0o600 {
			t.Errorf("file mode = %v", m)
		}
		if err := r.Truncate("a/b/f", 5); err != nil {
			t.Fatal(err)
		}
		if got, err := r.ReadFile("./a//b/f"); err != nil || string(got) != "hello" {
			t.Errorf("ReadFile = %q, %v", got, err)
		}
		fi, err := r.Stat("a/b/f")
		if err != nil || fi.Name() != "f" || fi.Size() != 5 || !fi.Mode().IsRegular() {
			t.Errorf("Stat = %v, %v", fi, err)
		}
		if fi, err := r.Stat("."); err != nil || !fi.IsDir() {
			t.Errorf("Stat(.) = %v, %v", fi, err)
		}
		if _, err := r.Stat("a/missing"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(missing) = %v, want ErrNotExist", err)
		}
		if names, err := r.ReadDirNames("a/b"); err != nil || !slices.Equal(names, []string{"c", "f"}) {
			t.Errorf("ReadDirNames = %v, %v", names, err)
		}
		if names, err := r.ReadDirNames("."); err != nil || !slices.Equal(names, []string{"a"}) {
			t.Errorf("ReadDirNames(.) = %v, %v", names, err)
		}
		if _, err := r.ReadFile("a"); err == nil {
			t.Error("ReadFile on a directory succeeded")
		}
		for _, rel := range []string{"a/b/f", "a/b/c"} {
			if err := r.Remove(rel); err != nil {
				t.Errorf("Remove(%q) = %v", rel, err)
			}
		}
		if err := r.Remove("a/b/f"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Remove(missing) = %v, want ErrNotExist", err)
		}
		for _, rel := range []string{".", "./"} {
			if err := r.Remove(rel); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("Remove(%q) = %v, want ErrInvalid", rel, err)
			}
			if err := r.RemoveAll(rel); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("RemoveAll(%q) = %v, want ErrInvalid", rel, err)
			}
		}
	})
}

func TestOpenFileRefusesNonRegular(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		r.Mkdir("dir")
		if err := syscall.Mkfifo(filepath.Join(r.Path(), "fifo"), 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, rel := range []string{"dir", "fifo"} {
				if _, err := r.OpenFile(rel, os.O_RDONLY, 0); err == nil {
					t.Errorf("OpenFile(%q) succeeded", rel)
				}
				if err := r.WriteFileAtomic(rel, nil); err == nil {
					t.Errorf("WriteFileAtomic(%q) succeeded", rel)
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("OpenFile blocked on a FIFO")
		}
		f, err := r.OpenFile("dir", os.O_RDONLY|syscall.O_DIRECTORY, 0)
		if err != nil {
			t.Fatalf("OpenFile(dir, O_DIRECTORY) = %v", err)
		}
		f.Close()
	})
}

func TestWriteFileAtomic(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		r.Mkdir("d")
		for _, data := range []string{"first version", "v2", ""} {
			if err := r.WriteFileAtomic("d/state.json", []byte(data)); err != nil {
				t.Fatal(err)
			}
			got, err := r.ReadFile("d/state.json")
			if err != nil || !bytes.Equal(got, []byte(data)) {
				t.Errorf("ReadFile = %q, %v; want %q", got, err, data)
			}
			if m := mode(t, filepath.Join(r.Path(), "d/state.json")); m != 0o600 {
				t.Errorf("mode = %v, want 0600", m)
			}
			if names, _ := r.ReadDirNames("d"); !slices.Equal(names, []string{"state.json"}) {
				t.Errorf("dir holds %v, want only state.json", names)
			}
		}
		if err := r.WriteFileAtomic("missing/x", nil); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("WriteFileAtomic in missing dir = %v, want ErrNotExist", err)
		}
	})
}

func TestRemoveAll(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		outside, intact := outsideTree(t)
		if err := r.MkdirAll("a/b/c"); err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"a/f", "a/b/f", "a/b/c/f"} {
			if err := r.WriteFileAtomic(rel, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		base := r.Path()
		os.Symlink(outside, filepath.Join(base, "a/b/dirlink"))
		os.Symlink(filepath.Join(outside, "secret"), filepath.Join(base, "a/b/c/filelink"))
		r.Mkdir("keep")

		if err := r.RemoveAll("a"); err != nil {
			t.Fatal(err)
		}
		intact()
		if names, _ := r.ReadDirNames("."); !slices.Equal(names, []string{"keep"}) {
			t.Errorf("root holds %v, want [keep]", names)
		}
		for _, rel := range []string{"a", "missing/deeper", "keep/missing"} {
			if err := r.RemoveAll(rel); err != nil {
				t.Errorf("RemoveAll(%q) = %v, want nil", rel, err)
			}
		}
	})
}

// TestLoosePermissionsRepaired: a directory or file of ours that is open to
// other users (chmod 0777 / 0666, a loose umask) is made private as soon as
// it is used, and every repair is reported.
func TestLoosePermissionsRepaired(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		var repairs []string
		r.SetRepairLog(func(x Repair) { repairs = append(repairs, fmt.Sprintf("%s %#o->%#o", x.Rel, x.From, x.To)) })
		if err := r.MkdirAll("sessions/s"); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteFileAtomic("sessions/s/events", []byte("x")); err != nil {
			t.Fatal(err)
		}
		base := r.Path()
		for p, m := range map[string]os.FileMode{"sessions": 0o777, "sessions/s": 0o777, "sessions/s/events": 0o666} {
			if err := os.Chmod(filepath.Join(base, p), m); err != nil {
				t.Fatal(err)
			}
		}
		// Using the session directory repairs sessions/ (its parent) and
		// itself; opening the file repairs the file.
		if _, err := r.Identify("sessions/s"); err != nil {
			t.Fatal(err)
		}
		f, err := r.OpenFile("sessions/s/events", os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		for p, want := range map[string]fs.FileMode{"sessions": 0o700, "sessions/s": 0o700, "sessions/s/events": 0o600} {
			if m := mode(t, filepath.Join(base, p)); m != want {
				t.Errorf("%s has mode %#o, want %#o", p, m, want)
			}
		}
		want := []string{"sessions 0777->0700", "sessions/s 0777->0700", "sessions/s/events 0666->0600"}
		if !slices.Equal(repairs, want) {
			t.Errorf("repairs reported %q, want %q", repairs, want)
		}
		// A read-only file keeps being read-only (captures are 0400).
		writeFile(t, filepath.Join(base, "ro"), "x")
		os.Chmod(filepath.Join(base, "ro"), 0o444)
		if _, err := r.ReadFile("ro"); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, filepath.Join(base, "ro")); m != 0o400 {
			t.Errorf("read-only file now %#o, want 0400", m)
		}
	})
}

// TestOtherOwnerRefused: a file or directory in the state directory that
// belongs to another user is refused by every operation that would use it,
// and the refusal names it; deleting it is still possible.
func TestOtherOwnerRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	const nobody = 65534
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		base := r.Path()
		if err := r.MkdirAll("theirs"); err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"file", "theirs/inner"} {
			if err := r.WriteFileAtomic(rel, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		for _, rel := range []string{"file", "theirs"} {
			if err := os.Lchown(filepath.Join(base, rel), nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
		for rel, named := range map[string]string{"file": "file", "theirs/inner": "theirs", "theirs": "theirs"} {
			checks := map[string]error{}
			_, checks["Identify"] = r.Identify(rel)
			_, checks["Stat"] = r.Stat(rel)
			if rel != "theirs" {
				_, checks["ReadFile"] = r.ReadFile(rel)
				_, checks["OpenFile"] = r.OpenFile(rel, os.O_RDWR|os.O_APPEND, 0)
				checks["WriteFileAtomic"] = r.WriteFileAtomic(rel, []byte("y"))
			} else {
				_, checks["ReadDirNames"] = r.ReadDirNames(rel)
			}
			want := filepath.Join(base, named) + " belongs to uid 65534, not to you (uid 0)"
			for name, err := range checks {
				if !errors.Is(err, ErrUnsafe) || Explain(err) != want {
					t.Errorf("%s(%q) = %v (%q), want a refusal: %q", name, rel, err, Explain(err), want)
				}
			}
		}
		if got, _ := os.ReadFile(filepath.Join(base, "file")); string(got) != "x" {
			t.Errorf("the other user's file was changed: %q", got)
		}
		for _, rel := range []string{"file", "theirs"} {
			if err := r.RemoveAll(rel); err != nil {
				t.Errorf("RemoveAll(%q) = %v", rel, err)
			}
		}
		if names, _ := r.ReadDirNames("."); len(names) != 0 {
			t.Errorf("left behind: %v", names)
		}
	})
}

// TestIdentify: the identity of a path is that of the file opened through
// it until the path is replaced; a link there is refused, not followed.
func TestIdentify(t *testing.T) {
	bothResolvers(t, func(t *testing.T) {
		r := newRoot(t)
		r.Mkdir("d")
		f, err := r.OpenFile("d/f", os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		opened, err := IDOf(f)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := r.Identify("d/f"); err != nil || id != opened {
			t.Errorf("Identify = %v, %v; want %v", id, err, opened)
		}
		dirID, _ := r.Identify("d")
		if dir, ids, err := r.IdentifyDir("d", "f"); err != nil || dir != dirID || len(ids) != 1 || ids[0] != opened {
			t.Errorf("IdentifyDir = %v %v, %v; want %v [%v]", dir, ids, err, dirID, opened)
		}
		base := r.Path()
		os.Rename(filepath.Join(base, "d/f"), filepath.Join(base, "d/old"))
		writeFile(t, filepath.Join(base, "d/f"), "new")
		if id, err := r.Identify("d/f"); err != nil || id == opened {
			t.Errorf("after replacement Identify = %v, %v; want another file than %v", id, err, opened)
		}
		outside, intact := outsideTree(t)
		os.Remove(filepath.Join(base, "d/f"))
		os.Symlink(filepath.Join(outside, "secret"), filepath.Join(base, "d/f"))
		if _, err := r.Identify("d/f"); !errors.Is(err, ErrSymlink) {
			t.Errorf("Identify(link) = %v, want ErrSymlink", err)
		}
		if _, _, err := r.IdentifyDir("d", "f"); !errors.Is(err, ErrSymlink) || Explain(err) != filepath.Join(base, "d/f")+" is a symbolic link" {
			t.Errorf("IdentifyDir with a link in it = %v, want ErrSymlink naming d/f", err)
		}
		if ok, err := r.Exists("d/f"); !ok || err != nil {
			t.Errorf("Exists(link) = %v, %v; want true", ok, err)
		}
		if ok, err := r.Exists("d/missing"); ok || err != nil {
			t.Errorf("Exists(missing) = %v, %v; want false", ok, err)
		}
		intact()
	})
}

// TestReplaced: moving, deleting or replacing the root is noticed.
func TestReplaced(t *testing.T) {
	for _, c := range []struct {
		name    string
		replace func(path string) error
	}{
		{"moved", func(p string) error { return os.Rename(p, p+".old") }},
		{"deleted", os.RemoveAll},
		{"copied back", func(p string) error {
			if err := os.Rename(p, p+".old"); err != nil {
				return err
			}
			return os.Mkdir(p, 0o700)
		}},
		{"link", func(p string) error {
			if err := os.Rename(p, p+".old"); err != nil {
				return err
			}
			return os.Symlink(p+".old", p)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRoot(t)
			if r.Replaced() {
				t.Fatal("Replaced before anything happened")
			}
			if err := c.replace(r.Path()); err != nil {
				t.Fatal(err)
			}
			if !r.Replaced() {
				t.Error("Replaced = false")
			}
		})
	}
}
