package service

import (
	"context"
	"sync"
)

// fairSlots are the processing slots ingest bodies are validated and stored
// in (MaxConcurrentBodies), handed out fairly between sessions: when a slot
// frees, it goes to the waiting session that holds the fewest, and among
// those to the request that has waited longest. One session flooding the
// service with batches then delays another session's request by at most
// one batch's processing, not by its whole queue.
type fairSlots struct {
	mu      sync.Mutex
	free    int
	held    map[string]int
	waiters []*slotWaiter
	seq     uint64
}

type slotWaiter struct {
	session string
	seq     uint64
	ready   chan struct{}
	granted bool
}

func newFairSlots(n int) *fairSlots { return &fairSlots{free: n, held: map[string]int{}} }

// acquire takes a slot for session, waiting until one is handed to it or
// ctx ends (then it returns ctx's error and holds nothing).
func (f *fairSlots) acquire(ctx context.Context, session string) error {
	f.mu.Lock()
	f.seq++
	w := &slotWaiter{session: session, seq: f.seq, ready: make(chan struct{})}
	f.waiters = append(f.waiters, w)
	f.dispatch()
	f.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.granted { // handed over as ctx ended: give it back
		f.releaseLocked(session)
		return ctx.Err()
	}
	for i, x := range f.waiters {
		if x == w {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			break
		}
	}
	return ctx.Err()
}

// release gives back a slot session held.
func (f *fairSlots) release(session string) {
	f.mu.Lock()
	f.releaseLocked(session)
	f.mu.Unlock()
}

func (f *fairSlots) releaseLocked(session string) {
	if f.held[session]--; f.held[session] <= 0 {
		delete(f.held, session)
	}
	f.free++
	f.dispatch()
}

// dispatch hands free slots to waiters: the session holding the fewest
// first, then the longest wait. Caller holds f.mu.
func (f *fairSlots) dispatch() {
	for f.free > 0 && len(f.waiters) > 0 {
		best := 0
		for i, w := range f.waiters[1:] {
			b := f.waiters[best]
			if hw, hb := f.held[w.session], f.held[b.session]; hw < hb || hw == hb && w.seq < b.seq {
				best = i + 1
			}
		}
		w := f.waiters[best]
		f.waiters = append(f.waiters[:best], f.waiters[best+1:]...)
		f.held[w.session]++
		f.free--
		w.granted = true
		close(w.ready)
	}
}
