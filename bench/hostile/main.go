// Command hostile measures what hostile HTTP ingest costs the real
// debug-mode service:
//
//   - memory: bodies as large as the service admits (8 MiB), made of bad
//     lines only, of good and bad lines mixed, or of good lines only, posted
//     -parallel at a time; it reports the service's peak resident memory
//     (VmRSS sampled every few milliseconds, and VmHWM restarted before each
//     case) and checks that every line was counted;
//   - slow bodies: N connections that send their headers (half announcing a
//     small body, half the largest) and then one byte of body per second,
//     how long good POSTs (one record, and a 200 KB batch) made meanwhile
//     wait, and how long the service lets the slow connections stay;
//   - OTLP decompression: gzip and deflate bombs (small bodies that inflate
//     far past the 8 MiB limit), -otlp-parallel at a time, and valid gzip
//     logs requests inflating to just under the limit, 4 at a time, with
//     the service's peak memory and every answer;
//   - fairness: while -fair-clients clients send headers at 1 byte/s, or
//     hold keep-alive connections idle, or 16 clients flood one session
//     with 1 MiB batches, how long good POSTs to another session wait;
//   - query limits: on a session of -query-events events, how long
//     `query --slurp length` takes to be refused, and how far a program
//     building a large array gets, with the service's peak memory for each.
//
// Each case gets a fresh service, so its memory is that case's own.
//
//	go run ./bench/hostile -bin bench/out/debug-mode
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

// Targets this benchmark checks.
const (
	targetMemBytes = 64 << 20
	// targetWait is how long a good POST may wait while slow connections
	// are open; on loopback it is answered in milliseconds otherwise.
	targetWait = time.Second
	// MaxOTLPBody is the size of the large valid OTLP request: just under
	// the service's 8 MiB limit, after decompression.
	MaxOTLPBody = 8<<20 - 64<<10
)

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "path to the debug-mode binary")
	bodyBytes := flag.Int("body", 8<<20, "bytes per hostile body (the service admits up to 8 MiB)")
	parallel := flag.Int("parallel", 4, "hostile bodies posted at once")
	attackers := flag.String("attackers", "4,8,64", "comma-separated counts of slow connections for the slow-body cases (empty: none)")
	posts := flag.Int("posts", 5, "good POSTs timed while the slow connections are open")
	sample := flag.Duration("sample", 5*time.Millisecond, "VmRSS sampling interval")
	queryEvents := flag.Int("query-events", 400_000, "events in the session the query cases run on (0: skip them)")
	table := flag.Bool("table", false, "print Markdown table rows (measure | result | target | verdict)")
	bodies := flag.Bool("bodies", true, "run the NDJSON body memory cases")
	otlpCases := flag.Bool("otlp", true, "run the OTLP decompression cases")
	otlpParallel := flag.Int("otlp-parallel", 16, "OTLP bombs posted at once")
	fairClients := flag.Int("fair-clients", 200, "attacking clients in the fairness cases (0: skip them)")
	bombBytes := flag.Int("bomb", 60<<20, "bytes a bomb inflates to (60 MiB of zeros compress under the 64 KiB small-body size)")
	flag.Parse()
	if *bodyBytes <= 0 || *parallel <= 0 || *posts <= 0 {
		fail(errors.New("-body, -parallel and -posts must be positive"))
	}
	var slowCounts []int
	for _, f := range strings.FieldsFunc(*attackers, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("-attackers: %q is not a positive count", f))
		}
		slowCounts = append(slowCounts, n)
	}
	env, err := harness.NewEnv(*bin, "")
	if err != nil {
		fail(err)
	}
	cleanup = env.Close
	defer env.Close()

	ok := true
	var bodyCases []bodyCase
	if *bodies {
		bodyCases = []bodyCase{
			{name: "bad lines only", unit: badUnit},
			{name: "good and bad lines mixed", unit: mixedUnit},
			{name: "good lines only", unit: goodUnit},
			{name: "bad lines only, sent chunked (no length)", unit: badUnit, chunked: true},
		}
	}
	for _, c := range bodyCases {
		r, err := runBodies(env, c, *bodyBytes, *parallel, *sample)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c.name, err)
			ok = false
			continue
		}
		r.print(os.Stdout, *table)
		ok = ok && r.met()
	}
	if *otlpCases {
		type run struct {
			c                otlpCase
			parallel, rounds int
		}
		var runs []run
		for _, c := range bombCases(*bombBytes) {
			runs = append(runs, run{c, *otlpParallel, 3})
		}
		for _, c := range largeCases(MaxOTLPBody) {
			runs = append(runs, run{c, *parallel, 2})
		}
		for _, x := range runs {
			r, err := runOTLP(env, x.c, x.parallel, x.rounds, *sample)
			if err != nil {
				fmt.Fprintf(os.Stderr, "OTLP %s: %v\n", x.c.name, err)
				ok = false
				continue
			}
			r.print(os.Stdout, *table)
			ok = ok && r.met()
		}
	}
	if *fairClients > 0 {
		for _, a := range fairAttacks(*fairClients) {
			r, err := runFairness(env, a, *posts)
			if err != nil {
				fmt.Fprintf(os.Stderr, "while %s: %v\n", a.name, err)
				ok = false
				continue
			}
			r.print(os.Stdout, *table)
			ok = ok && r.met()
		}
	}
	for _, n := range slowCounts {
		r, err := runSlow(env, n, *posts)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%d slow connections: %v\n", n, err)
			ok = false
			continue
		}
		r.print(os.Stdout, *table)
		ok = ok && r.met()
	}
	if *queryEvents > 0 {
		rs, err := runQueries(env, *queryEvents, *sample)
		if err != nil {
			fmt.Fprintf(os.Stderr, "query limits: %v\n", err)
			ok = false
		}
		for _, r := range rs {
			r.print(os.Stdout, *table)
			ok = ok && r.met()
		}
	}
	if !ok {
		cleanup()
		os.Exit(1)
	}
}

