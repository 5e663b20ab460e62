package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

// TestWriteHelpers: every outside-project helper lands owner-only at the
// path its import names, and a missing or changed one is written again.
func TestWriteHelpers(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv(statedir.Env, state)
	got, notes, err := writeHelpers()
	if err != nil || got != state || len(notes) != 0 {
		t.Fatalf("writeHelpers() = %q, %q, %v", got, notes, err)
	}
	hs := templates.OutsideHelpers()
	if len(hs) != 4 { // Python, Node (JavaScript and TypeScript share one), Ruby, PHP
		t.Fatalf("%d outside helpers, want 4", len(hs))
	}
	for _, h := range hs {
		p := filepath.Join(state, filepath.FromSlash(h.Rel))
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v, mode %v", h.Rel, err, fi)
		}
		if di, _ := os.Stat(filepath.Dir(p)); di.Mode().Perm() != 0o700 {
			t.Errorf("%s: folder mode %v", h.Rel, di.Mode().Perm())
		}
	}
	first := filepath.Join(state, filepath.FromSlash(hs[0].Rel))
	os.Remove(first)
	second := filepath.Join(state, filepath.FromSlash(hs[1].Rel))
	os.WriteFile(second, []byte("tampered"), 0o600)
	_, notes, err = writeHelpers()
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "had been changed since debug-mode wrote it") { // a missing one is no news
		t.Errorf("notes %q, want one about the changed helper", notes)
	}
	for i, p := range []string{first, second} {
		if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, hs[i].Source) {
			t.Errorf("%s was not written again: %v", p, err)
		}
	}
	// Each template names its own helper's path.
	for _, lang := range []string{"python", "javascript", "typescript", "ruby", "php"} {
		tm, err := templates.Lookup(lang, "file")
		if err != nil {
			t.Fatal(err)
		}
		tm.Place(state)
		if _, err := os.Stat(tm.HelperPath); err != nil || !bytes.Contains([]byte(tm.Import), []byte(tm.HelperPath)) {
			t.Errorf("%s: helper path %s (%v) not in its import:\n%s", lang, tm.HelperPath, err, tm.Import)
		}
	}
}
