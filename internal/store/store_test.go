package store

import (
	"errors"
	"os"
	"sync"
	"testing"
	"time"
)

// TestCleanRacingWithReaders: once clean returns, the session is gone for
// good: no concurrent request brings it back with files open on deleted
// evidence, and every later Get says it does not exist.
func TestCleanRacingWithReaders(t *testing.T) {
	st, _ := testStore(t)
	for round := 0; round < 20; round++ {
		s, err := st.Create()
		if err != nil {
			t.Fatal(err)
		}
		id := s.ID()
		st.mu.Lock()
		delete(st.sessions, id) // unloaded, so the racers load it from disk
		st.mu.Unlock()
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s, err := st.Get(id); err == nil {
					s.IngestHTTP([]byte(`{"hypothesisId":"H1","location":"a:1","message":"m","data":1,"timestamp":1784313728231}` + "\n"))
				}
			}()
		}
		if err := st.Clean(id); err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		wg.Wait()
		if _, err := st.Get(id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("round %d: session came back after clean: %v", round, err)
		}
	}
}

// TestListCountsWithoutLoading: listing counts every delivered event; a
// session with nothing waiting is counted from its file and stays unloaded,
// one with lines waiting in its append path is drained first.
func TestListCountsWithoutLoading(t *testing.T) {
	st, root := testStore(t)
	a, _ := st.Create()
	b, _ := st.Create()
	line := `{"hypothesisId":"H1","location":"a:1","message":"m","data":1,"timestamp":1784313728231}` + "\n"
	a.IngestHTTP([]byte(line + line + line))
	st.mu.Lock()
	delete(st.sessions, a.ID()) // as after a restart
	delete(st.sessions, b.ID())
	st.mu.Unlock()
	f, err := root.OpenFile("sessions/"+b.ID()+"/incoming.ndjson", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line + line)
	f.Close()

	list, err := st.List(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range list {
		got[s.SessionID] = s.Events
	}
	if got[a.ID()] != 3 || got[b.ID()] != 2 {
		t.Fatalf("counts %v, want %s=3 %s=2", got, a.ID(), b.ID())
	}
	st.mu.Lock()
	_, aLoaded := st.sessions[a.ID()]
	st.mu.Unlock()
	if aLoaded {
		t.Fatal("a session with nothing waiting was loaded just to be listed")
	}
}
