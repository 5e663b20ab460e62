package service

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"
)

// TestFairSlots: when a slot frees, a session holding none gets it before
// the session that holds every slot and has queued many more requests,
// whichever came first; within a session, requests go in order.
func TestFairSlots(t *testing.T) {
	f := newFairSlots(2)
	ctx := context.Background()
	for range 2 {
		if err := f.acquire(ctx, "flood"); err != nil {
			t.Fatal(err)
		}
	}
	granted := make(chan string, 10)
	order := []struct{ session, name string }{{"flood", "f1"}, {"flood", "f2"}, {"flood", "f3"}, {"other", "o1"}, {"flood", "f4"}}
	for i, o := range order {
		go func() {
			if f.acquire(ctx, o.session) == nil {
				granted <- o.name
			}
		}()
		waitQueued(t, f, i+1)
	}
	next := func() string {
		select {
		case g := <-granted:
			return g
		case <-time.After(10 * time.Second):
			t.Fatal("no slot handed over")
			return ""
		}
	}
	f.release("flood")
	if g := next(); g != "o1" {
		t.Fatalf("first freed slot went to %s, want the other session's request", g)
	}
	f.release("flood")
	if g := next(); g != "f1" {
		t.Fatalf("then %s, want the flood's oldest", g)
	}
	f.release("other")
	if g := next(); g != "f2" {
		t.Fatalf("then %s, want f2", g)
	}

	// A request whose client went away while waiting takes nothing.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- f.acquire(cctx, "gone") }()
	waitQueued(t, f, 3) // f3, f4 and it
	cancel()
	if err := <-done; err == nil {
		t.Fatal("acquire after cancel returned no error")
	}
	f.release("flood")
	if g := next(); g != "f3" {
		t.Fatalf("then %s, want f3 (the cancelled one holds nothing)", g)
	}
}

// waitQueued waits until n requests wait for a slot.
func waitQueued(t *testing.T, f *fairSlots, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		f.mu.Lock()
		k := len(f.waiters)
		f.mu.Unlock()
		if k == n {
			return
		}
	}
	t.Fatalf("%d requests never queued", n)
}

// TestBodyStoredAfterClientLeft: a body read whole is stored even when its
// client went away while it waited for a processing slot. A helper that
// flushes at exit writes its request and ends without reading the answer;
// reproduce's settle waits for exactly these, and none may be dropped.
func TestBodyStoredAfterClientLeft(t *testing.T) {
	for _, path := range []string{"ingest", "otlp"} {
		t.Run(path, func(t *testing.T) {
			ts := startServer(t, Config{})
			sess := ts.create(t)
			for range MaxConcurrentBodies {
				if err := ts.Server.slots.acquire(context.Background(), "busy"); err != nil {
					t.Fatal(err)
				}
			}
			u, _ := url.Parse(ts.Base)
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			target, ctype, body := "/ingest/"+sess.SessionID, "application/x-ndjson", secRecord("H1")
			if path == "otlp" {
				target, ctype, body = "/otlp/"+sess.SessionID+"/v1/logs", "application/json",
					`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1784313728231000000","body":{"stringValue":"left"}}]}]}]}`
			}
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", target, u.Host, ctype, len(body), body)
			waitQueued(t, ts.Server.slots, 1)
			c.Close()
			time.Sleep(100 * time.Millisecond) // the server notices the client is gone
			for range MaxConcurrentBodies {
				ts.Server.slots.release("busy")
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if st := ts.status(t, sess.SessionID); st.Events == 1 {
					return
				}
				if time.Now().After(deadline) {
					t.Fatal("the body was dropped: its client had gone away while it waited for a slot")
				}
			}
		})
	}
}
