package skill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFiles(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 || files[0].Path != Main {
		t.Fatalf("want SKILL.md first and references after it, got %v", Paths())
	}
	for _, name := range []string{"SKILL.md", "references/troubleshooting.md", "troubleshooting", "troubleshooting.md", "./references/troubleshooting.md"} {
		if _, err := Read(name); err != nil {
			t.Errorf("Read(%q): %v", name, err)
		}
	}
	if _, err := Read("nope.md"); err == nil || !strings.Contains(err.Error(), "references/troubleshooting.md") {
		t.Errorf("an unknown file should list the real ones, got %v", err)
	}
}

func TestParseFrontMatter(t *testing.T) {
	ok := "---\nname: debug-mode\ndescription: Does things. Use it when needed.\n---\n# Body\n"
	m, body, err := ParseFrontMatter([]byte(ok))
	if err != nil || m.Name != "debug-mode" || m.Description != "Does things. Use it when needed." || body != "# Body\n" {
		t.Fatalf("got %+v %q %v", m, body, err)
	}
	if m, _, err := ParseFrontMatter([]byte("---\nname: x\ndescription: \"quoted: fine\"\n---\n")); err != nil || m.Description != "quoted: fine" {
		t.Errorf("quoted value: %+v %v", m, err)
	}
	for _, bad := range []string{
		"name: debug-mode\n",                                    // no front matter
		"---\nname: debug-mode\ndescription: x\n",               // not closed
		"---\nname: Debug_Mode\ndescription: x\n---\n",          // bad name
		"---\nname: debug--mode\ndescription: x\n---\n",         // double hyphen
		"---\nname: debug-mode\n---\n",                          // no description
		"---\nname: debug-mode\ndescription: a: b\n---\n",       // YAML would read a map
		"---\nname: debug-mode\ndescription: a #b\n---\n",       // YAML would read a comment
		"---\nname: debug-mode\ndescription: [a]\n---\n",        // a flow sequence
		"---\nname: debug-mode\ndescription: x\nname: y\n---\n", // duplicate key
		"---\nname: debug-mode\ndescription: x\nfoo: y\n---\n",  // unknown key
		"---\nname: debug-mode\ndescription: " + strings.Repeat("x", 1025) + "\n---\n",
	} {
		if _, _, err := ParseFrontMatter([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills") // missing: created
	res, err := Install(dir, false)
	if err != nil || res.Status != Installed {
		t.Fatalf("first install: %v %+v", err, res)
	}
	files, _ := Files()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, Name, filepath.FromSlash(f.Path)))
		if err != nil || string(b) != string(f.Data) {
			t.Fatalf("%s not installed as embedded: %v", f.Path, err)
		}
	}

	if res, err := Install(dir, false); err != nil || res.Status != UpToDate {
		t.Fatalf("second install: %v %+v", err, res)
	}

	// A changed copy is never overwritten without force, and nothing else
	// is written either (not even a missing file).
	main := filepath.Join(dir, Name, Main)
	os.WriteFile(main, []byte("my own edits\n"), 0o644)
	missing := filepath.Join(dir, Name, filepath.FromSlash(files[len(files)-1].Path))
	os.Remove(missing)
	extra := filepath.Join(dir, Name, "notes.txt")
	os.WriteFile(extra, []byte("mine\n"), 0o644)
	res, err = Install(dir, false)
	if !errors.Is(err, ErrChanged) || res.Status != Refused {
		t.Fatalf("changed copy: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(main); string(b) != "my own edits\n" {
		t.Fatal("a changed file was overwritten without force")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("a refused install wrote a file")
	}
	if res.Files[0].Action != Differs || len(res.Extra) != 1 || res.Extra[0] != "notes.txt" {
		t.Fatalf("refusal should name what differs and what is extra: %+v", res)
	}

	res, err = Install(dir, true)
	if err != nil || res.Status != Updated || res.Files[0].Action != Replaced || res.Files[len(res.Files)-1].Action != Created {
		t.Fatalf("forced install: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(main); string(b) != string(files[0].Data) {
		t.Fatal("force did not replace the changed file")
	}
	if b, _ := os.ReadFile(extra); string(b) != "mine\n" {
		t.Fatal("a file the skill does not have was touched")
	}

	// A file where the skills folder should be is an error, not a mess.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Install(f, false); err == nil {
		t.Fatal("installed into a file")
	}
}
