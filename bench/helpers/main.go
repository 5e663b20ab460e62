// Command helpers measures what a probe costs inside the instrumented
// program: the rendered Python, Ruby and PHP (file) and TypeScript (HTTP and
// file, compiled and run on Node) helpers, and the compiled languages' (Go,
// Java, Kotlin, C, C++, Rust, C#; see compiled.go, also for -hot), called n
// times against a live session of the real binary. Where the helper lives outside the
// project, the program gets its import region (template --section helper
// prints it) instead of the helper.
// For each workload it prints the time spent inside the helper call per
// event (hot path), the wall time per event until the program has handed off
// every event, and checks with `status --json` that every event arrived.
//
//	go build -o bench/out/debug-mode ./cmd/debug-mode
//	go run ./bench/helpers -bin bench/out/debug-mode -n 100000 -repeat 3
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

type workload struct {
	name, lang, ingest string
	args               []string // extra program arguments
}

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "path to the debug-mode binary")
	n := flag.Int("n", 100000, "events per run")
	repeat := flag.Int("repeat", 3, "runs per workload; the median is reported")
	tsc := flag.String("tsc", "tools/node_modules/.bin/tsc", "TypeScript compiler (scripts/setup.sh installs it)")
	only := flag.String("only", "node,python,ruby,php,go,java,kotlin,c,cpp,rust,csharp", "helpers to measure, comma-separated: node, python, ruby, php, go, java, kotlin, c, cpp, rust, csharp")
	hot := flag.Bool("hot", false, "instead of the per-event cost, run the compiled languages' hot loop without and with a probe")
	hotN := flag.Int("hotn", 10_000_000, "hot loop iterations per round (each run does two rounds)")
	flag.Parse()
	if *n <= 0 || *repeat <= 0 {
		fail(errors.New("-n and -repeat must be positive"))
	}
	src, err := filepath.Abs("bench/helpers")
	if err != nil {
		fail(err)
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
	work, err := os.MkdirTemp("", "debug-mode-helpers-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)

	selected := func(name string) bool { return slices.Contains(strings.Split(*only, ","), name) }
	compiled := prepareCompiled(e, s.SessionID, src, work, selected)
	if *hot {
		compiledHot(e, s.SessionID, work, compiled, *hotN, *repeat)
		return
	}
	var loads []workload
	if selected("node") {
		compiler, err := filepath.Abs(*tsc)
		if err != nil {
			fail(err)
		}
		body, err := os.ReadFile(filepath.Join(src, "node", "bench.ts"))
		if err != nil {
			fail(err)
		}
		for _, ingest := range []string{"http", "file"} {
			helper := template(e, "typescript", ingest, s.SessionID)
			dir := filepath.Join(work, "node-"+ingest)
			must(os.MkdirAll(dir, 0o755))
			must(os.WriteFile(filepath.Join(dir, "bench.ts"), []byte(helper+"\n"+string(body)), 0o644))
			must(run(dir, compiler, "--strict", "--target", "es2020", "--module", "commonjs", "--lib", "es2020", "bench.ts"))
			loads = append(loads,
				workload{"TypeScript on Node, bursts of 100", "node", ingest, []string{"100"}},
				workload{"TypeScript on Node, bursts of 1000", "node", ingest, []string{"1000"}})
		}
	}

	if selected("python") {
		helper := template(e, "python", "file", s.SessionID)
		body, err := os.ReadFile(filepath.Join(src, "python", "bench.py"))
		if err != nil {
			fail(err)
		}
		dir := filepath.Join(work, "python")
		must(os.MkdirAll(dir, 0o755))
		must(os.WriteFile(filepath.Join(dir, "bench.py"), []byte(helper+"\n"+string(body)), 0o644))
		loads = append(loads,
			workload{"Python, 1 thread", "python", "file", []string{"1"}},
			workload{"Python, 4 threads", "python", "file", []string{"4"}})
	}

	if selected("ruby") {
		helper := template(e, "ruby", "file", s.SessionID)
		body, err := os.ReadFile(filepath.Join(src, "ruby", "bench.rb"))
		if err != nil {
			fail(err)
		}
		dir := filepath.Join(work, "ruby")
		must(os.MkdirAll(dir, 0o755))
		must(os.WriteFile(filepath.Join(dir, "bench.rb"), []byte(helper+"\n"+string(body)), 0o644))
		loads = append(loads,
			workload{"Ruby, 1 thread", "ruby", "file", []string{"1"}},
			workload{"Ruby, 4 threads", "ruby", "file", []string{"4"}})
	}

	if selected("php") {
		helper := template(e, "php", "file", s.SessionID)
		body, err := os.ReadFile(filepath.Join(src, "php", "bench.php"))
		if err != nil {
			fail(err)
		}
		dir := filepath.Join(work, "php")
		must(os.MkdirAll(dir, 0o755))
		// The helper goes right after the program's own opening tag.
		program := strings.Replace(string(body), "<?php\n", "<?php\n"+helper+"\n", 1)
		must(os.WriteFile(filepath.Join(dir, "bench.php"), []byte(program), 0o644))
		loads = append(loads, workload{"PHP, 1 process", "php", "file", []string{"1"}})
	}

	if len(loads) > 0 {
		fmt.Printf("| helper (transport) | events | delivered | hot path µs/event | wall µs/event |\n| --- | --- | --- | --- | --- |\n")
	}
	for _, w := range loads {
		var hot, total []float64
		delivered := int64(-1)
		for r := 0; r < *repeat; r++ {
			if _, err := e.Run("reset", "--session", s.SessionID); err != nil {
				fail(err)
			}
			var out string
			switch w.lang {
			case "python", "ruby", "php":
				exe := map[string]string{"python": "python3", "ruby": "ruby", "php": "php"}[w.lang]
				ext := map[string]string{"python": "py", "ruby": "rb", "php": "php"}[w.lang]
				out, err = output(filepath.Join(work, w.lang), exe, "bench."+ext, strconv.Itoa(*n), w.args[0], "bench")
			default:
				out, err = output(filepath.Join(work, "node-"+w.ingest), "node", "bench.js", strconv.Itoa(*n), w.args[0], "bench")
			}
			if err != nil {
				fail(err)
			}
			f := fields(out)
			hot = append(hot, float64(f["hot_ns"])/float64(f["events"])/1000)
			total = append(total, float64(f["total_ns"])/float64(f["events"])/1000)
			st, err := e.Status(s.SessionID)
			if err != nil {
				fail(err)
			}
			if delivered < 0 || st.Events < delivered {
				delivered = st.Events // the worst run
			}
		}
		fmt.Printf("| %s (%s) | %d | %d | %.2f | %.2f |\n", w.name, w.ingest, *n, delivered, median(hot), median(total))
	}
	compiledEvents(e, s.SessionID, work, compiled, *n, *repeat)
}

func template(e *harness.Env, lang, ingest, id string) string {
	out, err := e.Run("template", "--language", lang, "--ingest", ingest, "--section", "helper", "--session", id)
	if err != nil {
		fail(err)
	}
	return string(out)
}

// fields parses "key=value key=value" integers from a program's output.
func fields(out string) map[string]int64 {
	m := map[string]int64{}
	for _, f := range strings.Fields(out) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k], _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if m["events"] <= 0 {
		fail(fmt.Errorf("unexpected program output %q", out))
	}
	return m
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func run(dir, name string, args ...string) error {
	_, err := output(dir, name, args...)
	return err
}

func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	// Every call is measured sending its event: no location reaches the
	// helpers' per-location cap (10,000 by default) in these runs.
	cmd.Env = append(os.Environ(), "AGENT_DEBUG_MODE_MAX_PER_LOCATION=1000000000")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, ee.Stderr)
		}
		return "", err
	}
	return string(out), nil
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "helpers:", err)
	os.Exit(1)
}
