// Command logpoints measures what Python and Node.js logpoints cost the
// program they are in, against a live session of the real binary: the
// speed of a hot loop in a file without a logpoint and in a file with one
// the loop never reaches (targets: at least 0.9× the speed without the
// hook), the cost of one hit (with and without data, and past the cap),
// for Python the cost of the audit hook an instrumented main script keeps
// for its life (an open()-heavy loop), and the start-up time each hook
// adds. Each figure is the best of -repeat runs inside one process, and the
// best of -runs processes.
//
//	go build -o bench/out/debug-mode ./cmd/debug-mode
//	go run ./bench/logpoints -bin bench/out/debug-mode            # -python "" or -node "" leaves one out
package main

import (
	"bufio"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

//go:embed py/*.py js/*.js
var programs embed.FS

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "path to the debug-mode binary")
	python := flag.String("python", "python3", "the Python interpreter (empty: no Python figures)")
	node := flag.String("node", "node", "the node executable (empty: no Node.js figures)")
	n := flag.Int("n", 2_000_000, "iterations of the Python hot loops")
	hits := flag.Int("hits", 50_000, "Python logpoint hits per run (the hook holds back what does not fit its queue of 100,000)")
	nodeN := flag.Int("node-n", 20_000_000, "iterations of the Node.js hot loops")
	nodeHits := flag.Int("node-hits", 5_000, "Node.js logpoint hits per run")
	repeat := flag.Int("repeat", 5, "runs inside one process (the best is kept)")
	runs := flag.Int("runs", 3, "processes per figure (the best is kept)")
	starts := flag.Int("starts", 40, "interpreter starts timed for the start-up cost")
	flag.Parse()
	if *n <= 0 || *hits <= 0 || *nodeN <= 0 || *nodeHits <= 0 || *repeat <= 0 || *runs <= 0 || *starts <= 0 {
		fail(errors.New("every count must be positive"))
	}
	if *python == "" && *node == "" {
		fail(errors.New("-python and -node are both empty: nothing to measure"))
	}
	e, err := harness.NewEnv(*bin, "")
	if err != nil {
		fail(err)
	}
	defer e.Close()
	s, err := e.Create()
	if err != nil {
		fail(err)
	}
	proj, err := os.MkdirTemp("", "debug-mode-logpoints-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(proj)
	if err := copyPrograms(proj); err != nil {
		fail(err)
	}
	if *python != "" {
		if err := addLogpoints(e, s.SessionID, proj, []string{"warm.py", "hits.py", "bench.py"}, "# LOGPOINT"); err != nil {
			fail(err)
		}
	}
	if *node != "" {
		if err := addLogpoints(e, s.SessionID, proj, []string{"warm.js", "hits.js", "bench.js"}, "// LOGPOINT"); err != nil {
			fail(err)
		}
	}
	plain := append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	hooked, err := hookEnv(e, s.SessionID, plain)
	if err != nil {
		fail(err)
	}
	c := config{proj: proj, plain: plain, hooked: hooked, repeat: *repeat, runs: *runs, starts: *starts}
	var want int64
	if *python != "" {
		want += benchPython(c, *python, *n, *hits)
	}
	if *node != "" {
		if *python != "" {
			fmt.Println()
		}
		want += benchNode(c, *node, *nodeN, *nodeHits)
	}

	st, err := e.Status(s.SessionID)
	if err != nil {
		fail(err)
	}
	fmt.Printf("\n%s events stored, %s expected, %d records rejected: %s.\n",
		thousands(int(st.Events)), thousands(int(want)), st.RejectedRecords, pass(st.RejectedRecords == 0 && st.Events == want))
}

// config is what every figure shares.
type config struct {
	proj          string
	plain, hooked []string // without the hooks, and with the exports of env --json
	repeat, runs  int
	starts        int
}

