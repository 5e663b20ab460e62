package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

// CaptureView is a new (or already taken) capture plus what the CLI adds.
type CaptureView struct {
	capture.Created
	SourceStates map[string]int `json:"sourceStates"` // source records sent, by link state
	Warnings     []string       `json:"warnings"`
	Read         string         `json:"read"`    // the command that reads it
	Compare      string         `json:"compare"` // the verification step
}

// Capture renders a capture just taken.
func Capture(w io.Writer, v CaptureView) {
	h := v.Header
	state := "new"
	if v.Existing {
		state = "already taken: the same evidence was captured before, so that capture is the answer"
	}
	fmt.Fprintf(w, "CAPTURE %s (%s)\n", v.ID, state)
	t := table(w)
	fmt.Fprintf(t, "Session\t%s · cycle %d · evidence version %s\n", h.SessionID, h.Cycle, h.EvidenceVersion)
	if v.Label != "" {
		fmt.Fprintf(t, "Label\t%s\n", Escape(v.Label))
	}
	fmt.Fprintf(t, "Events\t%s (every stored event of the cycle) · %s · %s\n", plural(h.Events, "event", "events"),
		plural(h.RejectedRecords, "rejected record", "rejected records"), plural(int64(h.Diagnostics), "diagnostic", "diagnostics"))
	fmt.Fprintf(t, "User evidence\t%s, %s\n", plural(int64(h.UserNotes), "note", "notes"), plural(int64(h.UserFiles), "file", "files"))
	fmt.Fprintf(t, "Source root\t%s\n", Escape(h.SourceRoot))
	fmt.Fprintf(t, "Regions\t%s\n", regionScanLine(h.RegionScan))
	fmt.Fprintf(t, "Source\t%s\n", sourceScanLine(h.SourceScan, v.SourceStates))
	fmt.Fprintf(t, "SHA-256\t%s\n", v.SHA256)
	t.Flush()
	fmt.Fprintf(w, "Read it: %s\n", v.Read)
	fmt.Fprintf(w, "Verify a fix: change the code, debug-mode reset --session %s, reproduce, then %s\n", h.SessionID, v.Compare)
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "WARNING: "+Escape(s))
	}
}

func regionScanLine(rs capture.RegionScan) string {
	if rs.State != capture.Complete {
		return "none frozen: " + Escape(rs.Reason)
	}
	s := fmt.Sprintf("%s found in %s scanned", plural(int64(rs.Regions+rs.Omitted), "region", "regions"), plural(int64(rs.FilesScanned), "file", "files"))
	if rs.Omitted > 0 {
		s += fmt.Sprintf("; %d frozen (bound %d)", rs.Regions, capture.MaxRegions)
	}
	if rs.Broken > 0 {
		s += fmt.Sprintf("; %s", plural(int64(rs.Broken), "broken marker", "broken markers"))
	}
	return s
}

