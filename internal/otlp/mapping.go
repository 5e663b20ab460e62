package otlp

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
)

// Names and defaults of the mapping (documented in the README and the skill).
const (
	// HypothesisAttribute labels a record or span with the hypothesis it
	// tests; on the resource (OTEL_RESOURCE_ATTRIBUTES) it labels everything
	// a process sends.
	HypothesisAttribute = "debug.hypothesis"
	// DefaultHypothesis is the label of records without that attribute.
	DefaultHypothesis = "otlp"
	// DefaultLocation is the location of records with neither code
	// attributes nor an instrumentation scope name.
	DefaultLocation = "otlp"
)

// Code semantic-convention attributes, current names first.
var (
	fileAttrs = []string{"code.file.path", "code.filepath"}
	lineAttrs = []string{"code.line.number", "code.lineno"}
)

// Item is one log record or span mapped to an event record: a JSON object
// with hypothesisId, location, message, data and timestamp that the evidence
// pipeline validates, redacts and numbers like any other record.
type Item struct {
	Line  []byte
	Index int // 1-based position of the record in its request
	// Refused says why the record cannot be an event; Line is then shown
	// only as a redacted excerpt in the diagnostic.
	Refused string
}

// labels are the fields that come from well-known attributes.
type labels struct {
	hypothesis, location string
	used                 []string // attribute keys consumed, left out of data
}

// label finds the hypothesis and the location of one record or span.
func label(attrs, scopeAttrs, resAttrs pcommon.Map, scopeName string, used []string) labels {
	l := labels{hypothesis: DefaultHypothesis, used: used[:0]}
	if v, ok := attrs.Get(HypothesisAttribute); ok && v.AsString() != "" {
		l.hypothesis = v.AsString()
		l.used = append(l.used, HypothesisAttribute)
	} else if v, ok := scopeAttrs.Get(HypothesisAttribute); ok && v.AsString() != "" {
		l.hypothesis = v.AsString()
	} else if v, ok := resAttrs.Get(HypothesisAttribute); ok && v.AsString() != "" {
		l.hypothesis = v.AsString()
	}
	file, fileKey := firstStr(attrs, fileAttrs)
	switch {
	case file != "":
		l.location = file
		l.used = append(l.used, fileKey)
		if line, lineKey := firstStr(attrs, lineAttrs); line != "" {
			l.location += ":" + line
			l.used = append(l.used, lineKey)
		}
	case strings.TrimSpace(scopeName) != "":
		l.location = scopeName
	default:
		l.location = DefaultLocation
	}
	return l
}

// firstStr returns the first of keys that attrs has, as a string.
func firstStr(attrs pcommon.Map, keys []string) (string, string) {
	for _, k := range keys {
		if v, ok := attrs.Get(k); ok {
			if s := v.AsString(); s != "" {
				return s, k
			}
		}
	}
	return "", ""
}

// serviceName is the resource's service.name.
func serviceName(res pcommon.Map) string {
	if v, ok := res.Get("service.name"); ok {
		return v.AsString()
	}
	return ""
}

// shortMessage returns s when it fits the message limit, else its first
// line cut short (the caller keeps the whole text in data).
func shortMessage(s string) (msg string, long bool) {
	if len(s) <= evidence.DefaultLimits.MaxMessageBytes {
		return s, false
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const keep = 200
	if len(s) > keep {
		cut := keep
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s + "…", true
}

// record writes the fixed head of an event record; data follows.
func record(b []byte, l labels, message string, tsMillis int64) []byte {
	b = append(b, `{"hypothesisId":`...)
	b = appendString(b, l.hypothesis)
	b = append(b, `,"location":`...)
	b = appendString(b, l.location)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, tsMillis, 10)
	return append(b, `,"data":{`...)
}

// millis converts OTLP nanoseconds to the evidence's milliseconds.
func millis(t pcommon.Timestamp) int64 { return int64(uint64(t) / 1e6) }

// done closes an event record and returns a copy sized to it.
func done(b []byte) []byte { return bytes.Clone(append(b, "}}"...)) }
