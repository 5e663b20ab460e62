// Package skill reads the embedded Agent Skill (skills/debug-mode), checks
// its front matter, and installs it into an agent's skills folder without
// ever overwriting a copy that was changed.
package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/skills"
)

// Name is the skill's name: its folder and the name in its front matter.
const Name = "debug-mode"

// Main is the file agents load first.
const Main = "SKILL.md"

// File is one file of the skill, by its path inside the skill folder.
type File struct {
	Path string // slash-separated, e.g. "references/troubleshooting.md"
	Data []byte
}

// Files returns every file of the skill, SKILL.md first, then by path.
func Files() ([]File, error) {
	var out []File
	err := fs.WalkDir(skills.FS, Name, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := skills.FS.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, File{Path: strings.TrimPrefix(p, Name+"/"), Data: b})
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Path == Main) != (out[j].Path == Main) {
			return out[i].Path == Main
		}
		return out[i].Path < out[j].Path
	})
	return out, err
}

// Paths lists the skill's files, SKILL.md first.
func Paths() []string {
	files, _ := Files()
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// Read returns one file of the skill by its path inside the folder
// ("SKILL.md", "references/troubleshooting.md"); a bare reference name
// ("troubleshooting" or "troubleshooting.md") also finds it.
func Read(name string) (File, error) {
	files, err := Files()
	if err != nil {
		return File{}, err
	}
	want := path.Clean(strings.TrimPrefix(filepath.ToSlash(name), "./"))
	for _, f := range files {
		base := path.Base(f.Path)
		if f.Path == want || base == want || strings.TrimSuffix(base, ".md") == want {
			return f, nil
		}
	}
	return File{}, fmt.Errorf("the skill has no file %q; its files are %s", name, strings.Join(Paths(), ", "))
}

// Meta is the skill's front matter.
type Meta struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// MaxDescription is the Agent Skills limit on the description.
const MaxDescription = 1024

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ParseFrontMatter reads the YAML front matter of a SKILL.md and checks it
// against the Agent Skills rules: a name of at most 64 lowercase letters,
// digits and single hyphens, and a description of 1 to 1,024 characters.
// It accepts the subset of YAML a skill needs, one "key: value" per line
// with plain or double-quoted values, and refuses anything it cannot read
// exactly, so a value a YAML parser would read differently never passes.
func ParseFrontMatter(doc []byte) (Meta, string, error) {
	var m Meta
	text := strings.ReplaceAll(string(doc), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return m, "", errors.New("SKILL.md must start with a --- line (YAML front matter)")
	}
	end := strings.Index(text[4:], "\n---\n")
	if end < 0 {
		return m, "", errors.New("the front matter has no closing --- line")
	}
	front, body := text[4:4+end], text[4+end+5:]
	seen := map[string]bool{}
	for i, line := range strings.Split(front, "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok || key == "" || strings.TrimSpace(key) != key || (value != "" && value[0] != ' ') {
			return m, "", fmt.Errorf("front matter line %d is not `key: value`: %q", i+2, line)
		}
		if seen[key] {
			return m, "", fmt.Errorf("front matter key %q appears twice", key)
		}
		seen[key] = true
		v, err := yamlScalar(strings.TrimSpace(value))
		if err != nil {
			return m, "", fmt.Errorf("front matter %s: %v", key, err)
		}
		switch key {
		case "name":
			m.Name = v
		case "description":
			m.Description = v
		case "license", "compatibility", "allowed-tools":
		default:
			return m, "", fmt.Errorf("front matter key %q is not one this skill uses", key)
		}
	}
	switch {
	case !nameRE.MatchString(m.Name) || len(m.Name) > 64:
		return m, "", fmt.Errorf("name %q must be 1–64 lowercase letters, digits and single hyphens", m.Name)
	case m.Description == "":
		return m, "", errors.New("description is missing")
	case len([]rune(m.Description)) > MaxDescription:
		return m, "", fmt.Errorf("description is %d characters; the limit is %d", len([]rune(m.Description)), MaxDescription)
	case strings.ContainsAny(m.Description, "<>"):
		return m, "", errors.New("description must not contain < or >")
	}
	return m, body, nil
}

