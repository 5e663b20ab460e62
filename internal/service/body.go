package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"time"

	"golang.org/x/sync/semaphore"
)

// How ingest bodies are read.
//
// A body is read whole before any of it is validated, so a request is taken
// in or refused as a whole (too large, cut off, too slow). Reading is bounded
// in memory and in time, and neither bound lets a slow sender hold up others:
//
//   - The first SmallBodyBytes of every body are read at once, into memory
//     of the connection's own: a probe's batch is read whole that way. At
//     most MaxConnections of those are held: 8 MiB.
//   - A body that goes on past them then reserves its size (MaxBodyBytes
//     when it did not announce one) from a budget of BodyBudgetBytes shared
//     by all larger bodies, waiting at most BodyBudgetWait for it (then 503).
//     So only a sender that has delivered SmallBodyBytes at the pace below
//     holds any budget.
//   - Every body must arrive at MinBodyRate or faster, counted from BodyGrace
//     after its reading started (time spent waiting for the budget does not
//     count). A connection that falls behind is answered 408 and closed. On
//     loopback a sender writes megabytes per millisecond, so the rate only
//     stops a sender that trickles on purpose; and since the deadline follows
//     the bytes that arrived rather than the size announced, a trickler is
//     gone after about BodyGrace. It holds no processing slot meanwhile, and
//     budget only while it keeps delivering at the rate: at most
//     BodyGrace + MaxBodyBytes/MinBodyRate.
//
// Only a body read whole takes one of the MaxConcurrentBodies processing
// slots, for validation and storage: CPU and disk, never the network.
const (
	SmallBodyBytes  = 64 << 10
	BodyBudgetBytes = 2 * MaxBodyBytes
	BodyBudgetWait  = 30 * time.Second
	MinBodyRate     = 1 << 20 // bytes per second
	BodyGrace       = 2 * time.Second
)

// bodyGrace is BodyGrace; a test lengthens it to keep slow senders open.
var bodyGrace = BodyGrace

// paceRead is the most read before the deadline is moved on: a small step
// keeps the deadline close to what the rate allows for what has arrived.
const paceRead = 64 << 10

// bodyError is a body that is not read, with the answer to give.
type bodyError struct {
	code int
	msg  string
}

var (
	errBodyTooLarge = &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes; send smaller batches", MaxBodyBytes)}
	errBodyTooSlow  = &bodyError{http.StatusRequestTimeout, fmt.Sprintf("the body arrived slower than %d KiB/s; send each request's body at once", MinBodyRate>>10)}
	errBodyBusy     = &bodyError{http.StatusServiceUnavailable, fmt.Sprintf("too many large bodies are being read; retry, or send batches under %d KiB", SmallBodyBytes>>10)}
	errBodyCut      = &bodyError{http.StatusBadRequest, "could not read the body"}
)

// newBodyBudget is the budget larger bodies share.
func newBodyBudget() *semaphore.Weighted { return semaphore.NewWeighted(BodyBudgetBytes) }

// readBody reads the request body whole within the bounds above. release
// gives back the budget it holds; call it once the body is no longer needed
// (also after an error).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), _ *bodyError) {
	pr := newPaceReader(w, r.Body)
	defer func() { pr.done(body != nil) }()
	var held int64
	release = func() {
		if held > 0 {
			s.bodyBudget.Release(held)
			held = 0
		}
	}
	known := r.ContentLength // -1: not announced (chunked)
	if known > MaxBodyBytes {
		return nil, release, errBodyTooLarge
	}
	// The head: a whole small body, or one byte more than SmallBodyBytes to
	// tell that a body of unknown length is not small.
	head := int64(SmallBodyBytes) + 1
	if known >= 0 {
		head = min(known, SmallBodyBytes)
	}
	buf := make([]byte, head)
	n, err := fill(pr, buf)
	if err == nil && (known < 0 || known > head) {
		// A larger body: reserve, then read the rest into a buffer of its
		// size (growing it, when the size is unknown, up to the limit).
		// The wait is the service's, not the sender's: it stops the clock.
		reserve := known
		if known < 0 {
			reserve = MaxBodyBytes
		}
		t := time.Now()
		ctx, cancel := context.WithTimeout(r.Context(), BodyBudgetWait)
		acquired := s.bodyBudget.Acquire(ctx, reserve)
		cancel()
		pr.pause(t)
		if acquired != nil {
			return nil, release, errBodyBusy
		}
		held = reserve
		size := known
		if known < 0 {
			size = int64(2 * len(buf))
		}
		buf = append(make([]byte, 0, size), buf[:n]...)[:size]
		for {
			var k int
			k, err = fill(pr, buf[n:])
			n += k
			if known >= 0 || err != nil || n > MaxBodyBytes {
				break
			}
			buf = slices.Grow(buf, min(len(buf), MaxBodyBytes+1-len(buf)))
			buf = buf[:min(cap(buf), MaxBodyBytes+1)]
		}
	}
	switch {
	case n > MaxBodyBytes:
		return nil, release, errBodyTooLarge
	case known >= 0 && n == len(buf) && (err == nil || err == io.EOF), known < 0 && err == io.EOF:
		return buf[:n], release, nil
	case pr.late:
		return nil, release, errBodyTooSlow
	}
	return nil, release, errBodyCut
}

// fill reads into b until it is full (nil) or the body ends (io.EOF) or
// fails (any other error).
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := r.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// paceReader reads a request body with a read deadline that moves with
// what has arrived: BodyGrace plus the time MinBodyRate allows for it.
type paceReader struct {
	w     http.ResponseWriter
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	n     int64
	late  bool // the deadline passed
}

func newPaceReader(w http.ResponseWriter, body io.Reader) *paceReader {
	return &paceReader{w: w, r: body, rc: http.NewResponseController(w), start: time.Now()}
}

func (p *paceReader) Read(b []byte) (int, error) {
	if len(b) > paceRead {
		b = b[:paceRead]
	}
	allowed := bodyGrace + time.Duration(float64(p.n+int64(len(b)))/MinBodyRate*float64(time.Second))
	// Not every ResponseWriter can set deadlines (tests' recorders); the
	// server's own ReadTimeout still bounds those.
	p.rc.SetReadDeadline(p.start.Add(allowed))
	k, err := p.r.Read(b)
	p.n += int64(k)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		p.late = true
	}
	return k, err
}

// pause moves the clock on by the time since from, spent waiting on the
// service rather than the sender.
func (p *paceReader) pause(from time.Time) { p.start = p.start.Add(time.Since(from)) }

// done ends the reading. After a whole body it clears the deadline, so it
// cannot fire on the connection while the body is processed. After a body
// that is not read whole it ends reading at once and has the connection
// closed after the answer: the server would otherwise read on to discard
// what is left of a small body, at whatever pace the sender keeps.
func (p *paceReader) done(whole bool) {
	if whole {
		p.rc.SetReadDeadline(time.Time{})
		return
	}
	p.rc.SetReadDeadline(time.Now())
	p.w.Header().Set("Connection", "close")
}
