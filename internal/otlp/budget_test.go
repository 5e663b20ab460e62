package otlp

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func varint(v uint64) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// field appends a length-delimited field.
func field(b []byte, num int, content []byte) []byte {
	b = append(b, varint(uint64(num<<3|2))...)
	b = append(b, varint(uint64(len(content)))...)
	return append(b, content...)
}

func repeated(num, n int, content []byte) []byte {
	var b []byte
	for range n {
		b = field(b, num, content)
	}
	return b
}

// Hostile requests: tiny on the wire, huge once decoded (an empty span is 2
// bytes and about 250 once decoded).
func hostile() map[string][]byte {
	const n = 1 << 20 // 2 MiB of empty messages
	return map[string][]byte{
		"empty log records": field(nil, 1, field(nil, 2, repeated(2, n, nil))),
		"empty resources":   repeated(1, n, nil),
		"empty attributes":  field(nil, 1, field(nil, 2, field(nil, 2, repeated(6, n, nil)))),
		"empty spans":       field(nil, 1, field(nil, 2, repeated(2, n, nil))),
		"JSON empty records": []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[` +
			strings.Repeat("{},", n-1) + `{}]}]}]}`),
	}
}

func TestHostileRequestsAreRefusedBeforeDecoding(t *testing.T) {
	for name, body := range hostile() {
		enc := Protobuf
		if body[0] == '{' {
			enc = JSON
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, lerr := DecodeLogs(body, enc)
		_, terr := DecodeTraces(body, enc)
		runtime.ReadMemStats(&after)
		if !errors.Is(lerr, ErrTooLarge) || !errors.Is(terr, ErrTooLarge) {
			t.Errorf("%s: %v / %v, want ErrTooLarge", name, lerr, terr)
		}
		// Refusing costs a few small allocations, not the decoded tree.
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("%s (%d bytes): refusing allocated %d bytes", name, len(body), got)
		}
	}
}

func TestBudgetAdmitsLargeRealBatches(t *testing.T) {
	// 2,048 log records with ten attributes each: about 45,000 messages.
	ld := plog.NewLogs()
	sl := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty()
	for i := range 2048 {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(ts)
		lr.Body().SetStr("checkout step")
		for a := range 10 {
			lr.Attributes().PutInt(string(rune('a'+a)), int64(i))
		}
	}
	for _, enc := range []Encoding{Protobuf, JSON} {
		var body []byte
		if enc == JSON {
			body, _ = (&plog.JSONMarshaler{}).MarshalLogs(ld)
		} else {
			body, _ = (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		}
		got, err := DecodeLogs(body, enc)
		if err != nil || got.LogRecordCount() != 2048 {
			t.Errorf("%s: %v, %d records", enc.ContentType(), err, got.LogRecordCount())
		}
	}
}

func TestTooDeepIsRefused(t *testing.T) {
	// A body value of arrays in arrays: AnyValue.array_value(5) >
	// ArrayValue.values(1) > AnyValue ...
	nested := func(levels int) []byte {
		v := []byte{}
		for range levels {
			v = field(nil, 5, field(nil, 1, v))
		}
		return v
	}
	// In a body large enough to be scanned (a 200 KB attribute pads it).
	pad := field(nil, 6, append(field(nil, 1, []byte("pad")), field(nil, 2, field(nil, 1, bytes.Repeat([]byte("x"), 200_000)))...))
	body := field(nil, 1, field(nil, 2, field(nil, 2, append(pad, field(nil, 5, nested(60))...))))
	if _, err := DecodeLogs(body, Protobuf); !errors.Is(err, ErrTooDeep) {
		t.Errorf("protobuf: %v", err)
	}
	// A small body is not scanned: pdata's recursion limit refuses it.
	small := field(nil, 1, field(nil, 2, field(nil, 2, field(nil, 5, nested(120)))))
	if _, err := DecodeLogs(small, Protobuf); !errors.Is(err, ErrMalformed) {
		t.Errorf("small protobuf: %v", err)
	}
	js := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":` + strings.Repeat(`{"arrayValue":{"values":[`, 30) +
		strings.Repeat(`]}}`, 30) + `}]}]}]}`
	if _, err := DecodeLogs([]byte(js), JSON); !errors.Is(err, ErrTooDeep) {
		t.Errorf("JSON: %v", err)
	}
}

func TestMalformedBodies(t *testing.T) {
	for name, c := range map[string]struct {
		body []byte
		enc  Encoding
	}{
		"truncated protobuf": {[]byte{0x0a, 0x10, 0x12}, Protobuf},
		"not protobuf":       {[]byte("hello world"), Protobuf},
		"not JSON":           {[]byte(`{"resourceLogs":[`), JSON},
		"wrong JSON type":    {[]byte(`{"resourceLogs":"x"}`), JSON},
	} {
		_, err := DecodeLogs(c.body, c.enc)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// A decoder's error goes into diagnostics and answers: the input it quotes
// is cut and secrets in it are redacted.
func TestMalformedReasonsShowNoSecrets(t *testing.T) {
	const key = "AKIAIOSFODNN7EXAMPLE"
	body := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"password: ` + key + `"},"timeUnixNano":"` + key + `"}]}]}]}`
	_, err := DecodeLogs([]byte(body), JSON)
	if !errors.Is(err, ErrMalformed) || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "password") {
		t.Errorf("%v", err)
	}
}

func TestEmptyRequestsDecode(t *testing.T) {
	for _, c := range []struct {
		body []byte
		enc  Encoding
	}{{nil, Protobuf}, {[]byte("{}"), JSON}} {
		ld, err := DecodeLogs(c.body, c.enc)
		if err != nil || ld.LogRecordCount() != 0 {
			t.Errorf("%q: %v", c.body, err)
		}
		td, err := DecodeTraces(c.body, c.enc)
		if err != nil || td.SpanCount() != 0 {
			t.Errorf("%q: %v", c.body, err)
		}
	}
}

// FuzzDecodeAndMap: any body either fails to decode or maps to records that
// are JSON objects, never a panic.
func FuzzDecodeAndMap(f *testing.F) {
	ld := logs(func(lr plog.LogRecord) {
		lr.SetTimestamp(ts)
		lr.Body().SetStr("x")
		lr.Attributes().PutEmptyMap("m").PutEmptySlice("s").AppendEmpty().SetDouble(1.5)
	})
	pb, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	js, _ := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	f.Add(pb, false)
	f.Add(js, true)
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetEndTimestamp(ts)
	sp.Events().AppendEmpty().SetName("e")
	tb, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	f.Add(tb, false)
	f.Fuzz(func(t *testing.T, body []byte, isJSON bool) {
		enc := Protobuf
		if isJSON {
			enc = JSON
		}
		check := func(it Item) {
			if !bytes.HasPrefix(it.Line, []byte(`{"hypothesisId":`)) || !jsonValid(it.Line) {
				t.Fatalf("mapped record is not a JSON object: %q", it.Line)
			}
		}
		if ld, err := DecodeLogs(body, enc); err == nil {
			for it := range LogItems(ld) {
				check(it)
			}
		}
		if td, err := DecodeTraces(body, enc); err == nil {
			for it := range SpanItems(td) {
				check(it)
			}
		}
	})
}
