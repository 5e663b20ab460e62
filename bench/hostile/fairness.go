package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

// Fairness: while one session is attacked (or floods), a good POST to
// another session must be answered promptly. Each attack runs for the
// whole measurement, its clients reconnecting as soon as the service lets
// them go.

type fairAttack struct {
	name string
	// run attacks session a's Ingest URL until stop is closed; it counts
	// the connections it opened.
	run func(u *url.URL, stop <-chan struct{}, conns *atomic.Int64)
}

func fairAttacks(n int) []fairAttack {
	return []fairAttack{
		{fmt.Sprintf("%d clients sending headers at 1 byte/s, reconnecting at once", n), func(u *url.URL, stop <-chan struct{}, conns *atomic.Int64) {
			loop(n, stop, func() { slowHeaders(u, stop, conns) })
		}},
		{fmt.Sprintf("%d keep-alive clients: one good POST, then idle, reconnecting at once", n), func(u *url.URL, stop <-chan struct{}, conns *atomic.Int64) {
			loop(n, stop, func() { idleKeepAlive(u, stop, conns) })
		}},
		{"16 clients flooding one session with 1 MiB batches", func(u *url.URL, stop <-chan struct{}, conns *atomic.Int64) {
			var batch []byte
			for i := 0; len(batch) < 1<<20-300; i++ {
				batch = append(append(batch, goodRecord(i)...), '\n')
			}
			client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}}
			loop(16, stop, func() {
				conns.Add(1)
				post(client, u.String(), batch, false)
			})
		}},
	}
}

// loop runs f in n goroutines, each again and again, until stop.
func loop(n int, stop <-chan struct{}, f func()) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				f()
			}
		}()
	}
	wg.Wait()
}

// dial opens a connection to u's host and counts it; nil (after a pause)
// when it cannot.
func dial(u *url.URL, conns *atomic.Int64) net.Conn {
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		time.Sleep(10 * time.Millisecond)
		return nil
	}
	conns.Add(1)
	return c
}

// slowHeaders opens a connection and sends a request line and header bytes
// one per second until the service closes it (or stop).
func slowHeaders(u *url.URL, stop <-chan struct{}, conns *atomic.Int64) {
	c := dial(u, conns)
	if c == nil {
		return
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST "+u.Path+" HTTP/1.1\r\nHost: "+u.Host+"\r\n"); err != nil {
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if _, err := c.Write([]byte{'X'}); err != nil {
				return
			}
		}
	}
}

// idleKeepAlive sends one good request on a connection and then keeps the
// connection open, sending nothing, until the service closes it.
func idleKeepAlive(u *url.URL, stop <-chan struct{}, conns *atomic.Int64) {
	c := dial(u, conns)
	if c == nil {
		return
	}
	defer c.Close()
	body := goodRecord(1) + "\n"
	req := "POST " + u.Path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/x-ndjson\r\nContent-Length: " +
		fmt.Sprint(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(c, req); err != nil {
		return
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	done := make(chan struct{})
	go func() { br.ReadByte(); close(done) }() // returns when the service closes
	select {
	case <-stop:
	case <-done:
	}
}

type fairResult struct {
	attack   string
	waits    []time.Duration // one record
	large    []time.Duration // a 200 KB batch
	failures []string
	conns    int64
}

// runFairness runs each attack on one session while good one-record POSTs,
// each on a new connection, go to another session.
func runFairness(env *harness.Env, a fairAttack, posts int) (*fairResult, error) {
	victim, _, err := fresh(env)
	if err != nil {
		return nil, err
	}
	attacked, err := env.Create()
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(attacked.IngestURL)
	if err != nil {
		return nil, err
	}
	r := &fairResult{attack: a.name}
	stop := make(chan struct{})
	var conns atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); a.run(u, stop, &conns) }()
	time.Sleep(2 * time.Second) // the attack in full swing
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	small := []byte(goodRecord(7) + "\n")
	var large []byte // over the small-body size: read through the shared body budget
	for i := 0; len(large) < 200_000; i++ {
		large = append(append(large, goodRecord(i)...), '\n')
	}
	for i := range 2 * posts {
		body := small
		if i%2 == 1 {
			body = large
		}
		t0 := time.Now()
		res, status, err := post(client, victim.IngestURL, body, false)
		d := time.Since(t0)
		switch {
		case err != nil:
			r.failures = append(r.failures, err.Error())
		case status != http.StatusOK || res.Accepted != bytes.Count(body, []byte{'\n'}):
			r.failures = append(r.failures, fmt.Sprintf("%d %+v", status, res))
		case i%2 == 0:
			r.waits = append(r.waits, d)
		default:
			r.large = append(r.large, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	r.conns = conns.Load()
	return r, nil
}

func (r *fairResult) met() bool {
	return len(r.failures) == 0 && len(r.waits) > 0 && len(r.large) > 0 && slices.Max(r.waits) <= targetWait && slices.Max(r.large) <= targetWait
}

func (r *fairResult) print(out io.Writer, table bool) {
	got := fmt.Sprintf("good POSTs to another session waited — %s; %s", waits(fmt.Sprintf("%d of one record", len(r.waits)), r.waits),
		waits(fmt.Sprintf("%d of a 200 KB batch", len(r.large)), r.large))
	if len(r.failures) > 0 {
		got += fmt.Sprintf("; %d FAILED (%s)", len(r.failures), r.failures[0])
	}
	got += fmt.Sprintf("; the attack opened %s connections", harness.Group(r.conns))
	if table {
		fmt.Fprintf(out, "| good POST to another session while %s | %s | ≤ %s | %s |\n", cell(r.attack), cell(got), secs(targetWait), harness.Verdict(r.met()))
		return
	}
	fmt.Fprintf(out, "while %s: %s\n", r.attack, strings.TrimSpace(got))
}
