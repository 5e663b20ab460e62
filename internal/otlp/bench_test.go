package otlp

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
)

// benchLogs is a 400-record request shaped like bench/ingest's otlp
// workload: a string body, the label and location attributes and five
// values.
func benchLogs() plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "cart")
	sl := rl.ScopeLogs().AppendEmpty()
	for i := range 400 {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(ts)
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		lr.Body().SetStr("discount applied to cart total")
		a := lr.Attributes()
		a.PutStr("debug.hypothesis", "H3")
		a.PutStr("code.file.path", "src/cart/total.py")
		a.PutInt("code.line.number", 128)
		a.PutInt("cart", int64(i))
		a.PutInt("items", 3)
		a.PutDouble("subtotal", 12.5)
		a.PutDouble("discount", 0.1)
		a.PutDouble("total", 11.25)
	}
	return ld
}

// BenchmarkDecodeAndMapLogs: the budget check, pdata's decoding and the
// mapping of one request (the evidence pipeline after it is measured in
// internal/store).
func BenchmarkDecodeAndMapLogs(b *testing.B) {
	for _, enc := range []Encoding{Protobuf, JSON} {
		var body []byte
		if enc == JSON {
			body, _ = (&plog.JSONMarshaler{}).MarshalLogs(benchLogs())
		} else {
			body, _ = (&plog.ProtoMarshaler{}).MarshalLogs(benchLogs())
		}
		b.Run(enc.ContentType()[len("application/"):], func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				ld, err := DecodeLogs(body, enc)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for range LogItems(ld) {
					n++
				}
				if n != 400 {
					b.Fatal(n)
				}
			}
			b.ReportMetric(float64(400*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