// cleanup stops the service this program started.
var cleanup = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hostile:", err)
	cleanup()
	os.Exit(2)
}

// fresh stops any running service and creates a session on a new one.
func fresh(env *harness.Env) (harness.Session, int, error) {
	if _, err := env.Run("stop"); err != nil {
		return harness.Session{}, 0, err
	}
	sess, err := env.Create()
	if err != nil {
		return harness.Session{}, 0, err
	}
	pid, err := env.ServicePID()
	return sess, pid, err
}

// A unit is a run of lines repeated to fill a body.
type unit []line

// line is one line of a body and whether the service must accept it.
type line struct {
	text string
	good bool
}

// goodRecord is a valid ~200-byte probe event, like the templates send.
func goodRecord(i int) string {
	return fmt.Sprintf(`{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total",`+
		`"data":{"cart":"c-%06d","items":%d,"subtotal":12.50,"discount":0.1,"total":11.25},"timestamp":%d}`,
		1+i%5, 100+i%60, i, 1+i%9, 1784313728231+int64(i))
}

var (
	// badUnit is the cheapest line to send that the service must refuse.
	badUnit = unit{{"{}", false}}
	// mixedUnit interleaves good records with many kinds of refusal and a
	// warning (an unknown field: accepted, reported once).
	mixedUnit = unit{
		{goodRecord(1), true},
		{"{}", false},
		{"not json at all", false},
		{`{"hypothesisId":"H1","location":"a.py:1","message":"m","data":1}`, false},
		{`{"hypothesisId":"H1","location":"a.py:1","message":"m","data":1,"timestamp":1784313728}`, false},
		{goodRecord(2), true},
		{`[1,2,3]`, false},
		{`{"hypothesisId":"","location":"a.py:1","message":"m","data":1,"timestamp":1784313728231}`, false},
		{`{"hypothesisId":"H2","location":"a.py:2","message":"m","data":{"password":"hunter2"},"timestamp":1784313728231,"extra":1}`, true},
		{`{"hypothesisId":"H1","location":"a.py:1","message":"m","data":{"a":1,"a":2},"timestamp":1784313728231}`, false},
	}
	goodUnit = unit{{goodRecord(3), true}}
)

