package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
	"github.com/agentic-debug-mode/debug-mode/internal/client"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// captureID checks a capture flag before anything is asked of the service:
// a capture id, with or without c-, or a prefix of at least 6 hex digits;
// the service finds the capture it names (an ambiguous prefix lists the
// captures that share it).
func captureID(flag, v string) (string, error) {
	if v == "" {
		return "", usagef("%s is required: a capture id such as c-3f2a9b1c0d4e (list them with debug-mode captures --session <id>)", flag)
	}
	if _, err := capture.ParseRef(v); err != nil {
		return "", usagef("%s %s", flag, err.Error())
	}
	return v, nil
}

type captureOptions struct {
	*env
	session    string
	label      string
	sourceRoot string
}

func newCaptureCmd(e *env) *cobra.Command {
	o := &captureOptions{env: e}
	cmd := &cobra.Command{
		Use:   "capture --session <id>",
		Short: "Freeze the current evidence into an immutable capture (before a fix)",
		Long: `Freeze the session's current cycle into an immutable capture: every stored
event, every diagnostic, the user evidence, the agent log regions found under
the source root, and for each event location that resolves to a file under
the source root the lines around it (±8 lines), as they are now. At most 500
locations and 1 MiB of source are frozen, busiest locations first; the output
says when a bound was reached.

The capture's id is the SHA-256 of its content (c- and the first 12 hex
digits): capturing the same evidence again gives the same capture. Every
command that takes a capture id also takes it without c-, or any unique prefix
of at least 6 hex digits (as git takes commit ids). It is
written once, owner-only and read-only, and its hash is checked every time it
is read; a capture that no longer matches is reported as damaged (exit code 7)
and never used. Captures survive reset; clean deletes them with the session.

Read a capture like live evidence with logs --capture and query --capture;
each event read from it carries typed links (see debug-mode follow --help).
To verify a fix: capture, fix, reset, reproduce, then diff --from <capture>.`,
		Example: `  debug-mode capture --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --label "before fix"
  debug-mode capture --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --source-root ./service`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().StringVar(&o.label, "label", "", `a short note for people, e.g. "before fix" (not part of the capture's identity)`)
	cmd.Flags().StringVar(&o.sourceRoot, "source-root", "", "the folder whose files event locations point into (default: the session's project root)")
	return cmd
}

func (o *captureOptions) run() error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	root := o.sourceRoot
	if root != "" {
		if root, err = filepath.Abs(root); err != nil {
			return err
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return usagef("--source-root %s is not a folder", root)
		}
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	v, err := takeCapture(c, id, o.label, root)
	if err != nil {
		return err
	}
	return o.printer().Result("capture", v, func(w io.Writer) { output.Capture(w, v) })
}

// takeCapture freezes the session's current cycle with the regions and
// source lines under root ("": the session's project root, where its
// locations resolve) (capture and reproduce --capture).
func takeCapture(c *client.Client, id, label, root string) (output.CaptureView, error) {
	var locs store.Locations
	if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/locations", nil, &locs); err != nil {
		return output.CaptureView{}, err
	}
	if root == "" {
		// Locations are stored relative to the session's project root, so
		// that is where they resolve (the current folder for older sessions).
		if fi, err := os.Stat(locs.ProjectRoot); locs.ProjectRoot != "" && err == nil && fi.IsDir() {
			root = locs.ProjectRoot
		} else if root, err = os.Getwd(); err != nil {
			return output.CaptureView{}, err
		}
	}
	names := make([]string, len(locs.Locations))
	for i, l := range locs.Locations {
		names[i] = l.Location
	}
	req := capture.Request{Label: label, SourceRoot: root}
	req.Regions, req.RegionScan = capture.ScanRegions(root)
	req.Sources, req.SourceScan = capture.FreezeSources(root, names, locs.Omitted == 0)
	var out capture.Created
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/captures", req, &out); err != nil {
		return output.CaptureView{}, err
	}
	v := output.CaptureView{Created: out, SourceStates: map[string]int{},
		Read:    output.CommandLine("logs", "--session", id, "--capture", out.ID),
		Compare: output.CommandLine("diff", "--session", id, "--from", out.ID)}
	for _, s := range req.Sources {
		v.SourceStates[s.State]++
	}
	v.Warnings = captureWarnings(id, out)
	return v, nil
}

func captureWarnings(id string, out capture.Created) []string {
	h := out.Header
	var ws []string
	if h.Events == 0 {
		ws = append(ws, "the capture holds no events: reproduce the bug first (debug-mode status --session "+id+" shows what arrived)")
	}
	if h.SourceScan.Bound != "" || h.SourceScan.Truncated {
		ws = append(ws, fmt.Sprintf("source lines were frozen for %d of %d locations; the source links of the rest are incomplete", h.SourceScan.Records, h.SourceScan.Records+h.SourceScan.Omitted))
	}
	if h.RegionScan.State != capture.Complete {
		ws = append(ws, "no region was frozen ("+h.RegionScan.Reason+"); region links are incomplete")
	}
	if h.RejectedRecords > 0 {
		ws = append(ws, fmt.Sprintf("%s not in the capture; its diagnostics say why: debug-mode captures --session %s --capture %s", countNoun(h.RejectedRecords, "record was rejected before storage and is", "records were rejected before storage and are"), id, out.ID))
	}
	return ws
}

// captureResult prints a logs page read from a capture: the same table, the
// next page bound to the capture, and where the links are.
func (o *logsOptions) captureResult(id, cid string, page store.Page) error {
	if page.Version != "" {
		cid = page.Version // the capture's whole id, whatever prefix named it
	}
	view := output.CaptureLogsView{LogsView: output.LogsView{Page: page, Warnings: []string{}}, Capture: cid,
		Follow: output.CommandLine("follow", "--session", id, "--capture", cid) + " --seq <SEQ> --rel source"}
	if page.Rejected > 0 {
		view.Warnings = append(view.Warnings, fmt.Sprintf("%s not in this capture; see why: debug-mode captures --session %s --capture %s", countNoun(page.Rejected, "record was rejected and is", "records were rejected and are"), id, cid))
	}
	if page.Total == 0 {
		view.Warnings = append(view.Warnings, "this capture holds no events")
	} else if page.Matched == 0 {
		view.Warnings = append(view.Warnings, "no event of the capture matched the filters")
	}
	if next := o.offset + page.Returned; int64(next) < page.Matched {
		args := append([]string{"logs", "--session", id, "--capture", cid}, o.filters.args()...)
		args = append(args, "--offset", strconv.Itoa(next), "--limit", strconv.Itoa(o.limit))
		view.Next = output.CommandLine(args...)
	}
	return o.printer().Result("logs", view, func(w io.Writer) { output.CaptureLogs(w, view) })
}
