package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// EvidenceView is a session's user evidence with each file looked at afresh.
type EvidenceView struct {
	SessionID string           `json:"sessionId"`
	Cycle     int64            `json:"cycle"`
	Notes     []store.UserNote `json:"notes"`
	Files     []EvidenceFile   `json:"files"`
}

// EvidenceFile is a recorded file and what a look at it just now found.
type EvidenceFile struct {
	store.UserFile
	Availability store.Availability `json:"availability"`
}

// UserEvidenceSummary is the one-line count status and logs show, or "" when
// there is none.
func UserEvidenceSummary(c store.UserEvidenceCount, id string) string {
	if c.Notes == 0 && c.Files == 0 {
		return ""
	}
	return fmt.Sprintf("%s, %s (debug-mode evidence --session %s)", plural(int64(c.Notes), "note", "notes"), plural(int64(c.Files), "file", "files"), id)
}

// userEvidenceRow adds the count to a status table.
func userEvidenceRow(t *tabwriter.Writer, c store.UserEvidenceCount, id string) {
	if s := UserEvidenceSummary(c, id); s != "" {
		fmt.Fprintf(t, "User evidence\t%s\n", s)
	}
}

// userEvidenceLine adds the count below a logs page.
func userEvidenceLine(w io.Writer, c store.UserEvidenceCount, id string) {
	if s := UserEvidenceSummary(c, id); s != "" {
		fmt.Fprintf(w, "User evidence: %s\n", s)
	}
}

// Evidence renders the notes, then the files with their availability.
func Evidence(w io.Writer, v EvidenceView) {
	if len(v.Notes) == 0 && len(v.Files) == 0 {
		fmt.Fprintf(w, "USER EVIDENCE session %s · cycle %d: none\n", v.SessionID, v.Cycle)
		fmt.Fprintf(w, "Ask the user only for what they alone can see; record it with debug-mode evidence add --session %s --note \"<their words>\" or --file <path>\n", v.SessionID)
		return
	}
	fmt.Fprintf(w, "USER EVIDENCE session %s · cycle %d · %s, %s\n", v.SessionID, v.Cycle,
		plural(int64(len(v.Notes)), "note", "notes"), plural(int64(len(v.Files)), "file", "files"))
	if len(v.Notes) > 0 {
		fmt.Fprintln(w, "\nNOTES (the user's words)")
		t := table(w)
		for _, n := range v.Notes {
			fmt.Fprintf(t, "%s\tcycle %d\t%s\t%s\n", n.ID, n.Cycle, UTCMillis(n.AddedAt)[:19], Escape(n.Text))
		}
		t.Flush()
	}
	if len(v.Files) > 0 {
		fmt.Fprintln(w, "\nFILES (referenced in place, never copied; checked just now)")
		t := table(w)
		seen := map[string]bool{}
		var legend []string
		for _, f := range v.Files {
			cycle := fmt.Sprintf("cycle %d", f.Cycle)
			if f.UpdatedCycle > 0 {
				cycle += fmt.Sprintf(", updated in %d", f.UpdatedCycle)
			}
			a := f.Availability
			recorded := fmt.Sprintf("%s, modified %s UTC", bytesText(f.Size), nanosUTC(f.ModTime))
			detail := recorded
			switch a.State {
			case store.FileAvailable:
			case store.FileChanged:
				detail = fmt.Sprintf("now %s, modified %s UTC; recorded %s", bytesText(a.Size), nanosUTC(a.ModTime), recorded)
			default:
				detail = "recorded " + recorded
			}
			if f.Note != "" {
				detail += " · note: " + Escape(f.Note)
			}
			word, meaning := availabilityText(a.State)
			if meaning != "" && !seen[word] {
				seen[word] = true
				legend = append(legend, word+": "+meaning)
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\n", f.ID, cycle, word, Escape(f.Path), detail)
		}
		t.Flush()
		for _, l := range legend {
			fmt.Fprintln(w, l)
		}
		if len(legend) > 0 {
			fmt.Fprintf(w, "WARNING: some files are not as the user gave them; ask for the current file and add it again with debug-mode evidence add --session %s --file <path>\n", v.SessionID)
		}
	}
}

// availabilityText is the state's word in the table and, when it is not
// plain availability, what it means.
func availabilityText(state string) (string, string) {
	switch state {
	case store.FileAvailable:
		return "available", ""
	case store.FileMissing:
		return "MISSING", "nothing is at that path any more (deleted or moved)"
	case store.FileUnreadable:
		return "UNREADABLE", "it can no longer be read by this user (permissions changed)"
	case store.FileChanged:
		return "CHANGED", "its size or modification time differ from when it was added"
	case store.FileSymlink:
		return "SYMLINK", "the path was replaced by a symbolic link (not followed)"
	case store.FileDirectory:
		return "FOLDER", "the path was replaced by a folder"
	case store.FileSpecial:
		return "SPECIAL", "the path was replaced by a device, pipe or socket"
	}
	return strings.ToUpper(state), ""
}

func bytesText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func nanosUTC(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05")
}

// EvidenceAdded renders one added (or updated) entry.
func EvidenceAdded(w io.Writer, a service.AddedUserEvidence) {
	switch {
	case a.Note != nil:
		fmt.Fprintf(w, "NOTE ADDED %s · session %s · cycle %d\n", a.Note.ID, a.SessionID, a.Note.Cycle)
		if a.Note.Redacted > 0 {
			fmt.Fprintf(w, "%s replaced by [REDACTED] before storage.\n", plural(int64(a.Note.Redacted), "secret-looking value was", "secret-looking values were"))
		}
	case a.File != nil:
		f := a.File
		head, cycle := "FILE ADDED", f.Cycle
		if a.Updated {
			head, cycle = "FILE UPDATED", f.UpdatedCycle
		}
		fmt.Fprintf(w, "%s %s · session %s · cycle %d\n", head, f.ID, a.SessionID, cycle)
		t := table(w)
		fmt.Fprintf(t, "Path\t%s\n", Escape(f.Path))
		fmt.Fprintf(t, "Size\t%s, modified %s UTC\n", bytesText(f.Size), nanosUTC(f.ModTime))
		if f.Note != "" {
			fmt.Fprintf(t, "Note\t%s\n", Escape(f.Note))
		}
		t.Flush()
		if a.Updated {
			fmt.Fprintln(w, "This path was already recorded: its entry now holds the metadata above (same id).")
		}
		fmt.Fprintln(w, "Referenced in place: never copied, changed or read; every listing checks it is still there and unchanged.")
	}
	fmt.Fprintf(w, "User evidence: %s\n", UserEvidenceSummary(a.Count, a.SessionID))
}
