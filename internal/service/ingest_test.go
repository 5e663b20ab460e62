package service

// These tests pin down the promise that both ways a probe can deliver
// evidence — an HTTP POST to the Ingest URL and a line appended to the
// Append Path — go through one pipeline: the same record is accepted,
// refused, redacted and numbered the same way whichever transport carried it.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Building records.

const goodTS = "1784313728231"

// rec builds one NDJSON record line (without "\n") from a valid default,
// overridden by key/raw-JSON pairs. A value of "-" removes the field; keys
// not in the default are appended in the order given.
func rec(overrides ...string) string {
	keys := []string{"hypothesisId", "location", "message", "data", "timestamp"}
	vals := map[string]string{
		"hypothesisId": `"H1"`, "location": `"app.go:12"`, "message": `"probe"`,
		"data": `{"n":1}`, "timestamp": goodTS,
	}
	for i := 0; i+1 < len(overrides); i += 2 {
		k, v := overrides[i], overrides[i+1]
		if _, ok := vals[k]; !ok && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for _, k := range keys {
		v := vals[k]
		if v == "-" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&b, "%q:%s", k, v)
	}
	b.WriteByte('}')
	return b.String()
}

// withData is a record whose data is the given raw JSON.
func withData(raw string) string { return rec("data", raw) }

