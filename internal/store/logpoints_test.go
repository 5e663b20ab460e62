package store

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
)

func testLogpoint(line int, hyp string) logpoints.Logpoint {
	return logpoints.Logpoint{Language: "python", File: "/p/app.py", RealFile: "/p/app.py", Path: "app.py", Line: line,
		Location: logpoints.Location("app.py", line), HypothesisID: hyp, Message: "m"}
}

func appendSpool(t *testing.T, s *Session, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(s.AppendPath(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Join(lines, "\n") + "\n")
	f.Close()
	if err := s.DrainSpool(); err != nil {
		t.Fatal(err)
	}
}

// Logpoints get ids that are never reused, refuse duplicates and bad
// specs, survive a reset and a restart, and are gone with the session.
func TestLogpointsKept(t *testing.T) {
	st, root := testStore(t)
	s, _ := st.Create()
	a, err := s.AddLogpoint(testLogpoint(4, "H1"))
	if err != nil || a.ID != "lp-1" || a.CreatedAt != 1796083200000 {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := s.AddLogpoint(testLogpoint(4, "H1")); !errors.Is(err, ErrLogpoint) || !strings.Contains(err.Error(), "lp-1 is already at app.py:4 for H1") {
		t.Fatalf("duplicate: %v", err)
	}
	if b, err := s.AddLogpoint(testLogpoint(4, "H2")); err != nil || b.ID != "lp-2" {
		t.Fatalf("same line, other label: %+v %v", b, err)
	}
	bad := testLogpoint(5, "H1")
	bad.Location = "app.py:6"
	if _, err := s.AddLogpoint(bad); !errors.Is(err, logpoints.ErrInvalid) {
		t.Fatalf("a location that is not path:line: %v", err)
	}
	if _, err := s.RemoveLogpoints([]string{"lp-1"}, false); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.AddLogpoint(testLogpoint(4, "H1")); c.ID != "lp-3" {
		t.Fatalf("id after a removal: %q, want lp-3 (ids are never reused)", c.ID)
	}
	if _, err := s.RemoveLogpoints([]string{"lp-2", "lp-7"}, false); !errors.Is(err, ErrNoLogpoint) || !strings.Contains(err.Error(), "no logpoint lp-7") {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	st.mu.Lock()
	delete(st.sessions, s.ID()) // as after a restart
	st.mu.Unlock()
	s, _ = st.Get(s.ID())
	f, _ := s.Logpoints()
	if len(f.Logpoints) != 2 || f.Logpoints[0].ID != "lp-2" || f.Logpoints[1].ID != "lp-3" || f.NextID != 4 {
		t.Fatalf("after reset and restart: %+v", f)
	}
	fi, err := root.Stat("sessions/" + s.ID() + "/logpoints.json")
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("logpoints.json: %v %v", fi.Mode(), err)
	}
	for i := len(f.Logpoints); i < logpoints.MaxLogpoints; i++ {
		if _, err := s.AddLogpoint(testLogpoint(10+i, "H1")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddLogpoint(testLogpoint(9, "H9")); !errors.Is(err, ErrLogpoint) || !strings.Contains(err.Error(), "the most it keeps") {
		t.Fatalf("one too many: %v", err)
	}
	if removed, err := s.RemoveLogpoints(nil, true); err != nil || len(removed) != logpoints.MaxLogpoints {
		t.Fatalf("remove all: %d %v", len(removed), err)
	}
	if err := st.Clean(s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Stat("sessions/" + s.ID()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after clean: %v", err)
	}
}

// Reports are no events; each (logpoint, process, state) counts once, the
// cycle's reports survive a restart, and a reset forgets them.
func TestLogpointReports(t *testing.T) {
	st, _ := testStore(t)
	s, _ := st.Create()
	inst := `{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"1-1"}}`
	appendSpool(t, s, inst, inst,
		`{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"2-1"}}`,
		`{"agentDebugLogpoint":{"id":"lp-2","state":"failed","reason":"line 9 is blank","process":"2-1"}}`,
		`{"agentDebugLogpoint":{"id":"lp-2","state":"failed","reason":"line 9 is blank","process":"1-1"}}`,
		`{"agentDebugLogpoint":{"id":"lp-2","state":"nope","process":"1-1"}}`,
		`{"hypothesisId":"H1","location":"a:1","message":"m","data":1,"timestamp":1784313728231}`)
	appendSpool(t, s, inst) // delivered again: changes nothing
	want := map[string]logpoints.Installs{"lp-1": {Installed: 2}, "lp-2": {Failed: 2, Reason: "line 9 is blank"}}
	check := func(what string, want map[string]logpoints.Installs) {
		t.Helper()
		got := s.LogpointInstalls()
		if len(got) != len(want) {
			t.Fatalf("%s: %+v, want %+v", what, got, want)
		}
		for id, w := range want {
			if got[id] != w {
				t.Fatalf("%s: %s %+v, want %+v", what, id, got[id], w)
			}
		}
	}
	check("after delivery", want)
	stat, _ := s.Status()
	if stat.Events != 1 || stat.Rejected != 1 {
		t.Fatalf("events %d rejected %d: reports must be neither events nor (when valid) rejections", stat.Events, stat.Rejected)
	}
	st.mu.Lock()
	delete(st.sessions, s.ID())
	st.mu.Unlock()
	s, _ = st.Get(s.ID())
	check("after a restart", want)
	if _, err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	check("after a reset", nil)
	st.mu.Lock()
	delete(st.sessions, s.ID())
	st.mu.Unlock()
	s, _ = st.Get(s.ID())
	check("after a reset and a restart", nil)
}

// The reports one cycle keeps are bounded; one past the bound is refused
// with a diagnostic.
func TestLogpointReportsBounded(t *testing.T) {
	st, _ := testStore(t)
	s, _ := st.Create()
	s.mu.Lock()
	s.lpReports.entries = map[lpReportKey]string{}
	for i := 0; i < MaxLogpointReports; i++ {
		s.lpReports.entries[lpReportKey{"lp-1", strconv.Itoa(i), "installed"}] = ""
	}
	s.mu.Unlock()
	appendSpool(t, s, `{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"new"}}`)
	stat, _ := s.Status()
	if stat.Rejected != 1 || !strings.Contains(stat.Diagnostics[0].Reason, "logpoint report not kept") {
		t.Fatalf("%+v", stat.Diagnostics)
	}
}