func sourceScanLine(sc capture.SourceScan, states map[string]int) string {
	s := fmt.Sprintf("%d of %s looked at (±%d lines)", sc.Records, plural(int64(sc.Locations), "location", "locations"), sc.ContextLines)
	var parts []string
	for _, st := range []string{capture.Complete, capture.Ambiguous, capture.Unavailable, capture.Incomplete} {
		if n := states[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	switch sc.Bound {
	case "locations":
		s += fmt.Sprintf("; bound reached: at most %d locations, %d not frozen", capture.MaxSourceLocations, sc.Omitted)
	case "bytes":
		s += fmt.Sprintf("; bound reached: at most %d KiB of source, %d locations not frozen", capture.MaxSourceBytes>>10, sc.Omitted)
	default:
		s += "; no bound reached"
	}
	return s
}

// CapturesView is the capture list plus its continuation commands.
type CapturesView struct {
	service.CaptureList
	Read    string `json:"read,omitempty"`
	Compare string `json:"compare,omitempty"`
}

// Captures renders a session's captures, oldest first.
func Captures(w io.Writer, v CapturesView) {
	if len(v.Captures) == 0 {
		fmt.Fprintf(w, "CAPTURES session %s: none\n", v.SessionID)
		fmt.Fprintf(w, "Freeze the current evidence before a fix: debug-mode capture --session %s --label \"before fix\"\n", v.SessionID)
		return
	}
	fmt.Fprintf(w, "CAPTURES session %s (oldest first)\n", v.SessionID)
	t := table(w)
	fmt.Fprintln(t, "ID\tLABEL\tCREATED\tCYCLE\tEVENTS\tSHA-256\tINTEGRITY")
	for _, c := range v.Captures {
		label, created, cycle, events, sha := "-", "-", "-", "-", "-"
		if c.Label != "" {
			label = Escape(c.Label)
		}
		if c.CreatedAt > 0 {
			created = LocalSeconds(c.CreatedAt)
			cycle, events = strconv.FormatInt(c.Cycle, 10), strconv.FormatInt(c.Events, 10)
		}
		if len(c.SHA256) == 64 {
			sha = c.SHA256[:16] + "…"
		}
		integrity := c.Integrity
		if c.Problem != "" {
			integrity += ": " + Escape(c.Problem)
		}
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, label, created, cycle, events, sha, integrity)
	}
	t.Flush()
	fmt.Fprintf(w, "Read one: %s\nCompare with the live cycle: %s\n", v.Read, v.Compare)
	if v.Damaged > 0 {
		fmt.Fprintf(w, "WARNING: damaged captures (%d) are never used by logs, query, follow or diff; take a new capture if you still need that evidence\n", v.Damaged)
	}
}

// CaptureDetail renders one capture: what it froze and how completely.
func CaptureDetail(w io.Writer, d service.CaptureDetail) {
	h := d.Header
	fmt.Fprintf(w, "CAPTURE %s · session %s · integrity %s\n", d.ID, h.SessionID, d.Integrity)
	t := table(w)
	if d.Label != "" {
		fmt.Fprintf(t, "Label\t%s\n", Escape(d.Label))
	}
	fmt.Fprintf(t, "Created\t%s\n", LocalSeconds(d.CreatedAt))
	fmt.Fprintf(t, "Cycle\t%d (evidence version %s when frozen)\n", h.Cycle, h.EvidenceVersion)
	fmt.Fprintf(t, "Events\t%s · %s · %s redacted\n", plural(h.Events, "event", "events"), plural(h.RejectedRecords, "rejected record", "rejected records"), plural(h.RedactedEvents, "event", "events"))
	fmt.Fprintf(t, "Source root\t%s\n", Escape(h.SourceRoot))
	fmt.Fprintf(t, "Regions\t%s\n", regionScanLine(h.RegionScan))
	states := map[string]int{}
	for _, s := range d.Sources {
		states[s.State]++
	}
	fmt.Fprintf(t, "Source\t%s\n", sourceScanLine(h.SourceScan, states))
	fmt.Fprintf(t, "SHA-256\t%s\n", d.SHA256)
	t.Flush()
	if len(d.UserNotes)+len(d.UserFiles) > 0 {
		fmt.Fprintf(w, "\nUSER EVIDENCE (as recorded at capture time)\n")
		for _, n := range d.UserNotes {
			fmt.Fprintf(w, "%s  %s\n", n.ID, Escape(n.Text))
		}
		for _, f := range d.UserFiles {
			fmt.Fprintf(w, "%s  %s (%d bytes)%s\n", f.ID, Escape(f.Path), f.Size, map[bool]string{true: "  " + Escape(f.Note), false: ""}[f.Note != ""])
		}
	}
	if len(d.Diagnostics) > 0 {
		fmt.Fprintf(w, "\nDIAGNOSTICS (%d", len(d.Diagnostics))
		if h.DiagnosticsOmitted > 0 {
			fmt.Fprintf(w, " kept, %d more only counted", h.DiagnosticsOmitted)
		}
		fmt.Fprintln(w, ")")
		t = table(w)
		fmt.Fprintln(t, "#\tSOURCE\tLEVEL\tPOSITION\tREASON")
		for i, g := range d.Diagnostics {
			fmt.Fprintf(t, "%d\t%s\t%s\t%s\t%s\n", i+1, Escape(g.Source), Escape(g.Level), Escape(g.Position), Escape(g.Reason))
		}
		t.Flush()
	}
	var open []service.CaptureSource
	for _, s := range d.Sources {
		if s.State != capture.Complete {
			open = append(open, s)
		}
	}
	if len(open) > 0 {
		fmt.Fprintf(w, "\nSOURCE LINKS NOT COMPLETE (%d)\n", len(open))
		t = table(w)
		fmt.Fprintln(t, "LOCATION\tSTATE\tREASON")
		for i, s := range open {
			if i == 20 {
				fmt.Fprintf(t, "…\t%d more\t(--json lists them all)\n", len(open)-20)
				break
			}
			fmt.Fprintf(t, "%s\t%s\t%s\n", Escape(s.Location), s.State, Escape(s.Reason))
		}
		t.Flush()
	}
}

// CaptureLogsView is a logs page read from a capture.
type CaptureLogsView struct {
	LogsView
	Capture string `json:"capture"`
	Follow  string `json:"follow"` // how to read an event's links
}

// CaptureLogs renders the same table as live logs, then where the links are.
func CaptureLogs(w io.Writer, v CaptureLogsView) {
	lv := v.LogsView
	lv.Warnings = nil
	Logs(w, lv)
	fmt.Fprintf(w, "Frozen evidence of capture %s; every event has source, region, previous_at_location and next_at_location links: %s\n", v.Capture, v.Follow)
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "WARNING: "+Escape(s))
	}
}

