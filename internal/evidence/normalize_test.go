package evidence

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Members of a valid record, combined with obj.
const (
	hypM  = `"hypothesisId":"H1"`
	locM  = `"location":"src/cache.ts:84"`
	msgM  = `"message":"Cache lookup completed"`
	dataM = `"data":{"cacheKey":"cart:42","hit":false}`
	tsM   = `"timestamp":1784313728231`
)

func obj(members ...string) string { return "{" + strings.Join(members, ",") + "}" }

// rec builds a valid record whose data member is data.
func rec(data string) string { return obj(hypM, locM, msgM, `"data":`+data, tsM) }

// nested returns data that puts the innermost array at nesting level depth,
// counting the record object as level 1.
func nested(depth int) string {
	return strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1)
}

// padTo grows a valid record to exactly n bytes with insignificant spaces.
func padTo(n int) string {
	r := rec(`"` + strings.Repeat("x", 10000) + `"`)
	return r[:len(r)-1] + strings.Repeat(" ", n-len(r)) + "}"
}

func TestNormalizeAccepts(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		data    string
		check   func(t *testing.T, r Record)
		dropped []string
	}{
		{name: "typical", line: obj(hypM, locM, msgM, dataM, tsM), data: `{"cacheKey":"cart:42","hit":false}`,
			check: func(t *testing.T, r Record) {
				want := Record{HypothesisID: "H1", Location: "src/cache.ts:84", Message: "Cache lookup completed",
					Data: r.Data, Timestamp: 1784313728231}
				if !reflect.DeepEqual(r, want) {
					t.Errorf("got %+v, want %+v", r, want)
				}
			}},
		{name: "field order is free", line: obj(tsM, dataM, msgM, locM, hypM), data: `{"cacheKey":"cart:42","hit":false}`},
		{name: "compacted, key order kept",
			line: " { \"hypothesisId\" : \"H1\" ,\t\"location\":\"l\",\"message\":\"m\", \"data\" : { \"z\" : [ 1 , { \"a\" : \"x y\" } ] , \"b\" : null } , \"timestamp\" : 1784313728231 } ",
			data: `{"z":[1,{"a":"x y"}],"b":null}`},
		{name: "data null", line: rec(`null`), data: `null`},
		{name: "data array", line: rec(`[1,"a",true]`), data: `[1,"a",true]`},
		{name: "data string", line: rec(`"s"`), data: `"s"`},
		{name: "data number", line: rec(`-1.5e3`), data: `-1.5e3`},
		{name: "data empty object", line: rec(`{ }`), data: `{}`},
		{name: "data string escapes kept verbatim", line: rec(`{"q":"a\"b\\c\n\u00e9"}`), data: `{"q":"a\"b\\c\n\u00e9"}`},
		{name: "nested duplicate-free data", line: rec(`{"a":{"a":{"a":1}}}`), data: `{"a":{"a":{"a":1}}}`},
		{name: "CRLF", line: rec(`1`) + "\r", data: `1`},
		{name: "escaped text fields decoded",
			line: obj(`"hypothesisId":"H\u0031"`, `"location":"src\/a.go:1"`, `"message":"caf\u00e9 \"ok\""`, `"data":1`, tsM), data: `1`,
			check: func(t *testing.T, r Record) {
				if r.HypothesisID != "H1" || r.Location != "src/a.go:1" || r.Message != `café "ok"` {
					t.Errorf("decoded %q %q %q", r.HypothesisID, r.Location, r.Message)
				}
			}},
		{name: "dropped fields", data: `1`,
			line:    obj(`"sessionId":"s1"`, hypM, `"runId":"r"`, locM, msgM, `"data":1`, `"schemaVersion":1`, tsM, `"extra":{"x":[1]}`),
			dropped: []string{"sessionId", "runId", "schemaVersion", "extra"}},
		{name: "smallest millisecond timestamp", line: obj(hypM, locM, msgM, `"data":1`, `"timestamp":100000000000`), data: `1`,
			check: func(t *testing.T, r Record) {
				if r.Timestamp != 100_000_000_000 {
					t.Errorf("timestamp %d", r.Timestamp)
				}
			}},
		{name: "largest millisecond timestamp", line: obj(hypM, locM, msgM, `"data":1`, `"timestamp":100000000000000`), data: `1`},
		{name: "depth 32", line: rec(nested(32)), data: nested(32)},
		{name: "string at limit", line: rec(`"` + strings.Repeat("a", 16<<10) + `"`), data: `"` + strings.Repeat("a", 16<<10) + `"`},
		{name: "record at limit", line: padTo(64 << 10), data: `"` + strings.Repeat("x", 10000) + `"`},
		{name: "label at limit", line: obj(`"hypothesisId":"`+strings.Repeat("h", 128)+`"`, locM, msgM, `"data":1`, tsM), data: `1`},
		{name: "location at limit", line: obj(hypM, `"location":"`+strings.Repeat("l", 1024)+`"`, msgM, `"data":1`, tsM), data: `1`},
		{name: "message at limit", line: obj(hypM, locM, `"message":"`+strings.Repeat("m", 2048)+`"`, `"data":1`, tsM), data: `1`},
		{name: "utf-8 text", line: obj(`"hypothesisId":"Hé"`, locM, `"message":"größe ✓"`, `"data":{"ключ":"值"}`, tsM), data: `{"ключ":"值"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, rej := Normalize([]byte(tt.line), DefaultLimits)
			if rej != nil {
				t.Fatalf("rejected: %s", rej.Reason)
			}
			if string(r.Data) != tt.data {
				t.Errorf("data = %s, want %s", r.Data, tt.data)
			}
			if !reflect.DeepEqual(r.Dropped, tt.dropped) {
				t.Errorf("dropped = %q, want %q", r.Dropped, tt.dropped)
			}
			if r.Redactions != 0 {
				t.Errorf("redactions = %d", r.Redactions)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestNormalizeRejects(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name, line, reason string
	}{
		// Framing.
		{"empty", "", "record is empty"},
		{"blank", " \t\r", "record is empty"},
		{"array", "[]", "must be one JSON object per line, like {\"hypothesisId\":\"H1\",...}, not an array"},
		{"string", `"x"`, "must be one JSON object per line, like {\"hypothesisId\":\"H1\",...}, not a string"},
		{"number", `42`, "must be one JSON object per line"},
		{"garbage", `hello`, "must be one JSON object per line"},
		{"array then text", `[] x`, "must be one JSON object per line, not an array"},
		{"trailing garbage", rec(`1`) + ` x`, "extra text after its JSON object at byte offset"},
		{"two objects", rec(`1`) + rec(`1`), "extra text after its JSON object"},
		{"truncated", `{"hypothesisId":"H1","data":{`, "ends before its JSON object is complete"},
		{"bad syntax", `{hypothesisId:"H1"}`, "record is not valid JSON"},
		{"trailing comma", `{"a":1,}`, "record is not valid JSON"},
		{"invalid UTF-8 inside string", rec(`"a` + "\xff" + `b"`), "not valid UTF-8 (bad byte at offset"},
		{"invalid UTF-8 outside string", rec(`1`) + "\xc3", "not valid UTF-8"},
		{"invalid UTF-8 in name", "{\"\xfe\":1}", "not valid UTF-8"},
		{"byte order mark", "\xef\xbb\xbf" + rec(`1`), "byte order mark"},
		{"control character in string", rec("\"a\tb\""), "invalid character '\\t' in string"},
		{"lone surrogate escape", rec(`"\ud800"`), "record is not valid JSON"},
		{"duplicate top-level field", obj(hypM, locM, msgM, `"data":1`, tsM, `"message":"again"`), `field "message" appears more than once`},
		{"duplicate dropped field", obj(hypM, locM, msgM, `"data":1`, tsM, `"runId":1`, `"runId":2`), `field "runId" appears more than once`},
		{"duplicate data name", rec(`{"a":1,"b":{"x":1,"x":2}}`), `name "x" appears more than once in the same object at "/data/b"`},

		// Limits.
		{"record too large", padTo(64<<10 + 1), "record is 65537 bytes; the limit is 65536 bytes"},
		{"depth 33", rec(nested(33)), `field "data" nests deeper than 32 levels`},
		{"depth in dropped field", obj(hypM, locM, msgM, `"data":1`, tsM, `"x":`+nested(33)), `field "x" nests deeper than 32 levels`},
		{"long data string", rec(`"` + long(16<<10+1) + `"`), `a string in field "data" is 16385 bytes; the limit is 16384 bytes`},
		{"long data name", rec(`{"` + long(16<<10+1) + `":1}`), `a string in field "data" is 16385 bytes`},
		{"long dropped name", obj(hypM, locM, msgM, `"data":1`, tsM, `"`+long(16<<10+1)+`":1`), "a string in the record is 16385 bytes"},

		// Required fields.
		{"missing hypothesisId", obj(locM, msgM, `"data":1`, tsM), `missing field "hypothesisId"; send the hypothesis label as a non-empty string`},
		{"missing location", obj(hypM, msgM, `"data":1`, tsM), `missing field "location"; send the probe's source location`},
		{"missing message", obj(hypM, locM, `"data":1`, tsM), `missing field "message"; send a short constant description`},
		{"missing data", obj(hypM, locM, msgM, tsM), `missing field "data"; send any JSON value, or null`},
		{"missing timestamp", obj(hypM, locM, msgM, `"data":1`), `missing field "timestamp"; send the observation time as integer epoch milliseconds`},
		{"missing everything", `{}`, `missing field "hypothesisId"`},
		{"wrong case", obj(`"hypothesisID":"H1"`, locM, msgM, `"data":1`, tsM), `missing field "hypothesisId" (found "hypothesisID"; field names are case-sensitive)`},

		{"hypothesisId number", obj(`"hypothesisId":1`, locM, msgM, `"data":1`, tsM), `field "hypothesisId" must be a non-empty string (a short label such as "H1"), not a number`},
		{"hypothesisId null", obj(`"hypothesisId":null`, locM, msgM, `"data":1`, tsM), `field "hypothesisId" must be a non-empty string (a short label such as "H1"), not null`},
		{"hypothesisId empty", obj(`"hypothesisId":""`, locM, msgM, `"data":1`, tsM), `field "hypothesisId" must not be empty`},
		{"hypothesisId blank", obj(`"hypothesisId":" \t"`, locM, msgM, `"data":1`, tsM), `field "hypothesisId" must not be empty`},
		{"hypothesisId too long", obj(`"hypothesisId":"`+long(129)+`"`, locM, msgM, `"data":1`, tsM), `field "hypothesisId" is 129 bytes; the limit is 128 bytes`},
		{"location object", obj(hypM, `"location":{"file":"a"}`, msgM, `"data":1`, tsM), `field "location" must be a non-empty string (the source location such as "src/cache.ts:84"), not an object`},
		{"location empty", obj(hypM, `"location":""`, msgM, `"data":1`, tsM), `field "location" must not be empty`},
		{"location too long", obj(hypM, `"location":"`+long(1025)+`"`, msgM, `"data":1`, tsM), `field "location" is 1025 bytes; the limit is 1024 bytes`},
		{"message array", obj(hypM, locM, `"message":["a"]`, `"data":1`, tsM), `field "message" must be a non-empty string (a short constant description of the observation), not an array`},
		{"message boolean", obj(hypM, locM, `"message":true`, `"data":1`, tsM), `field "message" must be a non-empty string`},
		{"message empty", obj(hypM, locM, `"message":""`, `"data":1`, tsM), `field "message" must not be empty`},
		{"message too long", obj(hypM, locM, `"message":"`+long(2049)+`"`, `"data":1`, tsM), `field "message" is 2049 bytes; the limit is 2048 bytes`},
		{"message too long decoded", obj(hypM, locM, `"message":"`+strings.Repeat(`\u00e9`, 1025)+`"`, `"data":1`, tsM), `field "message" is 2050 bytes`},

		// Timestamp.
		{"timestamp string", obj(hypM, locM, msgM, `"data":1`, `"timestamp":"1784313728231"`), `field "timestamp" must be an integer number of epoch milliseconds, e.g. 1784313728231, not a string`},
		{"timestamp null", obj(hypM, locM, msgM, `"data":1`, `"timestamp":null`), `field "timestamp" must be an integer number of epoch milliseconds, e.g. 1784313728231, not null`},
		{"timestamp float", obj(hypM, locM, msgM, `"data":1`, `"timestamp":1784313728231.5`), `without a fraction or exponent; got 1784313728231.5`},
		{"timestamp integral float", obj(hypM, locM, msgM, `"data":1`, `"timestamp":1784313728231.0`), `without a fraction or exponent`},
		{"timestamp exponent", obj(hypM, locM, msgM, `"data":1`, `"timestamp":1.784313728231e12`), `without a fraction or exponent; got 1.784313728231e12`},
		{"timestamp integer exponent", obj(hypM, locM, msgM, `"data":1`, `"timestamp":1784313728231E0`), `without a fraction or exponent`},
		{"timestamp seconds", obj(hypM, locM, msgM, `"data":1`, `"timestamp":1784313728`), `field "timestamp" must be an integer number of epoch milliseconds; 1784313728 looks like seconds`},
		{"timestamp zero", obj(hypM, locM, msgM, `"data":1`, `"timestamp":0`), `0 looks like seconds`},
		{"timestamp just below", obj(hypM, locM, msgM, `"data":1`, `"timestamp":99999999999`), `99999999999 looks like seconds`},
		{"timestamp microseconds", obj(hypM, locM, msgM, `"data":1`, `"timestamp":1784313728231000`), `1784313728231000 looks like microseconds or nanoseconds`},
		{"timestamp just above", obj(hypM, locM, msgM, `"data":1`, `"timestamp":100000000000001`), `100000000000001 looks like microseconds or nanoseconds`},
		{"timestamp nanoseconds", obj(hypM, locM, msgM, `"data":1`, `"timestamp":1784313728231000000`), `looks like microseconds or nanoseconds`},
		{"timestamp beyond int64", obj(hypM, locM, msgM, `"data":1`, `"timestamp":123456789012345678901234567890`), `123456789012345678901234567890 looks like microseconds`},
		{"timestamp negative", obj(hypM, locM, msgM, `"data":1`, `"timestamp":-1784313728231`), `must not be negative; got -1784313728231`},
		{"timestamp negative zero", obj(hypM, locM, msgM, `"data":1`, `"timestamp":-0`), `must not be negative`},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate test name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			r, rej := Normalize([]byte(tt.line), DefaultLimits)
			if rej == nil {
				t.Fatalf("accepted: %+v", r)
			}
			if !strings.Contains(rej.Reason, tt.reason) {
				t.Errorf("reason = %q\nwant it to contain %q", rej.Reason, tt.reason)
			}
			checkExcerpt(t, rej.Excerpt)
		})
	}
}

