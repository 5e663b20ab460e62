package output

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Create renders the contract's block: the heading and three lines, then
// the OTLP Endpoint for OpenTelemetry exporters, every value in one column
// (the widest label, "OTLP Endpoint", sets it).
func Create(w io.Writer, in service.SessionInfo) {
	fmt.Fprintf(w, "SESSION CREATED\nSession ID    %s\nIngest URL    %s\nAppend Path   %s\nOTLP Endpoint %s\n", in.SessionID, in.IngestURL, in.AppendPath, in.OTLPEndpoint)
	if in.ProjectRoot != "" {
		fmt.Fprintf(w, "Project root  %s (event locations are stored relative to it)\n", in.ProjectRoot)
	}
	capLine(w, in.MaxPerLocation)
}

// capLine shows a cap that is not the default, which a helper with the
// default written into it would not know.
func capLine(w io.Writer, n int64) {
	if n != sessionenv.DefaultMaxPerLocation && n > 0 {
		fmt.Fprintf(w, "Cap           %s events per location per process (reproduce exports it as %s)\n", thousands(n), sessionenv.MaxPerLocation)
	}
}

// Reset renders a reset: the new cycle and the endpoints valid now.
func Reset(w io.Writer, in service.SessionInfo) {
	fmt.Fprintf(w, "SESSION RESET\nSession ID    %s\nCycle         %d (sequence restarts at 1; pages and cursors from earlier cycles are void)\nIngest URL    %s\nAppend Path   %s\nOTLP Endpoint %s\n",
		in.SessionID, in.Cycle, in.IngestURL, in.AppendPath, in.OTLPEndpoint)
	capLine(w, in.MaxPerLocation)
	if in.IngestURLChanged {
		fmt.Fprintf(w, "\nWARNING: the Ingest URL changed (it was %s): %s. Before reproducing, put the URL above in the helper (in place of the old one or __INGEST_URL__), or write the helper again with %s; OpenTelemetry exporters take the OTLP Endpoint above.\n",
			in.PreviousURL, oldPortRisk(in.PreviousURL), helperCommand(in.SessionID))
	}
}

// IngestURLMoved is the warning wherever evidence is read after a restarted
// service found its port taken and moved (status, logs): the old port is
// no longer ours, so what probes still send there may reach another program.
func IngestURLMoved(prev, cur, sessionID string) string {
	return fmt.Sprintf("the Ingest URL changed from %s to %s: %s. Re-point the probes before reproducing: put the new URL in the helper (in place of the old one or __INGEST_URL__), or write the helper again with %s; debug-mode reset --session %s prints it too",
		prev, cur, oldPortRisk(prev), helperCommand(sessionID), sessionID)
}

// oldPortRisk says why an Ingest URL that moved matters beyond lost records.
func oldPortRisk(prev string) string {
	port := "its port"
	if u, err := url.Parse(prev); err == nil && u.Port() != "" {
		port = "port " + u.Port()
	}
	return port + " was taken by another program while debug-mode was stopped and is no longer debug-mode's, so whatever a probe still posts to the old URL may reach that program instead"
}

// helperCommand renders a session's HTTP helper with the current URL.
func helperCommand(sessionID string) string {
	return "debug-mode template --language <language> --ingest http --section helper --session " + sessionID
}

// MaxDiagnosticGroups bounds the groups of diagnostics status lists
// unless asked for all of them.
const MaxDiagnosticGroups = 10

// Status renders evidence health and the stored diagnostics, grouped by
// reason (StatusAll lists each one).
func Status(w io.Writer, in service.StatusInfo) { status(w, in, false) }

// StatusAll is Status listing every stored diagnostic on its own.
func StatusAll(w io.Writer, in service.StatusInfo) { status(w, in, true) }

