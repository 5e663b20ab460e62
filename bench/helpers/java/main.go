// Command java measures what a probe costs inside an instrumented Java
// program: the rendered Java (file) helper, called n times from 1 and 4
// threads against a live session of the real binary, after a JIT warm-up.
// It prints microseconds per event (median of -repeat runs) and checks with
// `status --json` that every event arrived.
//
//	go build -o bench/out/debug-mode ./cmd/debug-mode
//	go run ./bench/helpers/java -bin bench/out/debug-mode -n 100000 -repeat 3
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

func main() {
	bin := flag.String("bin", "bench/out/debug-mode", "path to the debug-mode binary")
	n := flag.Int("n", 100000, "timed events per run")
	warm := flag.Int("warm", 20000, "untimed warm-up events per run (JIT)")
	repeat := flag.Int("repeat", 3, "runs per workload; the median is reported")
	flag.Parse()
	if *n <= 0 || *repeat <= 0 || *warm < 0 {
		fail(errors.New("-n and -repeat must be positive, -warm not negative"))
	}
	body, err := os.ReadFile(filepath.Join("bench", "helpers", "java", "Bench.java"))
	if err != nil {
		fail(fmt.Errorf("run from the repository root: %w", err))
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
	work, err := os.MkdirTemp("", "debug-mode-java-helper-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)

	helper, err := e.Run("template", "--language", "java", "--ingest", "file", "--section", "helper", "--session", s.SessionID)
	if err != nil {
		fail(err)
	}
	must(os.WriteFile(filepath.Join(work, "AgentDebugLog.java"), []byte(strings.ReplaceAll(string(helper), "__PACKAGE_NAME__", "bench")), 0o644))
	must(os.WriteFile(filepath.Join(work, "Bench.java"), body, 0o644))
	if out, err := exec.Command("javac", "-d", filepath.Join(work, "classes"), filepath.Join(work, "AgentDebugLog.java"), filepath.Join(work, "Bench.java")).CombinedOutput(); err != nil {
		fail(fmt.Errorf("javac: %v: %s", err, out))
	}
	ver, _ := exec.Command("java", "-version").CombinedOutput()
	fmt.Printf("Java helper (file ingest), %d timed + %d warm-up events per run, median of %d; %s\n\n", *n, *warm, *repeat, strings.SplitN(string(ver), "\n", 2)[0])
	fmt.Printf("| helper (transport) | events | delivered | hot path µs/event | wall µs/event |\n| --- | --- | --- | --- | --- |\n")
	for _, threads := range []int{1, 4} {
		var per []float64
		delivered, want := int64(-1), int64(0)
		for r := 0; r < *repeat; r++ {
			if _, err := e.Run("reset", "--session", s.SessionID); err != nil {
				fail(err)
			}
			out, err := exec.Command("java", "-cp", filepath.Join(work, "classes"), "bench.Bench",
				strconv.Itoa(*n), strconv.Itoa(threads), strconv.Itoa(*warm), "bench").Output()
			if err != nil {
				fail(fmt.Errorf("java bench.Bench: %v", err))
			}
			f := fields(string(out))
			per = append(per, float64(f["total_ns"])/float64(f["events"])/1000)
			want = f["events"] + f["warm"]
			st, err := e.Status(s.SessionID)
			if err != nil {
				fail(err)
			}
			if delivered < 0 || st.Events < delivered {
				delivered = st.Events // the worst run
			}
		}
		if delivered != want {
			fmt.Fprintf(os.Stderr, "java: %d of %d events arrived\n", delivered, want)
		}
		slices.Sort(per)
		m := per[len(per)/2]
		fmt.Printf("| Java, %d thread(s) (file) | %d+%d warm-up | %d | %.2f | %.2f |\n", threads, want-int64(*warm/threads*threads), *warm/threads*threads, delivered, m, m)
	}
}

// fields parses "key=value" integers from the program's output.
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

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "java helper bench:", err)
	os.Exit(1)
}
