package capture

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

type env struct {
	t     testing.TB
	root  *safefs.Root
	st    *store.Store
	cs    *Store
	sess  *store.Session
	src   string // a source tree
	clock time.Time
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root, err := safefs.OpenRoot(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, root: root, clock: time.UnixMilli(1796083200000)}
	now := func() time.Time { return e.clock }
	e.st, err = store.Open(root, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.cs = NewStore(root, now)
	e.sess, err = e.st.Create()
	if err != nil {
		t.Fatal(err)
	}
	e.src = t.TempDir()
	t.Cleanup(func() { e.st.Close(); root.Close() })
	return e
}

// ingest stores events given as (hyp, location, message, data, ts) lines.
func (e *env) ingest(lines ...string) {
	e.t.Helper()
	if _, _, err := e.sess.IngestHTTP([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		e.t.Fatal(err)
	}
}

func ev(hyp, loc, msg, data string, ts int64) string {
	return fmt.Sprintf(`{"hypothesisId":%q,"location":%q,"message":%q,"data":%s,"timestamp":%d}`, hyp, loc, msg, data, ts)
}

// write puts files in the source tree.
func (e *env) write(files map[string]string) {
	e.t.Helper()
	for name, text := range files {
		p := filepath.Join(e.src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
}

// request builds what the CLI would send for the session now.
func (e *env) request(label string) Request {
	e.t.Helper()
	locs, err := e.sess.Locations()
	if err != nil {
		e.t.Fatal(err)
	}
	names := make([]string, len(locs.Locations))
	for i, l := range locs.Locations {
		names[i] = l.Location
	}
	r := Request{Label: label, SourceRoot: e.src}
	r.Regions, r.RegionScan = ScanRegions(e.src)
	r.Sources, r.SourceScan = FreezeSources(e.src, names, locs.Omitted == 0)
	return r
}

func (e *env) capture(label string) Created {
	e.t.Helper()
	c, err := e.cs.Create(e.sess, e.request(label))
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) open(id string) *Capture {
	e.t.Helper()
	c, err := e.cs.Open(e.sess.ID(), id, OpenOptions{Details: true})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(c.Close)
	return c
}

func (e *env) contentPath(id string) string {
	return filepath.Join(e.root.Path(), filepath.FromSlash(Dir(e.sess.ID())), contentName(id))
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
