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
	fmt.Fprintf(w, "\nHELPER TEMPLATE\n%s\nCALL TEMPLATE\n%s\n", withNewline(t.Helper), withNewline(t.Call))
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
	fmt.Fprintf(w, "Wrap the helper and every call in its own region: %q … %q.\n", t.Regions.Start, t.Regions.End)
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