// FollowView is a followed link plus the CLI's next hop.
type FollowView struct {
	capture.Followed
	Next string `json:"next,omitempty"`
}

// Follow renders the link, then the page it leads to.
func Follow(w io.Writer, v FollowView) {
	l := v.Link
	fmt.Fprintf(w, "FOLLOW SEQ %d %s · %s · capture %s\n", v.Seq, l.Rel, l.State, v.Capture)
	if l.Reason != "" {
		fmt.Fprintf(w, "Link: %s\n", Escape(l.Reason))
	}
	p := v.Page
	switch p.Kind {
	case "source":
		for _, f := range p.Sources {
			fmt.Fprintf(w, "\n%s lines %d–%d of %d (event at line %d)\n", Escape(f.File), f.StartLine, f.EndLine(), f.TotalLines, f.Line)
			width := len(strconv.Itoa(f.EndLine()))
			for i, line := range f.Lines {
				n := f.StartLine + i
				mark := " "
				if n == f.Line {
					mark = ">"
				}
				fmt.Fprintf(w, "%s%*d  %s\n", mark, width, n, Escape(line))
			}
		}
	case "region":
		t := table(w)
		fmt.Fprintln(t, "\nREGION\tLABEL\tFIRST CODE")
		for _, r := range p.Regions {
			label := r.Label
			if label == "" {
				label = "-"
			}
			fmt.Fprintf(t, "%s:%d-%d\t%s\t%s\n", Escape(r.File), r.StartLine, r.EndLine, Escape(label), Escape(r.FirstCode))
		}
		t.Flush()
	default:
		fmt.Fprintln(w)
		writeEventTable(w, p.Events)
	}
	if p.Omitted > 0 {
		fmt.Fprintf(w, "\n%d more matching files were not frozen (at most %d per location).\n", p.Omitted, capture.MaxCandidates)
	}
	if p.Truncated {
		fmt.Fprintf(w, "\nSome lines were cut at %d bytes.\n", capture.MaxSourceLineBytes)
	}
	if v.Next != "" {
		fmt.Fprintf(w, "Next hop: %s\n", v.Next)
	}
}

// DiffView is a comparison plus the CLI's additions.
type DiffView struct {
	capture.DiffResult
	Warnings []string `json:"warnings"`
}

// maxPrettyGroups is how many groups the pretty diff lists.
const maxPrettyGroups = 15