// benchPython prints the Python figures and returns how many events they
// should have stored.
func benchPython(c config, python string, n, hits int) int64 {
	// The interpreter itself, not a launcher in front of it (a pyenv shim
	// is a shell script that costs more than the interpreter's start).
	exe, err := exec.Command(python, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		fail(fmt.Errorf("%s: %v", python, err))
	}
	python = strings.TrimSpace(string(exe))
	plain, hooked := c.plain, c.hooked
	hookedRuns := 0 // each hooked bench.py hits its main-script logpoint once
	bench := func(env []string, what string, count int) float64 {
		best := 0.0
		for r := 0; r < c.runs; r++ {
			if len(env) > len(plain) {
				hookedRuns++
			}
			sec, err := runOne([]string{python, "bench.py"}, c.proj, env, what, count, c.repeat)
			if err != nil {
				fail(err)
			}
			if r == 0 || sec < best {
				best = sec
			}
		}
		return best
	}
	version, _ := exec.Command(python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])").Output()
	fmt.Printf("Python logpoints — %s, Python %s, %d cores, best of %d runs × %d processes\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimSpace(string(version)), numCPU(), c.repeat, c.runs)
	hotLoops(bench, plain, hooked, n)

	uncapped := append(hooked, "AGENT_DEBUG_MODE_MAX_PER_LOCATION=100000000")
	base := bench(uncapped, "plain", hits)
	withData := bench(uncapped, "with_data", hits)
	noData := bench(uncapped, "no_data", hits)
	fmt.Printf("| one hit, data {\"i\": i} (%s hits) | %.0f ns per iteration | %.0f ns per iteration | %.2f µs per hit | microseconds |\n",
		thousands(hits), base/float64(hits)*1e9, withData/float64(hits)*1e9, (withData-base)/float64(hits)*1e6)
	fmt.Printf("| one hit, no data | | %.0f ns per iteration | %.2f µs per hit | microseconds |\n",
		noData/float64(hits)*1e9, (noData-base)/float64(hits)*1e6)
	capped := append(hooked, "AGENT_DEBUG_MODE_MAX_PER_LOCATION=1000")
	held := bench(capped, "with_data", hits)
	fmt.Printf("| one hit past the cap of 1,000 (held back, counted) | | %.0f ns per iteration | %.2f µs per hit | below a hit |\n",
		held/float64(hits)*1e9, (held-base)/float64(hits)*1e6)

	opens := hits
	a, b := bench(plain, "open", opens), bench(hooked, "open", opens)
	fmt.Printf("| open() in a main script with a logpoint, so its audit hook is installed (%s calls) | %.2f µs per call | %.2f µs per call | %.3f× the speed, %+.0f ns per call | the price of any audit hook |\n",
		thousands(opens), a/float64(opens)*1e6, b/float64(opens)*1e6, a/b, (b-a)/float64(opens)*1e9)

	sa, err := startup([]string{python, "-c", "pass"}, c.proj, plain, c.starts)
	if err != nil {
		fail(err)
	}
	sb, err := startup([]string{python, "-c", "pass"}, c.proj, hooked, c.starts)
	if err != nil {
		fail(err)
	}
	fmt.Printf("| interpreter start-up (python -c pass, median of %d) | %.1f ms | %.1f ms | %+.1f ms | |\n", c.starts, sa*1e3, sb*1e3, (sb-sa)*1e3)
	// Every hit of every uncapped run, and the cap's worth of each capped one.
	return int64(2*hits*c.repeat*c.runs + 1000*c.runs + hookedRuns)
}

// benchNode prints the Node.js figures and returns how many events they
// should have stored.
func benchNode(c config, node string, n, hits int) int64 {
	plain, hooked := c.plain, c.hooked
	hookedRuns := 0 // each hooked bench.js hits its main-script logpoint once
	bench := func(env []string, what string, count int) float64 {
		best := 0.0
		for r := 0; r < c.runs; r++ {
			if len(env) > len(plain) {
				hookedRuns++
			}
			sec, err := runOne([]string{node, "bench.js"}, c.proj, env, what, count, c.repeat)
			if err != nil {
				fail(err)
			}
			if r == 0 || sec < best {
				best = sec
			}
		}
		return best
	}
	version, err := exec.Command(node, "--version").Output()
	if err != nil {
		fail(fmt.Errorf("%s: %v", node, err))
	}
	fmt.Printf("Node.js logpoints — %s, Node.js %s, %d cores, best of %d runs × %d processes\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimPrefix(strings.TrimSpace(string(version)), "v"), numCPU(), c.repeat, c.runs)
	hotLoops(bench, plain, hooked, n)

	uncapped := append(hooked, "AGENT_DEBUG_MODE_MAX_PER_LOCATION=100000000")
	base := bench(uncapped, "plain", hits)
	withData := bench(uncapped, "with_data", hits)
	noData := bench(uncapped, "no_data", hits)
	fmt.Printf("| one hit, data ({i}) (%s hits) | %.0f ns per iteration | %.1f µs per iteration | %.1f µs per hit | the price of V8's conditional breakpoint |\n",
		thousands(hits), base/float64(hits)*1e9, withData/float64(hits)*1e6, (withData-base)/float64(hits)*1e6)
	fmt.Printf("| one hit, no data | | %.1f µs per iteration | %.1f µs per hit | |\n",
		noData/float64(hits)*1e6, (noData-base)/float64(hits)*1e6)
	capped := append(hooked, "AGENT_DEBUG_MODE_MAX_PER_LOCATION=1000")
	held := bench(capped, "with_data", hits)
	fmt.Printf("| one hit past the cap of 1,000, once the hook has counted 1,000 held back (at a hit's cost) and removed the breakpoint | | %.1f µs per iteration | %.1f µs per hit | below a hit |\n",
		held/float64(hits)*1e6, (held-base)/float64(hits)*1e6)

	sa, err := startup([]string{node, "-e", "0"}, c.proj, plain, c.starts)
	if err != nil {
		fail(err)
	}
	sb, err := startup([]string{node, "-e", "0"}, c.proj, hooked, c.starts)
	if err != nil {
		fail(err)
	}
	fmt.Printf("| start-up (node -e 0, median of %d; the hook opens the inspector) | %.1f ms | %.1f ms | %+.1f ms | |\n", c.starts, sa*1e3, sb*1e3, (sb-sa)*1e3)
	return int64(2*hits*c.repeat*c.runs + 1000*c.runs + hookedRuns)
}

// copyPrograms writes the embedded programs into the project folder.
// hotLoops prints the table's head and the two hot-loop rows, the same for
// every runtime: a loop in a file with no logpoint, and in a file with one
// the loop never reaches, each without and with the hook (target ≥ 0.9×).
func hotLoops(bench func(env []string, what string, count int) float64, plain, hooked []string, n int) {
	fmt.Println("| measure | without the hook | with the hook | result | target |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, r := range []struct{ name, what string }{
		{"hot loop in a file with no logpoint", "cold"},
		{"hot loop in a file with a logpoint the loop never reaches", "warm"},
	} {
		a, b := bench(plain, r.what, n), bench(hooked, r.what, n)
		fmt.Printf("| %s (%s iterations) | %.1f ms | %.1f ms | %.3f× the speed | ≥ 0.9× %s |\n", r.name, thousands(n), a*1e3, b*1e3, a/b, pass(a/b >= 0.9))
	}
}

func copyPrograms(dir string) error {
	return fs.WalkDir(programs, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := programs.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
	})
}

