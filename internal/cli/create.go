package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/projectroot"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

type createOptions struct {
	*env
	maxPerLocation int64
	root           string
	language       string
	ingest         string
	forPath        string
	quiet          bool
}

func newCreateCmd(e *env) *cobra.Command {
	o := &createOptions{env: e}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Start a new debugging session and print its Ingest URL and Append Path",
		Long: `Start a new debugging session.

Prints the session id and the two places a probe helper can send events to:
the Ingest URL (HTTP, for JavaScript and TypeScript) and the Append Path (a
file the helper appends one JSON line per event to, for every other
language), then the OTLP Endpoint: the OTEL_EXPORTER_OTLP_ENDPOINT for a
program already instrumented with OpenTelemetry, or for a Collector that
relays services on other hosts (OTLP/HTTP logs and traces). Every other
command names the session with --session <id>.

--max-per-location sets how many events a helper sends from one location
in one process before it stops and sends one held-back count instead
(default 10000; reset and reproduce change it later).

The session records a project root: the top of the git work tree holding the
current folder (else the current folder), or --root. Event locations under it
are stored relative to it, as probes, capture and follow name files, so an
absolute path a helper sends joins its region exactly from any subfolder.

--language and --ingest also print the probe template for that language,
this session's values filled in, as template --language <lang> --ingest
<http|file> --session <id> would: one command to start instrumenting. A Go
or Java helper takes the package of the current folder when it has one.
--for <file> (a source file you will probe, or its folder) saves a Go or
Java helper (or a browser module) beside it, its package read from that
file, so nothing is pasted: run it from anywhere, e.g. the repository root.
A file of that name that is not a helper is never overwritten.

--quiet prints the session id alone, for id=$(debug-mode create --quiet);
--json is unchanged.`,
		Example: "  debug-mode create\n  debug-mode create --language python --ingest file\n  debug-mode create --language go --ingest file --for expirable/expirable.go\n  debug-mode create --root ../service",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRemovedFlags(cmd); err != nil {
				return err
			}
			return o.run()
		},
	}
	cmd.Flags().StringVar(&o.root, "root", "", "the project root event locations are made relative to (default: the git top-level of the current folder, else the current folder)")
	addRemovedFlags(cmd)
	cmd.Flags().StringVar(&o.language, "language", "", "also print the probe template for this language: "+languageList())
	cmd.Flags().StringVar(&o.ingest, "ingest", "", "the template's transport (with --language): file (every language) or http (browser code)")
	cmd.Flags().StringVar(&o.forPath, "for", "", "with --language: save a Go or Java helper (or a browser module) beside this source file (or in this folder), in its package")
	cmd.Flags().BoolVar(&o.quiet, "quiet", false, "print only the session id (JSON is unchanged)")
	cmd.Flags().Int64Var(&o.maxPerLocation, "max-per-location", sessionenv.DefaultMaxPerLocation, "events a helper sends per location per process before it holds the rest back")
	return cmd
}

