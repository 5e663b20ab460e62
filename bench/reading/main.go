// Command reading measures what agents pay to read evidence from a session
// of 1,000,000 ~200-byte events: logs pages (first, deep offset, filtered),
// a streaming query next to jq (and gojq/jaq when installed) running the
// same program over the same canonical file, and the service's memory.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "debug-mode binary")
	events := flag.Int("events", 1_000_000, "events in the session")
	runs := flag.Int("runs", 15, "runs per logs measurement (median reported)")
	qruns := flag.Int("qruns", 3, "runs per query measurement (median reported)")
	flag.Parse()
	if err := run(*bin, *events, *runs, *qruns); err != nil {
		fmt.Fprintln(os.Stderr, "reading:", err)
		os.Exit(1)
	}
}

func run(bin string, n, runs, qruns int) error {
	env, err := harness.NewEnv(bin, "")
	if err != nil {
		return err
	}
	defer env.Close()
	s, err := env.Create()
	if err != nil {
		return err
	}
	fmt.Printf("building a session of %s events through the append path…\n", harness.Group(int64(n)))
	if err := fill(s.AppendPath, n); err != nil {
		return err
	}
	st, err := env.Status(s.SessionID)
	if err != nil {
		return err
	}
	if st.Events != int64(n) {
		return fmt.Errorf("session holds %d events, want %d", st.Events, n)
	}
	pid, err := env.ServicePID()
	if err != nil {
		return err
	}
	harness.ResetHWM(pid)
	sampler := harness.StartSampler(pid, 10*time.Millisecond)

	type row struct{ name, figure, target string }
	var rows []row
	timeCLI := func(k int, args ...string) (time.Duration, error) {
		var ds []time.Duration
		for i := 0; i < k; i++ {
			start := time.Now()
			if _, err := env.Run(args...); err != nil {
				return 0, err
			}
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2], nil
	}
	for _, m := range []struct {
		name, target string
		args         []string
	}{
		{"logs first page (50 events)", "≤ 50 ms", []string{"logs", "--session", s.SessionID}},
		{"logs --offset 900000", "≤ 50 ms", []string{"logs", "--session", s.SessionID, "--offset", "900000"}},
		{"logs --hypothesis H3 first page", "≤ 100 ms", []string{"logs", "--session", s.SessionID, "--hypothesis", "H3"}},
	} {
		d, err := timeCLI(runs, m.args...)
		if err != nil {
			return err
		}
		rows = append(rows, row{m.name + ", median of " + fmt.Sprint(runs), ms(d), m.target})
	}

	program := `select(.data.cart | endswith("0000")) | .sequence`
	events := filepath.Join(env.Home, "sessions", s.SessionID, "events.ndjson")
	dq, err := timeCLI(qruns, "query", "--session", s.SessionID, "--limit", "1000", program)
	if err != nil {
		return err
	}
	rows = append(rows, row{"debug-mode query (streaming, 1 in 10,000 selected)", secs(dq), "faster than jq 1.6"})
	for _, tool := range []string{"jq", "gojq", "jaq"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			continue
		}
		d, err := median(qruns, func() error {
			out, err := exec.Command(path, "-c", program, events).Output()
			if err == nil && strings.Count(string(out), "\n") != n/10000 {
				err = fmt.Errorf("%s printed %d values", tool, strings.Count(string(out), "\n"))
			}
			return err
		})
		if err != nil {
			return err
		}
		v, _ := exec.Command(path, "--version").Output()
		rows = append(rows, row{fmt.Sprintf("%s -c, same program, same file (%s)", tool, strings.TrimSpace(string(v))), secs(d), fmt.Sprintf("debug-mode ×%.1f", d.Seconds()/dq.Seconds())})
	}
	peak, _ := sampler.Stop()
	mem, _ := harness.ReadMem(pid)
	rows = append(rows, row{"service peak RSS while reading (sampled / VmHWM)", harness.MiB(peak) + " / " + harness.MiB(mem.HWM), "≤ 64 MiB"})

	fmt.Printf("\n%-62s %-16s %s\n", "measure ("+harness.Group(int64(n))+" events, ~200 B each)", "figure", "target / comparison")
	for _, r := range rows {
		fmt.Printf("%-62s %-16s %s\n", r.name, r.figure, r.target)
	}
	return nil
}

// fill appends n events in 400-line writes, like busy instrumented programs.
func fill(path string, n int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	base := time.Now().UnixMilli() - int64(n)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total","data":{"cart":"c-%06d","items":%d,"subtotal":129.95,"discount":0.1,"total":116.96},"timestamp":%d}`+"\n",
			i%5+1, 100+i%50, i, i%7, base+int64(i))
	}
	return w.Flush()
}

func median(k int, f func() error) (time.Duration, error) {
	var ds []time.Duration
	for i := 0; i < k; i++ {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], nil
}

func ms(d time.Duration) string   { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
