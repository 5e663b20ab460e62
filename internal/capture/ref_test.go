package capture

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolve: a capture is named by its id, the id without c-, or any
// unique prefix of at least 6 hex digits (up to its whole SHA-256), as git
// names commits; a shared prefix lists the captures that share it.
func TestResolve(t *testing.T) {
	e := newEnv(t)
	e.ingest(ev("H1", "a.py:1", "m", "1", 1796083200000))
	c := e.capture("")
	id, sha := c.ID, c.SHA256
	// A second capture whose id shares the first 8 digits (its file is enough to be named).
	// Its 9th digit differs from id's, so 9 digits name id alone.
	fill := "0"
	if id[10] == '0' {
		fill = "1"
	}
	twin := id[:10] + strings.Repeat(fill, 4)
	if err := e.root.WriteFileAtomic(Dir(e.sess.ID())+"/"+indexName(twin), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}

	for _, ref := range []string{id, id[2:], strings.ToUpper(id[2:]), "C-" + id[2:], id[:2+9], id[2 : 2+9], sha[:13], sha, "c-" + sha[:20]} {
		got, err := e.cs.Resolve(e.sess.ID(), ref)
		if err != nil || got != id {
			t.Errorf("Resolve(%q) = %q, %v; want %s", ref, got, err, id)
		}
	}
	c2, err := e.cs.Open(e.sess.ID(), id[2:2+9], OpenOptions{})
	if err != nil || c2.ID() != id {
		t.Fatalf("Open by a prefix: %v", err)
	}
	c2.Close()

	var amb *AmbiguousError
	for _, ref := range []string{id[2 : 2+6], id[:2+8]} {
		_, err := e.cs.Resolve(e.sess.ID(), ref)
		if !errors.As(err, &amb) || !errors.Is(err, ErrBadID) || len(amb.Candidates) != 2 ||
			!strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), twin) || !strings.Contains(err.Error(), "give more digits") {
			t.Errorf("Resolve(%q) = %v, want the two captures listed", ref, err)
		}
	}

	var bad *RefError
	for ref, why := range map[string]string{
		id[2 : 2+5]:            "is too short to name a capture: give at least 6 hex digits",
		"c-":                   "is too short",
		"":                     "is too short",
		"c-3f2a9z":             "is not a capture id",
		"x-3f2a9b1c":           "is not a capture id",
		"c-" + sha + "0":       "is not a capture id",
		"../" + id[2:]:         "is not a capture id",
		filepath.Join(id, "x"): "is not a capture id",
	} {
		_, err := e.cs.Resolve(e.sess.ID(), ref)
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), why) {
			t.Errorf("Resolve(%q) = %v, want %q", ref, err, why)
		}
	}
	other := "ffffff"
	if strings.HasPrefix(id[2:], other) || strings.HasPrefix(twin[2:], other) {
		other = "eeeeee"
	}
	for _, ref := range []string{other, "c-" + other + "0", sha[:12] + flip(sha[12])} {
		if _, err := e.cs.Resolve(e.sess.ID(), ref); !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(%q) = %v, want ErrNotFound", ref, err)
		}
	}
	// A whole id is taken as it is; opening it says whether it exists.
	if _, err := e.cs.Open(e.sess.ID(), "c-"+other+"000000", OpenOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open of an id no capture has: %v, want ErrNotFound", err)
	}
}

// flip is another hex digit than d.
func flip(d byte) string {
	if d == '0' {
		return "1"
	}
	return "0"
}
