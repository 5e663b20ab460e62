// Command roundtrip measures how long one debug-mode CLI invocation takes
// against a warm background service: process start, reading the discovery
// file, one loopback request, printing. It runs `status --session <id>` and
// `sessions` (interleaved, with `--version`, which never contacts the
// service, as the floor of process start-up) and prints median, p90 and max.
//
//	go run ./bench/roundtrip -bin bench/out/debug-mode -n 200
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

// targetMedian is the round-trip target for status.
const targetMedian = 10 * time.Millisecond

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "path to the debug-mode binary")
	n := flag.Int("n", 200, "timed runs of each command")
	warmup := flag.Int("warmup", 5, "untimed runs of each command first (the first starts the service)")
	home := flag.String("home", "", "state root (AGENT_DEBUG_MODE_HOME); default: a fresh temporary one, removed afterwards")
	session := flag.String("session", "", "session to ask about; default: create one")
	events := flag.Int("events", 1000, "events to post to a session this program creates, so status has something to count")
	keep := flag.Bool("keep", false, "leave the service running when done")
	table := flag.Bool("table", false, "print Markdown table rows (measure | result | target | verdict)")
	flag.Parse()
	if *n <= 0 {
		fail(errors.New("-n must be positive"))
	}
	env, err := harness.NewEnv(*bin, *home)
	if err != nil {
		fail(err)
	}
	if !*keep {
		cleanup = env.Close
		defer env.Close()
	}
	id := *session
	if id == "" {
		s, err := env.Create()
		if err != nil {
			fail(err)
		}
		id = s.SessionID
		if err := seed(s.IngestURL, *events); err != nil {
			fail(err)
		}
	}

	cmds := []struct {
		name string
		args []string
	}{
		{"status --session <id>", []string{"status", "--session", id}},
		{"sessions", []string{"sessions"}},
		{"--version (no service contact)", []string{"--version"}},
	}
	times := make([][]time.Duration, len(cmds))
	for i := range *warmup + *n {
		for c, cmd := range cmds {
			d, err := timeRun(env, cmd.args)
			if err != nil {
				fail(err)
			}
			if i >= *warmup {
				times[c] = append(times[c], d)
			}
		}
	}
	pid, _ := env.ServicePID()
	mem, _ := harness.ReadMem(pid)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(os.Stderr, "%d runs each after %d warm-up runs; service VmRSS %s; load average %s\n",
		*n, *warmup, harness.MiB(mem.RSS), strings.Join(strings.Fields(string(load))[:3], " "))
	for c, cmd := range cmds {
		st := summarize(times[c])
		if *table {
			target, verdict := "—", "—"
			if c == 0 {
				target, verdict = "median ≤ 10 ms", harness.Verdict(st.median <= targetMedian)
			}
			fmt.Printf("| CLI round trip: `%s` (%d runs) | median %s ms, p90 %s ms, max %s ms | %s | %s |\n",
				cmd.name, len(times[c]), ms(st.median), ms(st.p90), ms(st.max), target, verdict)
			continue
		}
		fmt.Printf("%-32s runs=%d median=%sms p90=%sms max=%sms min=%sms mean=%sms\n",
			cmd.name, len(times[c]), ms(st.median), ms(st.p90), ms(st.max), ms(st.min), ms(st.mean))
	}
}

// cleanup stops the service this program started, if it should.
var cleanup = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "roundtrip:", err)
	cleanup()
	os.Exit(2)
}

// timeRun runs one CLI command and times it from fork to exit, the way a
// caller waiting on it experiences it.
func timeRun(env *harness.Env, args []string) (time.Duration, error) {
	cmd := env.Command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil || out.Len() == 0 {
		return d, fmt.Errorf("debug-mode %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return d, nil
}

// seed posts events so the session is not empty.
func seed(url string, n int) error {
	var b []byte
	for i := range n {
		b = fmt.Appendf(b, `{"hypothesisId":"H%d","location":"src/cart/total.py:128","message":"discount applied to cart total","data":{"cart":"c-%06d","items":4,"subtotal":129.95,"discount":0.1,"total":116.96},"timestamp":%d}`+"\n",
			1+i%3, i, 1784313728231+int64(i))
	}
	if len(b) == 0 {
		return nil
	}
	resp, err := http.Post(url, "application/x-ndjson", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("seeding the session: %s: %s", resp.Status, body)
	}
	return nil
}

type stats struct{ min, median, p90, max, mean time.Duration }

func summarize(d []time.Duration) stats {
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, v := range s {
		sum += v
	}
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stats{min: s[0], median: med, p90: at(0.9), max: s[len(s)-1], mean: sum / time.Duration(len(s))}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
