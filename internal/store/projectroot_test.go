package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLocationsNormalizedAtIngest: both transports store locations relative
// to the session's project root, the root survives a reload, and a session
// without one keeps locations as sent.
func TestLocationsNormalizedAtIngest(t *testing.T) {
	st, root := testStore(t)
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, "src", "main", "java", "com", "acme"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"app.py", "src/main/java/com/acme/Foo.java"} {
		if err := os.WriteFile(filepath.Join(project, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(loc string) string {
		return `{"hypothesisId":"H1","location":"` + loc + `","message":"m","data":1,"timestamp":1784313728231}` + "\n"
	}
	s, _ := st.Create()
	if err := s.SetProjectRoot("relative/dir"); err != ErrBadRoot {
		t.Fatalf("a relative root: %v, want ErrBadRoot", err)
	}
	if err := s.SetProjectRoot(project); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.IngestHTTP([]byte(rec(project+"/app.py:3") + rec("com/acme/Foo.java:9") + rec("elsewhere.py:1"))); err != nil {
		t.Fatal(err)
	}
	st.mu.Lock()
	delete(st.sessions, s.ID()) // as after a restart: the root comes back from the metadata
	st.mu.Unlock()
	f, err := root.OpenFile("sessions/"+s.ID()+"/incoming.ndjson", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(rec("file://" + project + "/app.py:4"))
	f.Close()
	s, err = st.Get(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	locs, err := s.Locations()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, l := range locs.Locations {
		got[l.Location] = l.Events
	}
	want := map[string]int64{"app.py:3": 1, "app.py:4": 1, "src/main/java/com/acme/Foo.java:9": 1, "elsewhere.py:1": 1}
	if len(got) != len(want) || locs.ProjectRoot != project {
		t.Fatalf("locations %v (root %q), want %v (root %q)", got, locs.ProjectRoot, want, project)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("location %s: %d events, want %d (all: %v)", k, got[k], v, got)
		}
	}

	plain, _ := st.Create()
	plain.IngestHTTP([]byte(rec(project + "/app.py:3")))
	locs, _ = plain.Locations()
	if len(locs.Locations) != 1 || locs.Locations[0].Location != project+"/app.py:3" {
		t.Errorf("without a root: %+v, want the location as sent", locs.Locations)
	}
}

// TestHeldBackLocationNormalized: a held-back record names its location as
// the helper sent it (absolute); status lists it as the events show it.
func TestHeldBackLocationNormalized(t *testing.T) {
	st, _ := testStore(t)
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "app.py"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := st.Create()
	if err := s.SetProjectRoot(project); err != nil {
		t.Fatal(err)
	}
	line := `{"agentDebugHeldBack":{"hypothesisId":"H1","location":"` + project + `/app.py:3","count":15,"cap":10,"process":"42-1784313728231"}}` + "\n"
	if _, _, err := s.IngestHTTP([]byte(line)); err != nil {
		t.Fatal(err)
	}
	stat, err := s.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(stat.HeldBack) != 1 || stat.HeldBack[0].Location != "app.py:3" || stat.HeldBack[0].Count != 15 {
		t.Errorf("held back %+v, want app.py:3 with 15", stat.HeldBack)
	}
}
