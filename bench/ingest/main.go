// Command ingest measures sustained ingestion through the real debug-mode
// binary and its background service: HTTP batches posted to the Ingest URL,
// batches appended to the Append Path, and OTLP/HTTP protobuf logs requests
// posted to the OTLP Endpoint. For each transport it prints the
// events stored, the wall time from the first byte sent to the last event
// stored, events per second, the service's peak resident memory, and checks
// with `status --json` that exactly the events sent were stored.
//
//	go run ./bench/ingest -bin bench/out/debug-mode -events 1000000 -batch 400 -transport all
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

// Targets this benchmark checks.
const (
	targetEventsPerSec = 100_000
	targetMemBytes     = 64 << 20
)

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "path to the debug-mode binary")
	events := flag.Int("events", 1_000_000, "events to send per transport")
	batch := flag.Int("batch", 400, "events per HTTP request or per append write")
	transport := flag.String("transport", "both", "http, file, otlp, a comma-separated list of them, both (http,file) or all")
	posters := flag.Int("posters", 2, "concurrent HTTP posters (one keep-alive connection each)")
	home := flag.String("home", "", "state root (AGENT_DEBUG_MODE_HOME); default: a fresh temporary one, removed afterwards")
	keep := flag.Bool("keep", false, "leave the service running (and a temporary state root in place) when done")
	table := flag.Bool("table", false, "print Markdown table rows (measure | result | target | verdict) instead of one line per transport")
	sample := flag.Duration("sample", 20*time.Millisecond, "VmRSS sampling interval")
	serviceEnv := flag.String("service-env", "", "comma-separated KEY=VALUE pairs for the CLI and the service it starts, e.g. GOMEMLIMIT=40MiB,GOGC=50")
	fresh := flag.Bool("fresh", true, "stop the service between runs, so each starts with a new one")
	repeat := flag.Int("repeat", 1, "runs per transport; the table reports the median rate and the highest memory")
	timestamps := flag.String("timestamps", "rising", "rising: event timestamps never decrease (as from one clock); repeating: they restart every 64 batches, so most events arrive late")
	flag.Parse()
	if *events <= 0 || *batch <= 0 || *posters <= 0 || *repeat <= 0 {
		fail(errors.New("-events, -batch, -posters and -repeat must be positive"))
	}
	var transports []string
	switch *transport {
	case "both":
		transports = []string{"http", "file"}
	case "all":
		transports = []string{"http", "file", "otlp"}
	default:
		transports = strings.Split(*transport, ",")
		for _, t := range transports {
			if t != "http" && t != "file" && t != "otlp" {
				fail(fmt.Errorf("-transport must be http, file, otlp, a list of them, both or all, not %q", *transport))
			}
		}
	}

	if *timestamps != "rising" && *timestamps != "repeating" {
		fail(fmt.Errorf("-timestamps must be rising or repeating, not %q", *timestamps))
	}
	env, err := harness.NewEnv(*bin, *home)
	if err != nil {
		fail(err)
	}
	if *serviceEnv != "" {
		env.Extra = strings.Split(*serviceEnv, ",")
	}
	if !*keep {
		cleanup = env.Close
		defer env.Close()
	}
	w := workload{events: *events, batch: *batch, repeat: *timestamps == "repeating"}
	w.build()
	if slices.Contains(transports, "otlp") {
		w.buildOTLP()
	}
	fmt.Fprintf(os.Stderr, "state root %s; %d events per transport in batches of %d; mean record %d bytes; %s timestamps\n",
		env.Home, w.events, w.batch, w.recordBytes, *timestamps)
	if w.otlpBytes > 0 {
		fmt.Fprintf(os.Stderr, "OTLP: mean protobuf request %d bytes (%d per log record)\n", w.otlpBytes, w.otlpBytes/w.batch)
	}

	failed := false
	started := false
	for _, t := range transports {
		var runs []*result
		for range *repeat {
			if started && *fresh {
				// A new service for each run: memory figures then cover
				// one run's session, not the sessions loaded before it.
				if _, err := env.Run("stop"); err != nil {
					fail(err)
				}
			}
			started = true
			r, err := run(env, t, w, *posters, *sample)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", t, err)
				failed = true
				continue
			}
			if !*table {
				r.printLine(os.Stdout)
			}
			if !r.verified {
				failed = true
			}
			runs = append(runs, r)
		}
		if len(runs) == 0 {
			continue
		}
		if *table {
			printRows(os.Stdout, runs)
		} else if len(runs) > 1 {
			printSummary(os.Stdout, runs)
		}
	}
	if failed {
		cleanup()
		os.Exit(1)
	}
}

