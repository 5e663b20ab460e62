package otlp

import (
	"iter"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// LogItems maps every log record of a request to an event record, in order:
//
//   - hypothesisId: the record's debug.hypothesis attribute, else its
//     scope's, else its resource's, else DefaultHypothesis;
//   - location: code.file.path (or code.filepath) and code.line.number (or
//     code.lineno) as "path:line", else the instrumentation scope name,
//     else DefaultLocation;
//   - message: the body when it is a string (a long one is cut to its first
//     line and kept whole in data.body), else the event name, else
//     "log record";
//   - timestamp: the record's time, else its observed time, in ms;
//   - data: serviceName (the resource's service.name), severity, traceId,
//     spanId, eventName, attributes (less those used above) and body (when
//     it is structured or long), each only when present.
//
// A record with neither time is refused.
func LogItems(ld plog.Logs) iter.Seq[Item] {
	return func(yield func(Item) bool) {
		var (
			scratch []byte
			used    []string
			index   int
		)
		rls := ld.ResourceLogs()
		for i := range rls.Len() {
			rl := rls.At(i)
			res := rl.Resource().Attributes()
			service := serviceName(res)
			sls := rl.ScopeLogs()
			for j := range sls.Len() {
				sl := sls.At(j)
				scope := sl.Scope()
				lrs := sl.LogRecords()
				for k := range lrs.Len() {
					index++
					var it Item
					scratch, it = logItem(scratch[:0], lrs.At(k), scope, res, service, used)
					it.Index = index
					if !yield(it) {
						return
					}
				}
			}
		}
	}
}

func logItem(b []byte, lr plog.LogRecord, scope pcommon.InstrumentationScope, res pcommon.Map, service string, used []string) ([]byte, Item) {
	attrs := lr.Attributes()
	l := label(attrs, scope.Attributes(), res, scope.Name(), used)

	body := lr.Body()
	message, bodyInData := "", false
	if body.Type() == pcommon.ValueTypeStr && strings.TrimSpace(body.Str()) != "" {
		message, bodyInData = shortMessage(body.Str())
	} else {
		bodyInData = body.Type() != pcommon.ValueTypeEmpty
		switch {
		case strings.TrimSpace(lr.EventName()) != "":
			message = lr.EventName()
		default:
			message = "log record"
		}
	}

	var it Item
	ts := lr.Timestamp()
	if ts == 0 {
		ts = lr.ObservedTimestamp()
	}
	if ts == 0 {
		it.Refused = "log record has neither timeUnixNano nor observedTimeUnixNano; the exporter must set the record's time"
	}

	b = record(b, l, message, millis(ts))
	o := object{b: b}
	o.strIf("serviceName", service)
	o.strIf("severity", severity(lr))
	o.hexID("traceId", traceID(lr.TraceID()))
	o.hexID("spanId", spanID(lr.SpanID()))
	o.strIf("eventName", lr.EventName())
	if visible(attrs, l.used) {
		o.key("attributes")
		o.b = appendMap(o.b, attrs, l.used)
	}
	if bodyInData {
		o.key("body")
		o.b = appendValue(o.b, body)
	}
	it.Line = done(o.b)
	return o.b[:0], it
}

// severity is the record's severity text, else the name of its number
// ("WARN" for SEVERITY_NUMBER_WARN).
func severity(lr plog.LogRecord) string {
	if t := lr.SeverityText(); t != "" {
		return t
	}
	if n := lr.SeverityNumber(); n != plog.SeverityNumberUnspecified {
		return strings.ToUpper(n.String())
	}
	return ""
}

func traceID(id pcommon.TraceID) []byte { return id[:] }
func spanID(id pcommon.SpanID) []byte   { return id[:] }
