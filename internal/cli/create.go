package cli

import (
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type createOptions struct{ *env }

func newCreateCmd(e *env) *cobra.Command {
	o := &createOptions{env: e}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Start a new debugging session and print its Ingest URL and Append Path",
		Long: `Start a new debugging session.

Prints the session id and the two places a probe helper can send events to:
the Ingest URL (HTTP, for JavaScript and TypeScript) and the Append Path (a
file the helper appends one JSON line per event to, for every other
language). Every other command names the session with --session <id>.`,
		Example: "  debug-mode create",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRemovedFlags(cmd); err != nil {
				return err
			}
			return o.run()
		},
	}
	addRemovedFlags(cmd)
	return cmd
}

func (o *createOptions) run() error {
	c, err := o.connect()
	if err != nil {
		return err
	}
	var info service.SessionInfo
	if err := c.Call(http.MethodPost, "/v1/sessions", nil, &info); err != nil {
		return err
	}
	return o.printer().Result("create", createResult(info), func(w io.Writer) { output.Create(w, info) })
}

// createResult is the JSON shape of create: the three values and the time.
func createResult(in service.SessionInfo) any {
	return struct {
		SessionID  string `json:"sessionId"`
		CreatedAt  int64  `json:"createdAt"`
		IngestURL  string `json:"ingestUrl"`
		AppendPath string `json:"appendPath"`
	}{in.SessionID, in.CreatedAt, in.IngestURL, in.AppendPath}
}
