package main

// The compiled languages (Go, Java, Kotlin, C, C++, Rust, C#): one program
// each under bench/helpers/<dir>, built with the rendered helper and call of
// whatever binary -bin is (so an older binary's helpers are measured the
// same way), in two modes:
//
//   - events: n probe calls (1 or 4 threads), every one sent (the cap is out
//     of reach); the per-event cost is the wall time of the calls / events.
//   - hot: the target. A cache-lookup loop (a string-keyed map
//     lookup and an update of the entry found) run twice over -hotn
//     iterations, once without and once with a probe in the loop, with the
//     session's cap (10,000) in force, so nearly every call is past it. With
//     4 threads every iteration takes one shared lock and the probe runs
//     inside it, like the cache race the issue describes. Reported raw
//     (ns per iteration) and as the throughput ratio with/without.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/bench/internal/harness"
)

type compiledBench struct {
	lang, name string
	dir        string // under bench/helpers
	source     string // the program's file name in the work folder
	template   string // its source in dir, when not named like source
	helperFile string // the helper's own file (Go, Java); else it is pasted at @HELPER@
	pkg        string // the package the helper is filled in for
	event, hot string // data expressions: events mode (w, i in scope), hot mode (k, e)
	build      [][]string
	run        []string
	warm       int // events the program sends untimed first (JIT warm-up)
}

var compiledBenches = []compiledBench{
	{lang: "go", name: "Go", dir: "go", source: "main.go", template: "main.go.txt", helperFile: "agent_debug_log.go", pkg: "main",
		event: `map[string]any{"worker": w, "i": i, "cacheKey": "cart:42", "hit": i%2 == 0}`, hot: `map[string]any{"key": k, "hits": e.hits}`,
		build: [][]string{{"go", "mod", "init", "bench"}, {"go", "build", "-o", "program", "."}}, run: []string{"./program"}},
	{lang: "java", name: "Java", dir: "java", source: "bench/Bench.java", helperFile: "bench/AgentDebugLog.java", pkg: "bench",
		event: `AgentDebugLog.map("worker", w, "i", i, "cacheKey", "cart:42", "hit", i % 2 == 0)`, hot: `AgentDebugLog.map("key", k, "hits", e.hits)`,
		build: [][]string{{"javac", "-d", "classes", "bench/AgentDebugLog.java", "bench/Bench.java"}}, run: []string{"java", "-cp", "classes", "bench.Bench"}, warm: 20000},
	{lang: "kotlin", name: "Kotlin", dir: "kotlin", source: "bench.kt",
		event: `mapOf("worker" to w, "i" to i, "cacheKey" to "cart:42", "hit" to (i % 2 == 0))`, hot: `mapOf("key" to k, "hits" to e.hits)`,
		build: [][]string{{"kotlinc", "bench.kt", "-include-runtime", "-d", "bench.jar"}}, run: []string{"java", "-jar", "bench.jar"}, warm: 20000},
	{lang: "c", name: "C", dir: "c", source: "bench.c",
		event: `agent_debug_json("{\"worker\":%d,\"i\":%ld,\"cacheKey\":\"cart:42\",\"hit\":%s}", w, i, i % 2 == 0 ? "true" : "false")`,
		hot:   `agent_debug_json("{\"key\":%s,\"hits\":%d}", agent_debug_json_string(k), e->hits)`,
		build: [][]string{{"gcc", "-O2", "-std=c11", "-pthread", "-o", "bench", "bench.c"}}, run: []string{"./bench"}},
	{lang: "cpp", name: "C++", dir: "cpp", source: "bench.cpp",
		event: `"{\"worker\":" + std::to_string(w) + ",\"i\":" + std::to_string(i) + ",\"cacheKey\":\"cart:42\",\"hit\":" + (i % 2 == 0 ? "true" : "false") + "}"`,
		hot:   `"{\"key\":" + agent_debug_mode::json_string(k) + ",\"hits\":" + std::to_string(e.hits) + "}"`,
		build: [][]string{{"g++", "-O2", "-std=c++17", "-pthread", "-o", "bench", "bench.cpp"}}, run: []string{"./bench"}},
	{lang: "rust", name: "Rust", dir: "rust", source: "bench.rs",
		event: `format!("{{\"worker\":{},\"i\":{},\"cacheKey\":\"cart:42\",\"hit\":{}}}", w, i, i % 2 == 0)`,
		hot:   `format!("{{\"key\":{},\"hits\":{}}}", crate::agent_debug_mode::json_string(k), e.hits)`,
		build: [][]string{{"rustc", "-O", "--edition", "2021", "-o", "bench", "bench.rs"}}, run: []string{"./bench"}},
	{lang: "csharp", name: "C#", dir: "csharp", source: "bench.cs",
		event: `new { worker = w, i = i, cacheKey = "cart:42", hit = i % 2 == 0 }`, hot: `new { key = k, hits = e.Hits }`,
		build: [][]string{{"mcs", "-optimize+", "-out:bench.exe", "bench.cs"}}, run: []string{"mono", "bench.exe"}, warm: 20000},
}

