// Command reading measures what agents pay to read evidence from a session
// of 1,000,000 ~200-byte events: logs pages (first, deep offset, filtered),
// a streaming query next to jq (and gojq/jaq when installed) running the
// same program over the same canonical file, aggregations over the whole
// session (-n 'reduce inputs …') and over many events at once (--slurp of
// programs that read a few fields, at and past its 150,000-event limit)
// next to jq/jaq -n and -s, and the
// service's memory, overall and per aggregation.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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
	aggRows, err := aggregations(env, s.SessionID, events, n, qruns, pid)
	if err != nil {
		return err
	}
	for _, r := range aggRows {
		rows = append(rows, row{r[0], r[1], r[2]})
	}
	peak, _ := sampler.Stop()
	mem, _ := harness.ReadMem(pid)
	rows = append(rows, row{"service peak RSS while reading (sampled / VmHWM)", harness.MiB(peak) + " / " + harness.MiB(mem.HWM), "≤ 64 MiB"})

	fmt.Printf("\n%-78s %-24s %s\n", "measure ("+harness.Group(int64(n))+" events, ~200 B each)", "figure", "target / comparison")
	for _, r := range rows {
		fmt.Printf("%-78s %-24s %s\n", r.name, r.figure, r.target)
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

// aggregations times counting over the whole session with -n (one event at
// a time) and grouping many events at once with --slurp, each with the
// service's peak RSS (VmHWM restarted before it), next to jq and jaq doing
// the same on the same lines. Answers are compared as JSON values.
func aggregations(env *harness.Env, id, events string, n, runs, pid int) ([][3]string, error) {
	var rows [][3]string
	tools := map[string]string{}
	for _, tool := range []string{"jq", "jaq"} {
		if path, err := exec.LookPath(tool); err == nil {
			v, _ := exec.Command(path, "--version").Output()
			tools[tool] = path
			tools[tool+" version"] = strings.TrimSpace(string(v))
		}
	}
	perItems := map[string]int{}
	for i := 0; i < n; i++ {
		perItems[fmt.Sprint(i%7)]++
	}
	counts, _ := json.Marshal(perItems)

	// The first `slurp` lines of the file are the events --seq-to selects.
	slurpFile := func(k int) (string, error) {
		path := filepath.Join(filepath.Dir(events), fmt.Sprintf("first-%d.ndjson", k))
		in, err := os.Open(events)
		if err != nil {
			return "", err
		}
		defer in.Close()
		out, err := os.Create(path)
		if err != nil {
			return "", err
		}
		defer out.Close()
		r, w := bufio.NewReader(in), bufio.NewWriter(out)
		for range k {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return "", err
			}
			w.Write(line)
		}
		return path, w.Flush()
	}
	groupBy := `group_by(.data.items) | map({k: .[0].data.items, n: length})`
	groups := func(k int) string {
		per := map[int]int{}
		for i := 0; i < k; i++ {
			per[i%7]++
		}
		var out []map[string]int
		for g := 0; g < 7; g++ {
			out = append(out, map[string]int{"k": g, "n": per[g]})
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	for _, m := range []struct {
		name    string
		args    []string // debug-mode query arguments
		program string
		jqFlag  string // -n or -s
		events  int    // events selected (the file's first ones)
		want    string // the answer, or "" when a refusal is expected
	}{
		{"-n count", []string{"-n"}, `reduce inputs as $e (0; . + 1)`, "-n", n, fmt.Sprint(n)},
		{"-n counts per value", []string{"-n"}, `reduce inputs as $e ({}; .[$e.data.items | tostring] += 1)`, "-n", n, string(counts)},
		{"-n maximum", []string{"-n"}, `reduce inputs as $e (null; [., $e.data.cart] | max)`, "-n", n, fmt.Sprintf("%q", fmt.Sprintf("c-%06d", n-1))},
		{"--slurp group_by, 150,000 events", []string{"--seq-to", "150000", "--slurp"}, groupBy, "-s", 150_000, groups(150_000)},
		{"--slurp group_by, 200,000 events", []string{"--seq-to", "200000", "--slurp"}, groupBy, "-s", 200_000, ""},
		{"--slurp length, 150,000 events", []string{"--seq-to", "150000", "--slurp"}, `length`, "-s", 150_000, "150000"},
	} {
		if m.events > n {
			continue
		}
		args := append(append([]string{"query", "--session", id, "--json"}, m.args...), m.program)
		var answer, refusal string
		var hwm int64
		d, err := median(runs, func() error {
			harness.ResetHWM(pid)
			out, err := env.Run(args...)
			if mem, merr := harness.ReadMem(pid); merr == nil && mem.HWM > hwm {
				hwm = mem.HWM
			}
			if err != nil {
				if m.want != "" {
					return fmt.Errorf("%s: %v", m.name, err)
				}
				refusal = refusalKind(err)
				return nil
			}
			var res struct {
				Result struct {
					Values []json.RawMessage `json:"values"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &res); err != nil || len(res.Result.Values) != 1 {
				return fmt.Errorf("%s: unexpected answer %s", m.name, out)
			}
			answer = string(res.Result.Values[0])
			return nil
		})
		if err != nil {
			return nil, err
		}
		figure := secs(d) + ", " + harness.MiB(hwm)
		verdict := "answer checked"
		switch {
		case m.want == "" && refusal != "":
			verdict = "refused: " + refusal
		case m.want == "":
			verdict = "answered (fits on this run)"
		case !sameJSON(answer, m.want):
			return nil, fmt.Errorf("%s: answered %s, want %s", m.name, answer, m.want)
		}
		rows = append(rows, [3]string{"debug-mode query " + m.name + " (time, service VmHWM)", figure, verdict})
		file := events
		if m.events < n {
			if file, err = slurpFile(m.events); err != nil {
				return nil, err
			}
		}
		for _, tool := range []string{"jq", "jaq"} {
			path, ok := tools[tool]
			if !ok {
				continue
			}
			var got string
			var peak int64
			td, err := median(runs, func() error {
				// The tool's own peak RSS, sampled from /proc (the rusage
				// of a child also counts this process's memory at exec).
				cmd := exec.Command(path, "-c", m.jqFlag, m.program, file)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Start(); err != nil {
					return err
				}
				sampler := harness.StartSampler(cmd.Process.Pid, 5*time.Millisecond)
				err := cmd.Wait()
				if p, _ := sampler.Stop(); p > peak {
					peak = p
				}
				got = strings.TrimSpace(out.String())
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", tool, m.name, err)
			}
			if m.want != "" && !sameJSON(got, m.want) {
				return nil, fmt.Errorf("%s %s: answered %s, want %s", tool, m.name, got, m.want)
			}
			versus := fmt.Sprintf("debug-mode ×%.1f", td.Seconds()/d.Seconds())
			if refusal != "" {
				versus = "(debug-mode refused)"
			}
			rows = append(rows, [3]string{fmt.Sprintf("  %s -c %s, same program, same events (%s)", tool, m.jqFlag, tools[tool+" version"]), secs(td) + ", " + harness.MiB(peak) + " (sampled)", versus})
		}
	}
	return rows, nil
}

// sameJSON compares two JSON texts as values.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// refusalKind names the bound that refused a query.
func refusalKind(err error) string {
	switch msg := err.Error(); {
	case strings.Contains(msg, "needs too much memory"):
		return "stopped at the 24 MiB query memory bound (the message offers the -n form)"
	case strings.Contains(msg, "too much evidence"):
		return "refused at the slurp limit"
	default:
		return msg
	}
}
