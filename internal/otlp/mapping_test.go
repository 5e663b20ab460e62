package otlp

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
)

const (
	ts   = pcommon.Timestamp(1784313728231_456_789) // ns
	tsMS = 1784313728231
)

var (
	traceHex = "5b8efff798038103d269b633813fc60c"
	spanHex  = "eee19b7ec3c1b174"
	parent   = "eee19b7ec3c1b173"
)

func ids() (pcommon.TraceID, pcommon.SpanID, pcommon.SpanID) {
	var t pcommon.TraceID
	var s, p pcommon.SpanID
	copy(t[:], mustHex(traceHex))
	copy(s[:], mustHex(spanHex))
	copy(p[:], mustHex(parent))
	return t, s, p
}

func mustHex(s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		var v byte
		for _, c := range s[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			default:
				v |= byte(c-'a') + 10
			}
		}
		b[i] = v
	}
	return b
}

// logs builds a request with one resource (service checkout) and one scope.
func logs(fill ...func(plog.LogRecord)) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("shop.cart")
	for _, f := range fill {
		f(sl.LogRecords().AppendEmpty())
	}
	return ld
}

func items(t *testing.T, seq func(func(Item) bool)) []Item {
	t.Helper()
	var out []Item
	for it := range seq {
		out = append(out, it)
	}
	return out
}

