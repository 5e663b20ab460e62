package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/probes"
)

// ProbesView is the probe ledger plus what the command joined or did.
type ProbesView struct {
	*probes.Report
	Session *ProbesSession  `json:"session,omitempty"` // --session: regions joined with evidence
	Removal *probes.Removal `json:"removal,omitempty"` // --remove: what was (or would be) removed
	Check   *ProbesLeft     `json:"check,omitempty"`   // --check, and --remove --yes after removing: whether anything remains
	Next    string          `json:"next,omitempty"`    // the command that continues
}

// ProbesSession is the ledger joined with one session's evidence.
type ProbesSession struct {
	SessionID        string `json:"sessionId"`
	Cycle            int64  `json:"cycle"`
	Version          string `json:"evidenceVersion"`
	Events           int64  `json:"events"`
	OmittedLocations int    `json:"omittedLocations"`
	probes.Joined
	Logpoints []logpoints.Status `json:"logpoints"` // the session's logpoints, beside the regions
}

// ProbesLeft is what remains: the verdict of --check, given after a
// removal too.
type ProbesLeft struct {
	Passed           bool `json:"passed"` // nothing remains
	RemainingRegions int  `json:"remainingRegions"`
	RemainingBroken  int  `json:"remainingBroken"`
	FilesScanned     int  `json:"filesScanned"` // files the verdict looked at
}

// remainVerb agrees with a count.
func remainVerb(n int) string {
	if n == 1 {
		return "remains"
	}
	return "remain"
}

func (l *ProbesLeft) text() string {
	var parts []string
	if l.RemainingRegions > 0 {
		parts = append(parts, plural(int64(l.RemainingRegions), "region", "regions"))
	}
	if l.RemainingBroken > 0 {
		parts = append(parts, plural(int64(l.RemainingBroken), "broken marker", "broken markers"))
	}
	return strings.Join(parts, " and ")
}

// Probes renders the ledger: a heading with the counts, one line per region,
// the broken markers, and what to run next.
func Probes(w io.Writer, v ProbesView) {
	r := v.Report
	where := "under " + Escape(strings.Join(r.Paths, " "))
	if r.Staged {
		where = "staged (git index) under " + Escape(strings.Join(r.Paths, " "))
	}
	scanned := fmt.Sprintf("%s scanned %s", plural(int64(r.FilesScanned), "file", "files"), where)
	switch {
	case v.Removal != nil:
		probesRemoval(w, v, scanned)
	case v.Session != nil:
		probesJoined(w, v, scanned)
	default:
		if r.Clean() {
			fmt.Fprintf(w, "PROBES none · %s\n", scanned)
		} else {
			fmt.Fprintf(w, "PROBES %s · %s\n", probesCounts(r), scanned)
			t := table(w)
			for _, x := range r.Regions {
				fmt.Fprintf(t, "%s\t%s\n", regionName(x), codeText(x))
			}
			t.Flush()
		}
	}
	if v.Removal == nil {
		probesBroken(w, r) // a removal lists them as refused files
	}
	probesSkipped(w, r)
	switch {
	case v.Check != nil && v.Check.Passed:
		fmt.Fprintln(w, "CHECK passed: no agent log region or broken marker remains.")
	case v.Check != nil:
		fmt.Fprintf(w, "CHECK failed: %s %s.\n", v.Check.text(), remainVerb(v.Check.RemainingRegions+v.Check.RemainingBroken))
	}
	if v.Next != "" {
		fmt.Fprintln(w, "\n"+v.Next)
	}
}

// probesCounts is "3 regions in 2 files, 1 broken marker".
func probesCounts(r *probes.Report) string {
	s := "no regions"
	if len(r.Regions) > 0 {
		s = plural(int64(len(r.Regions)), "region", "regions") + " in " + plural(int64(r.Files()), "file", "files")
	}
	if len(r.Broken) > 0 {
		s += ", " + plural(int64(len(r.Broken)), "broken marker", "broken markers")
	}
	return s
}

// codeText is the region's first code line, after its label if it has one.
func codeText(x probes.Region) string {
	if x.FirstCode == "" {
		x.FirstCode = "(no code inside)"
	}
	if x.Label != "" {
		return "(" + Escape(x.Label) + ") " + Escape(x.FirstCode)
	}
	return Escape(x.FirstCode)
}

func regionName(x probes.Region) string {
	return Escape(x.File) + ":" + strconv.Itoa(x.StartLine) + "-" + strconv.Itoa(x.EndLine)
}

