package output

import (
	"fmt"
	"io"

	"github.com/agentic-debug-mode/debug-mode/internal/skill"
)

// SkillInstall renders what skill install did: a heading, the folder, and
// one line per file unless nothing changed.
func SkillInstall(w io.Writer, r skill.InstallResult) {
	switch r.Status {
	case skill.UpToDate:
		fmt.Fprintf(w, "SKILL UP TO DATE\nFolder  %s\nAll %d files are identical to this version of debug-mode; nothing was written.\n", r.Dir, len(r.Files))
	default:
		head := "SKILL INSTALLED"
		if r.Status == skill.Updated {
			head = "SKILL UPDATED"
		}
		fmt.Fprintf(w, "%s\nFolder  %s\n", head, r.Dir)
		t := table(w)
		for _, f := range r.Files {
			fmt.Fprintf(t, "%s\t%s\n", f.Action, f.Path)
		}
		t.Flush()
	}
	for _, x := range r.Extra {
		fmt.Fprintf(w, "Left alone: %s (not part of the skill)\n", x)
	}
	if r.Status != skill.UpToDate {
		fmt.Fprintln(w, "Agents that read Agent Skills load it from this folder at their next start.")
	}
}
