package capture

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

const cartPy = `def total(items):
    s = 0
    for i in items:
        s += i.price
    # region agent log H1
    agent_log("H1", "src/cart.py:6", "total computed", {"total": s})
    # endregion
    return s
`

func TestCaptureContentAndIdentity(t *testing.T) {
	e := newEnv(t)
	e.write(map[string]string{"src/cart.py": cartPy})
	e.ingest(
		ev("H1", "src/cart.py:6", "total computed", `{"total":-3.5}`, 1796083198500),
		ev("H2", "src/cart.py:4", "price", `{"price":"10"}`, 1796083198400),
		`{"hypothesisId":"H1"}`, // rejected: a diagnostic
	)
	if _, err := e.sess.AddUserNote("the total is negative after SAVE10"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.sess.AddUserFile(store.FileRef{Path: "/tmp/report.har", Size: 10, ModTime: 1}, "the user's HAR"); err != nil {
		t.Fatal(err)
	}
	a := e.capture("before fix")
	if a.Existing || !idRE.MatchString(a.ID) || a.ID != IDOf(a.SHA256) {
		t.Fatalf("first capture: %+v", a.Summary)
	}
	h := a.Header
	if h.Events != 2 || h.Diagnostics != 1 || h.RejectedRecords != 1 || h.UserNotes != 1 || h.UserFiles != 1 ||
		h.RegionScan.Regions != 1 || h.SourceScan.Records != 2 || h.Cycle != 1 || h.EvidenceVersion != "1.2" {
		t.Fatalf("header: %+v", h)
	}
	// The same evidence gives the same capture, whatever the label.
	b := e.capture("again")
	if b.ID != a.ID || b.SHA256 != a.SHA256 || !b.Existing || b.Label != "before fix" {
		t.Fatalf("second capture of the same evidence: %+v", b.Summary)
	}
	// The file is owner-only and read-only; its hash is its name.
	fi, err := os.Stat(e.contentPath(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o400 {
		t.Errorf("capture mode %v, want 0400", fi.Mode().Perm())
	}
	c := e.open(a.ID)
	if len(c.Diagnostics) != 1 || len(c.Notes) != 1 || len(c.Files) != 1 || len(c.Regions()) != 1 || len(c.Sources) != 2 {
		t.Fatalf("details: %d diagnostics, %d notes, %d files, %d regions, %d sources", len(c.Diagnostics), len(c.Notes), len(c.Files), len(c.Regions()), len(c.Sources))
	}
	// The events are the stored lines, exactly, in the same logs order.
	live, err := e.sess.Logs(store.Filter{}, 0, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	frozen, err := c.Snapshot().Page(e.sess.ID(), store.Filter{}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(live.Events, frozen.Events) || frozen.Matched != 2 {
		t.Fatalf("frozen events differ:\n%s\n%s", live.Events, frozen.Events)
	}
	// Source lines around each location, as they were.
	src := c.sources["src/cart.py:6"]
	if src == nil || src.State != Complete || src.Files[0].StartLine != 1 || src.Files[0].Lines[5] != `    agent_log("H1", "src/cart.py:6", "total computed", {"total": s})` {
		t.Fatalf("source: %+v", src)
	}
	// A change to the evidence is a new capture.
	e.ingest(ev("H1", "src/cart.py:6", "total computed", `{"total":1}`, 1796083199000))
	d := e.capture("")
	if d.ID == a.ID || d.Existing || d.Header.Events != 3 {
		t.Fatalf("capture after more evidence: %+v", d.Summary)
	}
	// Editing a source file changes the capture too (it froze the lines).
	e.write(map[string]string{"src/cart.py": strings.Replace(cartPy, "s = 0", "s = 0.0", 1)})
	if f := e.capture(""); f.ID == d.ID {
		t.Fatal("a capture of other source lines has the same id")
	}
}

func TestCaptureDamage(t *testing.T) {
	cases := []struct {
		name   string
		damage func(e *env, id string)
		want   string
	}{
		{"byte changed", func(e *env, id string) {
			p := e.contentPath(id)
			os.Chmod(p, 0o600)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), "-3.5", "-3.6", 1)), 0o600)
		}, "no longer matches its SHA-256"},
		{"truncated", func(e *env, id string) {
			p := e.contentPath(id)
			os.Chmod(p, 0o600)
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()-3)
		}, "size is"},
		{"line appended, index edited to match", func(e *env, id string) {
			p := e.contentPath(id)
			os.Chmod(p, 0o600)
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("{}\n")
			f.Close()
			ip := strings.TrimSuffix(p, ".ndjson") + ".json"
			var idx Index
			b, _ := os.ReadFile(ip)
			json.Unmarshal(b, &idx)
			idx.Bytes += 3
			b, _ = json.Marshal(idx)
			os.WriteFile(ip, b, 0o600)
		}, "after its last record"},
		{"index missing", func(e *env, id string) {
			os.Remove(strings.TrimSuffix(e.contentPath(id), ".ndjson") + ".json")
		}, "index file is missing"},
		{"content missing", func(e *env, id string) { os.Remove(e.contentPath(id)) }, "content file is missing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.ingest(ev("H1", "a.py:1", "m", `{"total":-3.5}`, 1796083198500))
			id := e.capture("").ID
			tc.damage(e, id)
			_, err := e.cs.Open(e.sess.ID(), id, OpenOptions{})
			var de *DamagedError
			if !errors.As(err, &de) || !errors.Is(err, ErrDamaged) || !strings.Contains(de.Reason, tc.want) {
				t.Fatalf("open: %v, want damaged (%s)", err, tc.want)
			}
			list, err := e.cs.List(e.sess.ID())
			if err != nil || len(list) != 1 || list[0].Integrity != IntegrityDamaged || !strings.Contains(list[0].Problem, tc.want) {
				t.Fatalf("list: %+v, %v", list, err)
			}
			if _, err := e.cs.Diff(e.sess, DiffOptions{From: id}); !errors.Is(err, ErrDamaged) {
				t.Fatalf("diff of a damaged capture: %v", err)
			}
			// Capturing the same evidence again never overwrites it silently.
			if tc.name == "byte changed" {
				if _, err := e.cs.Create(e.sess, e.request("")); !errors.Is(err, ErrDamaged) {
					t.Fatalf("capture over a damaged one: %v", err)
				}
			}
		})
	}
	t.Run("unknown and malformed ids", func(t *testing.T) {
		e := newEnv(t)
		for _, unknown := range []string{"c-000000000000", "C-000000000000", "000000"} {
			if _, err := e.cs.Open(e.sess.ID(), unknown, OpenOptions{}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown id %q: %v", unknown, err)
			}
		}
		for _, bad := range []string{"", "c-12", "d-000000000000", "../x", "c-00000000000g"} {
			if _, err := e.cs.Open(e.sess.ID(), bad, OpenOptions{}); !errors.Is(err, ErrBadID) {
				t.Fatalf("id %q: %v", bad, err)
			}
		}
	})
}