type bodyCase struct {
	name    string
	unit    unit
	chunked bool // send without Content-Length
}

// build repeats u into a body of at most size bytes and says how many lines
// it holds and how many of them the service must accept and reject.
func (u unit) build(size int) (body []byte, lines, accepted, rejected int) {
	var b bytes.Buffer
	for {
		for _, l := range u {
			if b.Len()+len(l.text)+1 > size {
				return b.Bytes(), lines, accepted, rejected
			}
			b.WriteString(l.text)
			b.WriteByte('\n')
			lines++
			if l.good {
				accepted++
			} else {
				rejected++
			}
		}
	}
}

type bodyResult struct {
	name                string
	parallel, bodyBytes int
	lines               int
	peakRSS, hwm, base  int64
	hwmReset            bool
	elapsed             time.Duration
	wantAcc, wantRej    int
	gotAcc, gotRej      int
	statusEvents, stRej int64
	answers             []string
	counted             bool
}

func runBodies(env *harness.Env, c bodyCase, size, parallel int, interval time.Duration) (*bodyResult, error) {
	body, lines, acc, rej := c.unit.build(size)
	sess, pid, err := fresh(env)
	if err != nil {
		return nil, err
	}
	r := &bodyResult{name: c.name, parallel: parallel, bodyBytes: len(body), lines: lines,
		wantAcc: acc * parallel, wantRej: rej * parallel}
	if m, err := harness.ReadMem(pid); err == nil {
		r.base = m.RSS
	}
	r.hwmReset = harness.ResetHWM(pid)
	smp := harness.StartSampler(pid, interval)
	client := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: parallel}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, status, err := post(client, sess.IngestURL, body, c.chunked)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				r.answers = append(r.answers, err.Error())
				return
			}
			r.answers = append(r.answers, fmt.Sprintf("%d accepted=%d rejected=%d %s", status, res.Accepted, res.Rejected, res.Error))
			r.gotAcc += res.Accepted
			r.gotRej += res.Rejected
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	r.peakRSS, _ = smp.Stop()
	if m, err := harness.ReadMem(pid); err == nil {
		r.hwm = m.HWM
	}
	st, err := env.Status(sess.SessionID)
	if err != nil {
		return nil, err
	}
	r.statusEvents, r.stRej = st.Events, st.RejectedRecords
	r.counted = r.gotAcc == r.wantAcc && r.gotRej == r.wantRej &&
		st.Events == int64(r.wantAcc) && st.RejectedRecords == int64(r.wantRej)
	return r, nil
}

type ingestResult struct {
	Accepted int    `json:"accepted"`
	Rejected int    `json:"rejected"`
	Error    string `json:"error"`
}

func post(client *http.Client, url string, body []byte, chunked bool) (ingestResult, int, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return ingestResult{}, 0, err
	}
	if chunked {
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), -1
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := client.Do(req)
	if err != nil {
		return ingestResult{}, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return ingestResult{}, resp.StatusCode, err
	}
	var res ingestResult
	if err := json.Unmarshal(data, &res); err != nil {
		return res, resp.StatusCode, fmt.Errorf("answer %s: %q", resp.Status, data)
	}
	return res, resp.StatusCode, nil
}

func (r *bodyResult) peak() int64 { return max(r.peakRSS, r.hwm) }

func (r *bodyResult) met() bool { return r.counted && r.peak() <= targetMemBytes }