// Diff renders a short comparison: the sides, whether it is whole, the
// first divergence, then the groups that differ.
func Diff(w io.Writer, v DiffView) {
	fmt.Fprintf(w, "DIFF session %s\n", v.SessionID)
	t := table(w)
	fmt.Fprintf(t, "Before\t%s\n", sideLine(v.Before))
	fmt.Fprintf(t, "After\t%s\n", sideLine(v.After))
	t.Flush()
	if v.Complete {
		fmt.Fprintln(w, "Whole comparison: every event of both sides was compared.")
	} else {
		fmt.Fprintln(w, "PARTIAL comparison: "+strings.Join(partial(v.DiffResult), "; ")+".")
	}
	c := v.Counts
	if v.Identical {
		fmt.Fprintf(w, "IDENTICAL: the same %s, counts and data values, in the same order.\n", plural(int64(c.Groups), "group", "groups"))
	} else {
		var parts []string
		add := func(n int, s string) {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		add(c.Same, "same")
		add(c.DataChanged, "with changed data ("+plural(c.ChangedPairs, "value", "values")+")")
		add(c.CountChanged, "with another event count")
		add(c.Edited, "with events added and removed")
		add(c.OnlyBefore, "only before")
		add(c.OnlyAfter, "only after")
		add(c.Moved, "moved to another line")
		fmt.Fprintf(w, "Groups (hypothesis, location, message): %d: %s.\n", c.Groups, strings.Join(parts, ", "))
		fmt.Fprintf(w, "Events, aligned by data within each group: %d the same, %d changed, %d only before, %d only after.\n",
			c.SameEvents, c.ChangedPairs, c.OnlyBeforeEvents, c.OnlyAfterEvents)
	}
	if d := v.FirstDivergence; d != nil {
		what := map[string]string{"group": "a different group", "data": "the same group, different data",
			"only_before": "an event before with no counterpart after", "only_after": "an event after with no counterpart before",
			"before_ended": "before has no more events", "after_ended": "after has no more events"}[d.Reason]
		fmt.Fprintf(w, "First divergence at event %d in logs order (%s):\n", d.Position, what)
		t := table(w)
		for _, s := range []struct {
			name string
			e    *capture.EventBrief
		}{{"before", d.Before}, {"after", d.After}} {
			if s.e == nil {
				fmt.Fprintf(t, "  %s\t-\t(no event)\n", s.name)
				continue
			}
			fmt.Fprintf(t, "  %s\tSEQ %d\t%s  %s  %s  %s\n", s.name, s.e.Seq, Escape(s.e.Hypothesis), Escape(s.e.Location), Escape(s.e.Message), clipText(string(s.e.Data), 120))
		}
		t.Flush()
	}
	var shown []capture.Group
	for _, g := range v.Groups {
		if g.Status != capture.GroupSame || g.LocationAfter != "" {
			shown = append(shown, g)
		}
	}
	if len(shown) > 0 {
		fmt.Fprintln(w)
		t := table(w)
		fmt.Fprintln(t, "STATUS\tBEFORE\tAFTER\tHYP\tLOCATION\tMESSAGE")
		for i, g := range shown {
			if i == maxPrettyGroups {
				break
			}
			loc := g.Location
			if g.LocationAfter != "" {
				loc += " → " + g.LocationAfter
			}
			note := ""
			if g.Approximate {
				note = fmt.Sprintf("  (approximate: more than %d edits, paired by position)", capture.MaxDiffEdits)
			}
			fmt.Fprintf(t, "%s\t%d\t%d\t%s\t%s\t%s%s\n", g.Status, g.Before, g.After, Escape(g.Hypothesis), Escape(loc), Escape(g.Message), note)
		}
		t.Flush()
		examples := 0
		for i, g := range shown {
			if i == maxPrettyGroups {
				break
			}
			for _, ex := range g.Examples {
				if examples == 0 {
					fmt.Fprintln(w, "\nChanged values (aligned events of a group whose data differ):")
				}
				if examples == 8 {
					break
				}
				examples++
				fmt.Fprintf(w, "  %s %s %s: %s  SEQ %d %s → SEQ %d %s\n", Escape(g.Hypothesis), Escape(g.Location), Escape(g.Message),
					Escape(strings.Join(ex.Paths, " ")), ex.BeforeSeq, clipText(string(ex.Before), 60), ex.AfterSeq, clipText(string(ex.After), 60))
			}
		}
		singles := 0
		for i, g := range shown {
			if i == maxPrettyGroups {
				break
			}
			for _, u := range g.Unmatched {
				if singles == 0 {
					fmt.Fprintln(w, "\nEvents on one side only (removed or added within a group):")
				}
				if singles == 8 {
					break
				}
				singles++
				fmt.Fprintf(w, "  %s %s %s: only %s  SEQ %d %s\n", Escape(g.Hypothesis), Escape(g.Location), Escape(g.Message),
					u.Side, u.Seq, clipText(string(u.Data), 100))
			}
		}
		if more := len(shown) - maxPrettyGroups + v.GroupsOmitted; more > 0 {
			fmt.Fprintf(w, "%d more differing groups; --json lists up to 500.\n", max(more, 0))
		}
	}
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "WARNING: "+Escape(s))
	}
}

func sideLine(s capture.Side) string {
	var b strings.Builder
	if s.Kind == "capture" {
		fmt.Fprintf(&b, "capture %s", s.Capture)
		if s.Label != "" {
			b.WriteString(` "` + Escape(s.Label) + `"`)
		}
		fmt.Fprintf(&b, " · cycle %d", s.Cycle)
	} else {
		fmt.Fprintf(&b, "live cycle %d (evidence version %s)", s.Cycle, s.Version)
	}
	fmt.Fprintf(&b, " · %s", plural(s.Events, "event", "events"))
	if s.RejectedRecords > 0 {
		fmt.Fprintf(&b, " · %s (never part of the evidence)", plural(s.RejectedRecords, "rejected record", "rejected records"))
	}
	return b.String()
}

// partial says which bounds made a comparison partial.
func partial(r capture.DiffResult) []string {
	var out []string
	for _, s := range []struct {
		name string
		side capture.Side
	}{{"before", r.Before}, {"after", r.After}} {
		if s.side.Truncated {
			out = append(out, fmt.Sprintf("%s: only its first %d of %d events (by sequence) were compared", s.name, s.side.Compared, s.side.Events))
		}
		if s.side.GroupsBound {
			out = append(out, fmt.Sprintf("%s: %d events of groups past the %d-group bound were not compared", s.name, s.side.Ungrouped, capture.MaxDiffGroups))
		}
	}
	if n := r.Counts.Approximate; n > 0 {
		was, its := "were", "their"
		if n == 1 {
			was, its = "was", "its"
		}
		out = append(out, fmt.Sprintf("%s needed more than %d edits to align and %s paired by position instead (marked approximate): %s changed values and events on one side only are approximate",
			plural(int64(n), "group", "groups"), capture.MaxDiffEdits, was, its))
	}
	return out
}

// clipText keeps text on one line and at most n characters.
func clipText(s string, n int) string {
	s = Escape(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
