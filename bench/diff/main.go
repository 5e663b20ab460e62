// Command diff measures the before/after comparison on two captures of
// 100,000 ~200-byte events each: the wall-clock time of
// `debug-mode diff --session <id> --from <before> --to <after>` (the CLI
// round trip included) and the service's peak resident memory while it
// reads, checks and compares both captures. It also reports what taking a
// capture of that size costs, and the same comparison in distribution mode
// against a third capture where every cart id differs (a run that is not
// deterministic), which diff picks by itself.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"time"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "debug-mode binary")
	events := flag.Int("events", 100_000, "events in each capture")
	runs := flag.Int("runs", 9, "diff runs (median reported)")
	table := flag.Bool("table", false, "print Markdown table rows only")
	flag.Parse()
	if err := run(*bin, *events, *runs, *table); err != nil {
		fmt.Fprintln(os.Stderr, "diff:", err)
		os.Exit(1)
	}
}

var captureRE = regexp.MustCompile(`(?m)^CAPTURE (c-[0-9a-f]{12}) `)

func run(bin string, n, runs int, table bool) error {
	env, err := harness.NewEnv(bin, "")
	if err != nil {
		return err
	}
	defer env.Close()
	s, err := env.Create()
	if err != nil {
		return err
	}
	src, err := os.MkdirTemp("", "debug-mode-bench-src-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	logf := func(format string, a ...any) {
		if !table {
			fmt.Printf(format, a...)
		}
	}

	take := func(label string, changed, random bool) (string, time.Duration, error) {
		if err := fill(s.AppendPath, n, changed, random); err != nil {
			return "", 0, err
		}
		want := int64(n)
		if changed {
			want++
		}
		if st, err := env.Status(s.SessionID); err != nil || st.Events != want {
			return "", 0, fmt.Errorf("session holds %d events, want %d (%v)", st.Events, want, err)
		}
		start := time.Now()
		out, err := env.Run("capture", "--session", s.SessionID, "--label", label, "--source-root", src)
		d := time.Since(start)
		if err != nil {
			return "", 0, err
		}
		m := captureRE.FindSubmatch(out)
		if m == nil {
			return "", 0, fmt.Errorf("capture printed %q", out)
		}
		return string(m[1]), d, nil
	}
	logf("building two captures of %s events…\n", harness.Group(int64(n)))
	before, capTime, err := take("before", false, false)
	if err != nil {
		return err
	}
	if _, err := env.Run("reset", "--session", s.SessionID); err != nil {
		return err
	}
	after, _, err := take("after", true, false)
	if err != nil {
		return err
	}
	if _, err := env.Run("reset", "--session", s.SessionID); err != nil {
		return err
	}
	random, _, err := take("random", true, true)
	if err != nil {
		return err
	}

	// A fresh service, so its memory is what the comparison needs.
	if _, err := env.Run("stop"); err != nil {
		return err
	}
	if _, err := env.Run("captures", "--session", s.SessionID); err != nil {
		return err
	}
	pid, err := env.ServicePID()
	if err != nil {
		return err
	}
	harness.ResetHWM(pid)
	sampler := harness.StartSampler(pid, 5*time.Millisecond)

	// Check the answer once: both sides whole, the planted changes found.
	out, err := env.Run("diff", "--json", "--session", s.SessionID, "--from", before, "--to", after)
	if err != nil {
		return err
	}
	var res struct {
		Result struct {
			Complete bool `json:"complete"`
			Before   struct{ Compared int64 }
			After    struct{ Compared int64 }
			Counts   struct {
				Groups       int
				OnlyAfter    int
				DataChanged  int
				ChangedPairs int64 `json:"changedValues"`
			}
			FirstDivergence *struct{ Position int64 }
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return err
	}
	r := res.Result
	wantChanged := int64(n / 100)
	if !r.Complete || r.Before.Compared != int64(n) || r.After.Compared != int64(n)+1 || r.Counts.ChangedPairs != wantChanged || r.Counts.OnlyAfter != 1 || r.FirstDivergence == nil {
		return fmt.Errorf("unexpected comparison: %+v (want %d changed values, 1 group only after)", r, wantChanged)
	}

	var ds []time.Duration
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := env.Run("diff", "--session", s.SessionID, "--from", before, "--to", after); err != nil {
			return err
		}
		ds = append(ds, time.Since(start))
	}
	peak, samples := sampler.Stop()
	mem, _ := harness.ReadMem(pid)
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	med := ds[len(ds)/2]

	// Distribution mode, chosen by diff itself, on a fresh service again.
	if _, err := env.Run("stop"); err != nil {
		return err
	}
	if _, err := env.Run("captures", "--session", s.SessionID); err != nil {
		return err
	}
	if pid, err = env.ServicePID(); err != nil {
		return err
	}
	harness.ResetHWM(pid)
	sampler = harness.StartSampler(pid, 5*time.Millisecond)
	out, err = env.Run("diff", "--json", "--session", s.SessionID, "--from", before, "--to", random)
	if err != nil {
		return err
	}
	var dres struct {
		Result struct {
			Mode         string
			Distribution struct{ BeforeEvents, AfterEvents int64 }
		}
	}
	if err := json.Unmarshal(out, &dres); err != nil {
		return err
	}
	if dr := dres.Result; dr.Mode != "distribution" || dr.Distribution.BeforeEvents != int64(n) || dr.Distribution.AfterEvents != int64(n) {
		return fmt.Errorf("unexpected distribution comparison: %+v", dr)
	}
	var dds []time.Duration
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := env.Run("diff", "--session", s.SessionID, "--from", before, "--to", random); err != nil {
			return err
		}
		dds = append(dds, time.Since(start))
	}
	dpeak, dsamples := sampler.Stop()
	dmem, _ := harness.ReadMem(pid)
	sort.Slice(dds, func(i, j int) bool { return dds[i] < dds[j] })
	dmed := dds[len(dds)/2]

	rows := [][4]string{
		{fmt.Sprintf("diff of two %s-event captures, CLI round trip (median of %d, max %s)", harness.Group(int64(n)), runs, ms(ds[len(ds)-1])), ms(med), "≤ 1 s", harness.Verdict(med <= time.Second)},
		{fmt.Sprintf("service peak RSS during the diffs (sampled every 5 ms, %d samples / VmHWM)", samples), harness.MiB(peak) + " / " + harness.MiB(mem.HWM), "≤ 64 MiB", harness.Verdict(max(peak, mem.HWM) <= 64<<20)},
		{fmt.Sprintf("capture of %s events (CLI round trip, empty source root)", harness.Group(int64(n))), ms(capTime), "-", "-"},
		{fmt.Sprintf("diff in distribution mode, every cart id different (chosen automatically; median of %d, max %s)", runs, ms(dds[len(dds)-1])), ms(dmed), "-", "-"},
		{fmt.Sprintf("service peak RSS during the distribution diffs (%d samples / VmHWM)", dsamples), harness.MiB(dpeak) + " / " + harness.MiB(dmem.HWM), "≤ 64 MiB", harness.Verdict(max(dpeak, dmem.HWM) <= 64<<20)},
	}
	if !table {
		fmt.Printf("\ncomparison found %d changed values in %d groups, first divergence at event %d\n\n", r.Counts.ChangedPairs, r.Counts.Groups, r.FirstDivergence.Position)
		fmt.Println("| measure | result | target | verdict |")
		fmt.Println("| --- | --- | --- | --- |")
	}
	for _, row := range rows {
		fmt.Printf("| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
	}
	return nil
}

// fill appends n events; with changed, every 100th total differs and one
// new probe appears, as a fix would make them; with random too, every cart
// id differs, as random keys do.
func fill(path string, n int, changed, random bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	base := time.Now().UnixMilli() - int64(n)
	for i := 0; i < n; i++ {
		total := 116.96
		if changed && i%100 == 7 {
			total = 129.95
		}
		cart := i
		if random {
			cart += n
		}
		fmt.Fprintf(w, `{"hypothesisId":"H%d","location":"src/cart/total.py:%d","message":"discount applied to cart total","data":{"cart":"c-%06d","items":%d,"subtotal":129.95,"discount":0.1,"total":%g},"timestamp":%d}`+"\n",
			i%5+1, 100+i%50, cart, i%7, total, base+int64(i))
	}
	if changed {
		fmt.Fprintf(w, `{"hypothesisId":"H6","location":"src/cart/total.py:200","message":"rounding checked","data":{"ok":true},"timestamp":%d}`+"\n", base+int64(n))
	}
	return w.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