func TestCaptureSurvivesResetAndGoesWithClean(t *testing.T) {
	e := newEnv(t)
	e.ingest(ev("H1", "a.py:1", "m", `1`, 1796083198500))
	id := e.capture("before").ID
	if _, err := e.sess.Reset(); err != nil {
		t.Fatal(err)
	}
	c := e.open(id)
	if c.Header.Events != 1 || c.Header.Cycle != 1 {
		t.Fatalf("after reset: %+v", c.Header)
	}
	list, err := e.cs.List(e.sess.ID())
	if err != nil || len(list) != 1 || list[0].Integrity != IntegrityOK {
		t.Fatalf("list after reset: %+v %v", list, err)
	}
	c.Close()
	if err := e.st.Clean(e.sess.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(e.contentPath(id))); !os.IsNotExist(err) {
		t.Fatalf("captures folder after clean: %v", err)
	}
}

func TestLogsAndQueryOnCapture(t *testing.T) {
	e := newEnv(t)
	var lines []string
	for i := 0; i < 40; i++ {
		// Out of timestamp order, so logs order differs from sequence order.
		lines = append(lines, ev([]string{"H1", "H2"}[i%2], "src/x.py:"+string(rune('1'+i%3)), "m", `{"i":`+string(rune('0'+i%10))+`}`, 1796083190000+int64((i*7)%40)))
	}
	e.ingest(lines...)
	c := e.open(e.capture("").ID)
	for _, f := range []store.Filter{{}, {Hypotheses: []string{"H2"}}, {Location: "x.py:2"}, {Message: "M"}, {SeqFrom: 5, SeqTo: 30}, {Since: 1796083190010, Until: 1796083190020}} {
		for _, off := range []int{0, 7} {
			live, err := e.sess.Logs(f, off, 5, 0)
			if err != nil {
				t.Fatal(err)
			}
			frozen, err := c.LogsPage(f, off, 5)
			if err != nil {
				t.Fatal(err)
			}
			if frozen.Version != c.ID() || frozen.Matched != live.Matched || frozen.Omitted != live.Omitted || jsonOf(t, frozen.Hypotheses) != jsonOf(t, live.Hypotheses) {
				t.Fatalf("filter %+v offset %d: frozen %+v, live %+v", f, off, frozen, live)
			}
			for i := range live.Events {
				if !strings.HasPrefix(string(frozen.Events[i]), strings.TrimSuffix(string(live.Events[i]), "}")+`,"links":[`) {
					t.Fatalf("event %d: %s, live %s", i, frozen.Events[i], live.Events[i])
				}
			}
		}
	}
	// The same query pages, cursor positions included, over both.
	spec := query.Spec{Program: `select(.data.i > 3) | .sequence`, Limit: 4, Filter: store.Filter{Hypotheses: []string{"H1"}}}
	pos := query.Position{}
	for page := 0; ; page++ {
		live, err := query.Run(context.Background(), e.sess, spec, pos, 0)
		if err != nil {
			t.Fatal(err)
		}
		frozen, err := query.RunOn(context.Background(), e.sess.ID(), func() (*store.Snapshot, error) { return c.Snapshot(), nil }, spec, pos)
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, live.Values) != jsonOf(t, frozen.Values) || (live.Next == nil) != (frozen.Next == nil) {
			t.Fatalf("page %d: live %s, frozen %s", page, live.Values, frozen.Values)
		}
		if live.Next == nil {
			break
		}
		if *live.Next != *frozen.Next {
			t.Fatalf("page %d: positions %+v and %+v", page, *live.Next, *frozen.Next)
		}
		pos = *live.Next
	}
	// The capture does not change when the live cycle does.
	if _, err := e.sess.Reset(); err != nil {
		t.Fatal(err)
	}
	if p, err := c.LogsPage(store.Filter{}, 0, 1); err != nil || p.Total != 40 {
		t.Fatalf("capture after reset: %v %v", p.Total, err)
	}
}
