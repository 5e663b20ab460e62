package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreezeSourcesStaysInsideTheRoot: an event's location is program data;
// a link inside the source root must not pull lines from outside it into a
// capture,.
func TestFreezeSourcesStaysInsideTheRoot(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.py"), []byte("TOKEN = 'outside the root'\n"), 0o644)
	os.WriteFile(filepath.Join(root, "app.py"), []byte("print('inside')\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Skip(err)
	}
	srcs, _ := FreezeSources(root, []string{"linked/secret.py:1", "app.py:1"}, true)
	for _, s := range srcs {
		for _, f := range s.Files {
			if strings.Contains(strings.Join(f.Lines, "\n"), "outside the root") {
				t.Fatalf("lines from outside the source root were frozen via a link: %+v", s)
			}
		}
	}
	if len(srcs) < 2 || len(srcs[1].Files) == 0 {
		t.Fatalf("the file inside the root was not frozen: %+v", srcs)
	}
}
