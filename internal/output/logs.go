package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// LogsView is a logs page plus what the CLI adds: warnings and the command
// that continues it.
type LogsView struct {
	store.Page
	Warnings []string `json:"warnings"`
	Next     string   `json:"next,omitempty"`
}

// storedEvent is the part of a stored event the table shows.
type storedEvent struct {
	Sequence     int64           `json:"sequence"`
	HypothesisID string          `json:"hypothesisId"`
	Location     string          `json:"location"`
	Message      string          `json:"message"`
	Data         json.RawMessage `json:"data"`
	Timestamp    int64           `json:"timestamp"`
}

// Logs renders the low-token table: a date header, one row per event, a
// separator where the UTC day changes, then the page statistics.
func Logs(w io.Writer, v LogsView) {
	fmt.Fprintf(w, "LOGS session %s · cycle %d · evidence version %s\n", v.SessionID, v.Cycle, v.Version)
	if len(v.Events) > 0 {
		writeEventTable(w, v.Events, 0)
	}
	first := v.Offset + 1
	last := v.Offset + v.Returned
	switch {
	case v.Returned > 0:
		fmt.Fprintf(w, "\nShowing %d–%d of %d matched (%s in this cycle); %d not shown.", first, last, v.Matched, plural(v.Total, "event", "events"), v.Omitted)
	default:
		fmt.Fprintf(w, "\nShowing none of %d matched (%s in this cycle).", v.Matched, plural(v.Total, "event", "events"))
	}
	if len(v.Hypotheses) > 0 {
		parts := make([]string, len(v.Hypotheses))
		for i, h := range v.Hypotheses {
			parts[i] = fmt.Sprintf("%s %d", Escape(h.ID), h.Events)
		}
		fmt.Fprintf(w, " Matched per hypothesis: %s.", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, " Rejected records: %d.\n", v.Rejected)
	userEvidenceLine(w, v.UserEvidence, v.SessionID)
	if v.Next != "" {
		fmt.Fprintf(w, "Next page: %s\n", v.Next)
	}
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "WARNING: "+Escape(s))
	}
}

// QueryView is a query page plus the CLI's additions.
type QueryView struct {
	service.QueryResult
	CountBy string `json:"countBy,omitempty"` // --count-by: the values are {count, value} rows, shown as a table
	Next    string `json:"next,omitempty"`
}

// countRow is one row of a --count-by query.
type countRow struct {
	Count int64           `json:"count"`
	Value json.RawMessage `json:"value"`
}

// countRows says whether every value is a --count-by row (and there is one).
func countRows(values []json.RawMessage) bool {
	for _, v := range values {
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil || len(m) != 2 || m["count"] == nil || m["value"] == nil {
			return false
		}
	}
	return len(values) > 0
}

// Query renders values one per line (like jq -c), then what the page read,
// whether it is complete, and how to continue.
func Query(w io.Writer, v QueryView) {
	if v.CountBy != "" && countRows(v.Values) {
		t := table(w)
		fmt.Fprintf(t, "COUNT\t%s\n", Escape(v.CountBy))
		for _, val := range v.Values {
			var r countRow
			json.Unmarshal(val, &r)
			fmt.Fprintf(t, "%d\t%s\n", r.Count, Escape(string(r.Value)))
		}
		t.Flush()
		v.Values = nil
		fmt.Fprintln(w)
	}
	for _, val := range v.Values {
		fmt.Fprintf(w, "%s\n", Escape(string(val)))
	}
	if len(v.Values) > 0 {
		fmt.Fprintln(w)
	}
	state := "complete"
	if !v.Complete {
		state = "stopped at the " + map[string]string{"values": "value limit", "bytes": "page size bound"}[v.StoppedBy]
	}
	fmt.Fprintf(w, "%s from %s (cycle %d, evidence version %s); %s.\n",
		plural(int64(v.Returned), "value", "values"), plural(int64(v.Events), "event read", "events read"), v.Cycle, v.Version, state)
	if v.Oversize > 0 {
		fmt.Fprintf(w, "WARNING: %d values were over %d KiB and were replaced by a marker; select a smaller part.\n", v.Oversize, 64)
	}
	if v.Next != "" {
		fmt.Fprintf(w, "Next page: %s\n", v.Next)
	}
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "WARNING: "+Escape(s))
	}
}

// cutData is an event's data for a table cell, cut at max characters (0: whole).
func cutData(data json.RawMessage, max int) string {
	if r := []rune(string(data)); max > 0 && len(r) > max {
		return Escape(string(r[:max])) + fmt.Sprintf("… (%d bytes; logs shows it whole)", len(data))
	}
	return Escape(string(data))
}

// writeEventTable aligns the columns over the whole page (day separator rows
// included), so a separator never breaks the alignment. maxData, when not
// 0, cuts each DATA cell to that many characters and says how long it was.
func writeEventTable(w io.Writer, events []json.RawMessage, maxData int) {
	type row struct {
		sep  string
		cols [6]string
	}
	rows := []row{{cols: [6]string{"SEQ", "TIME", "HYP", "LOCATION", "MESSAGE", "DATA"}}}
	day := ""
	for _, raw := range events {
		var e storedEvent
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		ts := time.UnixMilli(e.Timestamp).UTC()
		d := ts.Format("2006-01-02")
		if day == "" {
			fmt.Fprintf(w, "date %s\n", d)
		} else if d != day {
			rows = append(rows, row{sep: "-- " + d + " --"})
		}
		day = d
		rows = append(rows, row{cols: [6]string{strconv.FormatInt(e.Sequence, 10), ts.Format("15:04:05.000"),
			Escape(e.HypothesisID), Escape(e.Location), Escape(e.Message), cutData(e.Data, maxData)}})
	}
	var width [5]int
	for _, r := range rows {
		for i := range width {
			width[i] = max(width[i], utf8.RuneCountInString(r.cols[i]))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		if r.sep != "" {
			b.WriteString(r.sep + "\n")
			continue
		}
		for i, c := range r.cols {
			b.WriteString(c)
			if i < len(width) {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString("\n")
	}
	io.WriteString(w, b.String())
}