// ndjson joins records into an NDJSON body, each line ending in "\n".
func ndjson(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// dataForSize is a data value that makes withData exactly n bytes long
// (n > ~16 KiB), built from strings below the 16 KiB string limit.
func dataForSize(n int) string {
	chunk := strings.Repeat("x", 16000)
	parts := []string{}
	data := func() string { return `["` + strings.Join(parts, `","`) + `"]` }
	for len(withData(data())) < n {
		parts = append(parts, chunk)
	}
	excess := len(withData(data())) - n
	last := len(parts) - 1
	parts[last] = parts[last][:len(parts[last])-excess]
	if got := len(withData(data())); got != n {
		panic(fmt.Sprintf("dataForSize(%d) built %d bytes", n, got))
	}
	return data()
}

// nestedData is a record whose data is depth nested arrays; the record
// itself is level 1, so its nesting depth is depth+1.
func nestedData(depth int) string {
	return withData(strings.Repeat("[", depth) + strings.Repeat("]", depth))
}

// What a case expects.

type wantDiag struct {
	level  string // "rejected" or "warning"
	line   int    // 1-based line of the body the diagnostic points at
	reason string // substring of the reason
}

func rejectedAt(line int, reason string) wantDiag { return wantDiag{"rejected", line, reason} }
func warningAt(line int, reason string) wantDiag  { return wantDiag{"warning", line, reason} }

type ingestCase struct {
	name     string
	body     string
	stored   []string // data of each stored event, compact JSON, in order
	message  string   // message of every stored event; "" means the default "probe"
	rejected int
	diags    []wantDiag
	redacted int64 // events reported as redacted by status
}

// ingestCases run against both transports.
var ingestCases = []ingestCase{
	// Valid records.
	{name: "one valid record", body: ndjson(rec()), stored: []string{`{"n":1}`}},
	{name: "data may be any JSON value",
		body:   ndjson(withData(`null`), withData(`42`), withData(`"text"`), withData(`[1,"a"]`), withData(`true`), withData(`{}`)),
		stored: []string{`null`, `42`, `"text"`, `[1,"a"]`, `true`, `{}`}},
	{name: "data whitespace is compacted", body: ndjson(withData(`{ "a" : [ 1 , 2 ] }`)), stored: []string{`{"a":[1,2]}`}},
	{name: "field order does not matter",
		body:   ndjson(`{"timestamp":` + goodTS + `,"data":{"n":1},"message":"probe","location":"app.go:12","hypothesisId":"H1"}`),
		stored: []string{`{"n":1}`}},
	{name: "CRLF line endings", body: strings.ReplaceAll(ndjson(withData(`1`), withData(`2`)), "\n", "\r\n"),
		stored: []string{`1`, `2`}},
	{name: "blank lines are skipped", body: "\n" + rec() + "\n \t\n\r\n" + withData(`2`) + "\n\n",
		stored: []string{`{"n":1}`, `2`}},
	{name: "line numbers count blank lines", body: "\n\n" + rec("timestamp", "-") + "\n",
		rejected: 1, diags: []wantDiag{rejectedAt(3, `missing field "timestamp"`)}},
	{name: "a bad line between two good ones", body: ndjson(withData(`1`), `{"oops"`, withData(`2`)),
		stored: []string{`1`, `2`}, rejected: 1, diags: []wantDiag{rejectedAt(2, "ends before its JSON object is complete")}},

	// Every required field, missing.
	{name: "missing hypothesisId", body: ndjson(rec("hypothesisId", "-")), rejected: 1, diags: []wantDiag{rejectedAt(1, `missing field "hypothesisId"`)}},
	{name: "missing location", body: ndjson(rec("location", "-")), rejected: 1, diags: []wantDiag{rejectedAt(1, `missing field "location"`)}},
	{name: "missing message", body: ndjson(rec("message", "-")), rejected: 1, diags: []wantDiag{rejectedAt(1, `missing field "message"`)}},
	{name: "missing data", body: ndjson(rec("data", "-")), rejected: 1, diags: []wantDiag{rejectedAt(1, `missing field "data"`)}},
	{name: "missing timestamp", body: ndjson(rec("timestamp", "-")), rejected: 1, diags: []wantDiag{rejectedAt(1, `missing field "timestamp"`)}},
	{name: "field names are case-sensitive", body: ndjson(rec("hypothesisId", "-", "hypothesisID", `"H1"`)),
		rejected: 1, diags: []wantDiag{rejectedAt(1, `found "hypothesisID"`)}},
	{name: "an empty object", body: ndjson(`{}`), rejected: 1, diags: []wantDiag{rejectedAt(1, `missing field "hypothesisId"`)}},

	// Every field, wrong type.
	{name: "hypothesisId a number", body: ndjson(rec("hypothesisId", `1`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "hypothesisId" must be a non-empty string`)}},
	{name: "hypothesisId null", body: ndjson(rec("hypothesisId", `null`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "hypothesisId" must be a non-empty string`)}},
	{name: "location an object", body: ndjson(rec("location", `{"file":"a.go"}`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "location" must be a non-empty string`)}},
	{name: "location a number", body: ndjson(rec("location", `12`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "location" must be a non-empty string`)}},
	{name: "message an array", body: ndjson(rec("message", `["a"]`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "message" must be a non-empty string`)}},
	{name: "message a boolean", body: ndjson(rec("message", `true`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "message" must be a non-empty string`)}},
	{name: "timestamp a string", body: ndjson(rec("timestamp", `"`+goodTS+`"`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "timestamp" must be an integer number of epoch milliseconds`)}},
	{name: "timestamp null", body: ndjson(rec("timestamp", `null`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "timestamp" must be an integer number of epoch milliseconds`)}},
	{name: "timestamp an object", body: ndjson(rec("timestamp", `{"ms":1}`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "timestamp" must be an integer number of epoch milliseconds`)}},

	// Empty strings.
	{name: "hypothesisId empty", body: ndjson(rec("hypothesisId", `""`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "hypothesisId" must not be empty`)}},
	{name: "hypothesisId blank", body: ndjson(rec("hypothesisId", `"  "`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "hypothesisId" must not be empty`)}},
	{name: "location empty", body: ndjson(rec("location", `""`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "location" must not be empty`)}},
	{name: "message empty", body: ndjson(rec("message", `""`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "message" must not be empty`)}},

	// Timestamps in the wrong unit or shape.
	{name: "timestamp float", body: ndjson(rec("timestamp", goodTS+`.5`)), rejected: 1, diags: []wantDiag{rejectedAt(1, "without a fraction or exponent")}},
	{name: "timestamp exponent", body: ndjson(rec("timestamp", `1.784313728231e12`)), rejected: 1, diags: []wantDiag{rejectedAt(1, "without a fraction or exponent")}},
	{name: "timestamp integer with exponent", body: ndjson(rec("timestamp", goodTS+`e0`)), rejected: 1, diags: []wantDiag{rejectedAt(1, "without a fraction or exponent")}},
	{name: "timestamp seconds", body: ndjson(rec("timestamp", `1784313728`)), rejected: 1, diags: []wantDiag{rejectedAt(1, "looks like seconds")}},
	{name: "timestamp zero", body: ndjson(rec("timestamp", `0`)), rejected: 1, diags: []wantDiag{rejectedAt(1, "looks like seconds")}},
	{name: "timestamp negative", body: ndjson(rec("timestamp", `-`+goodTS)), rejected: 1, diags: []wantDiag{rejectedAt(1, "must not be negative")}},
	{name: "timestamp nanoseconds", body: ndjson(rec("timestamp", goodTS+`000000`)), rejected: 1, diags: []wantDiag{rejectedAt(1, "microseconds or nanoseconds")}},

	// Limits.
	{name: "hypothesisId over 128 bytes", body: ndjson(rec("hypothesisId", `"`+strings.Repeat("h", 129)+`"`)),
		rejected: 1, diags: []wantDiag{rejectedAt(1, `field "hypothesisId" is 129 bytes; the limit is 128 bytes`)}},
	{name: "location over 1 KiB", body: ndjson(rec("location", `"`+strings.Repeat("l", 1025)+`"`)),
		rejected: 1, diags: []wantDiag{rejectedAt(1, `field "location" is 1025 bytes; the limit is 1024 bytes`)}},
	{name: "message over 2 KiB", body: ndjson(rec("message", `"`+strings.Repeat("m", 2049)+`"`)),
		rejected: 1, diags: []wantDiag{rejectedAt(1, `field "message" is 2049 bytes; the limit is 2048 bytes`)}},
	{name: "string of exactly 16 KiB", body: ndjson(withData(`"` + strings.Repeat("s", 16<<10) + `"`)),
		stored: []string{`"` + strings.Repeat("s", 16<<10) + `"`}},
	{name: "string over 16 KiB", body: ndjson(withData(`"` + strings.Repeat("s", 16<<10+1) + `"`)),
		rejected: 1, diags: []wantDiag{rejectedAt(1, "the limit is 16384 bytes")}},
	{name: "object name over 16 KiB", body: ndjson(withData(`{"` + strings.Repeat("k", 16<<10+1) + `":1}`)),
		rejected: 1, diags: []wantDiag{rejectedAt(1, "the limit is 16384 bytes")}},
	{name: "nesting depth 32", body: ndjson(nestedData(31)), stored: []string{strings.Repeat("[", 31) + strings.Repeat("]", 31)}},
	{name: "nesting depth 33", body: ndjson(nestedData(32)), rejected: 1, diags: []wantDiag{rejectedAt(1, "nests deeper than 32 levels")}},
	{name: "nesting depth 33 in a dropped field", body: ndjson(rec("extra", strings.Repeat("{\"a\":", 32)+"1"+strings.Repeat("}", 32))),
		rejected: 1, diags: []wantDiag{rejectedAt(1, "nests deeper than 32 levels")}},
	{name: "record of exactly 64 KiB", body: ndjson(withData(dataForSize(64 << 10))), stored: []string{dataForSize(64 << 10)}},
	{name: "record of exactly 64 KiB ending in CRLF", body: withData(dataForSize(64<<10)) + "\r\n", stored: []string{dataForSize(64 << 10)}},
	{name: "record over 64 KiB, then a good one", body: ndjson(withData(dataForSize(64<<10+1)), withData(`2`)),
		stored: []string{`2`}, rejected: 1, diags: []wantDiag{rejectedAt(1, "65536 bytes")}},
	{name: "huge record", body: ndjson(withData(`"` + strings.Repeat("z", 200<<10) + `"`)),
		rejected: 1, diags: []wantDiag{rejectedAt(1, "65536 bytes")}},

	// Lines that are not one JSON object.
	{name: "invalid UTF-8 in a string", body: ndjson(rec("message", "\"caf\xe9\"")), rejected: 1, diags: []wantDiag{rejectedAt(1, "not valid UTF-8")}},
	{name: "invalid UTF-8 in data", body: ndjson(withData("{\"k\":\"\xff\xfe\"}")), rejected: 1, diags: []wantDiag{rejectedAt(1, "not valid UTF-8")}},
	{name: "an array line", body: ndjson(`[1,2]`), rejected: 1, diags: []wantDiag{rejectedAt(1, "one JSON object per line")}},
	{name: "a number line", body: ndjson(`42`), rejected: 1, diags: []wantDiag{rejectedAt(1, "one JSON object per line")}},
	{name: "a string line", body: ndjson(`"hello"`), rejected: 1, diags: []wantDiag{rejectedAt(1, "one JSON object per line")}},
	{name: "a null line", body: ndjson(`null`), rejected: 1, diags: []wantDiag{rejectedAt(1, "one JSON object per line")}},
	{name: "plain text", body: ndjson(`GET /index.html 200`), rejected: 1, diags: []wantDiag{rejectedAt(1, "one JSON object per line")}},
	{name: "trailing garbage", body: ndjson(rec() + ` x`), rejected: 1, diags: []wantDiag{rejectedAt(1, "extra text after its JSON object")}},
	{name: "two objects on one line", body: ndjson(rec() + rec()), rejected: 1, diags: []wantDiag{rejectedAt(1, "extra text after its JSON object")}},
	{name: "truncated record", body: ndjson(`{"hypothesisId":"H1","location"`), rejected: 1, diags: []wantDiag{rejectedAt(1, "ends before its JSON object is complete")}},
	{name: "duplicate field", body: ndjson(rec("hypothesisId", `"H1","hypothesisId":"H2"`)), rejected: 1, diags: []wantDiag{rejectedAt(1, `field "hypothesisId" appears more than once`)}},
	{name: "every line refused is reported", body: ndjson(`1`, `2`, `3`), rejected: 3,
		diags: []wantDiag{rejectedAt(1, "one JSON object"), rejectedAt(2, "one JSON object"), rejectedAt(3, "one JSON object")}},

	// Fields that name the session or run are accepted, not stored, reported once.
	{name: "sessionId in the body", body: ndjson(rec("sessionId", `"707225a6-8e0f-4db4-b64b-e261bd6a861a"`)),
		stored: []string{`{"n":1}`}, diags: []wantDiag{warningAt(1, `field "sessionId" is not part of the event`)}},
	{name: "runId in the body", body: ndjson(rec("runId", `"run-1"`)),
		stored: []string{`{"n":1}`}, diags: []wantDiag{warningAt(1, `field "runId" is not part of the event`)}},
	{name: "schemaVersion in the body", body: ndjson(rec("schemaVersion", `1`)),
		stored: []string{`{"n":1}`}, diags: []wantDiag{warningAt(1, `field "schemaVersion" is not part of the event`)}},
	{name: "a dropped field is reported once", body: ndjson(rec("runId", `"a"`), rec("runId", `"b"`), rec("runId", `"c"`)),
		stored: []string{`{"n":1}`, `{"n":1}`, `{"n":1}`}, diags: []wantDiag{warningAt(1, `field "runId"`)}},

	// Redaction: secret-looking keys.
	{name: "secret keys at the top of data",
		body:     ndjson(withData(`{"password":"hunter2","api_key":"k-123","Authorization":"Basic dTpw","sessionToken":42,"user":"ann"}`)),
		stored:   []string{`{"password":"[REDACTED]","api_key":"[REDACTED]","Authorization":"[REDACTED]","sessionToken":"[REDACTED]","user":"ann"}`},
		redacted: 1},
	{name: "secret keys in nested objects",
		body:     ndjson(withData(`{"db":{"host":"db1","conn":{"passwd":"x","port":5432}}}`)),
		stored:   []string{`{"db":{"host":"db1","conn":{"passwd":"[REDACTED]","port":5432}}}`},
		redacted: 1},
	{name: "a secret key hides a whole object",
		body:     ndjson(withData(`{"credentials":{"user":"u","pass":"p"},"ok":1}`)),
		stored:   []string{`{"credentials":"[REDACTED]","ok":1}`},
		redacted: 1},
	{name: "secret keys inside arrays",
		body:     ndjson(withData(`{"users":[{"name":"a","token":"t1"},{"name":"b","token":"t2"}]}`)),
		stored:   []string{`{"users":[{"name":"a","token":"[REDACTED]"},{"name":"b","token":"[REDACTED]"}]}`},
		redacted: 1},
	{name: "an escaped secret key",
		body:     ndjson(withData(`{"pass\u0077ord":"x"}`)),
		stored:   []string{`{"pass\u0077ord":"[REDACTED]"}`},
		redacted: 1},
	{name: "flags under secret-looking keys stay visible",
		body:   ndjson(withData(`{"tokenExpired":true,"password":null,"hasSecret":false}`)),
		stored: []string{`{"tokenExpired":true,"password":null,"hasSecret":false}`}},
	{name: "author and similar words are not secrets",
		body:   ndjson(withData(`{"author":"Ann","authority":"x","spinner":"on","keyboard":"us"}`)),
		stored: []string{`{"author":"Ann","authority":"x","spinner":"on","keyboard":"us"}`}},

	// Redaction: secret-shaped values anywhere.
	{name: "AWS access key", body: ndjson(withData(`{"v":"AKIAIOSFODNN7EXAMPLE"}`)),
		stored: []string{`{"v":"[REDACTED:aws-key]"}`}, redacted: 1},
	{name: "GitHub token", body: ndjson(withData(`["ghp_1234567890abcdefghijABCDEFGHIJ123456"]`)),
		stored: []string{`["[REDACTED:github-token]"]`}, redacted: 1},
	{name: "JWT", body: ndjson(withData(`{"h":"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}`)),
		stored: []string{`{"h":"[REDACTED:jwt]"}`}, redacted: 1},
	{name: "PEM private key", body: ndjson(withData(`{"pem":"-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----\n"}`)),
		stored: []string{`{"pem":"[REDACTED:private-key]\n"}`}, redacted: 1},
	{name: "credentials in a URL", body: ndjson(withData(`{"dsn":"postgres://app:s3cret@db.internal:5432/orders"}`)),
		stored: []string{`{"dsn":"postgres://app:[REDACTED:url-password]@db.internal:5432/orders"}`}, redacted: 1},
	{name: "a URL without credentials is kept", body: ndjson(withData(`{"u":"https://example.com/a?b=c"}`)),
		stored: []string{`{"u":"https://example.com/a?b=c"}`}},
	{name: "secret in the message", body: ndjson(rec("message", `"using key AKIAIOSFODNN7EXAMPLE"`)),
		stored: []string{`{"n":1}`}, message: "using key [REDACTED:aws-key]", redacted: 1},
	{name: "redacted events are counted, not redactions",
		body:     ndjson(withData(`{"password":"a","token":"b"}`), withData(`{"n":2}`), withData(`"AKIAIOSFODNN7EXAMPLE"`)),
		stored:   []string{`{"password":"[REDACTED]","token":"[REDACTED]"}`, `{"n":2}`, `"[REDACTED:aws-key]"`},
		redacted: 2},
	{name: "a refused line's excerpt does not count as redaction",
		body: ndjson(`{"password":"hunter2"`), rejected: 1, diags: []wantDiag{rejectedAt(1, "ends before")}},
}

// Transports.

// transport delivers a body to a session and returns what the service says
// about it afterwards. For HTTP it also returns the ingest answer.
type transport struct {
	name    string
	deliver func(t *testing.T, ts *testServer, info SessionInfo, body string) *IngestResult
}

var transports = []transport{
	{"http", func(t *testing.T, ts *testServer, info SessionInfo, body string) *IngestResult {
		code, res := ingest(t, info.IngestURL, "application/x-ndjson", []byte(body))
		if code != http.StatusOK {
			t.Fatalf("POST answered %d %+v, want 200", code, res)
		}
		return &res
	}},
	{"file", func(t *testing.T, ts *testServer, info SessionInfo, body string) *IngestResult {
		appendSpool(t, info.AppendPath, body)
		return nil
	}},
}

func appendSpool(t *testing.T, path, b string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b); err != nil {
		t.Fatal(err)
	}
}

// position is how a diagnostic names line n of body for a transport.
func ingestPosition(transport, body string, n int) string {
	if transport == "http" {
		return fmt.Sprintf("line %d of an HTTP request", n)
	}
	off := 0
	for range n - 1 {
		off += strings.IndexByte(body[off:], '\n') + 1
	}
	return fmt.Sprintf("append path line %d (byte %d)", n, off)
}

// storedEvent is one line of a session's evidence file.
type storedEvent struct {
	ID           string          `json:"id"`
	Sequence     int64           `json:"sequence"`
	ReceivedAt   int64           `json:"receivedAt"`
	HypothesisID string          `json:"hypothesisId"`
	Location     string          `json:"location"`
	Message      string          `json:"message"`
	Data         json.RawMessage `json:"data"`
	Timestamp    int64           `json:"timestamp"`
}

var storedFields = []string{"data", "hypothesisId", "id", "location", "message", "receivedAt", "sequence", "timestamp"}

// events reads a session's evidence file and checks what every stored event
// promises: exactly the event fields, a unique id, a gapless sequence from 1
// and the service's receive time.
func (ts *testServer) storedEvents(t *testing.T, id string) []storedEvent {
	t.Helper()
	return readEvents(t, ts.Root, id, ts.Clock.Now().UnixMilli())
}

func readEvents(t *testing.T, root *safefs.Root, id string, receivedAt int64) []storedEvent {
	t.Helper()
	b, err := root.ReadFile("sessions/" + id + "/events.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var out []storedEvent
	ids := map[string]bool{}
	for line := range bytes.Lines(b) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			t.Fatalf("stored evidence ends in a torn line %q", line)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(line, &fields); err != nil {
			t.Fatalf("stored line is not one JSON object: %v: %q", err, line)
		}
		if got := slices.Sorted(maps.Keys(fields)); !slices.Equal(got, storedFields) {
			t.Errorf("stored event has fields %v, want exactly %v (a field not in the schema must never be stored)", got, storedFields)
		}
		var e storedEvent
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("stored line %q: %v", line, err)
		}
		if want := int64(len(out) + 1); e.Sequence != want {
			t.Fatalf("stored event %d has sequence %d; sequences must be gapless from 1", want, e.Sequence)
		}
		if !strings.HasPrefix(e.ID, "evt_") || ids[e.ID] {
			t.Errorf("event %d has id %q; ids must be present and unique", e.Sequence, e.ID)
		}
		ids[e.ID] = true
		if e.ReceivedAt != receivedAt {
			t.Errorf("event %d receivedAt = %d, want the service clock %d", e.Sequence, e.ReceivedAt, receivedAt)
		}
		out = append(out, e)
	}
	return out
}

// TestIngestPipeline runs every case through both transports: a record must
// get the same verdict, diagnostics and stored form whichever way it came.
func TestIngestPipeline(t *testing.T) {
	ts := startServer(t, Config{})
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			for _, c := range ingestCases {
				t.Run(c.name, func(t *testing.T) {
					info := ts.create(t)
					res := tr.deliver(t, ts, info, c.body)
					st := ts.status(t, info.SessionID)
					checkIngest(t, ts, tr.name, info, c, res, st)
				})
			}
		})
	}
}