func (r *bodyResult) print(out io.Writer, table bool) {
	count := fmt.Sprintf("%s accepted and %s rejected, as sent", harness.Group(int64(r.gotAcc)), harness.Group(int64(r.gotRej)))
	if !r.counted {
		count = fmt.Sprintf("MISCOUNTED: answers %s accepted / %s rejected, status %s events / %s rejected; want %s / %s (answers: %s)",
			harness.Group(int64(r.gotAcc)), harness.Group(int64(r.gotRej)), harness.Group(r.statusEvents), harness.Group(r.stRej),
			harness.Group(int64(r.wantAcc)), harness.Group(int64(r.wantRej)), strings.Join(r.answers, "; "))
	}
	hwm := harness.MiB(r.hwm)
	if !r.hwmReset {
		hwm += " (since service start)"
	}
	what := fmt.Sprintf("%d × %s-byte bodies (%s lines each), %s", r.parallel, harness.Group(int64(r.bodyBytes)), harness.Group(int64(r.lines)), r.name)
	if table {
		fmt.Fprintf(out, "| service memory, %s | peak VmRSS %s, VmHWM %s, idle before %s; %.2f s; %s | ≤ 64 MiB | %s |\n",
			what, harness.MiB(r.peakRSS), hwm, harness.MiB(r.base), r.elapsed.Seconds(), count, harness.Verdict(r.met()))
		return
	}
	fmt.Fprintf(out, "%s: peak_rss=%s hwm=%s idle_before=%s seconds=%.2f; %s\n",
		what, harness.MiB(r.peakRSS), hwm, harness.MiB(r.base), r.elapsed.Seconds(), count)
}

type slowResult struct {
	attackers int
	// waits of the good POSTs, by body: one record, and a batch over the
	// service's small-body size (which reads through the shared budget).
	small, large []time.Duration
	failures     []string
	answeredBy   time.Duration // when the last good POST was answered, from the attack's start
	// heldFor is how long each slow connection stayed open, and how it ended.
	heldFor []time.Duration
	endings map[string]int
}

// runSlow opens n connections that announce a body (every other one the
// largest the service admits), then trickle it one byte per second. It
// times good POSTs made while they are open, then watches the slow
// connections (for up to 75 s) to see how long the service lets them stay.
func runSlow(env *harness.Env, n, posts int) (*slowResult, error) {
	sess, _, err := fresh(env)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(sess.IngestURL)
	if err != nil {
		return nil, err
	}
	r := &slowResult{attackers: n, endings: map[string]int{}}
	type ending struct {
		held time.Duration
		how  string
	}
	ends := make(chan ending, n)
	stop := make(chan struct{})
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			close(stop)
			return nil, err
		}
		conns = append(conns, c)
	}
	start := time.Now()
	for i, c := range conns {
		announced := 100_000
		if i%2 == 1 {
			announced = 8 << 20
		}
		head := "POST " + u.Path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/x-ndjson\r\nContent-Length: " +
			strconv.Itoa(announced) + "\r\n\r\n{"
		go func() {
			defer c.Close()
			if _, err := io.WriteString(c, head); err != nil {
				ends <- ending{time.Since(start), "write failed"}
				return
			}
			// Reading finds out when the service answers or hangs up.
			closed := make(chan string, 1)
			go func() {
				b := make([]byte, 512)
				k, err := c.Read(b)
				switch {
				case k > 0:
					line, _, _ := strings.Cut(string(b[:k]), "\r\n")
					closed <- "answered " + strings.TrimPrefix(line, "HTTP/1.1 ")
				case err != nil:
					closed <- "closed by the service"
				}
			}()
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case how := <-closed:
					ends <- ending{time.Since(start), how}
					return
				case <-stop:
					ends <- ending{time.Since(start), "still open when the benchmark stopped"}
					return
				case <-t.C:
					if _, err := c.Write([]byte{' '}); err != nil {
						ends <- ending{time.Since(start), "closed by the service"}
						return
					}
				}
			}
		}()
	}
	// Let every slow connection get past its headers and into the handler.
	time.Sleep(time.Second)
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	small := []byte(goodRecord(7) + "\n")
	var large []byte
	for i := 0; len(large) < 200_000; i++ {
		large = append(append(large, goodRecord(i)...), '\n')
	}
	for range posts {
		for _, body := range [][]byte{small, large} {
			t0 := time.Now()
			res, status, err := post(client, sess.IngestURL, body, false)
			d := time.Since(t0)
			want := bytes.Count(body, []byte{'\n'})
			switch {
			case err != nil:
				r.failures = append(r.failures, err.Error())
			case status != http.StatusOK || res.Accepted != want:
				r.failures = append(r.failures, fmt.Sprintf("%d %+v", status, res))
			case len(body) == len(small):
				r.small = append(r.small, d)
			default:
				r.large = append(r.large, d)
			}
		}
	}
	r.answeredBy = time.Since(start)
	// Watch the slow connections for a while: a bounded service ends them.
	deadline := time.After(75 * time.Second)
