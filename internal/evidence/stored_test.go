package evidence

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestAppendStoredRoundTrip(t *testing.T) {
	r, rej := Normalize([]byte(obj(`"hypothesisId":"H\"1\\"`, `"location":"src/a b.go:1"`,
		`"message":"tab\tnewline\n<html> & \u2028 é 😀 \u0001"`, `"data":{"z":[1,2.5,"x"],"a":null}`, tsM)), DefaultLimits)
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	prefix := []byte("previous line\n")
	line := AppendStored(prefix, "evt_0001", 7, 1784313728999, &r)
	if !bytes.HasPrefix(line, prefix) {
		t.Fatal("dst prefix lost")
	}
	line = line[len(prefix):]
	if !bytes.HasSuffix(line, []byte("}\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("not one line: %q", line)
	}
	want := `{"id":"evt_0001","sequence":7,"receivedAt":1784313728999,"hypothesisId":"H\"1\\","location":"src/a b.go:1",` +
		`"message":"tab\tnewline\n<html> & ` + "\u2028" + ` é 😀 \u0001","data":{"z":[1,2.5,"x"],"a":null},"timestamp":1784313728231}` + "\n"
	if string(line) != want {
		t.Errorf("line =\n%s\nwant\n%s", line, want)
	}

	var ev StoredEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatal(err)
	}
	wantEv := StoredEvent{ID: "evt_0001", Sequence: 7, ReceivedAt: 1784313728999, HypothesisID: r.HypothesisID,
		Location: r.Location, Message: r.Message, Data: json.RawMessage(r.Data), Timestamp: r.Timestamp}
	if !reflect.DeepEqual(ev, wantEv) {
		t.Errorf("round trip = %+v\nwant %+v", ev, wantEv)
	}
	// Marshalling the struct back gives the same fields in the same order.
	again, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	json.Unmarshal(again, &a)
	json.Unmarshal(line, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("re-marshalled %s differs from %s", again, line)
	}
}

func TestAppendStoredEdgeCases(t *testing.T) {
	// Empty data is stored as null; invalid UTF-8 from a careless caller
	// still yields a valid line.
	line := AppendStored(nil, "evt_\xff", 1, 2, &Record{HypothesisID: "H1", Location: "l", Message: "m\x00", Timestamp: 3})
	want := `{"id":"evt_` + "\ufffd" + `","sequence":1,"receivedAt":2,"hypothesisId":"H1","location":"l","message":"m\u0000","data":null,"timestamp":3}` + "\n"
	if string(line) != want {
		t.Errorf("line =\n%s\nwant\n%s", line, want)
	}
	if !json.Valid(line) {
		t.Error("invalid JSON")
	}
}

func TestSplitLines(t *testing.T) {
	type got struct {
		n    int
		line string
	}
	tests := []struct {
		name, body string
		want       []got
	}{
		{"empty", "", nil},
		{"one without newline", `{"a":1}`, []got{{1, `{"a":1}`}}},
		{"one with newline", "{\"a\":1}\n", []got{{1, `{"a":1}`}}},
		{"CRLF", "a\r\nb\r\n", []got{{1, "a"}, {2, "b"}}},
		{"only one CR stripped", "a\r\r\n", []got{{1, "a\r"}}},
		{"blank lines keep numbering", "\n \t\r\na\n\n\r\nb", []got{{3, "a"}, {6, "b"}}},
		{"inner spaces kept", "  x  \n", []got{{1, "  x  "}}},
		{"only blanks", "\n\n  \n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []got
			SplitLines([]byte(tt.body), func(n int, line []byte) bool {
				lines = append(lines, got{n, string(line)})
				return true
			})
			if !reflect.DeepEqual(lines, tt.want) {
				t.Errorf("got %+v, want %+v", lines, tt.want)
			}
		})
	}
}

func TestSplitLinesStops(t *testing.T) {
	calls := 0
	SplitLines([]byte(strings.Repeat("x\n", 10)), func(n int, _ []byte) bool {
		calls++
		return n < 3
	})
	if calls != 3 {
		t.Fatalf("fn called %d times after returning false at line 3", calls)
	}
}

func TestSplitThenNormalize(t *testing.T) {
	body := typicalRecord + "\r\n\n" + secretRecord + "\n" + `{"broken"` + "\n"
	var accepted, rejected []int
	SplitLines([]byte(body), func(n int, line []byte) bool {
		if _, rej := Normalize(line, DefaultLimits); rej != nil {
			rejected = append(rejected, n)
		} else {
			accepted = append(accepted, n)
		}
		return true
	})
	if !reflect.DeepEqual(accepted, []int{1, 3}) || !reflect.DeepEqual(rejected, []int{4}) {
		t.Fatalf("accepted %v rejected %v", accepted, rejected)
	}
}
