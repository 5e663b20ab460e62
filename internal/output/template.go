package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

// Template renders the four sections of the contract, plus placement.
func Template(w io.Writer, t *templates.Template, probe, stored []evidence.SchemaField, filled bool) {
	helper := t.Placement.Helper
	if t.Placement.HelperFile != "" {
		helper += " " + t.Placement.HelperFile
	}
	fmt.Fprintf(w, "%s + %s · data: %s · helper: %s · call: %s\n", t.DisplayName, t.Ingest, t.DataEncoding, helper, t.Placement.Call)
	if !t.VerifiedLive {
		fmt.Fprintln(w, "NOTE: not yet verified live: no CI with this runtime has run its end-to-end test.")
	}
	switch {
	case t.HelperWritten != "":
		fmt.Fprintf(w, "\nHELPER written to %s: nothing to paste (probes --remove --yes deletes it)\n", Escape(t.HelperWritten))
		if t.Import != "" {
			fmt.Fprintf(w, "\nIMPORT (paste once in each module with probes, the path relative to it)\n%s", withNewline(t.Import))
		}
	case t.Placement.Helper == templates.OutsideProject:
		fmt.Fprintf(w, "\nHELPER none to paste: debug-mode keeps it at %s\n(the same for every session; create and template write it again when it is missing).\n", t.HelperPath)
		fmt.Fprintf(w, "\nIMPORT (paste once in each file with probes, in its own region)\n%s", withNewline(t.Import))
	case t.Import != "":
		fmt.Fprintf(w, "\nHELPER TEMPLATE (save as %s, a module of its own)\n%s", t.Placement.HelperFile, withNewline(t.Helper))
		fmt.Fprintf(w, "\nIMPORT (paste once in each module with probes, the path relative to it)\n%s", withNewline(t.Import))
	default:
		head := "HELPER TEMPLATE"
		if t.PackageFrom != "" && t.Placement.HelperFile != "" {
			head += fmt.Sprintf(" (the package of %s: save it there as %s; for another package, write it with --for <file>)", Escape(t.PackageFrom), t.Placement.HelperFile)
		}
		fmt.Fprintf(w, "\n%s\n%s", head, withNewline(t.Helper))
	}
	fmt.Fprintf(w, "\nCALL TEMPLATE\n%s\n", withNewline(t.Call))
	fmt.Fprintln(w, "PLACEHOLDERS")
	tw := table(w)
	for _, p := range t.Placeholders {
		if filled && (p.Name == "__INGEST_URL__" || p.Name == "__APPEND_PATH__") {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Meaning)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nPLACEMENT")
	pieces := "the helper and every call"
	switch {
	case t.Placement.Helper == templates.OutsideProject:
		pieces = "the import and every call"
	case t.Import != "":
		pieces = "the helper, each import and every call"
	}
	fmt.Fprintf(w, "Wrap %s in its own region: %q … %q.\n", pieces, t.Regions.Start, t.Regions.End)
	for _, n := range t.Notes {
		fmt.Fprintln(w, "- "+n)
	}
	fmt.Fprintln(w, "\nEVENT SCHEMA (one JSON object per line)")
	tw = table(w)
	for _, f := range probe {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Type, f.Meaning)
	}
	tw.Flush()
	names := make([]string, len(stored))
	for i, f := range stored {
		names[i] = f.Name
	}
	fmt.Fprintf(w, "Stored events also get %s (timestamps in epoch milliseconds).\n", strings.Join(names, ", "))
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
