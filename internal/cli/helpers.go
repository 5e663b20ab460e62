package cli

import (
	"bytes"
	"fmt"
	"path"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

// writeHelpers puts every helper that lives outside the project into the
// state directory, where the import lines name it: helpers/<content
// hash>/<file>, owner-only, written atomically, and written again only
// when missing or different. The CLI writes them (create, template) because
// they are the user's tooling, not session evidence: stop and clean leave
// them, and a new debug-mode version writes its own hash folder beside the
// old one, so import lines pasted by an older version keep working.
func writeHelpers() (string, error) {
	state, err := statedir.Path()
	if err != nil {
		return "", err
	}
	root, err := safefs.OpenRoot(state)
	if err != nil {
		return "", fmt.Errorf("state directory %s: %w", state, err)
	}
	defer root.Close()
	for _, h := range templates.OutsideHelpers() {
		if b, err := root.ReadFile(h.Rel); err == nil && bytes.Equal(b, h.Source) {
			continue
		}
		if err := root.MkdirAll(path.Dir(h.Rel)); err != nil {
			return "", fmt.Errorf("writing the probe helpers into %s: %w", state, err)
		}
		if err := root.WriteFileAtomic(h.Rel, h.Source); err != nil {
			return "", fmt.Errorf("writing the probe helpers into %s: %w", state, err)
		}
	}
	return root.Path(), nil
}
