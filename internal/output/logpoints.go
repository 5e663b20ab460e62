package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

// LogpointAdded is the result of logpoint add.
type LogpointAdded struct {
	SessionID string `json:"sessionId"`
	logpoints.Logpoint
	Unchecked string `json:"unchecked,omitempty"` // why the line could not be checked exactly now
	Next      string `json:"next"`
}

// LogpointAdd renders an added logpoint.
func LogpointAdd(w io.Writer, v LogpointAdded) {
	fmt.Fprintf(w, "LOGPOINT %s added · session %s\n", v.ID, v.SessionID)
	t := table(w)
	at := Escape(v.Location)
	if v.Placement != "" {
		at += " (" + Escape(v.Placement) + ")"
	}
	fmt.Fprintf(t, "At\t%s\n", at)
	fmt.Fprintf(t, "Hypothesis\t%s\n", Escape(v.HypothesisID))
	fmt.Fprintf(t, "Message\t%s\n", Escape(v.Message))
	data := "(none: data is null)"
	if v.Data != "" {
		data = Escape(v.Data)
	}
	fmt.Fprintf(t, "Data\t%s\n", data)
	t.Flush()
	if v.Unchecked != "" {
		fmt.Fprintf(w, "Not checked: %s.\n", Escape(v.Unchecked))
	}
	fmt.Fprintln(w, "\n"+v.Next)
}

// stateText is a logpoint's state in words.
func stateText(s logpoints.Status) string {
	switch s.State {
	case logpoints.StateHit:
		return fmt.Sprintf("hit %d", s.Hits)
	case logpoints.StateNeverHit:
		return "never hit (installed in " + plural(int64(s.Installed), "process", "processes") + ")"
	}
	return "never installed: " + Escape(s.Reason)
}

// LogpointList renders a session's logpoints with their states.
func LogpointList(w io.Writer, v service.LogpointList) {
	if len(v.Logpoints) == 0 {
		fmt.Fprintf(w, "LOGPOINTS none · session %s · cycle %d\n\nAdd one: debug-mode logpoint add --session %s --at <path:line> --hypothesis <label> --message <text> [--data <expression>]\n",
			v.SessionID, v.Cycle, v.SessionID)
		return
	}
	fmt.Fprintf(w, "LOGPOINTS %d · session %s · cycle %d · evidence version %s\n", len(v.Logpoints), v.SessionID, v.Cycle, v.Version)
	logpointTable(w, v.Logpoints, true)
	logpointNotes(w, v.Logpoints, v.SessionID)
}

// logpointTable is one row per logpoint; withData adds message and data.
func logpointTable(w io.Writer, lps []logpoints.Status, withData bool) {
	t := table(w)
	if withData {
		fmt.Fprintln(t, "ID\tAT\tHYP\tSTATE\tMESSAGE\tDATA")
	} else {
		fmt.Fprintln(t, "LOGPOINT\tAT\tHYP\tSTATE")
	}
	for _, s := range lps {
		if withData {
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, Escape(s.Location), Escape(s.HypothesisID), stateText(s), Escape(s.Message), Escape(orNone(s.Data)))
		} else {
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\n", s.ID, Escape(s.Location), Escape(s.HypothesisID), stateText(s))
		}
	}
	t.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// logpointCounts is "2 hit, 1 never hit, 1 never installed".
func logpointCounts(lps []logpoints.Status) string {
	n := map[string]int{}
	for _, s := range lps {
		n[s.State]++
	}
	var parts []string
	for _, st := range []struct{ state, name string }{
		{logpoints.StateHit, "hit"}, {logpoints.StateNeverHit, "never hit"}, {logpoints.StateNeverInstalled, "never installed"}} {
		if n[st.state] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st.state], st.name))
		}
	}
	return strings.Join(parts, ", ")
}

// logpointNotes explains the states that are not evidence.
func logpointNotes(w io.Writer, lps []logpoints.Status, id string) {
	var hit, never, not int
	for _, s := range lps {
		switch s.State {
		case logpoints.StateHit:
			hit++
		case logpoints.StateNeverHit:
			never++
		default:
			not++
		}
	}
	if never > 0 {
		fmt.Fprintf(w, "\nNEVER HIT %d: the file was loaded and the logpoint put in place, but the line did not run.\n", never)
	}
	if not > 0 {
		fmt.Fprintf(w, "\nNEVER INSTALLED %d: not evidence about the program; the logpoint was not there to see (a program started outside reproduce takes logpoints after eval \"$(%s)\").\n",
			not, CommandLine("env", "--session", id))
	}
}

// LogpointRemove renders removed logpoints.
func LogpointRemove(w io.Writer, v service.LogpointRemoved) {
	if len(v.Removed) == 0 {
		fmt.Fprintf(w, "LOGPOINTS none to remove · session %s\n", v.SessionID)
		return
	}
	parts := make([]string, len(v.Removed))
	for i, lp := range v.Removed {
		parts[i] = lp.ID + " (" + Escape(lp.Location) + " " + Escape(lp.HypothesisID) + ")"
	}
	fmt.Fprintf(w, "REMOVED %s · session %s · %s left\n", strings.Join(parts, ", "), v.SessionID, plural(int64(v.Remaining), "logpoint", "logpoints"))
	fmt.Fprintln(w, "Programs started from now on no longer take them; no file of the project changed.")
}

// Exports renders variables as POSIX shell exports, for eval.
func Exports(w io.Writer, vars []logpoints.Variable) {
	for _, v := range vars {
		fmt.Fprintf(w, "export %s=%s\n", v.Name, posixQuote(v.Value))
	}
}

// posixQuote quotes s for any POSIX shell's eval: single quotes, with each
// single quote written as '\”; nothing inside single quotes is special, a
// newline included. (ShellQuote's $'…' form is not POSIX.)
func posixQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
