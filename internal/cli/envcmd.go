package cli

import (
	"io"
	"net/http"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
)

type envOptions struct {
	*env
	session string
}

func newEnvCmd(e *env) *cobra.Command {
	o := &envOptions{env: e}
	cmd := &cobra.Command{
		Use:   "env --session <id>",
		Short: "Print the exports that give a program the session's endpoints and logpoints",
		Long: `Print shell exports for a program started outside debug-mode (a service, a
test runner, a second terminal): the session id, Ingest URL and Append Path
(helpers read them when set), the session's logpoints file, and the start-up
hooks that put the logpoints in place (PYTHONPATH gains the Python hook's
folder in front of what it holds now; NODE_OPTIONS gains --require of the
Node.js hook in front of the options it holds now). Every process the program
starts inherits them.

  eval "$(debug-mode env --session <id>)"

The hooks live in debug-mode's own folder, never in the project, in
site-packages or in node_modules. Values are quoted for any POSIX shell;
--json gives them as data.`,
		Example: `  eval "$(debug-mode env --session 707225a6-8e0f-4db4-b64b-e261bd6a861a)"
  debug-mode env --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	return cmd
}

// EnvView is the JSON result of env.
type envView struct {
	SessionID string               `json:"sessionId"`
	Logpoints int                  `json:"logpoints"`
	Variables []logpoints.Variable `json:"variables"`
}

func (o *envOptions) run() error {
	var envr service.Environment
	if _, err := o.callSession(o.session, http.MethodGet, "/environment", nil, &envr); err != nil {
		return err
	}
	vars := SessionEnviron(os.Environ(), envr).SetVariables()
	view := envView{SessionID: envr.SessionID, Logpoints: envr.Logpoints, Variables: vars}
	return o.printer().Result("env", view, func(w io.Writer) { output.Exports(w, vars) })
}

// SessionEnviron is base with the session's variables and logpoint hooks:
// what a program started for the session runs with.
func SessionEnviron(base []string, envr service.Environment) *logpoints.Environ {
	return logpoints.Inject(base, sessionenv.Values{SessionID: envr.SessionID, IngestURL: envr.IngestURL,
		AppendPath: envr.AppendPath, LogpointsFile: envr.LogpointsFile}, envr.Hooks)
}
