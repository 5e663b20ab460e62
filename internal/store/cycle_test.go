package store

import (
	"errors"
	"testing"
)

// TestReadingACycle: the current cycle reads; an earlier one is stale (the
// evidence was reset); one the session never had is a NoCycleError that
// says which cycle is current.
func TestReadingACycle(t *testing.T) {
	st, _ := testStore(t)
	s, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	for _, epoch := range []int64{0, 2} {
		if _, err := s.Logs(Filter{}, 0, 10, epoch); err != nil {
			t.Errorf("cycle %d: %v", epoch, err)
		}
	}
	if _, err := s.Logs(Filter{}, 0, 10, 1); !errors.Is(err, ErrStale) {
		t.Errorf("cycle 1 after a reset: %v, want ErrStale", err)
	}
	for _, epoch := range []int64{3, 99, -1} {
		var nc *NoCycleError
		_, err := s.Logs(Filter{}, 0, 10, epoch)
		if !errors.As(err, &nc) || nc.Asked != epoch || nc.Current != 2 || errors.Is(err, ErrStale) {
			t.Errorf("cycle %d: %v, want a NoCycleError naming cycle 2", epoch, err)
		}
	}
}