// cleanup stops the service this program started, if it should.
var cleanup = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ingest:", err)
	cleanup()
	os.Exit(2)
}

// workload is the set of batches to send, generated before the clock
// starts so the sender spends its CPU on sending.
type workload struct {
	events, batch int
	repeat        bool     // timestamps restart every poolBatches batches
	bodies        [][]byte // each batch: its lines, each ending in "\n"
	otlpBodies    [][]byte // each batch as an OTLP protobuf logs request
	recordBytes   int      // mean record length, without the newline
	otlpBytes     int      // mean OTLP request size
}

// poolBatches is how many batches a repeating-timestamp run cycles through.
const poolBatches = 64

func (w *workload) build() {
	seq, total := 0, 0
	for seq < w.events {
		n := min(w.batch, w.events-seq)
		var b []byte
		for range n {
			ts := int64(seq / 10) // ten events per millisecond, never decreasing
			if w.repeat {
				ts = int64(seq % (poolBatches * w.batch))
			}
			start := len(b)
			b = appendRecord(b, seq, ts)
			total += len(b) - start - 1
			seq++
		}
		w.bodies = append(w.bodies, b)
	}
	w.recordBytes = total / w.events
}

func (w *workload) batches() int { return len(w.bodies) }

// body returns the i-th batch and how many events it holds.
func (w *workload) body(i int) ([]byte, int) {
	return w.bodies[i], min(w.batch, w.events-i*w.batch)
}

// appendRecord appends one ~200-byte probe event (and its newline) shaped
// like the ones the language templates send; ts is added to a fixed epoch
// in milliseconds.
func appendRecord(b []byte, i int, ts int64) []byte {
	items := 1 + i%9
	sub := 1000 + (i*7919)%99000 // cents
	total := sub * 9 / 10
	return fmt.Appendf(b, `{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total",`+
		`"data":{"cart":"c-%06d","items":%d,"subtotal":%d.%02d,"discount":0.1,"total":%d.%02d},"timestamp":%d}`+"\n",
		1+i%5, 100+i%60, i%1_000_000, items, sub/100, sub%100, total/100, total%100, 1784313728231+ts)
}

type result struct {
	transport   string
	posters     int
	events      int
	batch       int
	elapsed     time.Duration
	sendTime    time.Duration // file: time to append everything
	peakRSS     int64
	hwm         int64
	hwmReset    bool
	baseRSS     int64
	samples     int
	svcCPU      float64 // service user+system CPU seconds during the run
	benchCPU    float64 // this program's CPU seconds during the run
	stored      int64
	rejected    int64
	verified    bool
	statusCalls int
}

func run(env *harness.Env, transport string, w workload, posters int, interval time.Duration) (*result, error) {
	sess, err := env.Create()
	if err != nil {
		return nil, err
	}
	pid, err := env.ServicePID()
	if err != nil {
		return nil, err
	}
	r := &result{transport: transport, events: w.events, batch: w.batch, posters: posters}
	base, err := harness.ReadMem(pid)
	if err != nil {
		return nil, err
	}
	r.baseRSS = base.RSS
	// VmHWM counts from process start; restart it so it covers this run only.
	r.hwmReset = harness.ResetHWM(pid)
	u0, s0, _ := harness.CPUSeconds(pid)
	self0 := selfCPU()
	smp := harness.StartSampler(pid, interval)

	switch transport {
	case "http":
		err = r.runHTTP(sess, w, posters)
	case "file":
		err = r.runFile(env, sess, w)
	case "otlp":
		err = r.runOTLP(sess, w, posters)
	}
	r.peakRSS, r.samples = smp.Stop()
	if err != nil {
		return nil, err
	}
	u1, s1, _ := harness.CPUSeconds(pid)
	r.svcCPU = (u1 + s1) - (u0 + s0)
	r.benchCPU = selfCPU() - self0
	if m, err := harness.ReadMem(pid); err == nil {
		r.hwm = m.HWM
	}
	st, err := env.Status(sess.SessionID)
	if err != nil {
		return nil, err
	}
	r.stored, r.rejected = st.Events, st.RejectedRecords
	r.verified = st.Events == int64(w.events) && st.RejectedRecords == 0
	if !r.verified {
		fmt.Fprintf(os.Stderr, "%s: status reports %d events and %d rejected records; sent %d\n",
			transport, st.Events, st.RejectedRecords, w.events)
	}
	return r, nil
}

