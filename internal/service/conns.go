package service

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// How connections are bounded without letting idle ones starve others.
//
// At most MaxConnections are open at once (each costs buffers and a file
// descriptor). A connection that is not in a request — still waiting for
// its first request's headers, or idle between keep-alive requests — does
// not keep its place against a newcomer: when every place is taken, the
// one that has waited longest, for at least EvictGrace, is closed to make
// room. So clients that open connections and send headers a byte at a
// time, or hold keep-alive connections open, reconnecting as soon as they
// are closed, can no longer keep a good request out for the header or idle
// timeout (5 s, 90 s): it waits at most about EvictGrace. Only connections
// inside a request (its body bounded in pace, body.go) are never closed for
// room.
const EvictGrace = 500 * time.Millisecond

// evictGrace is EvictGrace; tests shorten it.
var evictGrace = EvictGrace

// maxConnections is MaxConnections; tests lower it.
var maxConnections = MaxConnections

// connLimiter is a listener that keeps at most max connections open,
// closing the longest-waiting one that is not in a request to make room.
// Its track method is the http.Server's ConnState hook.
type connLimiter struct {
	net.Listener
	max   int
	grace time.Duration

	mu      sync.Mutex
	conns   map[net.Conn]*connInfo
	open    int           // connections counted against max (not yet closed for room)
	changed chan struct{} // a connection closed or went idle
	evicted int64         // connections closed for room (tests read it)
}

type connInfo struct {
	waiting bool      // between requests: waiting for headers, or idle
	since   time.Time // when it started waiting
	evicted bool
}

func newConnLimiter(ln net.Listener, max int, grace time.Duration) *connLimiter {
	return &connLimiter{Listener: ln, max: max, grace: grace, conns: map[net.Conn]*connInfo{}, changed: make(chan struct{}, 1)}
}

// Accept accepts, then, when the newcomer makes one connection too many,
// closes the one that has waited between requests longest (once that is at
// least the grace) to make room, waiting for one if none has; the newcomer
// is handed to the server only then. So a connection is closed for room
// only when someone is actually there to take its place (at most one
// connection more than max is open, held here unserved).
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	for l.open > l.max {
		victim, wait := l.oldestWaiting(time.Now())
		if victim != nil {
			l.conns[victim].evicted = true
			l.open--
			l.evicted++
			l.mu.Unlock()
			victim.Close() // its server goroutine reports StateClosed, which forgets it
			l.mu.Lock()
			continue
		}
		l.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-l.changed:
		case <-t.C:
		}
		t.Stop()
		l.mu.Lock()
	}
	l.conns[c] = &connInfo{waiting: true, since: time.Now()}
	l.mu.Unlock()
	return c, nil
}

// oldestWaiting is the connection waiting between requests for longest,
// once that is at least the grace; else nil and how long until one may be
// (or a short poll when none waits). Caller holds l.mu.
func (l *connLimiter) oldestWaiting(now time.Time) (net.Conn, time.Duration) {
	var oldest net.Conn
	var since time.Time
	for c, ci := range l.conns {
		if ci.waiting && !ci.evicted && (oldest == nil || ci.since.Before(since)) {
			oldest, since = c, ci.since
		}
	}
	switch {
	case oldest == nil:
		return nil, 100 * time.Millisecond
	case now.Sub(since) >= l.grace:
		return oldest, 0
	}
	return nil, l.grace - now.Sub(since)
}

// track follows each connection's state (http.Server.ConnState).
func (l *connLimiter) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	ci := l.conns[c]
	if ci == nil {
		l.mu.Unlock()
		return
	}
	switch state {
	case http.StateActive:
		ci.waiting = false
	case http.StateIdle:
		ci.waiting, ci.since = true, time.Now()
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c)
		if !ci.evicted {
			l.open--
		}
	}
	l.mu.Unlock()
	if state != http.StateActive {
		select {
		case l.changed <- struct{}{}:
		default:
		}
	}
}

// evictions is how many connections were closed for room.
func (l *connLimiter) evictions() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.evicted
}
