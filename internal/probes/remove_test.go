package probes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemove removes exactly the regions' lines and nothing else: line
// endings, the final newline or its absence, other regions of other kinds,
// and the file mode all stay.
func TestRemove(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"lf", "a\n// #region agent log\nx\n// #endregion\nb\n", "a\nb\n"},
		{"crlf", "a\r\n  // #region agent log\r\n  x\r\n  // #endregion\r\nb\r\n", "a\r\nb\r\n"},
		{"mixed endings", "a\r\n// #region agent log\nx\r\n// #endregion\r\nb\n", "a\r\nb\n"},
		{"no final newline, region last", "a\r\n// #region agent log\r\nx\r\n// #endregion", "a"},
		{"no final newline, region first", "// #region agent log\nx\n// #endregion\nb", "b"},
		{"whole file", "# region agent log\nimport os\n# endregion\n", "(deleted)"},
		{"two regions and a foreign one", "#region Helpers\nh\n#endregion\n#region agent log\nx\n#endregion\nc\n/* #region agent log */\ny\n/* #endregion */\n", "#region Helpers\nh\n#endregion\nc\n"},
		{"trailing spaces kept", "a  \n\t// #region agent log\n\tx\n\t// #endregion\n\tb \n\n", "a  \n\tb \n\n"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		name := filepath.Join(dir, "f"+string(rune('a'+i))+".js")
		if err := os.WriteFile(name, []byte(c.in), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}

	// A dry run writes nothing.
	dry, err := Remove(r, RemoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Applied || dry.Regions != 9 || dry.Refused != 0 {
		t.Errorf("dry run: %+v", dry)
	}
	for i, c := range cases {
		b, _ := os.ReadFile(filepath.Join(dir, "f"+string(rune('a'+i))+".js"))
		if string(b) != c.in {
			t.Fatalf("dry run changed %s", c.name)
		}
	}
	if !dry.Files[5].EmptyAfter || !dry.Files[5].Deleted || dry.Files[0].EmptyAfter || dry.Deleted != 1 {
		t.Errorf("EmptyAfter hint wrong: %+v", dry.Files)
	}

	done, err := Remove(r, RemoveOptions{Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if !done.Applied || done.Regions != 9 || done.Refused != 0 {
		t.Errorf("apply: %+v", done)
	}
	for i, c := range cases {
		p := filepath.Join(dir, "f"+string(rune('a'+i))+".js")
		if c.want == "(deleted)" {
			if _, err := os.Lstat(p); !os.IsNotExist(err) || !done.Files[i].Deleted || done.Files[i].Written {
				t.Errorf("%s: not deleted (%v): %+v", c.name, err, done.Files[i])
			}
			continue
		}
		b, _ := os.ReadFile(p)
		if string(b) != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b, c.want)
		}
		fi, _ := os.Stat(p)
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, want 0640", c.name, fi.Mode())
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(cases)-1 {
		t.Errorf("temporary files left behind: %d entries", len(ents))
	}
	r, _ = Scan(Options{Dir: dir})
	if !r.Clean() {
		t.Errorf("regions remain after removal: %s", files(r))
	}
}

// TestRemoveRefuses leaves files with broken markers, and files changed
// since the scan, untouched.
func TestRemoveRefuses(t *testing.T) {
	dir := t.TempDir()
	broken := "// #region agent log\nx\n// #endregion\n// #region agent log\ny\n"
	writeTree(t, dir, map[string]string{"broken.js": broken, "stray.js": "a\n// #endregion\n", "ok.js": "a\n" + region, "later.js": region})
	r, err := Scan(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// later.js changes after the scan.
	if err := os.WriteFile(filepath.Join(dir, "later.js"), []byte("new line\n"+region), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Remove(r, RemoveOptions{Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]FileRemoval{}
	for _, f := range res.Files {
		byFile[f.File] = f
	}
	if f := byFile["broken.js"]; f.Written || !strings.Contains(f.Refused, "line 4 unclosed") {
		t.Errorf("broken.js: %+v", f)
	}
	if f := byFile["stray.js"]; f.Written || !strings.Contains(f.Refused, "line 2 unopened") {
		t.Errorf("stray.js: %+v", f)
	}
	if f := byFile["later.js"]; f.Written || !strings.Contains(f.Refused, "changed since it was scanned") {
		t.Errorf("later.js: %+v", f)
	}
	if f := byFile["ok.js"]; !f.Written || f.Refused != "" {
		t.Errorf("ok.js: %+v", f)
	}
	if res.Refused != 3 || res.Regions != 1 {
		t.Errorf("totals: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "broken.js")); string(b) != broken {
		t.Error("broken.js was changed")
	}

	// A file replaced by a link after the scan is not written through.
	writeTree(t, dir, map[string]string{"target.js": "keep\n", "victim.js": region})
	r, _ = Scan(Options{Dir: dir, Paths: []string{"victim.js"}})
	os.Remove(filepath.Join(dir, "victim.js"))
	os.Symlink(filepath.Join(dir, "target.js"), filepath.Join(dir, "victim.js"))
	res, _ = Remove(r, RemoveOptions{Apply: true})
	if res.Files[0].Written || res.Files[0].Refused == "" {
		t.Errorf("wrote through a link: %+v", res.Files[0])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target.js")); string(b) != "keep\n" {
		t.Error("link target changed")
	}

	// Staged content is never "removed".
	if _, err := Remove(&Report{Staged: true}, RemoveOptions{Apply: true}); err == nil {
		t.Error("Remove accepted a staged report")
	}
}