func probesBroken(w io.Writer, r *probes.Report) {
	if len(r.Broken) == 0 {
		return
	}
	fmt.Fprintf(w, "\nBROKEN %d (a file with one is never removed automatically: fix its markers by hand)\n", len(r.Broken))
	t := table(w)
	for _, b := range r.Broken {
		fmt.Fprintf(t, "%s:%d\t%s\t%s\n", Escape(b.File), b.Line, b.Kind, Escape(b.Message))
	}
	t.Flush()
}

func probesSkipped(w io.Writer, r *probes.Report) {
	s := r.Skipped
	var parts []string
	if s.Binary > 0 {
		parts = append(parts, fmt.Sprintf("%d binary", s.Binary))
	}
	if s.Large > 0 {
		parts = append(parts, fmt.Sprintf("%d over 2 MiB", s.Large))
	}
	if s.Unreadable > 0 {
		u := fmt.Sprintf("%d unreadable (%s", s.Unreadable, Escape(strings.Join(s.Paths, ", ")))
		if s.Unreadable > len(s.Paths) {
			u += ", …"
		}
		parts = append(parts, u+")")
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "Not scanned: %s files.\n", strings.Join(parts, ", "))
	}
}

func labelCounts(hs []probes.LabelCount) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = fmt.Sprintf("%s %d", Escape(h.ID), h.Events)
	}
	return strings.Join(parts, ", ")
}

