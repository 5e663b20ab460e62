package query

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// FuzzCursorDecode: a cursor is either the one that was issued, for the
// session it was issued for, or refused; never a panic, never another scope.
func FuzzCursorDecode(f *testing.F) {
	sg := NewSigner([]byte("0123456789abcdef0123456789abcdef"))
	const sid = "707225a6-8e0f-4db4-b64b-e261bd6a861a"
	good := sg.Encode(sid, 3, Spec{Program: ".data", Args: map[string]string{"a": "b"}, Filter: store.Filter{Hypotheses: []string{"H1"}}}, Position{Event: 7, Skip: 2})
	f.Add(good)
	f.Add(good + "x")
	f.Add("")
	f.Add(".")
	f.Add("e30.AAAA")
	f.Fuzz(func(t *testing.T, c string) {
		spec, pos, cycle, err := sg.Decode(c, sid)
		if err != nil {
			return
		}
		// Accepted: re-encoding the decoded scope must give back a cursor
		// that decodes to the same scope (it was issued by us).
		again := sg.Encode(sid, cycle, spec, pos)
		spec2, pos2, cycle2, err := sg.Decode(again, sid)
		if err != nil || !reflect.DeepEqual(spec, spec2) || pos != pos2 || cycle != cycle2 {
			t.Fatalf("accepted cursor %q does not round-trip", c)
		}
		if _, _, _, err := sg.Decode(c, "00000000-0000-4000-8000-000000000000"); err == nil {
			t.Fatalf("cursor accepted for another session")
		}
	})
}

// FuzzStoredLineDecoder: on any compact JSON (the only form the store
// writes) the fast decoder agrees with encoding/json; on anything else it
// may refuse, but never panics.
func FuzzStoredLineDecoder(f *testing.F) {
	f.Add([]byte(sampleLine))
	f.Add([]byte(`{"a":[1,2.5,-3e2,"x\u00e9\n",true,null,{}],"b":{"c":"\ud83c\udf89"}}`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := newDecoder().decode(b)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		werr := dec.Decode(&want)
		var compact bytes.Buffer
		if werr != nil || dec.More() || !json.Valid(b) || !utf8.Valid(b) || json.Compact(&compact, b) != nil || !bytes.Equal(compact.Bytes(), b) {
			return // not a stored line: the decoder only has to not panic
		}
		if err != nil {
			t.Fatalf("valid JSON %q refused: %v", b, err)
		}
		if !sameJSON(got, want) {
			t.Fatalf("%q: decoded %#v, encoding/json %#v", b, got, want)
		}
	})
}

// sameJSON compares decoded values, numbers by their float64 value.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !sameJSON(v, y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case int:
		n, ok := b.(json.Number)
		f, _ := n.Float64()
		return ok && float64(x) == f
	case float64:
		n, ok := b.(json.Number)
		f, _ := n.Float64()
		return ok && x == f
	case json.Number:
		n, ok := b.(json.Number)
		return ok && x == n
	}
	return a == b
}
