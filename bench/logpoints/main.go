// Command logpoints measures what Python logpoints cost the program they
// are in, against a live session of the real binary: the speed of a hot
// loop in a file without a logpoint and in a file with one the loop never
// reaches (targets: at least 0.9× the speed without the hook), the cost of
// one hit (with and without data, and past the cap), the cost of the audit
// hook an instrumented main script keeps for its life (an open()-heavy
// loop), and the start-up time the hook adds. Each figure is the best of
// -repeat runs inside one process, and the best of -runs processes.
//
//	go build -o bench/out/debug-mode ./cmd/debug-mode
//	go run ./bench/logpoints -bin bench/out/debug-mode
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

//go:embed py/*.py
var programs embed.FS

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "path to the debug-mode binary")
	python := flag.String("python", "python3", "the Python interpreter")
	n := flag.Int("n", 2_000_000, "iterations of the hot loops")
	hits := flag.Int("hits", 50_000, "logpoint hits per run (the hook holds back what does not fit its queue of 100,000)")
	repeat := flag.Int("repeat", 5, "runs inside one process (the best is kept)")
	runs := flag.Int("runs", 3, "processes per figure (the best is kept)")
	starts := flag.Int("starts", 40, "interpreter starts timed for the start-up cost")
	flag.Parse()
	if *n <= 0 || *hits <= 0 || *repeat <= 0 || *runs <= 0 || *starts <= 0 {
		fail(errors.New("every count must be positive"))
	}
	// The interpreter itself, not a launcher in front of it (a pyenv shim
	// is a shell script that costs more than the interpreter's start).
	exe, err := exec.Command(*python, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		fail(fmt.Errorf("%s: %v", *python, err))
	}
	*python = strings.TrimSpace(string(exe))
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
	if err := addLogpoints(e, s.SessionID, proj); err != nil {
		fail(err)
	}
	plain := append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	hooked, err := hookEnv(e, s.SessionID, plain)
	if err != nil {
		fail(err)
	}
	hookedRuns := 0 // each hooked bench.py hits its main-script logpoint once
	bench := func(env []string, what string, count int) float64 {
		best := 0.0
		for r := 0; r < *runs; r++ {
			if len(env) > len(plain) {
				hookedRuns++
			}
			sec, err := runOne(*python, proj, env, what, count, *repeat)
			if err != nil {
				fail(err)
			}
			if r == 0 || sec < best {
				best = sec
			}
		}
		return best
	}
	version, _ := exec.Command(*python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])").Output()
	fmt.Printf("Python logpoints — %s, Python %s, %d cores, best of %d runs × %d processes\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimSpace(string(version)), numCPU(), *repeat, *runs)
	fmt.Println("| measure | without the hook | with the hook | result | target |")
	fmt.Println("| --- | --- | --- | --- | --- |")

	ratio := func(name string, what string) {
		a, b := bench(plain, what, *n), bench(hooked, what, *n)
		verdict := "≥ 0.9× " + pass(a/b >= 0.9)
		fmt.Printf("| %s (%s iterations) | %.1f ms | %.1f ms | %.3f× the speed | %s |\n", name, thousands(*n), a*1e3, b*1e3, a/b, verdict)
	}
	ratio("hot loop in a file with no logpoint", "cold")
	ratio("hot loop in a file with a logpoint the loop never reaches", "warm")

	uncapped := append(hooked, "AGENT_DEBUG_MODE_MAX_PER_LOCATION=100000000")
	base := bench(uncapped, "plain", *hits)
	withData := bench(uncapped, "with_data", *hits)
	noData := bench(uncapped, "no_data", *hits)
	fmt.Printf("| one hit, data {\"i\": i} (%s hits) | %.0f ns per iteration | %.0f ns per iteration | %.2f µs per hit | microseconds |\n",
		thousands(*hits), base/float64(*hits)*1e9, withData/float64(*hits)*1e9, (withData-base)/float64(*hits)*1e6)
	fmt.Printf("| one hit, no data | | %.0f ns per iteration | %.2f µs per hit | microseconds |\n",
		noData/float64(*hits)*1e9, (noData-base)/float64(*hits)*1e6)
	capped := append(hooked, "AGENT_DEBUG_MODE_MAX_PER_LOCATION=1000")
	held := bench(capped, "with_data", *hits)
	fmt.Printf("| one hit past the cap of 1,000 (held back, counted) | | %.0f ns per iteration | %.2f µs per hit | below a hit |\n",
		held/float64(*hits)*1e9, (held-base)/float64(*hits)*1e6)

	opens := *hits
	a, b := bench(plain, "open", opens), bench(hooked, "open", opens)
	fmt.Printf("| open() in a main script with a logpoint, so its audit hook is installed (%s calls) | %.2f µs per call | %.2f µs per call | %.3f× the speed, %+.0f ns per call | the price of any audit hook |\n",
		thousands(opens), a/float64(opens)*1e6, b/float64(opens)*1e6, a/b, (b-a)/float64(opens)*1e9)

	sa, err := startup(*python, proj, plain, *starts)
	if err != nil {
		fail(err)
	}
	sb, err := startup(*python, proj, hooked, *starts)
	if err != nil {
		fail(err)
	}
	fmt.Printf("| interpreter start-up (python -c pass, median of %d) | %.1f ms | %.1f ms | %+.1f ms | |\n", *starts, sa*1e3, sb*1e3, (sb-sa)*1e3)

	st, err := e.Status(s.SessionID)
	if err != nil {
		fail(err)
	}
	// Every hit of every uncapped run, and the cap's worth of each capped one.
	want := int64(2**hits**repeat**runs + 1000**runs + hookedRuns)
	fmt.Printf("\n%s events stored, %s expected, %d records rejected: %s.\n",
		thousands(int(st.Events)), thousands(int(want)), st.RejectedRecords, pass(st.RejectedRecords == 0 && st.Events == want))
}

// copyPrograms writes the embedded programs into the project folder.
func copyPrograms(dir string) error {
	return fs.WalkDir(programs, "py", func(p string, d fs.DirEntry, err error) error {
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

// addLogpoints adds one logpoint at every line marked LOGPOINT… (the data
// expression follows LOGPOINT-DATA:).
func addLogpoints(e *harness.Env, id, dir string) error {
	for _, name := range []string{"warm.py", "hits.py", "bench.py"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			i := strings.Index(text, "# LOGPOINT")
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

func runOne(python, dir string, env []string, what string, n, repeat int) (float64, error) {
	cmd := exec.Command(python, "bench.py", what, strconv.Itoa(n), strconv.Itoa(repeat))
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

// startup is the median wall time of python -c pass.
func startup(python, dir string, env []string, n int) (float64, error) {
	times := make([]float64, n)
	for i := range times {
		cmd := exec.Command(python, "-c", "pass")
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
