package main

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// buildOTLP encodes every batch as an OTLP protobuf logs request: the same
// events as log records an SDK would send (body = message, the label in
// debug.hypothesis, the location in the code attributes, the data values as
// attributes), so the service stores the same number of events.
func (w *workload) buildOTLP() {
	var m plog.ProtoMarshaler
	seq, total := 0, 0
	for seq < w.events {
		n := min(w.batch, w.events-seq)
		ld := plog.NewLogs()
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "cart")
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName("cart.total")
		lrs := sl.LogRecords()
		lrs.EnsureCapacity(n)
		for range n {
			ts := int64(seq / 10)
			if w.repeat {
				ts = int64(seq % (poolBatches * w.batch))
			}
			appendLogRecord(lrs.AppendEmpty(), seq, ts)
			seq++
		}
		b, err := m.MarshalLogs(ld)
		if err != nil {
			fail(err)
		}
		total += len(b)
		w.otlpBodies = append(w.otlpBodies, b)
	}
	w.otlpBytes = total / len(w.otlpBodies)
}

// appendLogRecord fills lr with the values appendRecord writes as NDJSON.
func appendLogRecord(lr plog.LogRecord, i int, ts int64) {
	items := 1 + i%9
	sub := 1000 + (i*7919)%99000
	total := sub * 9 / 10
	lr.SetTimestamp(pcommon.Timestamp((1784313728231 + ts) * 1e6))
	lr.SetSeverityNumber(plog.SeverityNumberInfo)
	lr.Body().SetStr("discount applied to cart total")
	a := lr.Attributes()
	a.EnsureCapacity(8)
	a.PutStr("debug.hypothesis", "H"+string(rune('1'+i%5)))
	a.PutStr("code.file.path", "src/cart/total.py")
	a.PutInt("code.line.number", int64(100+i%60))
	a.PutInt("cart", int64(i%1_000_000))
	a.PutInt("items", int64(items))
	a.PutDouble("subtotal", float64(sub)/100)
	a.PutDouble("discount", 0.1)
	a.PutDouble("total", float64(total)/100)
}
