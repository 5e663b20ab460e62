package query

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

const sampleLine = `{"id":"evt_a7b25b09db11_1","sequence":1,"receivedAt":1796027655384,"hypothesisId":"H3","location":"src/cart/total.py:128","message":"discount applied to cart total","data":{"cart":"c-000123","items":4,"subtotal":129.95,"discount":0.1,"total":116.96,"tags":["a","b"],"big":12345678901234567890,"n":null,"ok":true},"timestamp":1784313728231}`

// TestDecoderMatchesEncodingJSON: the fast decoder gives the same values as
// encoding/json with UseNumber, with exact numbers.
func TestDecoderMatchesEncodingJSON(t *testing.T) {
	got, err := newDecoder().decode([]byte(sampleLine))
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	if m["sequence"] != 1 || m["timestamp"] != 1784313728231 {
		t.Fatalf("integers: %#v %#v", m["sequence"], m["timestamp"])
	}
	data := m["data"].(map[string]any)
	if data["subtotal"] != 129.95 || data["big"] != json.Number("12345678901234567890") || data["n"] != nil || data["ok"] != true {
		t.Fatalf("data: %#v", data)
	}
	if !reflect.DeepEqual(data["tags"], []any{"a", "b"}) {
		t.Fatalf("tags: %#v", data["tags"])
	}
	if _, err := newDecoder().decode([]byte(`{"a":`)); err == nil {
		t.Fatal("truncated JSON must be an error")
	}
}

func BenchmarkDecodeFast(b *testing.B) {
	dc := newDecoder()
	b.SetBytes(int64(len(sampleLine)))
	for i := 0; i < b.N; i++ {
		if _, err := dc.decode([]byte(sampleLine)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	b.SetBytes(int64(len(sampleLine)))
	for i := 0; i < b.N; i++ {
		d := json.NewDecoder(bytes.NewReader([]byte(sampleLine)))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecoderStrings: every escape form decodes as encoding/json does.
func TestDecoderStrings(t *testing.T) {
	for _, s := range []string{
		`"plain"`, `"q\"b\\s\/n\nr\rt\tb\bf\f"`, `"\u0001\u001f"`, `"é日本🎉"`, `"\u00e9\u65e5"`,
		`"\ud83c\udf89"`, `"\ud83c"`, `"\udf89x"`, `""`,
	} {
		var want any
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		got, err := newDecoder().decode([]byte(s))
		if err != nil || got != want {
			t.Errorf("%s: got %q (%v), want %q", s, got, err, want)
		}
	}
}

// TestDecoderRejectsMalformed: a damaged line is an error, not a value.
func TestDecoderRejectsMalformed(t *testing.T) {
	for _, s := range []string{`{`, `{"a"}`, `{"a":1,}`, `[1 2]`, `"abc`, `tru`, `{"a":1}x`, `1.2.3`, `"\x"`, `"\u12"`} {
		if v, err := newDecoder().decode([]byte(s)); err == nil {
			t.Errorf("%s decoded to %#v", s, v)
		}
	}
}