func status(w io.Writer, in service.StatusInfo, all bool) {
	t := table(w)
	fmt.Fprintln(t, "SESSION STATUS")
	fmt.Fprintf(t, "Session ID\t%s\n", in.SessionID)
	fmt.Fprintf(t, "Cycle\t%d (evidence version %s)\n", in.Epoch, in.Version)
	if in.ProjectRoot != "" {
		fmt.Fprintf(t, "Project root\t%s\n", in.ProjectRoot)
	}
	ev := plural(in.Events, "event", "events")
	if len(in.Hypotheses) > 0 {
		parts := make([]string, len(in.Hypotheses))
		for i, h := range in.Hypotheses {
			parts[i] = fmt.Sprintf("%s %d", Escape(h.ID), h.Events)
		}
		ev += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(t, "Events\t%s\n", ev)
	if in.Events > 0 {
		fmt.Fprintf(t, "Time span\t%s – %s UTC\n", UTCMillis(in.FirstTimestamp), UTCMillis(in.LastTimestamp)[11:])
	}
	fmt.Fprintf(t, "Rejected\t%s\n", plural(in.Rejected, "record", "records"))
	for i, h := range in.HeldBack {
		name := "Held back"
		if i > 0 {
			name = ""
		}
		fmt.Fprintf(t, "%s\t%s\n", name, HeldBackLine(h))
	}
	if in.HeldBackOmitted > 0 {
		fmt.Fprintf(t, "\t… and %d more held-back locations\n", in.HeldBackOmitted)
	}
	if in.MaxPerLocation != sessionenv.DefaultMaxPerLocation {
		// The default is documented; a changed cap is worth a line.
		fmt.Fprintf(t, "Cap\t%s events per location per process (past it a helper sends one held-back count)\n", thousands(in.MaxPerLocation))
	}
	if in.RedactedEvents > 0 {
		fmt.Fprintf(t, "Redacted\t%s had secret-looking values replaced before storage\n", plural(in.RedactedEvents, "event", "events"))
	}
	if in.PendingBytes > 0 {
		fmt.Fprintf(t, "Waiting\tan incomplete record of %d bytes has no newline yet (still being written, or the helper did not end it with a newline)\n", in.PendingBytes)
	}
	if in.SkippingLine > 0 {
		fmt.Fprintf(t, "Skipping\tappend path line %d is over the record limit and has no newline yet; it was rejected (see diagnostics) and is discarded as it is written, and the records after its newline are taken in\n", in.SkippingLine)
	}
	userEvidenceRow(t, in.UserEvidence, in.SessionID)
	fmt.Fprintf(t, "OTLP Endpoint\t%s\n", in.OTLPEndpoint)
	t.Flush()

	var warnings []string
	if in.IngestURLChanged {
		warnings = append(warnings, IngestURLMoved(in.PreviousURL, in.IngestURL, in.SessionID))
	}
	if in.Events == 0 && in.Rejected == 0 {
		warnings = append(warnings, "no evidence yet: the probes did not run, the program was not rebuilt or restarted, or the helper points elsewhere. Run debug-mode reset --session "+in.SessionID+" to print the Ingest URL and Append Path the helper must use, then reproduce")
	}
	if in.Rejected > 0 {
		warnings = append(warnings, "some records were rejected; each diagnostic below says why and where. Fix the call site and reproduce")
	}
	for _, s := range warnings {
		fmt.Fprintln(w, "\nWARNING: "+Escape(s))
	}

	if len(in.Diagnostics) == 0 {
		fmt.Fprintln(w, "\nDIAGNOSTICS none")
		return
	}
	if !all {
		diagnosticGroups(w, in)
		return
	}
	fmt.Fprintf(w, "\nDIAGNOSTICS (%d", len(in.Diagnostics))
	if in.DiagnosticsOmitted > 0 {
		fmt.Fprintf(w, " shown, %d more not kept", in.DiagnosticsOmitted)
	}
	fmt.Fprintln(w, ")")
	t = table(w)
	fmt.Fprintln(t, "#\tTIME\tSOURCE\tLEVEL\tPOSITION\tREASON")
	for i, d := range in.Diagnostics {
		fmt.Fprintf(t, "%d\t%s\t%s\t%s\t%s\t%s\n", i+1, diagTime(d.ReceivedAt), Escape(d.Source), Escape(d.Level), Escape(d.Position), Escape(d.Reason))
		if d.Excerpt != "" {
			fmt.Fprintf(t, "\t\t\t\texcerpt\t%s\n", Escape(d.Excerpt))
		}
	}
	t.Flush()
}

func diagTime(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return UTCMillis(ms)[11:]
}

// diagnosticGroups lists the diagnostics once per distinct (source, level,
// reason), most frequent first, with the first one's time, position and
// excerpt: a thousand records refused for one reason cost one row. At most
// MaxDiagnosticGroups groups; the last line says how to see the rest.
func diagnosticGroups(w io.Writer, in service.StatusInfo) {
	type key struct{ source, level, reason string }
	type group struct {
		first store.Diagnostic
		n     int
	}
	var order []key
	groups := map[key]*group{}
	for _, d := range in.Diagnostics {
		k := key{d.Source, d.Level, d.Reason}
		if g := groups[k]; g != nil {
			g.n++
			continue
		}
		groups[k] = &group{first: d, n: 1}
		order = append(order, k)
	}
	sort.SliceStable(order, func(i, j int) bool { return groups[order[i]].n > groups[order[j]].n })
	fmt.Fprintf(w, "\nDIAGNOSTICS (%s", plural(int64(len(in.Diagnostics)), "diagnostic", "diagnostics"))
	if in.DiagnosticsOmitted > 0 {
		fmt.Fprintf(w, ", %d more not kept", in.DiagnosticsOmitted)
	}
	fmt.Fprintf(w, "; %s)\n", plural(int64(len(order)), "distinct reason", "distinct reasons"))
	t := table(w)
	fmt.Fprintln(t, "#\tCOUNT\tFIRST AT\tSOURCE\tLEVEL\tFIRST POSITION\tREASON")
	shown, rest := order, 0
	if len(shown) > MaxDiagnosticGroups {
		shown = order[:MaxDiagnosticGroups]
		for _, k := range order[MaxDiagnosticGroups:] {
			rest += groups[k].n
		}
	}
	for i, k := range shown {
		g := groups[k]
		d := g.first
		fmt.Fprintf(t, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", i+1, g.n, diagTime(d.ReceivedAt), Escape(d.Source), Escape(d.Level), Escape(d.Position), Escape(d.Reason))
		if d.Excerpt != "" {
			fmt.Fprintf(t, "\t\t\t\t\texcerpt\t%s\n", Escape(d.Excerpt))
		}
	}
	t.Flush()
	switch {
	case rest > 0:
		more := "more distinct reasons"
		if len(order)-len(shown) == 1 {
			more = "more distinct reason"
		}
		fmt.Fprintf(w, "… and %d %s (%s) not shown: debug-mode status --session %s --all lists every diagnostic (--json too)\n",
			len(order)-len(shown), more, plural(int64(rest), "diagnostic", "diagnostics"), in.SessionID)
	case len(order) < len(in.Diagnostics):
		fmt.Fprintf(w, "Each diagnostic with its own position: debug-mode status --session %s --all\n", in.SessionID)
	}
}

// Sessions renders the session list.
func Sessions(w io.Writer, in service.SessionList, all bool) {
	scope := "today (local time), newest first"
	if all {
		scope = "all, newest first"
	}
	if len(in.Sessions) == 0 {
		fmt.Fprintf(w, "SESSIONS %s: none\n", scope)
		if !all {
			fmt.Fprintln(w, "Older sessions: debug-mode sessions --all. New session: debug-mode create")
		}
		return
	}
	fmt.Fprintf(w, "SESSIONS %s\n", scope)
	t := table(w)
	fmt.Fprintln(t, "SESSION ID\tCREATED\tEVENTS")
	for _, s := range in.Sessions {
		fmt.Fprintf(t, "%s\t%s\t%d\n", s.SessionID, LocalSeconds(s.CreatedAt), s.Events)
	}
	t.Flush()
	if in.Omitted > 0 {
		fmt.Fprintf(w, "%d shown, %d more: debug-mode sessions --all\n", len(in.Sessions), in.Omitted)
	} else if !all {
		fmt.Fprintln(w, "Older sessions: debug-mode sessions --all")
	}
}

// Clean renders a deleted session.
func Clean(w io.Writer, id string) {
	fmt.Fprintf(w, "SESSION CLEANED\nSession ID    %s\nIts evidence, diagnostics and metadata are deleted.\n", id)
}

// Stop renders the result of stop.
func Stop(w io.Writer, wasRunning bool) {
	if wasRunning {
		fmt.Fprintln(w, "STOPPED\nSessions are kept; the next debug-mode command starts things again.")
		return
	}
	fmt.Fprintln(w, "NOT RUNNING\nNothing to stop; sessions are kept.")
}

// Warnings prints each warning on a line of its own after a blank line.
func Warnings(w io.Writer, ws []string) {
	for _, s := range ws {
		fmt.Fprintln(w, "\nWARNING: "+Escape(s))
	}
}