func checkIngest(t *testing.T, ts *testServer, source string, info SessionInfo, c ingestCase, res *IngestResult, st StatusInfo) {
	t.Helper()
	if res != nil && (res.Accepted != len(c.stored) || res.Rejected != c.rejected) {
		t.Errorf("HTTP answer says accepted %d, rejected %d; want %d, %d (the sender relies on these counts)",
			res.Accepted, res.Rejected, len(c.stored), c.rejected)
	}
	if st.Events != int64(len(c.stored)) {
		t.Errorf("status counts %d events, want %d", st.Events, len(c.stored))
	}
	if st.Rejected != int64(c.rejected) {
		t.Errorf("status counts %d rejected records, want %d", st.Rejected, c.rejected)
	}
	if st.RedactedEvents != c.redacted {
		t.Errorf("status counts %d redacted events, want %d (redaction must be reported, never silent)", st.RedactedEvents, c.redacted)
	}
	if st.PendingBytes != 0 {
		t.Errorf("status reports %d incomplete bytes after complete lines", st.PendingBytes)
	}
	var warnings int64
	for _, d := range c.diags {
		if d.level == "warning" {
			warnings++
		}
	}
	if st.Warnings != warnings {
		t.Errorf("status counts %d warnings, want %d", st.Warnings, warnings)
	}

	if len(st.Diagnostics) != len(c.diags) {
		t.Errorf("got %d diagnostics, want %d:\n%s", len(st.Diagnostics), len(c.diags), diagText(st.Diagnostics))
	}
	for i := range min(len(st.Diagnostics), len(c.diags)) {
		got, want := st.Diagnostics[i], c.diags[i]
		if got.Level != want.level || got.Source != source || !strings.Contains(got.Reason, want.reason) {
			t.Errorf("diagnostic %d = %s %s %q; want %s %s with reason containing %q (the agent must learn which transport, and why)",
				i, got.Source, got.Level, got.Reason, source, want.level, want.reason)
		}
		if wantPos := ingestPosition(source, c.body, want.line); got.Position != wantPos {
			t.Errorf("diagnostic %d position = %q, want %q (the agent must find the line)", i, got.Position, wantPos)
		}
		if len(got.Excerpt) > 400 {
			t.Errorf("diagnostic %d excerpt is %d bytes; excerpts must stay short", i, len(got.Excerpt))
		}
		if strings.Contains(got.Excerpt, "hunter2") {
			t.Errorf("diagnostic %d excerpt leaks a secret: %q", i, got.Excerpt)
		}
	}

	evs := ts.storedEvents(t, info.SessionID)
	if len(evs) != len(c.stored) {
		t.Fatalf("stored %d events, want %d", len(evs), len(c.stored))
	}
	wantMsg := cmp.Or(c.message, "probe")
	for i, e := range evs {
		if string(e.Data) != c.stored[i] {
			t.Errorf("event %d data = %s, want %s", i+1, shortText(string(e.Data)), shortText(c.stored[i]))
		}
		if e.Message != wantMsg || e.HypothesisID != "H1" || e.Location != "app.go:12" || fmt.Sprint(e.Timestamp) != goodTS {
			t.Errorf("event %d = %q %q %q %d; want the sent fields (message %q)", i+1, e.HypothesisID, e.Location, e.Message, e.Timestamp, wantMsg)
		}
	}
}

