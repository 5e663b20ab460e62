package cli

import (
	"fmt"

	"github.com/agentic-debug-mode/debug-mode/internal/helperstore"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// writeHelpers puts every helper that lives outside the project into the
// state directory, where the import lines name it: helpers/<content
// hash>/<file>, owner-only, written atomically, and written again when
// missing or not what debug-mode writes (the notes say which, for the
// agent). The CLI writes them (create, template) and checks them before a
// reproduction runs, because they are the user's tooling, not session
// evidence: stop and clean leave them, and a new debug-mode version writes
// its own hash folder beside the old one, so import lines pasted by an
// older version keep working.
func writeHelpers() (state string, notes []string, err error) {
	state, err = statedir.Path()
	if err != nil {
		return "", nil, err
	}
	root, err := safefs.OpenRoot(state)
	if err != nil {
		if s := safefs.Explain(err); s != "" {
			return "", nil, fmt.Errorf("the probe helpers cannot be written: %s; remove it and run the command again", s)
		}
		return "", nil, fmt.Errorf("state directory %s: %w", state, err)
	}
	defer root.Close()
	notes, err = helperstore.Install(root)
	return root.Path(), notes, err
}