// prepareCompiled writes and builds every selected program in work; it
// returns those that built.
func prepareCompiled(e *harness.Env, session, src, work string, selected func(string) bool) []compiledBench {
	var out []compiledBench
	for _, b := range compiledBenches {
		if !selected(b.lang) {
			continue
		}
		dir := filepath.Join(work, "compiled-"+b.lang)
		must(os.MkdirAll(filepath.Join(dir, filepath.Dir(b.source)), 0o755))
		helper, call := packagedTemplate(e, b, session)
		name := b.template
		if name == "" {
			name = filepath.Base(b.source)
		}
		text, err := os.ReadFile(filepath.Join(src, b.dir, name))
		must(err)
		program := string(text)
		if b.helperFile != "" {
			must(os.WriteFile(filepath.Join(dir, b.helperFile), []byte(helper), 0o644))
		} else {
			program = strings.Replace(program, "@HELPER@", helper, 1)
		}
		flush := "" // Go has no exit hook: a helper that queues is flushed by main
		if strings.Contains(helper, "func agentLogFlush()") {
			flush = "defer agentLogFlush()"
		}
		program = strings.NewReplacer("@CALL_EVENT@", fillCall(call, b.event), "@CALL_HOT@", fillCall(call, b.hot), "@FLUSH@", flush).Replace(program)
		must(os.WriteFile(filepath.Join(dir, b.source), []byte(program), 0o644))
		ok := true
		for _, argv := range b.build {
			if _, err := exec.LookPath(argv[0]); err != nil {
				fmt.Fprintf(os.Stderr, "helpers: %s skipped: %s is not installed\n", b.name, argv[0])
				ok = false
				break
			}
			must(run(dir, argv[0], argv[1:]...))
		}
		if ok {
			out = append(out, b)
		}
	}
	return out
}

// packagedTemplate renders the helper (with its package named: --package,
// or for a binary that predates it the placeholder replaced) and the call.
func packagedTemplate(e *harness.Env, b compiledBench, session string) (helper, call string) {
	args := []string{"template", "--language", b.lang, "--ingest", "file", "--session", session}
	if b.pkg != "" {
		if out, err := e.Run(append(args, "--section", "helper", "--package", b.pkg)...); err == nil {
			helper = string(out)
		}
	}
	if helper == "" {
		out, err := e.Run(append(args, "--section", "helper")...)
		must(err)
		helper = strings.ReplaceAll(string(out), "__PACKAGE_NAME__", b.pkg)
	}
	out, err := e.Run(append(args, "--section", "call")...)
	must(err)
	return helper, string(out)
}

// fillCall is the call template's statement line with its placeholders
// filled in (an old call's __LOCATION__ too), without the region markers.
func fillCall(call, data string) string {
	for _, line := range strings.Split(call, "\n") {
		if strings.Contains(line, "__HYPOTHESIS_ID__") {
			return strings.NewReplacer("__HYPOTHESIS_ID__", "bench", "__LOCATION__", "bench:1", "__MESSAGE__", "cache lookup",
				"__DATA_EXPRESSION__", data, "__DATA_JSON_EXPRESSION__", data).Replace(strings.TrimSpace(line))
		}
	}
	fail(fmt.Errorf("call template without a call: %q", call))
	return ""
}

// compiledEvents measures the per-event cost of each program's probe.
func compiledEvents(e *harness.Env, session, work string, benches []compiledBench, n, repeat int) {
	fmt.Printf("\n| helper (file) | threads | events | delivered | hot path µs/event: median (best) |\n| --- | --- | --- | --- | --- |\n")
	for _, b := range benches {
		for _, threads := range []int{1, 4} {
			var per []float64
			delivered := int64(-1)
			for r := 0; r < repeat; r++ {
				if _, err := e.Run("reset", "--session", session); err != nil {
					fail(err)
				}
				out, err := output(filepath.Join(work, "compiled-"+b.lang), b.run[0], append(b.run[1:], "events", strconv.Itoa(n), strconv.Itoa(threads))...)
				if err != nil {
					fail(err)
				}
				f := fields(out)
				per = append(per, float64(f["hot_ns"])/float64(f["events"])/1000)
				st, err := e.Status(session)
				if err != nil {
					fail(err)
				}
				if delivered < 0 || st.Events < delivered {
					delivered = st.Events // the worst run
				}
			}
			fmt.Printf("| %s | %d | %d (+%d warm-up) | %d | %.2f (%.2f) |\n", b.name, threads, n, b.warm, delivered, median(per), slices.Min(per))
		}
	}
}