// runHTTP posts every batch, posters at a time over keep-alive connections.
// The service acknowledges a request only once its records are written, so
// the clock stops at the last acknowledgement.
func (r *result) runHTTP(sess harness.Session, w workload, posters int) error {
	return r.postAll(w, posters, func(client *http.Client, i int) error {
		body, count := w.body(i)
		return post(client, sess.IngestURL, body, count)
	})
}

// runOTLP posts every batch as an OTLP/HTTP protobuf logs request, as an
// OpenTelemetry SDK or Collector does (without gzip, which costs the
// sender more than the service).
func (r *result) runOTLP(sess harness.Session, w workload, posters int) error {
	return r.postAll(w, posters, func(client *http.Client, i int) error {
		_, count := w.body(i)
		return postOTLP(client, sess.OTLPEndpoint+"/v1/logs", w.otlpBodies[i], count)
	})
}

// postAll sends every batch, posters at a time over keep-alive connections.
func (r *result) postAll(w workload, posters int, send func(*http.Client, int) error) error {
	client := &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: posters, DisableCompression: true},
	}
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	n := int64(w.batches())
	start := time.Now()
	for range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				if err := send(client, int(i)); err != nil {
					errOnce.Do(func() { firstErr = err })
					next.Store(n) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	r.sendTime = r.elapsed
	return firstErr
}

func post(client *http.Client, url string, body []byte, count int) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var res struct{ Accepted, Rejected int }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &res) != nil || res.Accepted != count {
		return fmt.Errorf("POST answered %s: %s (sent %d records)", resp.Status, strings.TrimSpace(string(data)), count)
	}
	return nil
}

// postOTLP sends one logs request and checks that it was stored whole: 200
// with an empty answer (no partial_success).
func postOTLP(client *http.Client, url string, body []byte, count int) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || len(data) != 0 {
		return fmt.Errorf("OTLP POST answered %s: %q (sent %d log records)", resp.Status, data, count)
	}
	return nil
}

