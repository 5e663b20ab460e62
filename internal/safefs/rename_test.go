package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestRenameNoReplace(t *testing.T) {
	for _, walk := range []bool{false, true} {
		forceWalk = walk
		r := newRoot(t)
		if err := r.WriteFileAtomic("a", []byte("one")); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteFileAtomic("b", []byte("two")); err != nil {
			t.Fatal(err)
		}
		if err := r.RenameNoReplace("a", "b"); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("rename over an existing file: %v, want ErrExist", err)
		}
		if b, _ := r.ReadFile("b"); string(b) != "two" {
			t.Fatalf("existing file changed to %q", b)
		}
		if err := r.Mkdir("d"); err != nil {
			t.Fatal(err)
		}
		if err := r.RenameNoReplace("a", "d/c"); err != nil {
			t.Fatal(err)
		}
		if b, _ := r.ReadFile("d/c"); string(b) != "one" {
			t.Fatalf("moved file holds %q", b)
		}
		if _, err := r.Stat("a"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("old name still there: %v", err)
		}
		// A link on either side is refused.
		if err := os.Symlink(t.TempDir(), filepath.Join(r.Path(), "link")); err != nil {
			t.Fatal(err)
		}
		if err := r.RenameNoReplace("d/c", "link/c"); !errors.Is(err, ErrSymlink) {
			t.Fatalf("rename into a linked folder: %v, want ErrSymlink", err)
		}
		if err := os.Symlink("d/c", filepath.Join(r.Path(), "l2")); err != nil {
			t.Fatal(err)
		}
		if err := r.RenameNoReplace("l2", "x"); err == nil {
			t.Fatal("renamed a symbolic link")
		}
	}
	forceWalk = false
}
