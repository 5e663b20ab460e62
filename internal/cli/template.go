package cli

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

type templateOptions struct {
	*env
	language string
	ingest   string
	section  string
	session  string
	pkg      string
	dir      string
	forPath  string
	pkgSet   func() bool
}

func newTemplateCmd(e *env) *cobra.Command {
	o := &templateOptions{env: e}
	cmd := &cobra.Command{
		Use:   "template --language <lang> --ingest <http|file>",
		Short: "Print the probe helper and call for a language",
		Long: `Print the probe helper, its import and the call (pasted at each probe
point) for a language, with the placeholders to fill, the event schema, and
where each piece may legally go.

Python, Ruby, PHP, and JavaScript and TypeScript on Node (--ingest file) need
no helper in the project: debug-mode keeps it in its state directory (written
by create and template, the same for every session), and each file with
probes pastes one import region that names it by its absolute path. Browser
code (--ingest http) saves the helper as a module of its own and imports it.
Helpers fill in each event's location (file and line) themselves.

Go and Java helpers name their package: template fills it in with
--package, else with the package of the folder the helper is saved in
(--dir, default the working directory): the package clause of its .go
files, or for Java the package of a .java file there or its path below
src/main/java. --for <file> saves the helper beside that source file (or
in that folder) in its package, and prints where, instead of the helper.

Templates are the same for every session. --session fills in that session's
Ingest URL or Append Path; --section helper, import or call prints only that
source, ready to redirect into a file (helper prints the import where the
helper lives outside the project). In --json, placement.helper is
file-start, top-level, own-file or outside-project; own-file means only a
file of its own works (placement.helperFile names it), outside-project that
debug-mode keeps the helper (helperPath) and each file pastes the import.

Supported: ` + templates.SupportedText() + `.`,
		Example: `  debug-mode template --language python --ingest file
  debug-mode template --language go --ingest file --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --for cache/lru.go
  debug-mode template --language typescript --ingest http --section helper --session 707225a6-8e0f-4db4-b64b-e261bd6a861a > agentLog.ts`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.language, "language", "", "language: "+languageList())
	cmd.Flags().StringVar(&o.ingest, "ingest", "", "transport: file (every language, Node included) or http (browser code, or a program that cannot reach this machine's files)")
	cmd.Flags().StringVar(&o.section, "section", "all", "all, helper, import or call: print only that source")
	cmd.Flags().StringVar(&o.session, "session", "", "fill in this session's Ingest URL or Append Path")
	cmd.Flags().StringVar(&o.pkg, "package", "", "Go and Java: the helper's package (Java: empty for the default package)")
	cmd.Flags().StringVar(&o.dir, "dir", "", "Go and Java: the folder the helper is saved in, whose package it takes (default: the working directory)")
	cmd.Flags().StringVar(&o.forPath, "for", "", "Go, Java, browser modules: save the helper beside this source file (or in this folder), in its package")
	o.pkgSet = func() bool { return cmd.Flags().Changed("package") }
	return cmd
}

func languageList() string {
	seen := map[string]bool{}
	var out []string
	for _, c := range templates.Combinations() {
		if !seen[c.Language] {
			seen[c.Language] = true
			out = append(out, c.Language)
		}
	}
	return strings.Join(out, ", ")
}

// templateResult is the JSON form: the template plus the event schema.
type templateResult struct {
	*templates.Template
	EventSchema  []evidence.SchemaField `json:"eventSchema"`
	StoredFields []evidence.SchemaField `json:"storedFields"`
	SessionID    string                 `json:"sessionId,omitempty"`
	// HelperWarnings are the repairs of the helper kept outside the project
	// (a changed file written again, a link replaced, permissions tightened).
	HelperWarnings []string `json:"helperWarnings,omitempty"`
}