// yamlScalar reads a plain or double-quoted one-line YAML scalar.
func yamlScalar(v string) (string, error) {
	if strings.HasPrefix(v, `"`) {
		if len(v) < 2 || !strings.HasSuffix(v, `"`) || strings.ContainsAny(v[1:len(v)-1], `"\`) {
			return "", errors.New("a quoted value must be one double-quoted string without \" or \\ inside")
		}
		return v[1 : len(v)-1], nil
	}
	if v == "" || strings.ContainsAny(v[:1], "!&*[]{}|>'%@`#,?-:") {
		return "", fmt.Errorf("a plain value must not be empty or start with %q; quote it", v[:min(1, len(v))])
	}
	if strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return "", errors.New(`a plain value must not contain ": " or " #"; quote it`)
	}
	return v, nil
}

// Action is what an install did, or would do, to one file.
type Action string

const (
	Created   Action = "created"   // the file was missing
	Replaced  Action = "replaced"  // it differed and --force replaced it
	Unchanged Action = "unchanged" // it was already identical
	Differs   Action = "differs"   // it differs and was left alone (no --force)
)

// FileResult is one file of an install.
type FileResult struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
}

// Status sums up an install.
type Status string

const (
	Installed Status = "installed"  // no copy was there
	Updated   Status = "updated"    // files were added or replaced
	UpToDate  Status = "up-to-date" // every file was already identical
	Refused   Status = "refused"    // a file differs and force was not given
)

// InstallResult says what Install did.
type InstallResult struct {
	Dir    string       `json:"dir"` // the skill's own folder, absolute
	Status Status       `json:"status"`
	Files  []FileResult `json:"files"`
	Extra  []string     `json:"extra,omitempty"` // files in the folder that the skill does not have (left alone)
}

// ErrChanged is returned (with a Refused result) when an installed copy
// differs and force is false.
var ErrChanged = errors.New("the installed copy differs")

// Install writes the skill into skillsDir/debug-mode. Missing files are
// created; identical ones are left alone; a file that differs is replaced
// only with force, otherwise nothing at all is written and the result lists
// what differs. Files the skill does not have are never touched.
func Install(skillsDir string, force bool) (InstallResult, error) {
	var res InstallResult
	if skillsDir == "" {
		return res, errors.New("no skills folder given")
	}
	abs, err := filepath.Abs(skillsDir)
	if err != nil {
		return res, err
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return res, fmt.Errorf("%s is not a folder", abs)
	}
	res.Dir = filepath.Join(abs, Name)
	if fi, err := os.Lstat(res.Dir); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
		return res, fmt.Errorf("%s exists and is not a folder", res.Dir)
	}
	files, err := Files()
	if err != nil {
		return res, err
	}
	ours := map[string]bool{}
	existed := false
	differs := false
	for _, f := range files {
		ours[f.Path] = true
		target := filepath.Join(res.Dir, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(target)
		switch {
		case err == nil && bytes.Equal(old, f.Data):
			existed = true
			res.Files = append(res.Files, FileResult{f.Path, Unchanged})
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			existed, differs = true, true
			res.Files = append(res.Files, FileResult{f.Path, Differs})
		default:
			res.Files = append(res.Files, FileResult{f.Path, Created})
		}
	}
	filepath.WalkDir(res.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(res.Dir, p)
		if !ours[filepath.ToSlash(rel)] {
			res.Extra = append(res.Extra, filepath.ToSlash(rel))
		}
		return nil
	})
	if differs && !force {
		res.Status = Refused
		return res, ErrChanged
	}
	wrote := false
	for i, f := range files {
		a := res.Files[i].Action
		if a == Unchanged {
			continue
		}
		if err := writeFile(filepath.Join(res.Dir, filepath.FromSlash(f.Path)), f.Data); err != nil {
			return res, fmt.Errorf("cannot write the skill into %s (%v); give a skills folder you can write to", res.Dir, unwrapPath(err))
		}
		if a == Differs {
			res.Files[i].Action = Replaced
		}
		wrote = true
	}
	switch {
	case !wrote:
		res.Status = UpToDate
	case existed:
		res.Status = Updated
	default:
		res.Status = Installed
	}
	return res, nil
}

// unwrapPath drops the path a *fs.PathError repeats, keeping its cause.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// writeFile replaces a file in one step: a reader sees the old or the new
// text, never half of one.
func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".skill-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
