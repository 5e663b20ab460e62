package output

import (
	"fmt"
	"io"
	"math"
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
		writeEventTable(w, p.Events, 0)
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

// Bounds of the pretty diff.
const (
	maxPrettyGroups  = 15 // groups listed
	maxPrettyChanges = 8  // changed values and events on one side only, each
	maxPrettyPaths   = 12 // distribution lines
	divergenceWidth  = 120
)

// Diff renders a short comparison: the sides, whether it is whole, how it
// was made, then in align mode the first divergence and the groups that
// differ, in distribution mode the values whose counts changed most. Other
// commands (reproduce --diff) render a comparison with it too.
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
		diffWarnings(w, v)
		return
	}
	other := map[string]string{capture.ModeAlign: "--mode distribution counts how often each value occurs",
		capture.ModeDistribution: "--mode align pairs events one by one"}[v.Mode]
	if v.Mode != "" {
		fmt.Fprintf(w, "Mode: %s (%s); %s.\n", v.Mode, v.ModeReason, other)
	}
	if len(v.Fields)+len(v.Ignore) > 0 {
		var parts []string
		if len(v.Fields) > 0 {
			parts = append(parts, "only "+Escape(strings.Join(v.Fields, ", ")))
		}
		if len(v.Ignore) > 0 {
			parts = append(parts, "without "+Escape(strings.Join(v.Ignore, ", ")))
		}
		fmt.Fprintf(w, "Data compared: %s.\n", strings.Join(parts, ", "))
	}
	if v.Mode == capture.ModeDistribution && v.Distribution != nil {
		diffDistribution(w, v)
	} else {
		diffAligned(w, v)
	}
	diffWarnings(w, v)
}

func diffWarnings(w io.Writer, v DiffView) {
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "WARNING: "+Escape(s))
	}
}

// groupName is a group as one line names it.
func groupName(hyp, loc, msg string) string {
	return Escape(hyp) + " " + Escape(loc) + " " + Escape(msg)
}

func diffAligned(w io.Writer, v DiffView) {
	c := v.Counts
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
	if d := v.FirstDivergence; d != nil {
		divergenceLines(w, d)
	}
	shown := differingGroups(v)
	if len(shown) == 0 {
		return
	}
	fmt.Fprintln(w)
	t := table(w)
	fmt.Fprintln(t, "STATUS\tBEFORE\tAFTER\tHYP\tLOCATION\tMESSAGE")
	for _, g := range shown {
		note := ""
		if g.Approximate {
			note = fmt.Sprintf("  (approximate: more than %d edits, paired by position)", capture.MaxDiffEdits)
		}
		fmt.Fprintf(t, "%s\t%d\t%d\t%s\t%s\t%s%s\n", g.Status, g.Before, g.After, Escape(g.Hypothesis), Escape(groupLocation(g)), Escape(g.Message), note)
	}
	t.Flush()
	examples := 0
	for _, g := range shown {
		for _, ex := range g.Examples {
			if examples == maxPrettyChanges {
				break
			}
			if examples == 0 {
				fmt.Fprintln(w, "\nChanged values (aligned events of a group whose data differ):")
			}
			examples++
			fmt.Fprintf(w, "  %s  SEQ %d → SEQ %d\n", groupName(g.Hypothesis, g.Location, g.Message), ex.BeforeSeq, ex.AfterSeq)
			fieldLines(w, ex.Fields, ex.MoreFields)
		}
	}
	singles := 0
	for _, g := range shown {
		for _, u := range g.Unmatched {
			if singles == maxPrettyChanges {
				break
			}
			if singles == 0 {
				fmt.Fprintln(w, "\nEvents on one side only (removed or added within a group):")
			}
			singles++
			fmt.Fprintf(w, "  %s: only %s  SEQ %d %s\n", groupName(g.Hypothesis, g.Location, g.Message), u.Side, u.Seq, clipText(string(u.Data), 100))
		}
	}
	moreGroups(w, v, len(shown))
}

// differingGroups are the groups the pretty diff lists: those that differ
// or moved, at most maxPrettyGroups.
func differingGroups(v DiffView) []capture.Group {
	var shown []capture.Group
	for _, g := range v.Groups {
		if len(shown) == maxPrettyGroups {
			break
		}
		if g.Status != capture.GroupSame || g.LocationAfter != "" {
			shown = append(shown, g)
		}
	}
	return shown
}