func (o *createOptions) run() error {
	root, err := projectRoot(o.root)
	if err != nil {
		return err
	}
	if o.maxPerLocation < 1 || o.maxPerLocation > sessionenv.MaxMaxPerLocation {
		return usagef("--max-per-location must be between 1 and %d", sessionenv.MaxMaxPerLocation)
	}
	// The template is checked before the session exists, so a bad
	// language leaves no session behind.
	var t *templates.Template
	var helperDir string
	switch {
	case o.forPath != "" && o.language == "":
		return usagef("--for places the helper of --language (with --ingest): e.g. debug-mode create --language go --ingest file --for %s", o.forPath)
	case o.language != "" && o.ingest == "":
		return usagef("--language needs --ingest: file (every language) or http (browser code)")
	case o.language == "" && o.ingest != "":
		return usagef("--ingest needs --language: one of %s", languageList())
	case o.language != "":
		if t, err = lookupTemplate(o.language, o.ingest); err != nil {
			return err
		}
		// Go and Java: the package of the current folder, as template
		// reads it; where it cannot tell, the placeholder stays listed for
		// template --dir or --package to fill when the helper is written.
		if o.forPath != "" {
			if helperDir, err = forTarget(t, o.forPath); err != nil {
				return err
			}
		} else if t.NeedsPackage() {
			if name, err := t.DetectPackage("."); err == nil {
				t.FillPackage(name)
				t.PackageFrom = "the current folder"
			}
		}
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	in := service.CreateRequest{ProjectRoot: root}
	if o.maxPerLocation != sessionenv.DefaultMaxPerLocation {
		in.MaxPerLocation = o.maxPerLocation
	}
	var info service.SessionInfo
	if err := c.Call(http.MethodPost, "/v1/sessions", in, &info); err != nil {
		return err
	}
	res := createResult{info.SessionID, info.CreatedAt, info.IngestURL, info.AppendPath, info.OTLPEndpoint, info.MaxPerLocation, info.ProjectRoot, nil, nil}
	// Ready before the first probe is pasted; a failure is reported, not
	// fatal: the session exists, and template says it again.
	if _, notes, err := writeHelpers(); err != nil {
		res.Warnings = append(notes, err.Error())
	} else {
		res.Warnings = notes
	}
	if t != nil {
		t.Fill(info.IngestURL, info.AppendPath)
		limit := int64(sessionenv.DefaultMaxPerLocation)
		if info.MaxPerLocation > 0 {
			limit = info.MaxPerLocation
		}
		t.SetCap(limit)
		if helperDir != "" {
			// The session exists either way: its id must still be printed.
			if _, err := t.WriteHelper(helperDir); err != nil {
				res.Warnings = append(res.Warnings, "the helper was not written ("+err.Error()+"); the session was created: write the helper with "+
					output.CommandLine("template", "--session", info.SessionID, "--language", o.language, "--ingest", o.ingest, "--for", o.forPath))
			}
		}
		res.Template = &templateResult{Template: t, EventSchema: evidence.ProbeSchema, StoredFields: evidence.StoredSchema, SessionID: info.SessionID}
	}
	return o.printer().Result("create", res, func(w io.Writer) {
		if o.quiet {
			io.WriteString(w, info.SessionID+"\n")
			if t != nil && t.HelperWritten != "" {
				fmt.Fprintf(o.err, "Helper written: %s\n", output.Escape(t.HelperWritten))
			}
			output.Warnings(o.err, res.Warnings) // never dropped: a repaired helper is worth knowing
			return
		}
		output.Create(w, info)
		if t != nil {
			io.WriteString(w, "\n")
			output.Template(w, t, evidence.ProbeSchema, evidence.StoredSchema, true)
		}
		output.Warnings(w, res.Warnings)
	})
}

// createResult is the JSON shape of create: the endpoints, the time, the
// cap, the project root and, with --language, the template filled in.
type createResult struct {
	SessionID      string          `json:"sessionId"`
	CreatedAt      int64           `json:"createdAt"`
	IngestURL      string          `json:"ingestUrl"`
	AppendPath     string          `json:"appendPath"`
	OTLPEndpoint   string          `json:"otlpEndpoint"`
	MaxPerLocation int64           `json:"maxPerLocation"`
	ProjectRoot    string          `json:"projectRoot"`
	Template       *templateResult `json:"template,omitempty"`
	Warnings       []string        `json:"warnings,omitempty"` // the probe helpers kept outside the project: repaired, or not writable
}

// projectRoot is --root made absolute, or the git top-level of the working
// directory, else the working directory.
func projectRoot(flag string) (string, error) {
	if flag == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return projectroot.Find(wd), nil
	}
	abs, err := filepath.Abs(flag)
	if err != nil {
		return "", usagef("--root %s: %v", flag, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", usagef("--root %s is not a folder; name the folder your program's source is in", flag)
	}
	return abs, nil
}
