package service

import (
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Idle shutdown is driven by an injected clock only: the tests move the
// clock, never wait for wall time to pass, and observe the idle checker
// through the clock it reads.

const (
	idleCheck    = 2 * time.Millisecond
	waitGenerous = 10 * time.Second // generous bound for things that happen "at once"
)

// idleClock is the helpers' fakeClock plus a count of how often the idle
// checker (Server.background) has read it, so a test can tell that the
// checker has looked at the current time without sleeping.
type idleClock struct {
	*fakeClock
	checks atomic.Int64
}

func (c *idleClock) Now() time.Time {
	if calledFromBackground() {
		c.checks.Add(1)
	}
	return c.fakeClock.Now()
}

// calledFromBackground reports whether Now was called directly by the
// server's background loop, where it is read only to decide idleness (the
// store reads it too, also from that goroutine, but through other frames).
func calledFromBackground() bool {
	pc, _, _, ok := runtime.Caller(2) // 0 this function, 1 Now, 2 Now's caller
	if !ok {
		return false
	}
	f := runtime.FuncForPC(pc)
	return f != nil && strings.HasSuffix(f.Name(), ".(*Server).background")
}

// startIdleServer starts a server whose idle checker runs every few
// milliseconds against a fake clock.
func startIdleServer(t *testing.T) (*testServer, *idleClock) {
	t.Helper()
	clock := &idleClock{fakeClock: &fakeClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}}
	ts := startServer(t, Config{Clock: clock, IdleCheck: idleCheck, IdleTimeout: DefaultIdle})
	ts.Clock = clock.fakeClock
	return ts, clock
}

// settle waits until the idle checker has read the clock a few more times
// (so it has seen the current fake time), then fails if the server stopped.
func settle(t *testing.T, ts *testServer, clock *idleClock, why string) {
	t.Helper()
	start := clock.checks.Load()
	deadline := time.Now().Add(waitGenerous)
	for clock.checks.Load() < start+3 {
		select {
		case <-ts.Done():
			t.Fatalf("%s: the server shut down (clock %s past start)", why, sinceStart(clock))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the idle checker never read the clock (is Server.background still the idle loop?)", why)
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-ts.Done():
		t.Fatalf("%s: the server shut down (clock %s past start)", why, sinceStart(clock))
	default:
	}
}

func sinceStart(c *idleClock) time.Duration {
	return c.Now().Sub(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
}

// waitServe waits for Serve to return and puts its result back for the
// helper's cleanup.
func waitServe(t *testing.T, ts *testServer, why string) {
	t.Helper()
	select {
	case err := <-ts.done:
		ts.done <- err
		if err != nil {
			t.Fatalf("%s: Serve returned %v, want nil", why, err)
		}
	case <-time.After(waitGenerous):
		t.Fatalf("%s: Serve did not return", why)
	}
}

// waitTouched waits until the server has recorded activity at the clock's
// current time (for activity the server notices asynchronously).
func waitTouched(t *testing.T, ts *testServer, clock *idleClock, why string) {
	t.Helper()
	want := clock.Now().UnixNano()
	deadline := time.Now().Add(waitGenerous)
	for ts.last.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: activity was not recorded at %s", why, clock.Now())
		}
		time.Sleep(time.Millisecond)
	}
}

const idleLine = `{"hypothesisId":"H1","location":"a.go:1","message":"m","data":1,"timestamp":1784313728231}` + "\n"

func TestIdleShutdownWithoutActivity(t *testing.T) {
	ts, clock := startIdleServer(t)
	settle(t, ts, clock, "at start")
	clock.Advance(20 * time.Minute)
	settle(t, ts, clock, "20 minutes idle")
	clock.Advance(10*time.Minute - time.Second)
	settle(t, ts, clock, "29m59s idle")
	clock.Advance(time.Second)
	waitServe(t, ts, "30 minutes idle")
}

func TestIdleDeadlineMovesWithActivity(t *testing.T) {
	kinds := []struct {
		name string
		act  func(t *testing.T, ts *testServer, clock *idleClock, s SessionInfo)
	}{
		{"control request", func(t *testing.T, ts *testServer, clock *idleClock, s SessionInfo) {
			if code := ts.control(t, http.MethodGet, "/v1/sessions", nil); code != http.StatusOK {
				t.Fatalf("list: %d", code)
			}
		}},
		{"http ingest", func(t *testing.T, ts *testServer, clock *idleClock, s SessionInfo) {
			code, res := ingest(t, ts.Base+"/ingest/"+s.SessionID, "application/x-ndjson", []byte(idleLine))
			if code != http.StatusOK || res.Accepted != 1 {
				t.Fatalf("ingest: %d %+v", code, res)
			}
		}},
		{"append path", func(t *testing.T, ts *testServer, clock *idleClock, s SessionInfo) {
			f, err := os.OpenFile(s.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(idleLine); err != nil {
				t.Fatal(err)
			}
			f.Close()
			// The spool poller takes the line in on its own; no request is made.
			waitTouched(t, ts, clock, "append path")
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			ts, clock := startIdleServer(t)
			s := ts.create(t) // activity at the start time
			for round := 1; round <= 3; round++ {
				clock.Advance(20 * time.Minute)
				settle(t, ts, clock, "20 minutes after the last activity")
				k.act(t, ts, clock, s)
				if got, want := ts.last.Load(), clock.Now().UnixNano(); got != want {
					t.Fatalf("round %d: last activity %s, want %s", round, time.Unix(0, got).UTC(), clock.Now())
				}
				settle(t, ts, clock, "just after "+k.name)
			}
			// 60 minutes have passed since start, 20 since the last activity.
			clock.Advance(20 * time.Minute)
			settle(t, ts, clock, "20 minutes after "+k.name)
			clock.Advance(10 * time.Minute)
			waitServe(t, ts, "30 minutes after "+k.name)
		})
	}
}

func TestStopEndsServeAtOnce(t *testing.T) {
	ts, clock := startIdleServer(t)
	settle(t, ts, clock, "at start")
	ts.Stop()
	waitServe(t, ts, "after Stop")
	ts.Stop() // a second Stop is harmless
}

func TestStopRequestEndsServe(t *testing.T) {
	ts, clock := startIdleServer(t)
	settle(t, ts, clock, "at start")
	if code := ts.control(t, http.MethodPost, "/v1/stop", nil); code != http.StatusOK {
		t.Fatalf("stop: %d", code)
	}
	waitServe(t, ts, "after POST /v1/stop")
}
