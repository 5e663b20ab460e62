package evidence

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const goodReport = `{"agentDebugLogpoint":{"id":"lp-12","state":"failed","reason":"line 4 is blank","process":"4242-1784313728231"}}`

func TestParseLogpointReport(t *testing.T) {
	r, rej, ok := ParseLogpointReport([]byte(goodReport+"\r"), DefaultLimits)
	if !ok || rej != nil || r != (LogpointReport{"lp-12", LogpointFailed, "line 4 is blank", "4242-1784313728231"}) {
		t.Fatalf("%+v %+v %v", r, rej, ok)
	}
	r, rej, ok = ParseLogpointReport([]byte(`{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"p"}}`), DefaultLimits)
	if !ok || rej != nil || r.State != LogpointInstalled || r.Reason != "" {
		t.Fatalf("%+v %+v %v", r, rej, ok)
	}
	secret := strings.Replace(goodReport, `line 4 is blank`, `token ghp_abcdefghijklmnopqrstuvwxyz0123456789`, 1)
	if r, _, _ := ParseLogpointReport([]byte(secret), DefaultLimits); strings.Contains(r.Reason, "ghp_") {
		t.Fatalf("reason %q: not redacted", r.Reason)
	}
	for _, line := range []string{
		`{"hypothesisId":"H1","location":"a:1","message":"m","data":"agentDebugLogpoint","timestamp":1784313728231}`,
		`{"agentDebugLogpoint":`, `["agentDebugLogpoint"]`, `{"other":{"agentDebugLogpoint":1}}`, goodHeldBack,
	} {
		if _, _, ok := ParseLogpointReport([]byte(line), DefaultLimits); ok {
			t.Errorf("%s: taken for a logpoint report", line)
		}
	}
	long := strings.Repeat("r", MaxReportReasonBytes+1)
	for _, c := range []struct{ line, want string }{
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"installed"}}`, `missing "process"`},
		{`{"agentDebugLogpoint":{"state":"installed","process":"p"}}`, `missing "id"`},
		{`{"agentDebugLogpoint":{"id":"lp-0","state":"installed","process":"p"}}`, `"lp-0" is not a logpoint id`},
		{`{"agentDebugLogpoint":{"id":"H1","state":"installed","process":"p"}}`, `"H1" is not a logpoint id`},
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"hit","process":"p"}}`, `"state" must be "installed" or "failed"`},
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"failed","process":"p"}}`, `missing "reason"`},
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"installed","reason":"x","process":"p"}}`, `"reason" goes only with "state":"failed"`},
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"failed","reason":"` + long + `","process":"p"}}`, `"reason" is 401 bytes; the limit is 400 bytes`},
		{`{"agentDebugLogpoint":{"id":1,"state":"installed","process":"p"}}`, `"id" must be a string, not a number`},
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":" "}}`, `"process" must not be empty`},
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"p","hits":3}}`, `unknown member "hits"`},
		{`{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"p"},"timestamp":1}`, `nothing beside it (found "timestamp")`},
		{`{"agentDebugLogpoint":"installed"}`, `must be an object, not a string`},
	} {
		_, rej, ok := ParseLogpointReport([]byte(c.line), DefaultLimits)
		if !ok || rej == nil || !strings.Contains(rej.Reason, c.want) || !strings.HasPrefix(rej.Reason, "logpoint report: ") {
			t.Errorf("%s: %v %+v, want a rejection saying %q", c.line, ok, rej, c.want)
		}
	}
}

// Only lines that are no valid event, or carry a control member, are
// looked at again.
func TestIsControl(t *testing.T) {
	rec, rej := Normalize([]byte(typicalRecord), DefaultLimits)
	if IsControl(rec, rej) {
		t.Fatal("a valid event is looked at as a control record")
	}
	for _, line := range []string{goodReport, goodHeldBack,
		`{"hypothesisId":"H1","location":"a:1","message":"m","data":1,"timestamp":1784313728231,"agentDebugLogpoint":{}}`} {
		rec, rej := Normalize([]byte(line), DefaultLimits)
		if !IsControl(rec, rej) {
			t.Errorf("%s: not looked at as a control record", line)
		}
	}
}

// FuzzParseLogpointReport: any line either is no report, or is one within
// every bound, or is rejected with a bounded, valid-UTF-8 reason.
func FuzzParseLogpointReport(f *testing.F) {
	for _, s := range []string{goodReport, `{"agentDebugLogpoint":{}}`, `{"agentDebugLogpoint":{"id":"lp-1"}}`, "{\"agentDebugLogpoint\":\"\xff\"}", typicalRecord} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, rej, ok := ParseLogpointReport(line, tightLimits)
		switch {
		case !ok && (rej != nil || r != LogpointReport{}):
			t.Fatalf("not a report, yet %+v %+v", r, rej)
		case rej != nil:
			if !utf8.ValidString(rej.Reason) || !utf8.ValidString(rej.Excerpt) || len(rej.Reason) > 700 || r != (LogpointReport{}) {
				t.Fatalf("rejection %+v", rej)
			}
		case ok:
			if !ValidLogpointID(r.ID) || (r.State != LogpointInstalled && r.State != LogpointFailed) || r.Process == "" ||
				(r.State == LogpointFailed) != (r.Reason != "") || len(r.Process) > MaxReportProcessBytes+64 || len(r.Reason) > MaxReportReasonBytes+64 ||
				!utf8.ValidString(r.Reason+r.Process) {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}