// runFile appends every batch with one write(2) each on an O_APPEND
// descriptor, as fast as the disk takes them, then asks status (which
// drains the append path before answering) until all events are stored.
// The service's own 200 ms poll drains concurrently while writes go on.
func (r *result) runFile(env *harness.Env, sess harness.Session, w workload) error {
	f, err := os.OpenFile(sess.AppendPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	fd := int(f.Fd())
	n := w.batches()
	start := time.Now()
	for i := range n {
		body, _ := w.body(i)
		k, err := syscall.Write(fd, body)
		if err != nil || k != len(body) {
			f.Close()
			return fmt.Errorf("append write %d: wrote %d of %d bytes: %v", i, k, len(body), err)
		}
	}
	r.sendTime = time.Since(start)
	f.Close()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		st, err := env.Status(sess.SessionID)
		r.statusCalls++
		if err != nil {
			return err
		}
		if st.Events >= int64(w.events) || st.Events+st.RejectedRecords >= int64(w.events) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d events stored after 10 minutes", st.Events, w.events)
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.elapsed = time.Since(start)
	return nil
}

func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func (r *result) rate() float64 { return float64(r.events) / r.elapsed.Seconds() }

func (r *result) label() string {
	switch r.transport {
	case "http":
		return fmt.Sprintf("HTTP ingest (%d posters, %d-event batches)", r.posters, r.batch)
	case "otlp":
		return fmt.Sprintf("OTLP/HTTP protobuf log ingest (%d posters, %d-record requests)", r.posters, r.batch)
	}
	return fmt.Sprintf("file ingest (%d-event appends)", r.batch)
}

func (r *result) memNote() string {
	hwm := harness.MiB(r.hwm)
	if !r.hwmReset {
		hwm += " (since service start; clear_refs refused)"
	}
	return fmt.Sprintf("peak VmRSS %s (%d samples), VmHWM %s, idle before %s", harness.MiB(r.peakRSS), r.samples, hwm, harness.MiB(r.baseRSS))
}

func (r *result) verifyNote() string {
	if r.verified {
		return fmt.Sprintf("status: %s stored", harness.Group(r.stored))
	}
	return fmt.Sprintf("status: %s stored, %d rejected — MISMATCH", harness.Group(r.stored), r.rejected)
}

func (r *result) printLine(out io.Writer) {
	extra := ""
	if r.transport == "file" {
		extra = fmt.Sprintf(" (appends took %.3f s; %d status calls)", r.sendTime.Seconds(), r.statusCalls)
	}
	fmt.Fprintf(out, "%-4s events=%d seconds=%.3f%s events/s=%.0f peak_rss=%s hwm=%s service_cpu=%.2fs bench_cpu=%.2fs %s\n",
		r.transport, r.events, r.elapsed.Seconds(), extra, r.rate(), harness.MiB(r.peakRSS), harness.MiB(r.hwm),
		r.svcCPU, r.benchCPU, r.verifyNote())
}

// median returns the run with the median rate (the lower middle one for an
// even count) and every run's rate, in run order.
func median(runs []*result) (*result, []string) {
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(a, b *result) int { return cmp.Compare(a.rate(), b.rate()) })
	var all []string
	for _, r := range runs {
		all = append(all, harness.Group(int64(r.rate())))
	}
	return sorted[(len(sorted)-1)/2], all
}

// highest returns the run with the highest resident memory.
func highest(runs []*result) *result {
	return slices.MaxFunc(runs, func(a, b *result) int { return cmp.Compare(max(a.peakRSS, a.hwm), max(b.peakRSS, b.hwm)) })
}

func allVerified(runs []*result) bool {
	for _, r := range runs {
		if !r.verified {
			return false
		}
	}
	return true
}

func printSummary(out io.Writer, runs []*result) {
	med, all := median(runs)
	hi := highest(runs)
	fmt.Fprintf(out, "%-4s median of %d runs: %.0f events/s (runs: %s); highest memory: %s\n",
		med.transport, len(runs), med.rate(), strings.Join(all, ", "), hi.memNote())
}

func printRows(out io.Writer, runs []*result) {
	med, all := median(runs)
	hi := highest(runs)
	ok := allVerified(runs)
	detail := ""
	if med.transport == "file" {
		detail = fmt.Sprintf("; appends took %.2f s", med.sendTime.Seconds())
	}
	what := fmt.Sprintf("%s events in %.2f s%s; service CPU %.2f s", harness.Group(int64(med.events)), med.elapsed.Seconds(), detail, med.svcCPU)
	if len(runs) > 1 {
		what = fmt.Sprintf("median of %d runs: %s; median run: %s", len(runs), strings.Join(all, ", "), what)
	}
	verify := med.verifyNote()
	if len(runs) > 1 && ok {
		verify = "status: every run stored exactly " + harness.Group(int64(med.events))
	}
	fmt.Fprintf(out, "| %s | %s events/s (%s; %s) | ≥ %s events/s | %s |\n",
		med.label(), harness.Group(int64(med.rate())), what, verify, harness.Group(targetEventsPerSec),
		harness.Verdict(ok && med.rate() >= targetEventsPerSec))
	fmt.Fprintf(out, "| service memory, %s ingest | %s | ≤ 64 MiB | %s |\n",
		med.transport, hi.memNote(), harness.Verdict(max(hi.peakRSS, hi.hwm) <= targetMemBytes))
}