watch:
	for len(r.heldFor) < n {
		select {
		case e := <-ends:
			r.heldFor = append(r.heldFor, e.held)
			r.endings[e.how]++
		case <-deadline:
			break watch
		}
	}
	close(stop)
	for len(r.heldFor) < n {
		e := <-ends
		r.heldFor = append(r.heldFor, e.held)
		r.endings[e.how]++
	}
	return r, nil
}

// allOpen reports whether every slow connection outlived the good POSTs.
func (r *slowResult) allOpen() bool { return slices.Min(r.heldFor) > r.answeredBy }

func (r *slowResult) met() bool {
	return len(r.failures) == 0 && len(r.small) > 0 && len(r.large) > 0 &&
		slices.Max(r.small) <= targetWait && slices.Max(r.large) <= targetWait && r.allOpen()
}

func waits(label string, ds []time.Duration) string {
	if len(ds) == 0 {
		return label + ": none answered"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("%s: median %s, max %s", label, ms(s[(len(s)-1)/2]), ms(s[len(s)-1]))
}

func (r *slowResult) print(out io.Writer, table bool) {
	got := fmt.Sprintf("%d good POSTs each waited — %s; %s", len(r.small)+len(r.large),
		waits("one record", r.small), waits("200 KB batch", r.large))
	if len(r.failures) > 0 {
		got += fmt.Sprintf("; %d FAILED (%s)", len(r.failures), r.failures[0])
	}
	held := slices.Clone(r.heldFor)
	slices.Sort(held)
	var how []string
	for k, v := range r.endings {
		how = append(how, fmt.Sprintf("%d %s", v, k))
	}
	slices.Sort(how)
	open := "all still open when the last good POST was answered"
	if !r.allOpen() {
		open = "SOME ENDED BEFORE the last good POST was answered"
	}
	fate := fmt.Sprintf("slow connections held %s–%s (%s; %s)", secs(held[0]), secs(held[len(held)-1]), strings.Join(how, ", "), open)
	what := fmt.Sprintf("%d slow bodies (headers, then 1 byte/s; half announce 100 KB, half 8 MiB)", r.attackers)
	if table {
		fmt.Fprintf(out, "| good POST while %s | %s | ≤ %s | %s |\n", cell(what), cell(got+"; "+fate), secs(targetWait), harness.Verdict(r.met()))
		return
	}
	fmt.Fprintf(out, "%s: %s; %s\n", what, got, fate)
}

// queryResult is one query run against the limits.
type queryResult struct {
	what, program string
	args          []string
	elapsed       time.Duration
	peakRSS, base int64
	exit          string // the CLI's error line, or its output
	refused       bool
	wantInMessage string // "" when the query must succeed
}

// runQueries fills a session with n events through the Append Path, then
// runs the over-limit queries on a fresh service (so its memory is theirs).
func runQueries(env *harness.Env, n int, interval time.Duration) ([]*queryResult, error) {
	sess, _, err := fresh(env)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(sess.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	var b []byte
	for i := range n {
		b = append(append(b, goodRecord(i)...), '\n')
		if len(b) > 1<<20 || i == n-1 {
			if _, err := f.Write(b); err != nil {
				f.Close()
				return nil, err
			}
			b = b[:0]
		}
	}
	f.Close()
	if st, err := env.Status(sess.SessionID); err != nil || st.Events != int64(n) {
		return nil, fmt.Errorf("session holds %d events, want %d (%v)", st.Events, n, err)
	}
	var out []*queryResult
	for _, q := range []*queryResult{
		{what: fmt.Sprintf("`query --slurp length` on %s events", harness.Group(int64(n))), program: "length", args: []string{"--slurp"}, wantInMessage: "the most --slurp loads at once"},
		{what: "`query --seq-to 1 '[range(10000000)] | length'` (a program building a 10,000,000-element array)", program: "[range(10000000)] | length", args: []string{"--seq-to", "1"}, wantInMessage: "the most a query may use"},
		{what: "`query --seq-to 15000 --slurp` mapping and grouping 15,000 events (the slurp limit)", program: "map({h: .hypothesisId, t: .data.total, c: .data.cart}) | group_by(.h) | map(length) | add", args: []string{"--seq-to", "15000", "--slurp"}},
	} {
		// A new service, with the session loaded by a first cheap query,
		// so the figure is the query's own.
		if _, err := env.Run("stop"); err != nil {
			return nil, err
		}
		if _, err := env.Run("query", "--session", sess.SessionID, "--seq-to", "1", ".sequence"); err != nil {
			return nil, err
		}
		pid, err := env.ServicePID()
		if err != nil {
			return nil, err
		}
		if m, err := harness.ReadMem(pid); err == nil {
			q.base = m.RSS
		}
		harness.ResetHWM(pid)
		smp := harness.StartSampler(pid, interval)
		t0 := time.Now()
		args := append(append([]string{"query", "--session", sess.SessionID}, q.args...), q.program)
		stdout, err := env.Run(args...)
		q.elapsed = time.Since(t0)
		q.peakRSS, _ = smp.Stop()
		if m, merr := harness.ReadMem(pid); merr == nil {
			q.peakRSS = max(q.peakRSS, m.HWM)
		}
		q.exit = strings.TrimSpace(string(stdout))
		if err != nil {
			q.exit, q.refused = err.Error(), true
		}
		out = append(out, q)
	}
	return out, nil
}

func (q *queryResult) met() bool {
	if q.wantInMessage == "" {
		return !q.refused && q.peakRSS <= targetMemBytes
	}
	return q.refused && strings.Contains(q.exit, q.wantInMessage) && q.peakRSS <= targetMemBytes
}

func (q *queryResult) print(out io.Writer, table bool) {
	msg := q.exit
	if i := strings.Index(msg, "exit status "); i >= 0 && q.refused {
		// Keep the CLI's own message: drop "debug-mode query …: exit status N: ".
		if j := strings.Index(msg[i:], ": "); j >= 0 {
			msg = msg[i+j+2:]
		}
	}
	got := fmt.Sprintf("answered in %s, service peak RSS %s (%s before): %q", ms(q.elapsed), harness.MiB(q.peakRSS), harness.MiB(q.base), msg)
	want := "refused, ≤ 64 MiB"
	switch {
	case q.wantInMessage == "":
		want = "answered, ≤ 64 MiB"
		if q.refused {
			got = "REFUSED: " + got
		}
	case !q.refused:
		got = "NOT REFUSED: " + got
	}
	if table {
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", cell(q.what), cell(got), want, harness.Verdict(q.met()))
		return
	}
	fmt.Fprintf(out, "%s: %s\n", q.what, got)
}

// cell escapes the pipes of a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s" }
