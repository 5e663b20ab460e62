package cli

import (
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type capturesOptions struct {
	*env
	session string
	capture string
}

func newCapturesCmd(e *env) *cobra.Command {
	o := &capturesOptions{env: e}
	cmd := &cobra.Command{
		Use:   "captures --session <id>",
		Short: "List a session's captures, checking each one's hash",
		Long: `List a session's captures, oldest first: id, label, when it was taken, the
cycle it froze, its events, its SHA-256 and its integrity. Every capture is
read and checked against its hash for the list; a damaged one is named with
what is wrong and is never used by logs, query, follow or diff.

With --capture, show one capture in full: what it froze (diagnostics and user
evidence as they were), how its regions and source lines were found, and
which source links are not complete and why.`,
		Example: `  debug-mode captures --session 707225a6-8e0f-4db4-b64b-e261bd6a861a
  debug-mode captures --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --capture c-3f2a9b1c0d4e`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().StringVar(&o.capture, "capture", "", "show this capture in full")
	return cmd
}

func (o *capturesOptions) run() error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	var cid string
	if o.capture != "" {
		if cid, err = captureID("--capture", o.capture); err != nil {
			return err
		}
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	if cid != "" {
		var d service.CaptureDetail
		if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/captures/"+cid, nil, &d); err != nil {
			return err
		}
		return o.printer().Result("captures", d, func(w io.Writer) { output.CaptureDetail(w, d) })
	}
	var list service.CaptureList
	if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/captures", nil, &list); err != nil {
		return err
	}
	v := output.CapturesView{CaptureList: list,
		Read:    output.CommandLine("logs", "--session", id) + " --capture <ID>",
		Compare: output.CommandLine("diff", "--session", id) + " --from <ID>"}
	return o.printer().Result("captures", v, func(w io.Writer) { output.Captures(w, v) })
}
