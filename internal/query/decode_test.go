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