func diagText(ds []store.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s %s %s: %s\n", d.Source, d.Level, d.Position, d.Reason)
	}
	return b.String()
}

func shortText(s string) string {
	if len(s) > 120 {
		return s[:120] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

// TestIngestHTTPOnly covers what only the HTTP transport has: a status
// code, an answer with counts, and a Content-Type gate.
func TestIngestHTTPOnly(t *testing.T) {
	ts := startServer(t, Config{})
	cases := []struct {
		name, contentType, body string
		code                    int
		accepted, rejected      int
		diag                    string // reason of the one diagnostic expected, if any
	}{
		{name: "empty body", contentType: "application/x-ndjson", body: "", code: 400, diag: "empty request body"},
		{name: "only blank lines", contentType: "application/x-ndjson", body: "\n \r\n\t\n", code: 400, diag: "empty request body"},
		{name: "application/json", contentType: "application/json", body: rec(), code: 200, accepted: 1},
		{name: "content type with charset", contentType: "application/json; charset=utf-8", body: ndjson(rec()), code: 200, accepted: 1},
		{name: "last line without newline", contentType: "application/x-ndjson", body: ndjson(rec()) + withData(`2`), code: 200, accepted: 2},
		{name: "answer counts both", contentType: "application/x-ndjson", body: ndjson(rec(), `nope`, rec(), `[]`), code: 200, accepted: 2, rejected: 2},
		// A browser may send these without a CORS preflight, so they are refused.
		{name: "text/plain refused", contentType: "text/plain", body: ndjson(rec()), code: 415},
		{name: "form refused", contentType: "application/x-www-form-urlencoded", body: ndjson(rec()), code: 415},
		{name: "no content type refused", contentType: "", body: ndjson(rec()), code: 415},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info := ts.create(t)
			code, res := ingest(t, info.IngestURL, c.contentType, []byte(c.body))
			if code != c.code {
				t.Fatalf("POST answered %d %+v, want %d", code, res, c.code)
			}
			if res.Accepted != c.accepted || res.Rejected != c.rejected {
				t.Errorf("answer says accepted %d, rejected %d; want %d, %d", res.Accepted, res.Rejected, c.accepted, c.rejected)
			}
			if code != 200 && res.Error == "" {
				t.Errorf("a refused request must say why in its answer")
			}
			st := ts.status(t, info.SessionID)
			if st.Events != int64(c.accepted) || len(ts.storedEvents(t, info.SessionID)) != c.accepted {
				t.Errorf("status counts %d events, want %d", st.Events, c.accepted)
			}
			if c.diag == "" {
				return
			}
			if len(st.Diagnostics) != 1 {
				t.Fatalf("got diagnostics:\n%s\nwant one saying %q (a probe whose requests are refused must be visible to the agent)", diagText(st.Diagnostics), c.diag)
			}
			if d := st.Diagnostics[0]; d.Source != store.SourceHTTP || d.Level != "rejected" || !strings.Contains(d.Reason, c.diag) {
				t.Errorf("diagnostic = %s %s %q, want http rejected %q", d.Source, d.Level, d.Reason, c.diag)
			}
		})
	}
}

