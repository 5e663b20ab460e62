package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// ReproduceView is one reproduction's report.
type ReproduceView struct {
	SessionID    string               `json:"sessionId"`
	Cycle        int64                `json:"cycle"`
	Kept         bool                 `json:"kept"` // --keep: the cycle was kept, not started anew
	Reproduction int64                `json:"reproduction"`
	Command      []string             `json:"command"`
	Dir          string               `json:"dir"`
	Run          RunView              `json:"run"`
	Settle       service.SettleResult `json:"settle"`
	Stdout       service.StreamTail   `json:"stdout"`
	Stderr       service.StreamTail   `json:"stderr"`
	Evidence     EvidenceSummary      `json:"evidence"`
	Regions      *ReproduceRegions    `json:"regions,omitempty"` // nil when the scan failed (Warnings says why)
	FirstEvents  []json.RawMessage    `json:"firstEvents"`       // the cycle's first events in logs order (at most FirstEventsShown), so a small round needs no logs
	Logpoints    []logpoints.Status   `json:"logpoints"`         // the session's logpoints, each with its state in this cycle
	Capture      *CaptureView         `json:"capture,omitempty"`
	Diff         *DiffView            `json:"diff,omitempty"`
	Warnings     []string             `json:"warnings"`
	Next         []string             `json:"next"`
}

// RunView is how the command ran.
type RunView struct {
	ExitCode   int    `json:"exitCode"`         // -1 when a signal ended it
	Signal     string `json:"signal,omitempty"` // the signal that ended it
	CoreDumped bool   `json:"coreDumped,omitempty"`
	End        string `json:"end"` // exited, timeout or interrupted
	DurationMs int64  `json:"durationMs"`
	CommandMs  int64  `json:"commandMs"`
	Processes  int    `json:"processes"` // the command and every orphan of its tree the supervisor reaped
	Signalled  int    `json:"signalled"` // processes ended at the timeout or interruption
	Killed     bool   `json:"killed"`    // SIGKILL was needed after the grace
	TimeoutMs  int64  `json:"timeoutMs"`
	GraceMs    int64  `json:"graceMs"`
}

// EvidenceSummary is the cycle's evidence after the settle.
type EvidenceSummary struct {
	Version         string                  `json:"evidenceVersion"`
	Events          int64                   `json:"events"`
	Hypotheses      []store.HypothesisCount `json:"hypotheses"`
	Rejected        int64                   `json:"rejectedRecords"`
	FirstRejections []store.Diagnostic      `json:"firstRejections"`
	Warnings        int64                   `json:"warnings"`
	RedactedEvents  int64                   `json:"redactedEvents"`
	HeldBack        []store.HeldBackCount   `json:"heldBack"`
	HeldBackEvents  int64                   `json:"heldBackEvents"`
	HeldBackOmitted int                     `json:"heldBackOmitted"`
	// AtCap is each location that sent a whole multiple of the cap with no
	// held-back record: more were probably held back, unreported (a killed
	// process, or one whose helper never flushed).
	AtCap          []store.LocationCount `json:"atCapUnreported"`
	MaxPerLocation int64                 `json:"maxPerLocation"`
	PendingBytes   int64                 `json:"incompleteRecordBytes"`
	IngestURL      string                `json:"ingestUrl"`
	AppendPath     string                `json:"appendPath"`
}

// ReproduceRegions is the probe ledger of the working directory joined
// with the cycle's events.
type ReproduceRegions struct {
	Scanned    int             `json:"regions"` // probe regions: helper regions are counted apart
	Fired      int             `json:"fired"`
	Helpers    int             `json:"helperRegions"` // a helper or its import: it sends nothing itself
	NeverFired []probes.Region `json:"neverFired"`
	Unmatched  int             `json:"unmatchedLocations"` // locations whose events fall in no region
	Under      string          `json:"under"`
}

// maxListed bounds the items of one kind a report lists.
const maxListed = 10

// FirstEventsShown is how many of the cycle's events the report lists.
const FirstEventsShown = 10

// maxShownData bounds one event's data in the report's list (logs shows it whole).
const maxShownData = 300

