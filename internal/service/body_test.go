package service

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowSender is a real connection that sends an ingest request's headers,
// announcing a body of announced bytes, and then trickles the body one byte
// every interval until the service answers or hangs up.
type slowSender struct {
	conn   net.Conn
	closed chan string // the service's first answer line, or "" when it hung up
	ended  chan string // all the service sent, once it closed the connection
}

func (ts *testServer) slowSender(t *testing.T, id string, announced int, interval time.Duration) *slowSender {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /ingest/" + id + " HTTP/1.1\r\nHost: 127.0.0.1:" + ts.port() +
		"\r\nContent-Type: application/x-ndjson\r\nContent-Length: " + strconv.Itoa(announced) + "\r\n\r\n{"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	s := &slowSender{conn: conn, closed: make(chan string, 1), ended: make(chan string, 1)}
	stop := make(chan struct{})
	go func() {
		br := bufio.NewReader(conn)
		line, _ := br.ReadString('\n')
		close(stop)
		s.closed <- strings.TrimSpace(line)
		rest, err := io.ReadAll(br)
		// A reset is a close too: the service closes while bytes it will
		// not read are still arriving. Only a timeout means it kept the
		// connection open.
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			rest = append(rest, "\n[the connection was not closed: "+err.Error()+"]"...)
		}
		s.ended <- line + string(rest)
	}()
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if _, err := conn.Write([]byte{' '}); err != nil {
					return
				}
			}
		}
	}()
	return s
}

// open reports whether the service has neither answered nor hung up yet.
func (s *slowSender) open() bool {
	select {
	case line := <-s.closed:
		s.closed <- line
		return false
	default:
		return true
	}
}

// TestSlowBodiesHoldNoSlot: connections that send their headers and then a
// byte now and then keep no one else from posting. Twice as many of them as
// there are processing slots are open while good requests, small and large,
// are posted and answered; the slow ones are all still open then (so they
// were not simply cut off first). Before bodies were read ahead of taking a
// slot, the good request waited for the 60 s read timeout.
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	// A long grace keeps the slow senders open for as long as a loaded
	// machine might take to post the good requests; it runs after the
	// server stopped.
	old := bodyGrace
	bodyGrace = time.Minute
	t.Cleanup(func() { bodyGrace = old })
	ts := startServer(t, Config{})
	sess := ts.create(t)
	var slow []*slowSender
	for i := range 2 * MaxConcurrentBodies {
		// Half announce the largest body: were budget reserved for what is
		// announced, two of them would hold all of it.
		announced := 1000
		if i%2 == 1 {
			announced = MaxBodyBytes
		}
		slow = append(slow, ts.slowSender(t, sess.SessionID, announced, 200*time.Millisecond))
	}
	// Let every slow request reach the handler and start on its body.
	deadline := time.Now().Add(10 * time.Second)
	for ts.ingesting.Load() < int64(len(slow)) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d slow requests reached the handler", ts.ingesting.Load(), len(slow))
		}
		time.Sleep(5 * time.Millisecond)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	large := strings.Repeat(secRecord("LARGE"), 2*SmallBodyBytes/len(secRecord("LARGE")))
	for _, body := range []string{secRecord("SMALL"), large} {
		req := ts.ingestReq(t, sess.SessionID, body)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("good POST of %d bytes while %d slow bodies are open: %v", len(body), len(slow), err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("good POST: %d %s", resp.StatusCode, b)
		}
	}
	for i, s := range slow {
		if !s.open() {
			t.Fatalf("slow body %d was ended before the good requests were answered; they must not have had to wait for it", i)
		}
	}
	if st := ts.status(t, sess.SessionID); st.Events != int64(1+len(large)/len(secRecord("LARGE"))) {
		t.Fatalf("stored %d events", st.Events)
	}
}