func TestLogRecordMapping(t *testing.T) {
	tid, sid, _ := ids()
	cases := []struct {
		name string
		fill func(plog.LogRecord)
		want string
	}{
		{"all fields", func(lr plog.LogRecord) {
			lr.SetTimestamp(ts)
			lr.SetObservedTimestamp(ts + 5e9)
			lr.Body().SetStr("discount applied")
			lr.SetSeverityText("WARN")
			lr.SetTraceID(tid)
			lr.SetSpanID(sid)
			a := lr.Attributes()
			a.PutStr("debug.hypothesis", "H3")
			a.PutStr("code.file.path", "src/cart/total.py")
			a.PutInt("code.line.number", 128)
			a.PutStr("code.function.name", "total")
			a.PutDouble("total", 12.5)
			a.PutBool("member", true)
		}, `{"hypothesisId":"H3","location":"src/cart/total.py:128","message":"discount applied","timestamp":1784313728231,` +
			`"data":{"serviceName":"checkout","severity":"WARN","traceId":"` + traceHex + `","spanId":"` + spanHex + `",` +
			`"attributes":{"code.function.name":"total","total":12.5,"member":true}}}`},
		{"defaults: observed time, scope as location, severity number", func(lr plog.LogRecord) {
			lr.SetObservedTimestamp(ts)
			lr.Body().SetStr("started")
			lr.SetSeverityNumber(plog.SeverityNumberError)
		}, `{"hypothesisId":"otlp","location":"shop.cart","message":"started","timestamp":1784313728231,"data":{"serviceName":"checkout","severity":"ERROR"}}`},
		{"older code attribute names", func(lr plog.LogRecord) {
			lr.SetTimestamp(ts)
			lr.Body().SetStr("x")
			lr.Attributes().PutStr("code.filepath", "app.js")
			lr.Attributes().PutStr("code.lineno", "7")
		}, `{"hypothesisId":"otlp","location":"app.js:7","message":"x","timestamp":1784313728231,"data":{"serviceName":"checkout"}}`},
		{"structured body goes to data, event name is the message", func(lr plog.LogRecord) {
			lr.SetTimestamp(ts)
			lr.SetEventName("cart.updated")
			m := lr.Body().SetEmptyMap()
			m.PutInt("items", 3)
			s := m.PutEmptySlice("skus")
			s.AppendEmpty().SetStr("a")
			s.AppendEmpty().SetEmptyBytes().FromRaw([]byte{1, 2})
		}, `{"hypothesisId":"otlp","location":"shop.cart","message":"cart.updated","timestamp":1784313728231,` +
			`"data":{"serviceName":"checkout","eventName":"cart.updated","body":{"items":3,"skus":["a","AQI="]}}}`},
		{"no body at all", func(lr plog.LogRecord) {
			lr.SetTimestamp(ts)
		}, `{"hypothesisId":"otlp","location":"shop.cart","message":"log record","timestamp":1784313728231,"data":{"serviceName":"checkout"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := items(t, LogItems(logs(c.fill)))
			if len(got) != 1 {
				t.Fatalf("%d items", len(got))
			}
			if string(got[0].Line) != c.want || got[0].Refused != "" || got[0].Index != 1 {
				t.Errorf("got  %s (refused %q, index %d)\nwant %s", got[0].Line, got[0].Refused, got[0].Index, c.want)
			}
			if _, rej := evidence.Normalize(got[0].Line, evidence.DefaultLimits); rej != nil {
				t.Errorf("the pipeline refuses the mapped record: %s", rej.Reason)
			}
		})
	}
}

func TestHypothesisFromScopeAndResource(t *testing.T) {
	ld := logs(func(lr plog.LogRecord) { lr.SetTimestamp(ts); lr.Body().SetStr("a") })
	rl := ld.ResourceLogs().At(0)
	rl.Resource().Attributes().PutStr("debug.hypothesis", "H-res")
	got := items(t, LogItems(ld))
	if h := attr(t, got[0].Line, "hypothesisId"); h != "H-res" {
		t.Errorf("resource attribute: hypothesis %v", h)
	}
	rl.ScopeLogs().At(0).Scope().Attributes().PutStr("debug.hypothesis", "H-scope")
	if h := attr(t, items(t, LogItems(ld))[0].Line, "hypothesisId"); h != "H-scope" {
		t.Errorf("scope attribute: hypothesis %v", h)
	}
	rl.ScopeLogs().At(0).LogRecords().At(0).Attributes().PutInt("debug.hypothesis", 7)
	if h := attr(t, items(t, LogItems(ld))[0].Line, "hypothesisId"); h != "7" {
		t.Errorf("record attribute: hypothesis %v", h)
	}
}

func attr(t *testing.T, line []byte, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return m[name]
}

func TestLogRecordWithoutTimeIsRefused(t *testing.T) {
	got := items(t, LogItems(logs(
		func(lr plog.LogRecord) { lr.SetTimestamp(ts); lr.Body().SetStr("ok") },
		func(lr plog.LogRecord) { lr.Body().SetStr("no time") },
	)))
	if len(got) != 2 || got[0].Refused != "" || got[1].Index != 2 || !strings.Contains(got[1].Refused, "neither timeUnixNano nor observedTimeUnixNano") {
		t.Fatalf("%+v", got)
	}
}

func TestLongBodyIsCutForTheMessageAndKeptInData(t *testing.T) {
	long := "panic: boom\n" + strings.Repeat("frame\n", 1000)
	got := items(t, LogItems(logs(func(lr plog.LogRecord) { lr.SetTimestamp(ts); lr.Body().SetStr(long) })))
	rec, rej := evidence.Normalize(got[0].Line, evidence.DefaultLimits)
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	if rec.Message != "panic: boom…" {
		t.Errorf("message %q", rec.Message)
	}
	var data struct{ Body string }
	json.Unmarshal(rec.Data, &data)
	if data.Body != long {
		t.Errorf("data.body is not the whole body: %d bytes", len(data.Body))
	}
}

func TestValuesBecomeValidJSON(t *testing.T) {
	got := items(t, LogItems(logs(func(lr plog.LogRecord) {
		lr.SetTimestamp(ts)
		lr.Body().SetStr("bad \xff utf-8")
		a := lr.Attributes()
		a.PutDouble("nan", math.NaN())
		a.PutEmpty("empty")
	})))
	if !json.Valid(got[0].Line) {
		t.Fatalf("not JSON: %s", got[0].Line)
	}
	if _, rej := evidence.Normalize(got[0].Line, evidence.DefaultLimits); rej != nil {
		t.Fatal(rej.Reason)
	}
	if !strings.Contains(string(got[0].Line), "bad \uFFFD utf-8") {
		t.Errorf("invalid UTF-8 not replaced: %s", got[0].Line)
	}
	if !strings.Contains(string(got[0].Line), `"nan":"NaN","empty":null`) {
		t.Errorf("%s", got[0].Line)
	}
}

func TestDuplicateKeysFromTheWireKeepTheFirst(t *testing.T) {
	// pdata keeps repeated keys as the wire has them; a JSON object must not.
	kv := func(k string, v int64) []byte {
		av := append([]byte{3 << 3}, varint(uint64(v))...) // AnyValue.int_value
		return field(nil, 6, append(field(nil, 1, []byte(k)), field(nil, 2, av)...))
	}
	lr := protowire.AppendTag(nil, 1, protowire.Fixed64Type) // time_unix_nano
	lr = protowire.AppendFixed64(lr, uint64(ts))
	lr = append(lr, kv("k", 1)...)
	lr = append(lr, kv("k", 2)...)
	for i := range 20 { // past the few keys checked without a map
		lr = append(lr, kv("x"+strconv.Itoa(i), int64(i))...)
	}
	lr = append(lr, kv("x3", 99)...)
	ld, err := DecodeLogs(field(nil, 1, field(nil, 2, field(nil, 2, lr))), Protobuf)
	if err != nil {
		t.Fatal(err)
	}
	line := items(t, LogItems(ld))[0].Line
	rec, rej := evidence.Normalize(line, evidence.DefaultLimits)
	if rej != nil {
		t.Fatalf("%s: %s", line, rej.Reason)
	}
	var data struct{ Attributes map[string]int }
	json.Unmarshal(rec.Data, &data)
	if data.Attributes["k"] != 1 || data.Attributes["x3"] != 3 || len(data.Attributes) != 21 {
		t.Errorf("%s", rec.Data)
	}
}

func TestSpanMapping(t *testing.T) {
	tid, sid, pid := ids()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "payments")
	rs.Resource().Attributes().PutStr("debug.hypothesis", "H2")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("payments.api")
	sp := ss.Spans().AppendEmpty()
	sp.SetName("charge card")
	sp.SetKind(ptrace.SpanKindServer)
	sp.SetTraceID(tid)
	sp.SetSpanID(sid)
	sp.SetParentSpanID(pid)
	sp.SetStartTimestamp(ts - 12_345_678)
	sp.SetEndTimestamp(ts)
	sp.Status().SetCode(ptrace.StatusCodeError)
	sp.Status().SetMessage("card declined")
	sp.Attributes().PutStr("code.file.path", "pay.go")
	sp.Attributes().PutInt("amount", 1200)
	ev := sp.Events().AppendEmpty()
	ev.SetName("exception")
	ev.SetTimestamp(ts - 1e6)
	ev.Attributes().PutStr("exception.message", "declined")
	unended := ss.Spans().AppendEmpty()
	unended.SetName("still running")
	unended.SetStartTimestamp(ts)

	got := items(t, SpanItems(td))
	want := `{"hypothesisId":"H2","location":"pay.go","message":"charge card","timestamp":1784313728231,` +
		`"data":{"serviceName":"payments","kind":"server","traceId":"` + traceHex + `","spanId":"` + spanHex + `","parentSpanId":"` + parent + `",` +
		`"durationMs":12.345678,"status":"ERROR","statusMessage":"card declined","attributes":{"amount":1200},` +
		`"events":[{"name":"exception","timestamp":1784313728230,"attributes":{"exception.message":"declined"}}]}}`
	if len(got) != 2 || string(got[0].Line) != want {
		t.Fatalf("got  %s\nwant %s", got[0].Line, want)
	}
	if _, rej := evidence.Normalize(got[0].Line, evidence.DefaultLimits); rej != nil {
		t.Fatal(rej.Reason)
	}
	if got[1].Index != 2 || !strings.Contains(got[1].Refused, "no endTimeUnixNano") {
		t.Errorf("unended span: %+v", got[1])
	}
}

// The JSON encoding reads as the protobuf one, including the OTLP JSON
// mapping's deviations from proto3 JSON: hex ids, enums as integers, 64-bit
// integers as strings.
func TestJSONEncodingDeviations(t *testing.T) {
	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web"}}]},
	 "scopeSpans":[{"scope":{"name":"web"},"spans":[{"traceId":"` + traceHex + `","spanId":"` + spanHex + `",
	 "name":"GET /cart","kind":2,"startTimeUnixNano":"1784313728219000000","endTimeUnixNano":"1784313728231456789",
	 "attributes":[{"key":"http.status","value":{"intValue":"500"}},{"key":"big","value":{"intValue":"9007199254740993"}}],
	 "status":{"code":2},"unknownField":{"x":1}}]}]}]}`
	td, err := DecodeTraces([]byte(body), JSON)
	if err != nil {
		t.Fatal(err)
	}
	got := items(t, SpanItems(td))
	want := `{"hypothesisId":"otlp","location":"web","message":"GET /cart","timestamp":1784313728231,` +
		`"data":{"serviceName":"web","kind":"server","traceId":"` + traceHex + `","spanId":"` + spanHex + `","durationMs":12.456789,"status":"ERROR",` +
		`"attributes":{"http.status":500,"big":9007199254740993}}}`
	if len(got) != 1 || string(got[0].Line) != want {
		t.Fatalf("got  %s\nwant %s", got[0].Line, want)
	}
	// And the same request as protobuf maps to the same line.
	pb, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	td2, err := DecodeTraces(pb, Protobuf)
	if err != nil {
		t.Fatal(err)
	}
	if got2 := items(t, SpanItems(td2)); string(got2[0].Line) != want {
		t.Errorf("protobuf: %s", got2[0].Line)
	}
}

func TestIndexesCountAcrossResourcesAndScopes(t *testing.T) {
	ld := plog.NewLogs()
	for range 2 {
		rl := ld.ResourceLogs().AppendEmpty()
		for range 2 {
			sl := rl.ScopeLogs().AppendEmpty()
			for range 3 {
				lr := sl.LogRecords().AppendEmpty()
				lr.SetTimestamp(ts)
				lr.Body().SetStr("x")
			}
		}
	}
	var idx []int
	for it := range LogItems(ld) {
		idx = append(idx, it.Index)
	}
	if !slices.Equal(idx, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {
		t.Errorf("%v", idx)
	}
}