// Reproduce renders the report: how the command ran, how long the settle
// took, the evidence, the output tails, the capture or diff, what next.
func Reproduce(w io.Writer, v ReproduceView) {
	fmt.Fprintf(w, "REPRODUCED %s\n", Escape(strings.Join(quoteAll(v.Command), " ")))
	t := table(w)
	cycle := fmt.Sprintf("cycle %d (new)", v.Cycle)
	if v.Kept {
		cycle = fmt.Sprintf("cycle %d (kept: appended to)", v.Cycle)
	}
	fmt.Fprintf(t, "Session\t%s · %s · reproduction %d · evidence version %s\n", v.SessionID, cycle, v.Reproduction, v.Evidence.Version)
	fmt.Fprintf(t, "Exit\t%s\n", exitText(v.Run))
	if v.Run.Processes > 1 {
		fmt.Fprintf(t, "Processes\t%d waited for (the command and %s reaped after their parent ended)\n", v.Run.Processes, plural(int64(v.Run.Processes-1), "orphan", "orphans"))
	}
	fmt.Fprintf(t, "Settled\t%s\n", settleText(v.Settle))
	e := v.Evidence
	ev := plural(e.Events, "event", "events")
	if len(e.Hypotheses) > 0 {
		parts := make([]string, len(e.Hypotheses))
		for i, h := range e.Hypotheses {
			parts[i] = fmt.Sprintf("%s %d", Escape(h.ID), h.Events)
		}
		ev += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(t, "Events\t%s\n", ev)
	if e.Rejected > 0 {
		fmt.Fprintf(t, "Rejected\t%s; first reasons:\n", plural(e.Rejected, "record", "records"))
		for _, d := range e.FirstRejections {
			fmt.Fprintf(t, "\t  %s: %s\n", Escape(d.Position), Escape(d.Reason))
		}
	}
	for i, h := range e.HeldBack {
		if i == maxListed {
			fmt.Fprintf(t, "\t… and %d more held-back locations (debug-mode status --session %s)\n", len(e.HeldBack)-maxListed+e.HeldBackOmitted, v.SessionID)
			break
		}
		name := "Held back"
		if i > 0 {
			name = ""
		}
		fmt.Fprintf(t, "%s\t%s\n", name, HeldBackLine(h))
	}
	for i, l := range e.AtCap {
		if i == maxListed {
			fmt.Fprintf(t, "\t… and %d more locations at the cap\n", len(e.AtCap)-maxListed)
			break
		}
		name := "At cap"
		if i > 0 {
			name = ""
		}
		times := ""
		if k := l.Events / e.MaxPerLocation; k > 1 {
			times = fmt.Sprintf("%d× ", k)
		}
		fmt.Fprintf(t, "%s\t%s events at %s (%s): exactly %sthe cap of %s per location per process, and no held-back record arrived: more were probably held back but the process did not report it (killed, or ended before its helper flushed)\n",
			name, thousands(l.Events), Escape(l.Location), Escape(hypothesisList(l.Hypotheses)), times, thousands(e.MaxPerLocation))
	}
	if e.RedactedEvents > 0 {
		fmt.Fprintf(t, "Redacted\t%s had secret-looking values replaced before storage\n", plural(e.RedactedEvents, "event", "events"))
	}
	if e.PendingBytes > 0 {
		fmt.Fprintf(t, "Waiting\tan incomplete record of %d bytes has no newline (the helper did not end its last line)\n", e.PendingBytes)
	}
	if r := v.Regions; r != nil {
		fmt.Fprintf(t, "Regions\t%s\n", regionsText(r))
	}
	if len(v.Logpoints) > 0 {
		fmt.Fprintf(t, "Logpoints\t%s\n", logpointCounts(v.Logpoints))
	}
	if c := v.Capture; c != nil {
		state := "new"
		if c.Existing {
			state = "already taken: the same evidence was captured before"
		}
		fmt.Fprintf(t, "Capture\t%s %q (%s) · %s\n", c.ID, Escape(c.Label), state, plural(c.Header.Events, "event", "events"))
	}
	t.Flush()
	if len(v.Logpoints) > 0 {
		fmt.Fprintln(w)
		logpointTable(w, v.Logpoints, false)
		logpointNotes(w, v.Logpoints, v.SessionID)
	}
	if n := len(v.FirstEvents); n > 0 {
		head := "\nEVENTS"
		if int64(n) < v.Evidence.Events {
			head = fmt.Sprintf("\nEVENTS first %d of %d (all of them: debug-mode logs --session %s)", n, v.Evidence.Events, v.SessionID)
		}
		fmt.Fprintln(w, head)
		writeEventTable(w, v.FirstEvents, maxShownData)
	}
	streamTail(w, "STDOUT", v.Stdout)
	streamTail(w, "STDERR", v.Stderr)
	if v.Diff != nil {
		fmt.Fprintln(w)
		Diff(w, *v.Diff)
	}
	Warnings(w, v.Warnings)
	if len(v.Next) > 0 {
		fmt.Fprintln(w, "\nNext:")
		for _, n := range v.Next {
			fmt.Fprintln(w, "  "+n)
		}
	}
}

func hypothesisList(hs []store.HypothesisCount) string {
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return strings.Join(ids, ", ")
}

// HeldBackLine is one held-back location, as status and reproduce say it.
func HeldBackLine(h store.HeldBackCount) string {
	n := thousands(h.Count)
	if h.Count >= evidence.MaxHeldBackCount {
		n = "at least " + n // the sum saturates there (store.addHeldBack)
	}
	events := "events"
	if h.Count == 1 {
		events = "event"
	}
	s := fmt.Sprintf("%s %s at %s (%s)", n, events, Escape(h.Location), Escape(h.HypothesisID))
	if h.Processes > 1 {
		s += fmt.Sprintf(" from %d processes", h.Processes)
	}
	return s + fmt.Sprintf(": the helper's cap of %s per location per process was reached", thousands(h.Cap))
}

func exitText(r RunView) string {
	d := durationText(time.Duration(r.DurationMs) * time.Millisecond)
	var s string
	switch {
	case r.Signal != "":
		s = "ended by " + r.Signal
		if r.CoreDumped {
			s += " (core dumped)"
		}
	default:
		s = "exit status " + strconv.Itoa(r.ExitCode)
	}
	switch r.End {
	case "timeout":
		how := "SIGTERM"
		if r.Killed {
			how = fmt.Sprintf("SIGTERM, then SIGKILL after %s", durationText(time.Duration(r.GraceMs)*time.Millisecond))
		}
		return fmt.Sprintf("TIMEOUT after %s: the whole process tree (%s) was ended (%s); the command itself: %s",
			durationText(time.Duration(r.TimeoutMs)*time.Millisecond), plural(int64(max(r.Signalled, 1)), "process", "processes"), how, s)
	case "interrupted":
		return fmt.Sprintf("INTERRUPTED after %s: the whole process tree (%s) was ended; the command itself: %s", d, plural(int64(max(r.Signalled, 1)), "process", "processes"), s)
	}
	if r.CommandMs != r.DurationMs && r.Processes > 1 {
		return fmt.Sprintf("%s after %s (its last child ended at %s)", s, durationText(time.Duration(r.CommandMs)*time.Millisecond), d)
	}
	return s + " after " + d
}

func settleText(s service.SettleResult) string {
	if !s.Complete {
		return fmt.Sprintf("waited %d ms after the last process ended and deliveries were still arriving: counts may still grow (debug-mode status shows them)", s.WaitedMs)
	}
	return fmt.Sprintf("waited %d ms after the last process ended (until nothing arrived for %d ms): the counts below are final", s.WaitedMs, s.QuietMs)
}

func regionsText(r *ReproduceRegions) string {
	if r.Scanned == 0 && r.Helpers == 0 {
		return "no agent log region under " + r.Under
	}
	s := fmt.Sprintf("%d of %s under %s fired", r.Fired, plural(int64(r.Scanned), "probe region", "probe regions"), r.Under)
	if r.Helpers > 0 {
		s += fmt.Sprintf("; %s not counted (helpers send nothing themselves)", plural(int64(r.Helpers), "helper region", "helper regions"))
	}
	if n := len(r.NeverFired); n > 0 {
		names := make([]string, 0, min(n, maxListed))
		for i, x := range r.NeverFired {
			if i == maxListed {
				names = append(names, fmt.Sprintf("… %d more", n-maxListed))
				break
			}
			names = append(names, regionName(x))
		}
		s += fmt.Sprintf("; never fired: %s (that code did not run, or the program was not rebuilt or restarted)", strings.Join(names, ", "))
	}
	if r.Unmatched > 0 {
		s += fmt.Sprintf("; %s in no region", plural(int64(r.Unmatched), "location", "locations"))
	}
	return s
}

func streamTail(w io.Writer, name string, s service.StreamTail) {
	if s.TotalBytes == 0 {
		fmt.Fprintf(w, "\n%s empty\n", name)
		return
	}
	head := fmt.Sprintf("%s last %d of %s", name, len(s.Lines), plural(int64(s.TotalLines), "line", "lines"))
	if len(s.Lines) == s.TotalLines {
		head = fmt.Sprintf("%s %s", name, plural(int64(s.TotalLines), "line", "lines"))
	}
	var notes []string
	if s.OmittedBytes > 0 {
		notes = append(notes, fmt.Sprintf("%s of %s kept: head and tail", sizeText(s.TotalBytes-s.OmittedBytes), sizeText(s.TotalBytes)))
	}
	if s.Redactions > 0 {
		notes = append(notes, plural(int64(s.Redactions), "secret-looking value", "secret-looking values")+" redacted")
	}
	if len(notes) > 0 {
		head += " (" + strings.Join(notes, "; ") + ")"
	}
	fmt.Fprintln(w, "\n"+head)
	for _, l := range s.Lines {
		fmt.Fprintln(w, "  "+Escape(l))
	}
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// durationText is a short duration: 850 ms, 2.31 s, 1m30s.
func durationText(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", d.Seconds()), "0"), ".")
		return s + " s"
	}
	return d.Round(time.Second).String()
}

func quoteAll(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return q
}

// OutputView is one page of a reproduction's stored output.
type OutputView struct {
	service.OutputPage
	Next string `json:"next,omitempty"` // the command for the next page
}

// Output renders a page of output, numbered lines, and the next page.
func Output(w io.Writer, v OutputView) {
	if !v.Available {
		fmt.Fprintf(w, "OUTPUT none · session %s · cycle %d: no reproduction ran in this cycle (a reset discards the previous output).\nRun one: debug-mode reproduce --session %s -- <command> [args…]\n", v.SessionID, v.Cycle, v.SessionID)
		return
	}
	fmt.Fprintf(w, "OUTPUT %s · session %s · cycle %d · reproduction %d · %s\n", v.Stream, v.SessionID, v.Cycle, v.Reproduction, Escape(strings.Join(quoteAll(v.Command), " ")))
	notes := []string{exitShort(v.Exit), sizeText(v.TotalBytes) + " written"}
	if v.OmittedBytes > 0 {
		notes = append(notes, sizeText(v.OmittedBytes)+" omitted from the middle (head and tail kept)")
	}
	if v.Redactions > 0 {
		notes = append(notes, plural(int64(v.Redactions), "secret-looking value", "secret-looking values")+" redacted")
	}
	fmt.Fprintln(w, strings.Join(notes, " · "))
	if v.TotalLines == 0 {
		fmt.Fprintf(w, "The command wrote nothing to %s.\n", v.Stream)
		return
	}
	t := table(w)
	for i, l := range v.Lines {
		fmt.Fprintf(t, "%d\t%s\n", v.Offset+i+1, Escape(l))
	}
	t.Flush()
	shown := fmt.Sprintf("Showing lines %d–%d of %d", v.Offset+1, v.Offset+v.Returned, v.TotalLines)
	if v.Returned == 0 {
		shown = fmt.Sprintf("No lines at offset %d; %s has %s", v.Offset, v.Stream, plural(int64(v.TotalLines), "line", "lines"))
	}
	if v.CutLines > 0 {
		shown += fmt.Sprintf(" (%s cut at the page's %s bound)", plural(int64(v.CutLines), "line", "lines"), sizeText(service.MaxOutputPageBytes))
	}
	fmt.Fprintln(w, shown+".")
	if v.Next != "" {
		fmt.Fprintln(w, "Next page: "+v.Next)
	}
}

// exitShort is how a stored reproduction ended, in a few words.
func exitShort(e store.Exit) string {
	s := "exit status " + strconv.Itoa(e.Code)
	if e.Signal != "" {
		s = "ended by " + e.Signal
	}
	switch {
	case e.TimedOut:
		s += " at the timeout"
	case e.Interrupted:
		s += " when interrupted"
	}
	return s + " after " + durationText(time.Duration(e.DurationMs)*time.Millisecond)
}

// sizeText is a byte count for people: 512 bytes, 64.0 KiB, 1.0 MiB.
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return bytesText(n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
