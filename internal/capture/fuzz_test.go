package capture

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzParseEvent: the fast reader of stored lines never panics, and when it
// accepts a line that is JSON, it reads what a full decode reads.
func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"id":"evt_a_1","sequence":1,"receivedAt":2,"hypothesisId":"H1","location":"a.py:1","message":"m","data":{"k":[1,"x"]},"timestamp":1796083198500}`))
	f.Add([]byte(`{"id":"evt_a_1","sequence":1,"receivedAt":2,"hypothesisId":"H\"1","location":"a\\b","message":"","data":null,"timestamp":-1}`))
	f.Add([]byte(`{"id":"x","sequence":1,"receivedAt":2,"hypothesisId":"H","location":"l","message":"m","data":"a,\"timestamp\":1}","timestamp":3}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, ok := parseEvent(line)
		dataHash(line)
		if !ok || !json.Valid(line) || !utf8.Valid(line) {
			return // stored lines are always valid UTF-8 JSON; others need only not panic
		}
		s, ok := slowEvent(line)
		if !ok {
			return // valid JSON the slow path refuses (no sequence): the fast path saw a shape it trusts
		}
		if e.seq != s.seq || e.ts != s.ts || unescape(e.hyp) != unescape(s.hyp) || unescape(e.loc) != unescape(s.loc) || unescape(e.msg) != unescape(s.msg) {
			t.Fatalf("fast %+v, slow %+v for %s", e, s, line)
		}
		if dataHash(e.data) != dataHash(s.data) {
			t.Fatalf("data %s vs %s for %s", e.data, s.data, line)
		}
	})
}