// TestFilePartialLineWaits: a line still being written is neither refused
// nor stored; it is reported as incomplete, and stored once its newline
// arrives.
func TestFilePartialLineWaits(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	second := withData(`2`)
	appendSpool(t, info.AppendPath, ndjson(rec())+second[:20])
	time.Sleep(50 * time.Millisecond) // let the background poller look at it too

	st := ts.status(t, info.SessionID)
	if st.Events != 1 || st.Rejected != 0 || len(st.Diagnostics) != 0 {
		t.Fatalf("with a partial last line: %d events, %d rejected, diagnostics:\n%s\nwant 1 event and no diagnostic", st.Events, st.Rejected, diagText(st.Diagnostics))
	}
	if st.PendingBytes != 20 {
		t.Errorf("status reports %d incomplete bytes, want 20 (the agent must see that a record is still being written)", st.PendingBytes)
	}

	appendSpool(t, info.AppendPath, second[20:]+"\n")
	st = ts.status(t, info.SessionID)
	if st.Events != 2 || st.PendingBytes != 0 || st.Rejected != 0 {
		t.Fatalf("after the newline: %d events, %d incomplete bytes, %d rejected; want 2, 0, 0", st.Events, st.PendingBytes, st.Rejected)
	}
	if evs := ts.storedEvents(t, info.SessionID); string(evs[1].Data) != `2` {
		t.Errorf("completed line stored with data %s, want 2", evs[1].Data)
	}
}

