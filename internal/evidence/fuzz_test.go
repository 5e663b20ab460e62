package evidence

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// tightLimits make the fuzzer reach every limit with short inputs.
var tightLimits = Limits{MaxRecordBytes: 512, MaxDepth: 4, MaxStringBytes: 64, MaxLabelBytes: 8, MaxLocationBytes: 16, MaxMessageBytes: 32}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		typicalRecord, secretRecord, rec(`null`), rec(nested(5)), rec(`"\u00e9\ud83d\ude00"`),
		obj(`"sessionId":"s"`, hypM, locM, msgM, `"data":[{"api_key":{"a":1}},"`+ghToken+`"]`, tsM),
		obj(`"hypothesisId":"H\u0031"`, `"location":"a:1"`, `"message":"Basic dXNlcjpwYXNzd29yZA=="`, `"data":{"p\u0061ss":"x"}`, tsM),
		rec(`{"u":"postgres:\/\/bob:pw@db\/app"}`) + "\r", rec(`1`) + " x", `[]`, `{"timestamp":1.5}`, "{\"a\":\"\xff\"}",
		rec(`{"` + ghToken + `":1,"` + ghToken + ` ":{"db_pass":"x"},"log":"password: y"}`),
		obj(`"`+ghToken+`":1`, hypM, locM, msgM, `"data":["\u0041KIAIOSFODNN7EXAMPLE","`+awsSecret+`"]`, tsM),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, lim := range []Limits{DefaultLimits, tightLimits} {
			checkNormalize(t, line, lim)
		}
	})
}

func checkNormalize(t *testing.T, line []byte, lim Limits) {
	orig := bytes.Clone(line)
	r, rej := Normalize(line, lim)
	if !bytes.Equal(line, orig) {
		t.Fatal("Normalize modified its input")
	}
	// NormalizeBrief decides exactly as Normalize does.
	if br, brej := NormalizeBrief(line, lim); (brej != nil) != (rej != nil) || rej == nil && !reflect.DeepEqual(br, r) || brej != nil && brej != Refused {
		t.Fatalf("NormalizeBrief gave %+v %v, Normalize %+v %v", br, brej, r, rej)
	}
	if rej != nil {
		if rej.Reason == "" {
			t.Fatal("empty reason")
		}
		if !utf8.ValidString(rej.Excerpt) || len(rej.Excerpt) > 220 {
			t.Fatalf("bad excerpt %q", rej.Excerpt)
		}
		return
	}

	// The prefilter must never change the outcome.
	forced, frej := normalize(line, lim, true, false)
	if frej != nil || !reflect.DeepEqual(r, forced) {
		t.Fatalf("prefilter changed the result:\n%+v\n%+v", r, forced)
	}

	for _, s := range []struct {
		v   string
		max int
	}{{r.HypothesisID, lim.MaxLabelBytes}, {r.Location, lim.MaxLocationBytes}, {r.Message, lim.MaxMessageBytes}} {
		// Redaction may grow a string past its limit; only the source is bounded.
		if s.v == "" || !utf8.ValidString(s.v) || len(s.v) > s.max && !strings.Contains(s.v, "[REDACTED") {
			t.Fatalf("bad text field %q", s.v)
		}
	}
	if r.Timestamp < minTimestampMillis || r.Timestamp > maxTimestampMillis {
		t.Fatalf("timestamp %d out of range", r.Timestamp)
	}
	if !json.Valid(r.Data) {
		t.Fatalf("data is not valid JSON: %q", r.Data)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, r.Data); err != nil || !bytes.Equal(compact.Bytes(), r.Data) {
		t.Fatalf("data is not compact: %q", r.Data)
	}
	checkSecretKeysRedacted(t, r.Data)

	out := AppendStored(nil, "evt_1", 1, 2, &r)
	if !json.Valid(out) || bytes.IndexByte(out, '\n') != len(out)-1 {
		t.Fatalf("stored line is not one JSON line: %q", out)
	}
	var ev StoredEvent
	if err := json.Unmarshal(out, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.ID != "evt_1" || ev.Sequence != 1 || ev.ReceivedAt != 2 || ev.HypothesisID != r.HypothesisID ||
		ev.Location != r.Location || ev.Message != r.Message || ev.Timestamp != r.Timestamp || !bytes.Equal(ev.Data, r.Data) {
		t.Fatalf("round trip differs:\n%+v\n%+v", ev, r)
	}
}

// checkSecretKeysRedacted walks data and fails if a secret-looking name holds
// anything but "[REDACTED]", a boolean or null.
func checkSecretKeysRedacted(t *testing.T, data []byte) {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if tok.Kind() != '"' {
			continue
		}
		if kind, length := dec.StackIndex(dec.StackDepth()); kind != '{' || length%2 == 0 {
			continue // not an object name
		}
		name := tok.String() // the token is only valid until the next read
		if !isSecretKey(name) {
			continue
		}
		switch dec.PeekKind() {
		case 't', 'f', 'n':
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		if string(v) != `"[REDACTED]"` {
			t.Fatalf("secret key %q kept %s in %s", name, v, data)
		}
	}
}

func FuzzRedactText(f *testing.F) {
	for _, s := range []string{
		"", "plain text", awsKey, awsTempKey, ghToken, ghPAT, slackToken, stripeLive, stripeRest, stripeTest, googleKey,
		openaiKey, jwtToken, pemKey, "Bearer abc123def456ghi", "Basic dXNlcjpwYXNzd29yZA==",
		"postgres://bob:s3cret@db:5432/app", `{"password":"x","pin":1}`, "a?token=abc&b=1", typicalRecord, secretRecord,
		pgpKey, "user: bob\npassword: correct horse\n", "Authorization: Bearer x y", `PASSWORD="a b"`, `{\"token\":\"v\"}`,
		"KEY_" + awsKey + " " + awsSecret, awsKey + ` "` + strings.ReplaceAll(awsSecret, "/", `\/`) + `"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, n := RedactText(s)
		all, m := redactAll(s)
		if out != all || n != m {
			t.Fatalf("prefilter changed the result for %q: %q (%d) vs %q (%d)", s, out, n, all, m)
		}
		if n == 0 && out != s {
			t.Fatalf("changed %q to %q without counting", s, out)
		}
		if n > 0 && !strings.Contains(out, "[REDACTED:") {
			t.Fatalf("counted %d but no marker in %q", n, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("made %q invalid UTF-8: %q", s, out)
		}
	})
}
