package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// LogpointKey is the one member of a logpoint report: the control line a
// logpoint hook appends when it has placed a logpoint in a process, or
// could not (package logpoints has the whole contract).
//
//	{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"4242-1784313728231"}}
//	{"agentDebugLogpoint":{"id":"lp-2","state":"failed","reason":"line 12 is blank","process":"4242-1784313728231"}}
//
// It is not an event: it takes no sequence number and is never listed by
// logs or query; the store keeps, per cycle, which processes placed each
// logpoint and why others could not.
const LogpointKey = "agentDebugLogpoint"

// Logpoint report states.
const (
	LogpointInstalled = "installed"
	LogpointFailed    = "failed"
)

// Bounds of a logpoint report.
const (
	MaxReportProcessBytes = 128
	MaxReportReasonBytes  = 400
)

// LogpointReport is one validated, redacted logpoint report.
type LogpointReport struct {
	ID      string
	State   string // LogpointInstalled or LogpointFailed
	Reason  string // failed: why, one sentence
	Process string // identifies one process: pid plus start time
}

var (
	logpointName = []byte(`"` + LogpointKey + `"`)
	logpointID   = regexp.MustCompile(`^lp-[1-9][0-9]{0,8}$`)
)

// ValidLogpointID reports whether s is a logpoint id: lp-1, lp-2, …
func ValidLogpointID(s string) bool { return logpointID.MatchString(s) }

// ParseLogpointReport reads line as a logpoint report. isReport is false
// when the line is not one (no top-level agentDebugLogpoint member, or not
// JSON at all): the caller keeps the event validation's verdict. A report
// that is malformed is refused with a reason that shows the right form.
func ParseLogpointReport(line []byte, lim Limits) (r LogpointReport, rej *Rejection, isReport bool) {
	lim = lim.withDefaults()
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > lim.MaxRecordBytes || !bytes.Contains(line, logpointName) || !jsontext.Value(line).IsValid() {
		return LogpointReport{}, nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return LogpointReport{}, nil, false
	}
	inner, ok := top[LogpointKey]
	if !ok {
		return LogpointReport{}, nil, false
	}
	fail := func(format string, a ...any) (LogpointReport, *Rejection, bool) {
		return LogpointReport{}, reject(line, "logpoint report: "+fmt.Sprintf(format, a...)+
			`; send {"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"<pid>-<start ms>"}}, or "state":"failed" with a "reason"`), true
	}
	if len(top) > 1 {
		var others []string
		for k := range top {
			if k != LogpointKey {
				others = append(others, strconv.Quote(droppedName([]byte(k))))
			}
		}
		sort.Strings(others)
		return fail("it has one member, %q, and nothing beside it (found %s)", LogpointKey, strings.Join(others, ", "))
	}
	var fields map[string]json.RawMessage
	if c := firstByte(inner); c != '{' || json.Unmarshal(inner, &fields) != nil {
		return fail("%q must be an object, not %s", LogpointKey, kindName(c))
	}
	for k := range fields {
		switch k {
		case "id", "state", "reason", "process":
		default:
			return fail("unknown member %q", droppedName([]byte(k)))
		}
	}
	text := func(name string, max int, required bool) (string, string) {
		raw, ok := fields[name]
		if !ok {
			if required {
				return "", fmt.Sprintf("missing %q", name)
			}
			return "", ""
		}
		var s string
		if firstByte(raw) != '"' || json.Unmarshal(raw, &s) != nil {
			return "", fmt.Sprintf("%q must be a string, not %s", name, kindName(firstByte(raw)))
		}
		switch {
		case strings.TrimSpace(s) == "":
			return "", fmt.Sprintf("%q must not be empty", name)
		case len(s) > max:
			return "", fmt.Sprintf("%q is %d bytes; the limit is %d bytes", name, len(s), max)
		}
		red, _ := RedactText(s)
		return red, ""
	}
	var why string
	if r.ID, why = text("id", 32, true); why != "" {
		return fail("%s", why)
	}
	if !ValidLogpointID(r.ID) {
		return fail("%q is not a logpoint id such as lp-1", r.ID)
	}
	if r.State, why = text("state", 16, true); why != "" {
		return fail("%s", why)
	}
	if r.State != LogpointInstalled && r.State != LogpointFailed {
		return fail("\"state\" must be %q or %q", LogpointInstalled, LogpointFailed)
	}
	if r.Reason, why = text("reason", MaxReportReasonBytes, r.State == LogpointFailed); why != "" {
		return fail("%s", why)
	}
	if r.State == LogpointInstalled && r.Reason != "" {
		return fail("\"reason\" goes only with \"state\":\"failed\"")
	}
	if r.Process, why = text("process", MaxReportProcessBytes, true); why != "" {
		return fail("%s", why)
	}
	return r, nil, true
}
