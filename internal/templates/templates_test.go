package templates

import (
	"strings"
	"testing"
)

// TestHelpersWithinBudget: every helper names its own location, stays
// within the 80-line budget, carries no __LOCATION__, and an outside
// helper's import names where Place puts it.
func TestHelpersWithinBudget(t *testing.T) {
	for _, c := range Combinations() {
		c := struct{ lang, ingest string }{c.Language, c.Ingest}
		tm, err := Lookup(c.lang, c.ingest)
		if err != nil {
			t.Fatal(err)
		}
		tm.SetCap(123)
		if strings.Contains(tm.Helper+tm.Import, "__MAX_PER_LOCATION__") || !strings.Contains(tm.Helper+tm.Import, "123") {
			t.Errorf("%s/%s: SetCap did not bind the cap", c.lang, c.ingest)
		}
		src := tm.Helper
		if tm.Placement.Helper == OutsideProject {
			for _, l := range registry {
				if l.id == c.lang {
					h, _ := l.outsideHelper(c.ingest)
					src = string(h.Source)
				}
			}
			tm.Place("/state")
			if !strings.Contains(tm.Import, `/state/helpers/`) || strings.Contains(tm.Import, "__HELPER_PATH__") {
				t.Errorf("%s/%s: the import does not name the placed helper:\n%s", c.lang, c.ingest, tm.Import)
			}
		}
		if n := strings.Count(strings.TrimSuffix(src, "\n"), "\n") + 1; n > 80 {
			t.Errorf("%s/%s: helper has %d lines, more than 80", c.lang, c.ingest, n)
		}
		for _, part := range []string{tm.Helper, tm.Import, tm.Call} {
			if strings.Contains(part, "__LOCATION__") {
				t.Errorf("%s/%s: still has __LOCATION__", c.lang, c.ingest)
			}
		}
		for _, p := range tm.Placeholders {
			if p.Name == "__LOCATION__" {
				t.Errorf("%s/%s: lists __LOCATION__ as a placeholder", c.lang, c.ingest)
			}
		}
		if tm.Import != "" && (strings.Count(tm.Import, "\n") != 3 && tm.Language != "python" || tm.Language == "python" && strings.Count(tm.Import, "\n") != 4) {
			t.Errorf("%s/%s: the import region is not one line (two for Python's try/except):\n%s", c.lang, c.ingest, tm.Import)
		}
	}
}