// TestFileConcurrentWriters: many processes append to one append path at
// once (one write per line, O_APPEND); every line arrives exactly once and
// the sequence stays gapless, even while the service drains concurrently.
func TestFileConcurrentWriters(t *testing.T) {
	const writers, perWriter = 16, 500
	ts := startServer(t, Config{})
	info := ts.create(t)
	sess, err := ts.Store().Get(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			f, err := os.OpenFile(info.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			for n := range perWriter {
				if _, err := f.Write([]byte(withData(fmt.Sprintf(`{"w":%d,"n":%d}`, w, n)) + "\n")); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	drained := make(chan struct{})
	go func() { // reads racing the writers, as agents' status calls do
		defer close(drained)
		for i := 0; i < 50; i++ {
			sess.DrainSpool()
			time.Sleep(time.Millisecond)
		}
	}()
	wg.Wait()
	<-drained
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	st := ts.status(t, info.SessionID)
	if st.Events != writers*perWriter || st.Rejected != 0 || st.PendingBytes != 0 {
		t.Fatalf("status: %d events, %d rejected, %d incomplete bytes; want %d, 0, 0", st.Events, st.Rejected, st.PendingBytes, writers*perWriter)
	}
	seen := map[string]int{}
	for _, e := range ts.storedEvents(t, info.SessionID) { // checks the gapless sequence
		seen[string(e.Data)]++
	}
	for w := range writers {
		for n := range perWriter {
			if k := fmt.Sprintf(`{"w":%d,"n":%d}`, w, n); seen[k] != 1 {
				t.Fatalf("line %s stored %d times, want exactly once", k, seen[k])
			}
		}
	}
}

// TestFileOversizeLineBeingWritten: a runaway line is reported once, as
// soon as it passes the limit, and does not block the lines after it.
func TestFileOversizeLineBeingWritten(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	huge := withData(`"` + strings.Repeat("z", 150<<10) + `"`)
	var body strings.Builder
	write := func(s string) {
		appendSpool(t, info.AppendPath, s)
		body.WriteString(s)
	}
	check := func(stage string, events int) StatusInfo {
		t.Helper()
		st := ts.status(t, info.SessionID)
		if st.Events != int64(events) || st.Rejected != 1 || len(st.Diagnostics) != 1 {
			t.Fatalf("%s: %d events, %d rejected, diagnostics:\n%s\nwant %d events and the oversize line reported exactly once",
				stage, st.Events, st.Rejected, diagText(st.Diagnostics), events)
		}
		return st
	}

	write(ndjson(withData(`1`)))
	write(huge[:70<<10])
	st := check("70 KiB of the line written", 1)
	d := st.Diagnostics[0]
	if want := ingestPosition("file", body.String()+"\n", 2); d.Source != "file" || d.Position != want || !strings.Contains(d.Reason, "65536 bytes") {
		t.Errorf("diagnostic = %s %s %q, want file, %s, a reason naming the 65536-byte limit", d.Source, d.Position, d.Reason, want)
	}
	// The refused line is not "an incomplete record": status names it instead.
	if st.PendingBytes != 0 || st.SkippingLine != 2 {
		t.Errorf("while the oversize line is written: %d incomplete bytes, skipping line %d; want 0 and line 2", st.PendingBytes, st.SkippingLine)
	}

	write(huge[70<<10 : 120<<10])
	check("120 KiB of the line written", 1)

	write(huge[120<<10:] + "\n" + ndjson(withData(`3`), `[4]`))
	st = ts.status(t, info.SessionID)
	if st.Events != 2 || st.Rejected != 2 || len(st.Diagnostics) != 2 {
		t.Fatalf("after the line ended: %d events, %d rejected, diagnostics:\n%s\nwant the next good line stored and the bad one after it reported", st.Events, st.Rejected, diagText(st.Diagnostics))
	}
	if want := ingestPosition("file", body.String(), 4); st.Diagnostics[1].Position != want {
		t.Errorf("line after the oversize one reported at %q, want %q (line numbers must stay right)", st.Diagnostics[1].Position, want)
	}
	if evs := ts.storedEvents(t, info.SessionID); string(evs[1].Data) != `3` {
		t.Errorf("second event data = %s, want 3", evs[1].Data)
	}
	if st.SkippingLine != 0 || st.PendingBytes != 0 {
		t.Errorf("after the line ended: skipping line %d, %d incomplete bytes; want neither", st.SkippingLine, st.PendingBytes)
	}
}

// TestFileHugeLineSkippedInOneDrain: a complete line many read chunks long
// costs one drain, not one chunk per poll: the first status after it shows
// the line after it.
func TestFileHugeLineSkippedInOneDrain(t *testing.T) {
	ts := startServer(t, Config{SpoolPoll: time.Hour}) // only status drains
	info := ts.create(t)
	appendSpool(t, info.AppendPath, withData(`"`+strings.Repeat("z", 8<<20)+`"`)+"\n"+ndjson(withData(`2`)))
	st := ts.status(t, info.SessionID)
	if st.Events != 1 || st.Rejected != 1 || st.PendingBytes != 0 || st.SkippingLine != 0 {
		t.Fatalf("first status after an 8 MiB line: %d events, %d rejected, %d incomplete bytes, skipping line %d; want 1, 1, 0, 0",
			st.Events, st.Rejected, st.PendingBytes, st.SkippingLine)
	}
}

// TestSessionsAreIsolated: evidence sent to one session never shows up in
// another, whichever transport carried it and whatever the body claims.
func TestSessionsAreIsolated(t *testing.T) {
	ts := startServer(t, Config{})
	a, b := ts.create(t), ts.create(t)
	for _, s := range []struct {
		info, other SessionInfo
		name        string
	}{{a, b, "A"}, {b, a, "B"}} {
		body := ndjson(withData(`"`+s.name+`-http"`), `{"bad":"`+s.name+`-http"`,
			rec("data", `"`+s.name+`-claims-other"`, "sessionId", `"`+s.other.SessionID+`"`))
		if code, _ := ingest(t, s.info.IngestURL, "application/x-ndjson", []byte(body)); code != 200 {
			t.Fatalf("POST to %s: %d", s.name, code)
		}
		appendSpool(t, s.info.AppendPath, ndjson(withData(`"`+s.name+`-file"`), `{"bad":"`+s.name+`-file"`))
	}
	for _, s := range []struct {
		info SessionInfo
		name string
	}{{a, "A"}, {b, "B"}} {
		st := ts.status(t, s.info.SessionID)
		var got []string
		for _, e := range ts.storedEvents(t, s.info.SessionID) {
			got = append(got, string(e.Data))
		}
		want := []string{`"` + s.name + `-http"`, `"` + s.name + `-claims-other"`, `"` + s.name + `-file"`}
		if !slices.Equal(got, want) {
			t.Errorf("session %s stored %v, want only its own %v", s.name, got, want)
		}
		if st.Events != 3 || st.Rejected != 2 || st.Warnings != 1 {
			t.Errorf("session %s status: %d events, %d rejected, %d warnings; want 3, 2, 1", s.name, st.Events, st.Rejected, st.Warnings)
		}
		for _, d := range st.Diagnostics {
			if d.Excerpt != "" && !strings.Contains(d.Excerpt, s.name+"-") {
				t.Errorf("session %s shows another session's diagnostic: %+v", s.name, d)
			}
		}
	}

	// An Ingest URL for a session that does not exist creates nothing.
	ghost := "6f1f3d0e-58a4-4c8e-9d0a-3c8f3b9e2a11"
	if code, _ := ingest(t, ts.IngestURL(ghost), "application/x-ndjson", []byte(ndjson(rec()))); code != http.StatusNotFound {
		t.Errorf("POST to an unknown session answered %d, want 404", code)
	}
	if _, err := ts.Root.Stat("sessions/" + ghost); err == nil {
		t.Errorf("posting to an unknown session created it")
	}
}

// TestRecoveryFinishesInterruptedSpoolBatch: the service was killed while
// storing a batch of append-path lines. Whatever part of the batch reached
// disk, the restarted service stores every good line exactly once, keeps the
// sequence gapless, and reports each refused line at most once.
func TestRecoveryFinishesInterruptedSpoolBatch(t *testing.T) {
	// The batch interrupted: good lines 4, 6, 7, 9; refused lines 5 and 8.
	batch := []string{withData(`4`), `{"bad":5`, withData(`6`), withData(`7`), `[8]`, withData(`9`)}
	const stored = 4 // good lines in the batch
	cases := []struct {
		name        string
		events      int  // stored lines of the batch that reached disk
		torn        bool // plus half of the next one
		diagnostics bool // the batch's diagnostics reached disk too
	}{
		{name: "killed after marking the batch", events: 0},
		{name: "killed mid-write, first event torn", events: 0, torn: true},
		{name: "killed mid-write, third event torn", events: 2, torn: true},
		{name: "killed between events", events: 2},
		{name: "killed before the diagnostics", events: stored},
		{name: "killed before advancing the checkpoint", events: stored, diagnostics: true},
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			// Before the crash: three lines taken in normally.
			st1, err := store.Open(root, clock, nil)
			if err != nil {
				t.Fatal(err)
			}
			sess, err := st1.Create()
			if err != nil {
				t.Fatal(err)
			}
			id, dir := sess.ID(), root.Path()+"/sessions/"+sess.ID()+"/"
			pre := ndjson(withData(`1`), withData(`2`), withData(`3`))
			appendSpool(t, sess.AppendPath(), pre)
			if st, err := sess.Status(); err != nil || st.Events != 3 {
				t.Fatalf("before the crash: %+v, %v", st, err)
			}
			st1.Close()

			// The crash: the batch is in the append path and marked pending
			// in the checkpoint; part of its outcome is on disk.
			appendSpool(t, sess.AppendPath(), ndjson(batch...))
			eventsStart, diagStart := sizeOf(t, dir+"events.ndjson"), sizeOf(t, dir+"diagnostics.ndjson")
			from := map[string]int64{"offset": int64(len(pre)), "lines": 3}
			to := map[string]int64{"offset": int64(len(pre) + len(ndjson(batch...))), "lines": int64(3 + len(batch))}
			ck, _ := json.Marshal(map[string]any{"spool": from, "pending": map[string]any{
				"eventsStart": eventsStart, "diagStart": diagStart, "from": from, "to": to}})
			if err := root.WriteFileAtomic("sessions/"+id+"/spool.json", ck); err != nil {
				t.Fatal(err)
			}
			var written, diags []byte
			seq, offset := int64(3), len(pre)
			for i, l := range batch {
				r, rej := evidence.Normalize([]byte(l), evidence.DefaultLimits)
				if rej != nil {
					d, _ := json.Marshal(store.Diagnostic{Source: "file", Level: "rejected", Reason: rej.Reason,
						Position: fmt.Sprintf("append path line %d (byte %d)", 4+i, offset)})
					diags = append(append(diags, d...), '\n')
				} else {
					seq++
					written = evidence.AppendStored(written, fmt.Sprintf("evt_before_%d", seq), seq, now.UnixMilli(), &r)
				}
				offset += len(l) + 1
			}
			cut := 0
			for range c.events {
				cut += bytes.IndexByte(written[cut:], '\n') + 1
			}
			if c.torn {
				cut += bytes.IndexByte(written[cut:], '\n') / 2
			}
			appendSpool(t, dir+"events.ndjson", string(written[:cut]))
			if c.diagnostics {
				appendSpool(t, dir+"diagnostics.ndjson", string(diags))
			}

			// The restart.
			st2, err := store.Open(root, clock, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st2.Close()
			sess2, err := st2.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			st, err := sess2.Status()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range readEvents(t, root, id, now.UnixMilli()) { // checks the gapless sequence
				got = append(got, string(e.Data))
			}
			if want := []string{"1", "2", "3", "4", "6", "7", "9"}; !slices.Equal(got, want) {
				t.Errorf("after recovery stored data %v, want %v: every good line exactly once", got, want)
			}
			if st.Events != 7 {
				t.Errorf("status counts %d events, want 7", st.Events)
			}
			reported := map[string]int{}
			for _, d := range st.Diagnostics {
				if d.Level == "rejected" {
					reported[d.Position]++
				}
			}
			for pos, n := range reported {
				if n > 1 {
					t.Errorf("refused line at %s reported %d times", pos, n)
				}
			}
			if len(reported) != 2 || st.Rejected != 2 {
				t.Errorf("refused lines reported: %v (%d counted); want both refused lines reported once:\n%s", reported, st.Rejected, diagText(st.Diagnostics))
			}
			if c.torn && !strings.Contains(diagText(st.Diagnostics), "set aside") {
				t.Errorf("the torn record was not reported:\n%s", diagText(st.Diagnostics))
			}
		})
	}
}

func sizeOf(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
