package evidence

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const goodHeldBack = `{"agentDebugHeldBack":{"hypothesisId":"H1","location":"src/a.go:42","process":"4242-1784313728231","count":12345,"cap":10000}}`

func TestParseHeldBack(t *testing.T) {
	hb, rej, ok := ParseHeldBack([]byte(goodHeldBack+"\r"), DefaultLimits)
	if !ok || rej != nil || hb != (HeldBack{"H1", "src/a.go:42", "4242-1784313728231", 12345, 10000}) {
		t.Fatalf("%+v %+v %v", hb, rej, ok)
	}
	secret := strings.Replace(goodHeldBack, `"4242-1784313728231"`, `"ghp_abcdefghijklmnopqrstuvwxyz0123456789"`, 1)
	if hb, _, _ := ParseHeldBack([]byte(secret), DefaultLimits); hb.Process != "[REDACTED:github-token]" {
		t.Fatalf("process %q: not redacted", hb.Process)
	}
	// A file named for a secret keeps its location (a label is a name, too).
	named := strings.Replace(strings.Replace(goodHeldBack, `"src/a.go:42"`, `"auth/token_store.py:12"`, 1), `"H1"`, `"H1 token: stale"`, 1)
	if hb, _, _ := ParseHeldBack([]byte(named), DefaultLimits); hb.Location != "auth/token_store.py:12" || hb.HypothesisID != "H1 token: stale" {
		t.Fatalf("location %q, label %q: redacted", hb.Location, hb.HypothesisID)
	}
	for _, line := range []string{
		`{"hypothesisId":"H1","location":"a:1","message":"m","data":"agentDebugHeldBack","timestamp":1784313728231}`,
		`{"agentDebugHeldBack":`, `["agentDebugHeldBack"]`, `"agentDebugHeldBack"`, `{"other":{"agentDebugHeldBack":1}}`,
	} {
		if _, _, ok := ParseHeldBack([]byte(line), DefaultLimits); ok {
			t.Errorf("%s: taken for a held-back record", line)
		}
	}
	long := strings.Repeat("p", MaxProcessBytes+1)
	for _, c := range []struct{ line, want string }{
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","count":1,"cap":1}}`, `missing "process"`},
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","process":"p","count":0,"cap":1}}`, `"count" must be a whole number from 1 to 9007199254740991; got 0`},
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","process":"p","count":1.5,"cap":1}}`, `"count" must be a whole number from 1 to 9007199254740991; got 1.5`},
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","process":"p","count":"1","cap":1}}`, `"count" must be a whole number from 1 to 9007199254740991; got "1"`},
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","process":"p","count":1,"cap":99999999999999999999}}`, `"cap" must be a whole number from 1 to 9007199254740991; got 99999999999999999999`},
		{`{"agentDebugHeldBack":{"hypothesisId":"","location":"a:1","process":"p","count":1,"cap":1}}`, `"hypothesisId" must not be empty`},
		{`{"agentDebugHeldBack":{"hypothesisId":1,"location":"a:1","process":"p","count":1,"cap":1}}`, `"hypothesisId" must be a string, not a number`},
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","process":"` + long + `","count":1,"cap":1}}`, `"process" is 129 bytes; the limit is 128 bytes`},
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","process":"p","count":1,"cap":1,"note":"x"}}`, `unknown member "note"`},
		{`{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a:1","process":"p","count":1,"cap":1},"timestamp":1}`, `nothing beside it (found "timestamp")`},
		{`{"agentDebugHeldBack":[1]}`, `must be an object, not an array`},
	} {
		_, rej, ok := ParseHeldBack([]byte(c.line), DefaultLimits)
		if !ok || rej == nil || !strings.Contains(rej.Reason, c.want) || !strings.HasPrefix(rej.Reason, "held-back record: ") {
			t.Errorf("%s: %v %+v, want a rejection saying %q", c.line, ok, rej, c.want)
		}
	}
}

// FuzzParseHeldBack: any line either is no held-back record, or is one
// within every bound, or is rejected with a bounded, valid-UTF-8 reason.
func FuzzParseHeldBack(f *testing.F) {
	for _, s := range []string{goodHeldBack, `{"agentDebugHeldBack":{}}`, `{"agentDebugHeldBack":{"count":1e3}}`, "{\"agentDebugHeldBack\":\"\xff\"}", typicalRecord} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		hb, rej, ok := ParseHeldBack(line, tightLimits)
		switch {
		case !ok && (rej != nil || hb != HeldBack{}):
			t.Fatalf("not a held-back record, yet %+v %+v", hb, rej)
		case rej != nil:
			if !utf8.ValidString(rej.Reason) || !utf8.ValidString(rej.Excerpt) || len(rej.Reason) > 600 || hb != (HeldBack{}) {
				t.Fatalf("rejection %+v", rej)
			}
		case ok:
			if hb.Count < 1 || hb.Cap < 1 || hb.Count > MaxHeldBackCount || hb.HypothesisID == "" || hb.Location == "" || hb.Process == "" ||
				len(hb.Process) > MaxProcessBytes+64 || !utf8.ValidString(hb.HypothesisID+hb.Location+hb.Process) {
				t.Fatalf("accepted %+v", hb)
			}
		}
	})
}
