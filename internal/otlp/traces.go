package otlp

import (
	"iter"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// SpanItems maps every span of a request to one event record, stamped when
// the span ended:
//
//   - hypothesisId and location as for log records (LogItems);
//   - message: the span's name (a long one cut short), else "span";
//   - timestamp: the span's end time, in ms;
//   - data: serviceName, kind, traceId, spanId, parentSpanId, durationMs,
//     status and statusMessage (when set), attributes (less those used
//     above) and events (name, timestamp in ms, attributes), each only when
//     present.
//
// A span without an end time is refused.
func SpanItems(td ptrace.Traces) iter.Seq[Item] {
	return func(yield func(Item) bool) {
		var (
			scratch []byte
			used    []string
			index   int
		)
		rss := td.ResourceSpans()
		for i := range rss.Len() {
			rs := rss.At(i)
			res := rs.Resource().Attributes()
			service := serviceName(res)
			sss := rs.ScopeSpans()
			for j := range sss.Len() {
				ss := sss.At(j)
				scope := ss.Scope()
				spans := ss.Spans()
				for k := range spans.Len() {
					index++
					var it Item
					scratch, it = spanItem(scratch[:0], spans.At(k), scope, res, service, used)
					it.Index = index
					if !yield(it) {
						return
					}
				}
			}
		}
	}
}

func spanItem(b []byte, sp ptrace.Span, scope pcommon.InstrumentationScope, res pcommon.Map, service string, used []string) ([]byte, Item) {
	attrs := sp.Attributes()
	l := label(attrs, scope.Attributes(), res, scope.Name(), used)
	message := "span"
	if strings.TrimSpace(sp.Name()) != "" {
		message, _ = shortMessage(sp.Name())
	}

	var it Item
	start, end := sp.StartTimestamp(), sp.EndTimestamp()
	if end == 0 {
		it.Refused = "span has no endTimeUnixNano; export spans once they have ended"
	}

	b = record(b, l, message, millis(end))
	o := object{b: b}
	o.strIf("serviceName", service)
	if k := sp.Kind(); k != ptrace.SpanKindUnspecified {
		o.str("kind", strings.ToLower(k.String()))
	}
	o.hexID("traceId", traceID(sp.TraceID()))
	o.hexID("spanId", spanID(sp.SpanID()))
	o.hexID("parentSpanId", spanID(sp.ParentSpanID()))
	if start != 0 && end >= start {
		o.key("durationMs")
		o.b = strconv.AppendFloat(o.b, float64(end-start)/1e6, 'f', -1, 64)
	}
	if c := sp.Status().Code(); c != ptrace.StatusCodeUnset {
		o.str("status", strings.ToUpper(c.String()))
	}
	o.strIf("statusMessage", sp.Status().Message())
	if visible(attrs, l.used) {
		o.key("attributes")
		o.b = appendMap(o.b, attrs, l.used)
	}
	if evs := sp.Events(); evs.Len() > 0 {
		o.key("events")
		o.b = append(o.b, '[')
		for i := range evs.Len() {
			ev := evs.At(i)
			if i > 0 {
				o.b = append(o.b, ',')
			}
			e := object{b: append(o.b, '{')}
			e.str("name", ev.Name())
			e.int("timestamp", millis(ev.Timestamp()))
			if ev.Attributes().Len() > 0 {
				e.key("attributes")
				e.b = appendMap(e.b, ev.Attributes(), nil)
			}
			o.b = append(e.b, '}')
		}
		o.b = append(o.b, ']')
	}
	it.Line = done(o.b)
	return o.b[:0], it
}