func (o *templateOptions) run() error {
	if o.language == "" || o.ingest == "" {
		return usagef("--language and --ingest are required; supported combinations: %s", templates.SupportedText())
	}
	if o.section != "all" && o.section != "helper" && o.section != "import" && o.section != "call" {
		return usagef("--section must be all, helper, import or call, got %q", o.section)
	}
	t, err := lookupTemplate(o.language, o.ingest)
	if err != nil {
		return err
	}
	var helperDir string
	if o.forPath != "" {
		if o.pkgSet() || o.dir != "" {
			return usagef("--for reads the folder and package from the file: leave out --package and --dir")
		}
		if helperDir, err = forTarget(t, o.forPath); err != nil {
			return err
		}
	} else if err := o.fillPackage(t); err != nil {
		return err
	}
	if o.section == "import" && t.Import == "" {
		return usagef("%s + %s has no import: paste the helper itself (--section helper)", t.DisplayName, t.Ingest)
	}
	res := templateResult{Template: t, EventSchema: evidence.ProbeSchema, StoredFields: evidence.StoredSchema}
	if t.Placement.Helper == templates.OutsideProject {
		if _, res.HelperWarnings, err = writeHelpers(); err != nil {
			return err
		}
	}
	limit := int64(sessionenv.DefaultMaxPerLocation) // the cap a helper binds: the session's, when named
	if o.session != "" {
		id, err := sessionID(o.session)
		if err != nil {
			return err
		}
		c, err := o.connect()
		if err != nil {
			return err
		}
		var st service.StatusInfo
		if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/status", nil, &st); err != nil {
			return err
		}
		t.Fill(st.IngestURL, st.AppendPath)
		if st.MaxPerLocation > 0 {
			limit = st.MaxPerLocation
		}
		res.SessionID = id
	}
	t.SetCap(limit)
	if helperDir != "" {
		if _, err := t.WriteHelper(helperDir); err != nil {
			return err
		}
	}
	return o.printer().Result("template", res, func(w io.Writer) {
		if o.section != "all" { // the source alone goes to stdout, ready for a file
			for _, s := range res.HelperWarnings {
				fmt.Fprintln(o.env.err, "debug-mode: WARNING: "+output.Escape(s))
			}
		}
		switch o.section {
		case "helper":
			if t.HelperWritten != "" {
				io.WriteString(w, "Helper written: "+output.Escape(t.HelperWritten)+"\n")
			} else if t.Placement.Helper == templates.OutsideProject {
				io.WriteString(w, t.Import) // nothing to paste but the import
			} else {
				io.WriteString(w, t.Helper)
			}
		case "import":
			io.WriteString(w, t.Import)
		case "call":
			io.WriteString(w, t.Call)
		default:
			output.Template(w, t, evidence.ProbeSchema, evidence.StoredSchema, o.session != "")
			output.Warnings(w, res.HelperWarnings)
		}
	})
}

// fillPackage names the helper's package: --package, else the package of
// --dir (the working directory by default). Only the call needs none.
func (o *templateOptions) fillPackage(t *templates.Template) error {
	if !t.NeedsPackage() {
		if o.pkgSet() || o.dir != "" {
			return usagef("--package and --dir are for Go and Java, whose helper names its package; %s needs neither", t.DisplayName)
		}
		return nil
	}
	if o.pkgSet() {
		if err := t.CheckPackage(o.pkg); err != nil {
			return usagef("%s", err.Error())
		}
		t.FillPackage(o.pkg)
		return nil
	}
	if o.section == "call" {
		return nil
	}
	dir := o.dir
	if dir == "" {
		dir = "."
	}
	name, err := t.DetectPackage(dir)
	if err != nil {
		return usagef("%s", err.Error())
	}
	t.FillPackage(name)
	t.PackageFrom = "the current folder"
	if o.dir != "" {
		t.PackageFrom = o.dir
	}
	return nil
}

// forTarget fills the helper's package from --for and says the folder it
// is saved in; it fails before anything is written (or a session made).
func forTarget(t *templates.Template, target string) (string, error) {
	dir, name, err := t.PackageFor(target)
	if err != nil {
		return "", usagef("%s", err.Error())
	}
	if t.NeedsPackage() {
		if err := t.CheckPackage(name); err != nil {
			return "", usagef("%s", err.Error())
		}
		t.FillPackage(name)
	}
	if _, err := t.HelperTarget(dir); err != nil {
		return "", usagef("%s", err.Error())
	}
	return dir, nil
}

// lookupTemplate is the template for a language and transport, its helper
// path filled in where debug-mode keeps the helper outside the project
// (writeHelpers puts the file there).
func lookupTemplate(language, ingest string) (*templates.Template, error) {
	if ingest != "http" && ingest != "file" {
		return nil, usagef("--ingest must be http or file, got %q", ingest)
	}
	t, err := templates.Lookup(language, ingest)
	if err != nil {
		return nil, usagef("%s", err.Error())
	}
	if t.Placement.Helper == templates.OutsideProject {
		state, err := statedir.Path()
		if err != nil {
			return nil, err
		}
		t.Place(state)
	}
	return t, nil
}
