package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// HeldBackKey is the one member of a held-back record: the control line a
// helper sends, once per location it capped (and again, with a larger
// count, when it flushes at exit), instead of the events it did not send.
//
//	{"agentDebugHeldBack":{"hypothesisId":"H1","location":"src/a.go:42","process":"4242-1784313728231","count":12345,"cap":10000}}
//
// It is not an event: it takes no sequence number and is never listed by
// logs or query; the store keeps, per cycle, the largest count each process
// reported for each (hypothesis, location) and sums them over processes.
const HeldBackKey = "agentDebugHeldBack"

// MaxHeldBackCount bounds count and cap (the largest integer every JSON
// reader keeps exactly).
const MaxHeldBackCount = 1<<53 - 1

// MaxProcessBytes bounds the process id a helper sends.
const MaxProcessBytes = 128

// HeldBack is one validated, redacted held-back record.
type HeldBack struct {
	HypothesisID string
	Location     string
	Process      string // identifies one helper instance: pid plus start time, say
	Count        int64  // events not sent from that location by that process so far
	Cap          int64  // the cap that was reached
}

var heldBackName = []byte(`"` + HeldBackKey + `"`)

// ParseHeldBack reads line as a held-back record. isHeldBack is false when
// the line is not one (no top-level agentDebugHeldBack member, or not valid
// JSON at all): the caller then keeps the event validation's verdict. A
// held-back record that is malformed is reported with a reason that says
// what to send instead.
func ParseHeldBack(line []byte, lim Limits) (hb HeldBack, rej *Rejection, isHeldBack bool) {
	lim = lim.withDefaults()
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > lim.MaxRecordBytes || !bytes.Contains(line, heldBackName) || !jsontext.Value(line).IsValid() {
		return HeldBack{}, nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return HeldBack{}, nil, false // not an object
	}
	inner, ok := top[HeldBackKey]
	if !ok {
		return HeldBack{}, nil, false
	}
	fail := func(format string, a ...any) (HeldBack, *Rejection, bool) {
		return HeldBack{}, reject(line, "held-back record: "+fmt.Sprintf(format, a...)+
			`; send {"agentDebugHeldBack":{"hypothesisId":"H1","location":"src/a.go:42","process":"<pid>-<start ms>","count":12345,"cap":10000}}`), true
	}
	if len(top) > 1 {
		others := make([]string, 0, len(top)-1)
		for k := range top {
			if k != HeldBackKey {
				others = append(others, strconv.Quote(droppedName([]byte(k))))
			}
		}
		sort.Strings(others)
		return fail("it has one member, %q, and nothing beside it (found %s)", HeldBackKey, strings.Join(others, ", "))
	}
	var fields map[string]json.RawMessage
	if c := firstByte(inner); c != '{' || json.Unmarshal(inner, &fields) != nil {
		return fail("%q must be an object, not %s", HeldBackKey, kindName(c))
	}
	for k := range fields {
		switch k {
		case "hypothesisId", "location", "process", "count", "cap":
		default:
			return fail("unknown member %q", droppedName([]byte(k)))
		}
	}
	text := func(name string, max int, redact func(string) (string, int)) (string, string) {
		raw, ok := fields[name]
		if !ok {
			return "", fmt.Sprintf("missing %q", name)
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
		red, _ := redact(s)
		return red, ""
	}
	count := func(name string) (int64, string) {
		raw, ok := fields[name]
		if !ok {
			return 0, fmt.Sprintf("missing %q", name)
		}
		raw = bytes.TrimSpace(raw)
		n, err := int64(0), error(nil)
		if len(raw) == 0 || len(raw) > 16 || bytes.IndexFunc(raw, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			err = strconv.ErrSyntax
		} else {
			n, err = strconv.ParseInt(string(raw), 10, 64)
		}
		if err != nil || n < 1 || n > MaxHeldBackCount {
			shown := string(raw[:min(len(raw), 32)])
			if len(raw) > 32 {
				shown += "…"
			}
			return 0, fmt.Sprintf("%q must be a whole number from 1 to %d; got %s", name, int64(MaxHeldBackCount), shown)
		}
		return n, ""
	}
	var why string
	if hb.HypothesisID, why = text("hypothesisId", lim.MaxLabelBytes, RedactLabel); why != "" {
		return fail("%s", why)
	}
	if hb.Location, why = text("location", lim.MaxLocationBytes, RedactLocation); why != "" {
		return fail("%s", why)
	}
	if hb.Process, why = text("process", MaxProcessBytes, RedactText); why != "" {
		return fail("%s", why)
	}
	if hb.Count, why = count("count"); why != "" {
		return fail("%s", why)
	}
	if hb.Cap, why = count("cap"); why != "" {
		return fail("%s", why)
	}
	return hb, nil, true
}