// TestSlowBodyIsRefused: a body that arrives slower than MinBodyRate is
// answered 408 with a message that says what to do, the connection is
// closed, and nothing of it is stored. A sender that announces a large
// body and trickles it is refused as soon as one that announces a small one.
func TestSlowBodyIsRefused(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	announce := []int{1000, MaxBodyBytes}
	var senders []*slowSender
	for _, announced := range announce {
		senders = append(senders, ts.slowSender(t, sess.SessionID, announced, 100*time.Millisecond))
	}
	for i, s := range senders {
		announced := announce[i]
		var line string
		select {
		case line = <-s.closed:
		case <-time.After(BodyGrace + 20*time.Second):
			t.Fatalf("announced %d bytes: a body trickled at 10 bytes/s is still being read", announced)
		}
		if !strings.HasPrefix(line, "HTTP/1.1 408") {
			t.Fatalf("announced %d bytes: answered %q, want 408", announced, line)
		}
		// The rest of the answer, then the end of the connection.
		s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		answer := <-s.ended
		if !strings.Contains(answer, "slower than 1024 KiB/s; send each request's body at once") {
			t.Errorf("408 answer does not say the rate and what to do: %q", answer)
		}
		if strings.Contains(answer, "[the connection was not closed") {
			t.Errorf("announced %d bytes: %s", announced, answer)
		}
	}
	if st := ts.status(t, sess.SessionID); st.Events != 0 || st.Rejected != 0 {
		t.Fatalf("slow bodies left %d events, %d rejected", st.Events, st.Rejected)
	}
	if n := ts.ingesting.Load(); n != 0 {
		t.Fatalf("%d bodies still counted as being read", n)
	}
}

// TestLargeBodiesShareTheBudget: more large bodies than the budget holds,
// posted at once, all get in, each whole: the later ones wait for budget
// rather than being refused or mixed up.
func TestLargeBodiesShareTheBudget(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	refused := `{"note":"` + strings.Repeat("x", 1000) + `"}` + "\n" // a refused line: no hypothesisId
	good := secRecord("BIG")
	unit := good + refused
	body := strings.Repeat(unit, BodyBudgetBytes/4/len(unit))
	const parallel = 6 // 6 × budget/4: half again what the budget holds
	var wg sync.WaitGroup
	var results [parallel]IngestResult
	var codes [parallel]int
	for i := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, res := ingest(t, sess.IngestURL, "application/x-ndjson", []byte(body))
			codes[i], results[i] = code, res
		}()
	}
	wg.Wait()
	n := len(body) / len(unit)
	for i, r := range results {
		if codes[i] != http.StatusOK || r.Accepted != n || r.Rejected != n {
			t.Fatalf("body %d: %d %+v, want %d accepted and %d rejected", i, codes[i], r, n, n)
		}
	}
	if st := ts.status(t, sess.SessionID); st.Events != int64(parallel*n) || st.Rejected != int64(parallel*n) {
		t.Fatalf("status: %d events, %d rejected; want %d each", st.Events, st.Rejected, parallel*n)
	}
}

// TestChunkedBodies: a body sent without a length is read whole when it is
// small or large, refused past MaxBodyBytes, and refused whole (nothing
// stored) when the sender breaks off.
func TestChunkedBodies(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	for _, n := range []int{1, SmallBodyBytes/len(secRecord("C")) + 1, 3 * SmallBodyBytes / len(secRecord("C"))} {
		body := strings.Repeat(secRecord("C"), n)
		req := ts.ingestReq(t, sess.SessionID, "")
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(body)), -1
		resp, b := secDo(t, req)
		var res IngestResult
		json.Unmarshal(b, &res)
		if resp.StatusCode != http.StatusOK || res.Accepted != n {
			t.Fatalf("chunked body of %d records: %d %s", n, resp.StatusCode, b)
		}
	}
	before := ts.status(t, sess.SessionID).Events

	// A chunked body cut off in the middle: the connection ends without the
	// final chunk.
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := strings.Repeat(secRecord("CUT"), 2*SmallBodyBytes/len(secRecord("CUT")))
	fmt.Fprintf(conn, "POST /ingest/%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n",
		sess.SessionID, ts.port(), len(chunk), chunk)
	conn.(*net.TCPConn).CloseWrite()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.ReadAll(conn)
	conn.Close()
	if after := ts.status(t, sess.SessionID).Events; after != before {
		t.Fatalf("a chunked body that was cut off stored %d events", after-before)
	}
}
