package templates

import (
	"path"
	"strings"
	"testing"
)

// TestPlacementNeedsNoProse: a program reading --json placement learns where
// the helper goes without reading the notes. A helper that only compiles as
// a file of its own says own-file and names the file, and the notes name the
// same file; no other placement names one.
func TestPlacementNeedsNoProse(t *testing.T) {
	ownFile := map[string]string{"go": "agent_debug_log.go", "java": "AgentDebugLog.java"}
	for _, c := range Combinations() {
		tm, err := Lookup(c.Language, c.Ingest)
		if err != nil {
			t.Fatal(err)
		}
		p, name := tm.Placement, c.Language+" + "+c.Ingest
		switch p.Helper {
		case "own-file":
			notes := strings.Join(tm.Notes, " ")
			if p.HelperFile == "" || path.Base(p.HelperFile) != p.HelperFile || !strings.Contains(notes, p.HelperFile) {
				t.Errorf("%s: own-file helper file %q must be a plain file name the notes use", name, p.HelperFile)
			}
		case "file-start", "top-level":
			if p.HelperFile != "" {
				t.Errorf("%s: %s placement names a helper file %q", name, p.Helper, p.HelperFile)
			}
		default:
			t.Errorf("%s: unknown helper placement %q", name, p.Helper)
		}
		if want := ownFile[c.Language]; p.HelperFile != want {
			t.Errorf("%s: helper file %q, want %q", name, p.HelperFile, want)
		}
	}
}