// addLogpoints adds one logpoint at every line of the files marked with
// marker (# LOGPOINT…, // LOGPOINT…; the data expression follows
// LOGPOINT-DATA:).
func addLogpoints(e *harness.Env, id, dir string, names []string, marker string) error {
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			i := strings.Index(text, marker)
			if i < 0 {
				continue
			}
			args := []string{"logpoint", "add", "--session", id, "--at", filepath.Join(dir, name) + ":" + strconv.Itoa(line),
				"--hypothesis", "B" + strconv.Itoa(line), "--message", name}
			if _, data, ok := strings.Cut(text[i:], "LOGPOINT-DATA: "); ok {
				args = append(args, "--data", data)
			}
			if _, err := e.Run(args...); err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
	}
	return nil
}

// hookEnv is base with what `debug-mode env` exports.
func hookEnv(e *harness.Env, id string, base []string) ([]string, error) {
	out, err := e.Run("env", "--session", id, "--json")
	if err != nil {
		return nil, err
	}
	var env struct {
		Result struct {
			Variables []struct{ Name, Value string }
		}
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, err
	}
	res := append([]string(nil), base...)
	for _, v := range env.Result.Variables {
		res = append(res, v.Name+"="+v.Value)
	}
	return res, nil
}

// runOne runs one benchmark program (argv: the runtime and its bench
// script) and returns its best time.
func runOne(argv []string, dir string, env []string, what string, n, repeat int) (float64, error) {
	python := strings.Join(argv, " ")
	cmd := exec.Command(argv[0], append(argv[1:], what, strconv.Itoa(n), strconv.Itoa(repeat))...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return 0, fmt.Errorf("%s %s: %v: %s", python, what, err, ee.Stderr)
		}
		return 0, err
	}
	var res struct {
		Seconds float64
		Held    int64
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return 0, fmt.Errorf("%s %s printed %q", python, what, out)
	}
	if res.Held > 0 && !capped(env) {
		return 0, fmt.Errorf("%s %s: %d hits were held back for a full queue; the figure would not be a hit's cost (use fewer -hits)", python, what, res.Held)
	}
	return res.Seconds, nil
}

func capped(env []string) bool {
	return len(env) > 0 && env[len(env)-1] == "AGENT_DEBUG_MODE_MAX_PER_LOCATION=1000"
}

// startup is the median wall time of argv (python -c pass, node -e 0).
func startup(argv []string, dir string, env []string, n int) (float64, error) {
	times := make([]float64, n)
	for i := range times {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, env
		t := time.Now()
		if err := cmd.Run(); err != nil {
			return 0, err
		}
		times[i] = time.Since(t).Seconds()
	}
	for i := range times {
		for j := i + 1; j < len(times); j++ {
			if times[j] < times[i] {
				times[i], times[j] = times[j], times[i]
			}
		}
	}
	return times[n/2], nil
}

func pass(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "logpoints:", err)
	os.Exit(1)
}