func moreGroups(w io.Writer, v DiffView, shown int) {
	n := 0
	for _, g := range v.Groups {
		if g.Status != capture.GroupSame || g.LocationAfter != "" {
			n++
		}
	}
	if more := n - shown + v.GroupsOmitted; more > 0 {
		fmt.Fprintf(w, "%d more differing groups; --json lists up to 500.\n", more)
	}
}

func groupLocation(g capture.Group) string {
	if g.LocationAfter != "" {
		return g.Location + " → " + g.LocationAfter
	}
	return g.Location
}

// fieldLines lists changed fields, one per line: path, before → after.
func fieldLines(w io.Writer, fields []capture.FieldChange, more int) {
	t := table(w)
	for _, f := range fields {
		before, after := Escape(f.Before), Escape(f.After)
		switch f.Absent {
		case "before":
			before = "(absent)"
		case "after":
			after = "(absent)"
		}
		fmt.Fprintf(t, "    %s\t%s → %s\n", Escape(f.Path), before, after)
	}
	t.Flush()
	if more > 0 {
		fmt.Fprintf(w, "    (%s more)\n", plural(int64(more), "path differs", "paths differ"))
	}
}

// divergenceLines says where the runs first differ, always within one
// group: the same event with other data, an event with no counterpart, a
// group on one side only, or the same events interleaved in another order.
func divergenceLines(w io.Writer, d *capture.Divergence) {
	e := d.Before
	if e == nil {
		e = d.After
	}
	group := groupName(e.Hypothesis, e.Location, e.Message)
	where := fmt.Sprintf("event %d in logs order", d.Position)
	if d.Before != nil && d.After != nil && d.Before.Position != d.After.Position {
		where = fmt.Sprintf("event %d before and %d after in logs order", d.Before.Position, d.After.Position)
	}
	var what string
	switch d.Reason {
	case capture.DivergedData:
		what = group + ", the same event with different data"
	case capture.DivergedOnlyBefore:
		what = group + " has an event before with no counterpart after"
	case capture.DivergedOnlyAfter:
		what = group + " has an event after with no counterpart before"
	case capture.DivergedNoAfter:
		what = "group " + group + " has no events after; its first event before"
	case capture.DivergedNoBefore:
		what = "group " + group + " has no events before; its first event after"
	case capture.DivergedOrder:
		what = "every group has the same events, interleaved in another order; this event of " + group + " moved"
	default:
		what = group + ": " + d.Reason
	}
	fmt.Fprintf(w, "First divergence at %s: %s:\n", where, what)
	before, after := "", ""
	if d.Before != nil {
		before = string(d.Before.Data)
	}
	if d.After != nil {
		after = string(d.After.Data)
	}
	if d.Before != nil && d.After != nil {
		before, after, _, _ = capture.Window(Escape(before), Escape(after), divergenceWidth)
	} else {
		before, after = clipText(before, divergenceWidth), clipText(after, divergenceWidth)
	}
	t := table(w)
	if d.Before != nil {
		fmt.Fprintf(t, "  before\tSEQ %d\t%s\n", d.Before.Seq, before)
	}
	if d.After != nil {
		fmt.Fprintf(t, "  after\tSEQ %d\t%s\n", d.After.Seq, after)
	}
	t.Flush()
	if d.Reason == capture.DivergedData && (d.Before.Cut || d.After.Cut) {
		fieldLines(w, d.Fields, 0) // the data were cut: the differing fields, read whole
	}
}