// compiledHot runs the hot loop without and with the probe, alternating,
// and prints medians and the throughput ratio: over the whole run (three
// rounds: the first reaches the cap, and warms up a JIT) and in the last
// round alone (the steady state of a long-running loop). Programs that
// report last_cpu_ns (the JVM ones) also get the last round's ratio by the
// loop threads' CPU time, printed below the table: on a loaded machine
// other processes stretch wall time far more than CPU time.
func compiledHot(e *harness.Env, session, work string, benches []compiledBench, n, repeat int) {
	fmt.Printf("\n| language | threads | iterations | ns/iteration without probe: whole run / last round, median (best) | with probe | throughput with/without: whole / last, medians (bests) | events sent, held back |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	var byCPU []string
	for _, b := range benches {
		last := map[int]float64{}
		for _, threads := range []int{1, 4} {
			var wholeOff, lastOff, wholeOn, lastOn, cpuOff, cpuOn []float64
			var sent, held int64
			for r := 0; r < repeat; r++ {
				for _, probe := range []string{"0", "1"} {
					if _, err := e.Run("reset", "--session", session); err != nil {
						fail(err)
					}
					cmd := exec.Command(b.run[0], append(b.run[1:], "hot", strconv.Itoa(n), strconv.Itoa(threads), probe)...)
					cmd.Dir = filepath.Join(work, "compiled-"+b.lang) // the session's cap in force, as in a user's run
					o, err := cmd.Output()
					if err != nil {
						fail(fmt.Errorf("%s hot: %v", b.name, err))
					}
					f := fields(strings.Replace(string(o), "iters=", "events=", 1))
					whole, steady := float64(f["total_ns"])/float64(3*f["events"]), float64(f["last_ns"])/float64(f["events"])
					cpu := float64(f["last_cpu_ns"]) / float64(f["events"])
					if probe == "0" {
						wholeOff, lastOff, cpuOff = append(wholeOff, whole), append(lastOff, steady), append(cpuOff, cpu)
						continue
					}
					wholeOn, lastOn, cpuOn = append(wholeOn, whole), append(lastOn, steady), append(cpuOn, cpu)
					st, err := e.Status(session)
					if err != nil {
						fail(err)
					}
					sent, held = st.Events, st.HeldBackEvents
				}
			}
			if slices.Min(cpuOn) > 0 {
				byCPU = append(byCPU, fmt.Sprintf("| %s | %d | %.1f (%.1f) | %.1f (%.1f) | %.2f (%.2f) |", b.name, threads,
					median(cpuOff), slices.Min(cpuOff), median(cpuOn), slices.Min(cpuOn), median(cpuOff)/median(cpuOn), slices.Min(cpuOff)/slices.Min(cpuOn)))
			}
			bw, bp, blw, blp := slices.Min(wholeOff), slices.Min(wholeOn), slices.Min(lastOff), slices.Min(lastOn) // before median sorts them
			w, p, lw, lp := median(wholeOff), median(wholeOn), median(lastOff), median(lastOn)
			last[threads] = lw / lp
			fmt.Printf("| %s | %d | 3 × %d | %.1f / %.1f (%.1f / %.1f) | %.1f / %.1f (%.1f / %.1f) | %.2f / %.2f (%.2f / %.2f) | %d, %d |\n",
				b.name, threads, n, w, lw, bw, blw, p, lp, bp, blp, w/p, lw/lp, bw/bp, blw/blp, sent, held)
		}
		fmt.Fprintf(os.Stderr, "helpers: %s: steady hot loop at %.2f of its speed without the probe (target ≥ 0.50: %s); 4 threads on one lock %.2f\n",
			b.name, last[1], harness.Verdict(last[1] >= 0.5), last[4])
	}
	if len(byCPU) > 0 {
		fmt.Printf("\nLast round by the loop threads' CPU time (summed over threads), ns per iteration:\n\n| language | threads | without probe: median (best) | with probe | throughput with/without: medians (bests) |\n| --- | --- | --- | --- | --- |\n%s\n", strings.Join(byCPU, "\n"))
	}
}
