package store

import (
	"errors"
	"sync"
	"testing"
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