func probesJoined(w io.Writer, v ProbesView, scanned string) {
	r, s := v.Report, v.Session
	fmt.Fprintf(w, "PROBES %s · session %s · cycle %d · evidence version %s · %s\n",
		probesCounts(r), s.SessionID, s.Cycle, s.Version, scanned)
	if len(s.Regions) > 0 {
		t := table(w)
		fmt.Fprintln(t, "REGION\tEVENTS\tHYPOTHESES\tCODE")
		for _, x := range s.Regions {
			ev := "never fired"
			switch {
			case x.Helper && x.Events == 0:
				ev = "helper"
			case x.Events > 0 && x.NearestEvents == x.Events:
				ev = fmt.Sprintf("%d nearest", x.Events)
			case x.NearestEvents > 0:
				ev = fmt.Sprintf("%d (%d nearest)", x.Events, x.NearestEvents)
			case x.Events > 0:
				ev = strconv.FormatInt(x.Events, 10)
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\n", regionName(x.Region), ev, labelCounts(x.Hypotheses), codeText(x.Region))
		}
		t.Flush()
	}
	if s.NeverFired > 0 {
		fmt.Fprintf(w, "\nNEVER FIRED %d: the code did not run, the program was not rebuilt or restarted, or delivery failed (see debug-mode status --session %s). That is not evidence against a hypothesis.\n",
			s.NeverFired, s.SessionID)
	}
	if n := nearestTotal(s); n > 0 {
		fmt.Fprintf(w, "\"nearest\": %s outside every region, attributed to the nearest one within %d lines; lines shift when code is added above a probe.\n",
			plural(n, "event's location was", "events' locations were"), s.Drift)
	}
	if len(s.Unmatched) > 0 {
		fmt.Fprintf(w, "\nUNMATCHED %s (their events fall in no region)\n", plural(int64(len(s.Unmatched)), "location", "locations"))
		t := table(w)
		fmt.Fprintln(t, "LOCATION\tEVENTS\tHYPOTHESES\tWHY")
		for _, u := range s.Unmatched {
			fmt.Fprintf(t, "%s\t%d\t%s\t%s\n", Escape(u.Location), u.Events, labelCounts(u.Hypotheses), unmatchedWhy(u, s.Drift))
		}
		t.Flush()
	}
	if len(s.Logpoints) > 0 {
		fmt.Fprintf(w, "\nLOGPOINTS %d (in the session, not in the code: nothing to remove from the project)\n", len(s.Logpoints))
		logpointTable(w, s.Logpoints, false)
	}
	if s.OmittedLocations > 0 {
		fmt.Fprintf(w, "WARNING: %d more distinct locations were not joined (too many to list).\n", s.OmittedLocations)
	}
	if s.Events == 0 {
		fmt.Fprintf(w, "No events in this cycle yet: reproduce, then run this again.\n")
	}
}

func nearestTotal(s *ProbesSession) int64 {
	var n int64
	for _, x := range s.Regions {
		n += x.NearestEvents
	}
	return n
}

func unmatchedWhy(u probes.Unmatched, drift int) string {
	switch u.Reason {
	case probes.UnmatchedNoLine:
		return "no :line in the location"
	case probes.UnmatchedNoFile:
		return "no scanned file with a region has that name"
	case probes.UnmatchedNoRegion:
		return fmt.Sprintf("no region within %d lines", drift)
	case probes.UnmatchedAmbiguous:
		return "ambiguous: " + Escape(strings.Join(u.Candidates, ", "))
	}
	return Escape(u.Reason)
}

func probesRemoval(w io.Writer, v ProbesView, scanned string) {
	m := v.Removal
	head := "REMOVED"
	if !m.Applied {
		head = "REMOVE (dry run: nothing written)"
	}
	files := 0
	for _, f := range m.Files {
		if f.Refused == "" {
			files++
		}
	}
	if m.Regions == 0 {
		fmt.Fprintf(w, "%s nothing · %s\n", head, scanned)
	} else {
		fmt.Fprintf(w, "%s %s, %s from %s · %s\n", head, plural(int64(m.Regions), "region", "regions"),
			plural(int64(m.Lines), "line", "lines"), plural(int64(files), "file", "files"), scanned)
	}
	t := table(w)
	for _, f := range m.Files {
		if f.Refused != "" {
			continue
		}
		for _, x := range f.Regions {
			fmt.Fprintf(t, "%s\t(%s)\t%s\n", regionName(x), plural(int64(x.Lines()), "line", "lines"), codeText(x))
		}
	}
	t.Flush()
	for _, f := range m.Files {
		if f.Refused != "" || !f.EmptyAfter {
			continue
		}
		left := "nothing but white space was left"
		if len(f.Residue) > 0 {
			left = "nothing was left but what its helper file holds (" + clipText(strings.Join(f.Residue, "; "), 40) + ")"
		}
		switch {
		case f.Deleted && m.Applied:
			fmt.Fprintf(w, "Deleted %s: %s.\n", Escape(f.File), left)
		case f.Deleted:
			fmt.Fprintf(w, "Would delete %s: %s.\n", Escape(f.File), strings.Replace(left, "was left", "would be left", 1))
		default:
			fmt.Fprintf(w, "Kept %s although %s: %s.\n", Escape(f.File), left, f.Kept)
		}
	}
	if m.Git != nil {
		probesGit(w, m.Git)
	}
	if m.Refused > 0 {
		fmt.Fprintf(w, "\nREFUSED %s (left untouched)\n", plural(int64(m.Refused), "file", "files"))
		t := table(w)
		for _, f := range m.Files {
			if f.Refused != "" {
				fmt.Fprintf(t, "%s\tnot removed: %s\n", Escape(f.File), Escape(f.Refused))
			}
		}
		t.Flush()
	}
}

// probesGit lists what a removal left outside the regions, against git HEAD.
func probesGit(w io.Writer, g *probes.GitCheck) {
	switch g.State {
	case probes.GitNotWorkTree:
		fmt.Fprintln(w, "Not in a git work tree: changes outside the regions were not checked.")
		return
	case probes.GitUnavailable:
		fmt.Fprintf(w, "Changes outside the regions were not checked against git HEAD: %s.\n", Escape(g.Reason))
		return
	}
	if len(g.Differ) == 0 {
		fmt.Fprintf(w, "Outside the regions, %s as at git HEAD.\n", plural(int64(g.Files), "rewritten file is", "rewritten files are"))
	} else {
		fmt.Fprintf(w, "Outside the regions, %d of %s still %s from git HEAD (the fix, or a leftover such as a stray blank line or import):\n",
			len(g.Differ), plural(int64(g.Files), "rewritten file", "rewritten files"), map[bool]string{true: "differs", false: "differ"}[len(g.Differ) == 1])
		t := table(w)
		for _, l := range g.Leftovers {
			more := ""
			if l.Lines > 1 {
				more = fmt.Sprintf("  (%s in this hunk)", plural(int64(l.Lines), "line", "lines"))
			}
			fmt.Fprintf(t, "  %s:%d\t%s%s\n", Escape(l.File), l.Line, Escape(l.Text), more)
		}
		t.Flush()
		if g.Omitted > 0 {
			fmt.Fprintf(w, "  … %d more\n", g.Omitted)
		}
		q := make([]string, len(g.Differ))
		for i, f := range g.Differ {
			q[i] = ShellQuote(f)
		}
		fmt.Fprintf(w, "Read them: git diff HEAD -- %s\n", strings.Join(q, " "))
	}
	if len(g.New) > 0 {
		fmt.Fprintf(w, "Not in git HEAD (new files, kept): %s.\n", Escape(strings.Join(g.New, ", ")))
	}
	if len(g.NotInGit) > 0 {
		fmt.Fprintf(w, "Not in a git work tree, not checked: %s.\n", Escape(strings.Join(g.NotInGit, ", ")))
	}
}
