package templates

import (
	"path"
	"strings"
	"testing"
)

// TestPlacementNeedsNoProse: a program reading --json placement learns where
// the helper goes without reading the notes. A helper that only compiles as
// a file of its own says own-file and names the file, and the notes name the
// same file; no other placement names one. A helper debug-mode keeps
// outside the project says outside-project, names its path, and gives the
// import each file pastes.
func TestPlacementNeedsNoProse(t *testing.T) {
	ownFile := map[string]string{"go + file": "agent_debug_log.go", "java + file": "AgentDebugLog.java",
		"javascript + http": "agent_debug_log.mjs", "typescript + http": "agent_debug_log.ts"}
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
		case "outside-project":
			if p.HelperFile != "" || tm.HelperPath == "" || tm.Helper != "" || tm.Import == "" {
				t.Errorf("%s: outside-project needs a helper path and an import, no helper file or source: %+v", name, tm)
			}
		case "file-start", "top-level":
			if p.HelperFile != "" {
				t.Errorf("%s: %s placement names a helper file %q", name, p.Helper, p.HelperFile)
			}
		default:
			t.Errorf("%s: unknown helper placement %q", name, p.Helper)
		}
		if want := ownFile[name]; p.HelperFile != want {
			t.Errorf("%s: helper file %q, want %q", name, p.HelperFile, want)
		}
	}
}