func checkExcerpt(t *testing.T, e string) {
	t.Helper()
	if !utf8.ValidString(e) {
		t.Errorf("excerpt is not valid UTF-8: %q", e)
	}
	if len(e) > 220 {
		t.Errorf("excerpt is %d bytes", len(e))
	}
}

func TestRejectionExcerpt(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	tests := []struct {
		name, line string
		want       string   // must be in the excerpt
		hidden     []string // must not be
	}{
		{"short line verbatim", `{"a":1}`, `{"a":1}`, nil},
		{"secret value redacted", obj(`"message":"key ghp_abcdefghijklmnopqrstuvwxyz0123456789"`, `"timestamp":"x"`),
			"[REDACTED:github-token]", []string{"ghp_abc"}},
		{"secret key redacted", `{"data":{"password":"hunter2"},"timestamp":1}`, `"password":"[REDACTED:secret-field]"`, []string{"hunter2"}},
		{"secret across the cut", `{"message":"` + strings.Repeat("x", 180) + ` ` + jwt + `"}`, "[REDAC", []string{"eyJhbGci", "eyJ"}},
		{"long line cut", `{"message":"` + strings.Repeat("é", 500) + `"}`, "…", nil},
		{"invalid UTF-8 replaced", "{\"a\":\"\xff\xfe\"}", "\uFFFD", []string{"\xff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rej := Normalize([]byte(tt.line), DefaultLimits)
			if rej == nil {
				t.Fatal("accepted")
			}
			checkExcerpt(t, rej.Excerpt)
			if !strings.Contains(rej.Excerpt, tt.want) {
				t.Errorf("excerpt %q lacks %q", rej.Excerpt, tt.want)
			}
			for _, h := range tt.hidden {
				if strings.Contains(rej.Excerpt, h) {
					t.Errorf("excerpt %q shows %q", rej.Excerpt, h)
				}
			}
		})
	}
}

func TestNormalizeZeroLimitsMeanDefaults(t *testing.T) {
	if _, rej := Normalize([]byte(rec(`{"a":[1,2]}`)), Limits{}); rej != nil {
		t.Fatalf("zero Limits rejected a valid record: %s", rej.Reason)
	}
	_, rej := Normalize([]byte(rec(nested(4))), Limits{MaxDepth: 3})
	if rej == nil || !strings.Contains(rej.Reason, "deeper than 3 levels") {
		t.Fatalf("custom depth limit not applied: %+v", rej)
	}
}

func TestNormalizeDoesNotAliasInput(t *testing.T) {
	line := []byte(rec(`{"k":"v"}`))
	r, rej := Normalize(line, DefaultLimits)
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	for i := range line {
		line[i] = 'X'
	}
	if string(r.Data) != `{"k":"v"}` || r.Message != "Cache lookup completed" {
		t.Fatalf("record changed with its input: %q %q", r.Data, r.Message)
	}
}
