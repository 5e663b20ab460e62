package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

// The OTLP cases: compressed bodies whose decompressed size is what costs
// memory. A bomb is a small body (under the service's small-body size, so
// no body budget is reserved while it arrives) that inflates far past the
// 8 MiB limit; a large one is a valid logs request just under the limit.

// otlpCase is one kind of compressed OTLP body.
type otlpCase struct {
	name     string
	encoding string // gzip or deflate
	body     []byte
	records  int // log records in it (0: a bomb, refused)
	want     int // the HTTP status every request must get
}

// bombCases are the decompression bombs: inflate bytes of zeros.
func bombCases(inflate int) []otlpCase {
	zeros := make([]byte, inflate)
	var out []otlpCase
	for _, enc := range []string{"gzip", "deflate"} {
		out = append(out, otlpCase{name: fmt.Sprintf("%s bomb (%s bytes of zeros)", enc, harness.Group(int64(inflate))),
			encoding: enc, body: compress(enc, zeros), want: http.StatusRequestEntityTooLarge})
	}
	return out
}

// largeCases are a protobuf logs request of about size bytes,
// gzip-compressed and as it is (what decoding and storing cost alone).
func largeCases(size int) []otlpCase {
	c := largeCase(size)
	plain := c
	plain.name, plain.encoding = strings.Replace(c.name, "gzip logs request inflating to", "uncompressed logs request of", 1), "identity"
	plain.body = logsRequest(c.records)
	return []otlpCase{c, plain}
}

// largeCase is a protobuf logs request of about size bytes, gzip-compressed.
func largeCase(size int) otlpCase {
	n := size / 3100
	b := logsRequest(n)
	n = int(float64(n) * float64(size) / float64(len(b)) * 0.995) // scaled to just under size
	b = logsRequest(n)
	return otlpCase{name: fmt.Sprintf("gzip logs request inflating to %s bytes (%s records)", harness.Group(int64(len(b))), harness.Group(int64(n))),
		encoding: "gzip", body: compress("gzip", b), records: n, want: http.StatusOK}
}

// logsRequest is a protobuf logs request of n records.
func logsRequest(n int) []byte {
	var m plog.ProtoMarshaler
	ld := plog.NewLogs()
	sl := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty()
	for i := range n {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.Timestamp((1784313728231 + int64(i)) * 1e6))
		lr.Body().SetStr("discount applied to cart total")
		a := lr.Attributes()
		a.PutStr("debug.hypothesis", "H1")
		a.PutStr("code.file.path", "src/cart/total.py")
		a.PutInt("code.line.number", int64(100+i%60))
		a.PutStr("cart", fmt.Sprintf("c-%06d-%s", i, strings.Repeat("x", 3000))) // large records: the 65,536-message bound is not reached first
		a.PutInt("items", int64(i%9))
	}
	b, err := m.MarshalLogs(ld)
	if err != nil {
		fail(err)
	}
	return b
}

func compress(enc string, data []byte) []byte {
	if enc == "identity" {
		return data
	}
	var b bytes.Buffer
	var w io.WriteCloser
	if enc == "gzip" {
		w, _ = gzip.NewWriterLevel(&b, gzip.BestCompression)
	} else {
		w, _ = zlib.NewWriterLevel(&b, zlib.BestCompression)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

type otlpResult struct {
	c                  otlpCase
	parallel, rounds   int
	peakRSS, hwm, base int64
	elapsed            time.Duration
	statuses           map[int]int
	messages           map[string]bool
	stored             int64
}

// runOTLP posts c.body parallel at a time, rounds times, to the session's
// OTLP logs endpoint, and samples the service's memory meanwhile.
func runOTLP(env *harness.Env, c otlpCase, parallel, rounds int, interval time.Duration) (*otlpResult, error) {
	sess, pid, err := fresh(env)
	if err != nil {
		return nil, err
	}
	r := &otlpResult{c: c, parallel: parallel, rounds: rounds, statuses: map[int]int{}, messages: map[string]bool{}}
	if m, err := harness.ReadMem(pid); err == nil {
		r.base = m.RSS
	}
	harness.ResetHWM(pid)
	smp := harness.StartSampler(pid, interval)
	client := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: parallel}}
	var mu sync.Mutex
	start := time.Now()
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, msg := postOTLP(client, sess.OTLPEndpoint+"/v1/logs", c)
				mu.Lock()
				r.statuses[status]++
				if len(r.messages) < 3 {
					r.messages[msg] = true
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	r.elapsed = time.Since(start)
	r.peakRSS, _ = smp.Stop()
	if m, err := harness.ReadMem(pid); err == nil {
		r.hwm = m.HWM
	}
	st, err := env.Status(sess.SessionID)
	if err != nil {
		return nil, err
	}
	r.stored = st.Events
	return r, nil
}

// postOTLP sends one request and returns the status and, for a refusal,
// the message of its OTLP status (JSON answers are asked for by sending
// JSON's content type only for reading: the body is protobuf).
func postOTLP(client *http.Client, url string, c otlpCase) (int, string) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(c.body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Content-Encoding", c.encoding)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return resp.StatusCode, ""
	}
	// A google.rpc.Status in protobuf: field 2 is the message; print the
	// printable run of it.
	msg := strings.Map(func(r rune) rune {
		if r < ' ' || r > '~' {
			return -1
		}
		return r
	}, string(b))
	return resp.StatusCode, msg
}

func (r *otlpResult) peak() int64 { return max(r.peakRSS, r.hwm) }

func (r *otlpResult) met() bool {
	n := r.parallel * r.rounds
	return r.statuses[r.c.want] == n && r.stored == int64(r.c.records*n) && r.peak() <= targetMemBytes
}

func (r *otlpResult) print(out io.Writer, table bool) {
	var got []string
	for code, n := range r.statuses {
		got = append(got, fmt.Sprintf("%d × %d", n, code))
	}
	var msgs []string
	for m := range r.messages {
		if m != "" {
			msgs = append(msgs, fmt.Sprintf("%q", m))
		}
	}
	what := fmt.Sprintf("%d × %d at once of a %s-byte %s", r.rounds, r.parallel, harness.Group(int64(len(r.c.body))), r.c.name)
	res := fmt.Sprintf("peak VmRSS %s, VmHWM %s, idle before %s; %.2f s; answers %s; %s events stored",
		harness.MiB(r.peakRSS), harness.MiB(r.hwm), harness.MiB(r.base), r.elapsed.Seconds(), strings.Join(got, ", "), harness.Group(r.stored))
	if len(msgs) > 0 {
		res += "; " + strings.Join(msgs, " ")
	}
	if table {
		fmt.Fprintf(out, "| service memory, OTLP %s | %s | ≤ 64 MiB, every request %d | %s |\n", cell(what), cell(res), r.c.want, harness.Verdict(r.met()))
		return
	}
	fmt.Fprintf(out, "OTLP %s: %s\n", what, res)
}