// diffDistribution renders a distribution comparison: the groups' event
// counts, then per group and data path how often values occur, most
// changed first.
func diffDistribution(w io.Writer, v DiffView) {
	c, dist := v.Counts, v.Distribution
	var parts []string
	if c.InBoth > 0 {
		parts = append(parts, fmt.Sprintf("%d on both sides", c.InBoth))
	}
	if c.OnlyBefore > 0 {
		parts = append(parts, fmt.Sprintf("%d only before", c.OnlyBefore))
	}
	if c.OnlyAfter > 0 {
		parts = append(parts, fmt.Sprintf("%d only after", c.OnlyAfter))
	}
	fmt.Fprintf(w, "Groups (hypothesis, location, message): %d: %s.\n", c.Groups, strings.Join(parts, ", "))
	fmt.Fprintf(w, "Events counted in the groups on both sides: %d before, %d after.\n", dist.BeforeEvents, dist.AfterEvents)
	var listed []capture.Group
	for _, g := range v.Groups {
		if g.Before != g.After || g.LocationAfter != "" {
			listed = append(listed, g)
		}
	}
	if len(listed) > 0 {
		fmt.Fprintln(w)
		t := table(w)
		fmt.Fprintln(t, "GROUP\tBEFORE\tAFTER\tHYP\tLOCATION\tMESSAGE")
		for i, g := range listed {
			if i == maxPrettyGroups {
				fmt.Fprintf(t, "…\t\t\t%d more groups\t(--json lists them)\t\n", len(listed)-i)
				break
			}
			status := "count"
			switch g.Status {
			case capture.GroupOnlyBefore, capture.GroupOnlyAfter:
				status = g.Status
			default:
				if g.Before == g.After {
					status = "moved"
				}
			}
			fmt.Fprintf(t, "%s\t%d\t%d\t%s\t%s\t%s\n", status, g.Before, g.After, Escape(g.Hypothesis), Escape(groupLocation(g)), Escape(g.Message))
		}
		t.Flush()
	}
	fmt.Fprintln(w)
	if len(dist.Paths) == 0 {
		fmt.Fprintf(w, "Distributions: every data path of the groups on both sides has the same values in the same shares (%s).\n",
			plural(int64(dist.SamePaths), "path", "paths"))
		return
	}
	fmt.Fprintln(w, "Distributions per group and data path, most changed first (value: events before → after):")
	t := table(w)
	for i, p := range dist.Paths {
		if i == maxPrettyPaths {
			break
		}
		fmt.Fprintf(t, "  %s\t%s\t%s\n", groupName(p.Hypothesis, p.Location, p.Message), Escape(p.Path), distLine(p))
	}
	t.Flush()
	more := len(dist.Paths) - min(len(dist.Paths), maxPrettyPaths) + dist.Omitted
	var tail []string
	if more > 0 {
		tail = append(tail, fmt.Sprintf("%s (--json lists up to %d)", plural(int64(more), "more changed path", "more changed paths"), len(dist.Paths)))
	}
	if dist.SamePaths > 0 {
		tail = append(tail, fmt.Sprintf("%s the same distribution on both sides", plural(int64(dist.SamePaths), "path has", "paths have")))
	}
	if len(tail) > 0 {
		s := strings.Join(tail, "; ")
		fmt.Fprintln(w, strings.ToUpper(s[:1])+s[1:]+".")
	}
}

// manyValues is where a path's line sums up its distinct values.
const manyValues = 5

// distLine is one path's distribution change: its most changed values,
// a summary of many distinct values, and for numbers their statistics.
func distLine(p capture.PathDistribution) string {
	var parts []string
	many := p.BeforeDistinct > manyValues || p.AfterDistinct > manyValues
	if many {
		parts = append(parts, fmt.Sprintf("%d distinct values before, %d after, %d on both sides", p.BeforeDistinct, p.AfterDistinct, p.Common))
	}
	if n := p.Numbers; n != nil && (many || len(p.Values) == 0) {
		b, a := n.Before, n.After
		parts = append(parts, fmt.Sprintf("numbers: count %d → %d · min %s → %s · max %s → %s · mean %s → %s",
			b.Count, a.Count, number(b.Min), number(a.Min), number(b.Max), number(a.Max), number(b.Mean), number(a.Mean)))
	}
	var vals []string
	limit := 3
	if many {
		limit = 2
	}
	for i, x := range p.Values {
		if i == limit {
			break
		}
		vals = append(vals, fmt.Sprintf("%s %d → %d", Escape(x.Value), x.Before, x.After))
	}
	if len(vals) > 0 {
		s := strings.Join(vals, " · ")
		if more := len(p.Values) - len(vals) + p.MoreValues; more > 0 {
			s += fmt.Sprintf(" · %d more changed", more)
		}
		if many {
			s = "most changed: " + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// number shows a statistic with at most 4 decimals.
func number(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(math.Round(f*1e4)/1e4, 'f', -1, 64)
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
	if d := r.Distribution; r.Mode == capture.ModeDistribution && d != nil {
		if d.ValuesBound {
			out = append(out, fmt.Sprintf("more than %d distinct values: later ones were counted together as (other values)", capture.MaxDistValues))
		}
		if d.PathsBound {
			out = append(out, fmt.Sprintf("more than %d data paths: further ones were not counted", capture.MaxDistPaths))
		}
		return out
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
