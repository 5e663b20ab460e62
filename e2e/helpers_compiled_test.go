package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The compiled languages keep their helper in the project. These tests run
// small programs with the rendered helper: a location past its cap sends
// cap events and, at exit, exactly one agentDebugHeldBack record (the
// environment's cap and Append Path win over what template filled in); and
// a program killed with SIGKILL still delivered what it logged well before,
// because a background writer takes the queue off the call.

// compiledProgram is one language's program. In src, @HELPER@ becomes the
// helper (unless helperFile names a file of its own) and @HOT@ / @COOL@ /
// @KILL@ the calls: @HOT@ runs 25 times, @COOL@ 3 times, then the program
// ends; with the argument "kill" it instead logs @KILL@ 3 times, 50 ms
// apart, prints "logged" and sleeps. sent is the location the helper sends for a call on
// line n of file (before the service makes it root-relative).
type compiledProgram struct {
	runtimes   []string
	file       string            // the program's path under the root
	helperFile string            // the helper's own file under the root, if it needs one
	args       []string          // extra template flags
	src        string            // the program
	calls      map[string]string // marker → call (with __DATA__ for the data)
	build      [][]string
	run        []string
	sent       func(root, file string, line int) string
}

func relative(root, file string, line int) string { return file + ":" + strconv.Itoa(line) }
func absolute(root, file string, line int) string {
	return filepath.Join(root, file) + ":" + strconv.Itoa(line)
}

var compiledPrograms = map[string]compiledProgram{
	"go": {
		runtimes: []string{"go"}, file: "main.go", helperFile: "agent_debug_log.go", args: []string{"--package", "main"},
		src: `package main

import (
	"os"
	"time"
)

func main() {
	// #region agent log helper
	defer agentLogFlush()
	// #endregion
	if len(os.Args) > 1 {
		for i := 0; i < 3; i++ {
			@KILL@
			time.Sleep(50 * time.Millisecond)
		}
		os.Stdout.WriteString("logged\n")
		time.Sleep(10 * time.Second)
	}
	for i := 0; i < 25; i++ {
		@HOT@
	}
	for i := 0; i < 3; i++ {
		@COOL@
	}
}
`,
		calls: map[string]string{"@": `agentLog("H", "m", func() any { return map[string]int{"i": i} })`},
		build: [][]string{{"go", "mod", "init", "example.com/capped"}, {"go", "build", "-o", "program", "."}},
		run:   []string{"./program"}, sent: absolute,
	},
	"java": {
		runtimes: []string{"javac", "java"}, file: "capped/Main.java", helperFile: "capped/AgentDebugLog.java", args: []string{"--package", "capped"},
		src: `package capped;

import java.util.Map;

public class Main {
  public static void main(String[] args) throws Exception {
    if (args.length > 0) {
      for (int n = 0; n < 3; n++) {
        final int i = n;
        @KILL@
        Thread.sleep(50);
      }
      System.out.println("logged");
      Thread.sleep(10000);
    }
    for (int n = 0; n < 25; n++) {
      final int i = n;
      @HOT@
    }
    for (int n = 0; n < 3; n++) {
      final int i = n;
      @COOL@
    }
  }
}
`,
		calls: map[string]string{"@": `AgentDebugLog.log("H", "m", () -> Map.of("i", i));`},
		build: [][]string{{"javac", "-d", "classes", "capped/AgentDebugLog.java", "capped/Main.java"}},
		run:   []string{"java", "-cp", "classes", "capped.Main"}, sent: relative,
	},
	"kotlin": {
		runtimes: []string{"kotlinc", "java"}, file: "capped.kt",
		src: `@HELPER@
fun main(args: Array<String>) {
    if (args.isNotEmpty()) {
        for (i in 0 until 3) { @KILL@; Thread.sleep(50) }
        println("logged")
        Thread.sleep(10000)
    }
    for (i in 0 until 25) @HOT@
    for (i in 0 until 3) @COOL@
}
`,
		calls: map[string]string{"@": `agentLog("H", "m") { mapOf("i" to i) }`},
		build: [][]string{{"kotlinc", "capped.kt", "-include-runtime", "-d", "program.jar"}},
		run:   []string{"java", "-jar", "program.jar"}, sent: relative,
	},
	"c": {
		runtimes: []string{"gcc"}, file: "capped.c",
		src: `@HELPER@
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 1) {
    for (int i = 0; i < 3; i++) { @KILL@ poll(NULL, 0, 50); }
    printf("logged\n"), fflush(stdout), sleep(10);
  }
  for (int i = 0; i < 25; i++) @HOT@
  for (int i = 0; i < 3; i++) @COOL@
  return 0;
}
`,
		calls: map[string]string{"@": `agent_debug_log("H", "m", agent_debug_json("{\"i\":%d}", i));`},
		build: [][]string{{"gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", "program", "capped.c"}},
		run:   []string{"./program"}, sent: relative,
	},
	"cpp": {
		runtimes: []string{"g++"}, file: "capped.cpp",
		src: `@HELPER@
#include <iostream>
#include <unistd.h>

int main(int argc, char **) {
  if (argc > 1) {
    for (int i = 0; i < 3; i++) { @KILL@ std::this_thread::sleep_for(std::chrono::milliseconds(50)); }
    std::cout << "logged" << std::endl;
    sleep(10);
  }
  for (int i = 0; i < 25; i++) @HOT@
  for (int i = 0; i < 3; i++) @COOL@
}
`,
		calls: map[string]string{"@": `agent_debug_mode::log("H", "m", [&]() -> std::string { return "{\"i\":" + std::to_string(i) + "}"; });`},
		build: [][]string{{"g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", "program", "capped.cpp"}},
		run:   []string{"./program"}, sent: relative,
	},
	"rust": {
		runtimes: []string{"rustc"}, file: "capped.rs",
		src: `@HELPER@
fn main() {
    if std::env::args().count() > 1 {
        for i in 0..3 { @KILL@ std::thread::sleep(std::time::Duration::from_millis(50)); }
        println!("logged");
        std::thread::sleep(std::time::Duration::from_secs(10));
    }
    for i in 0..25 { @HOT@ }
    for i in 0..3 { @COOL@ }
}
`,
		calls: map[string]string{"@": `crate::agent_debug_mode::log!("H", "m", || format!("{{\"i\":{}}}", i));`},
		build: [][]string{{"rustc", "--edition", "2021", "-D", "warnings", "-o", "program", "capped.rs"}},
		run:   []string{"./program"}, sent: relative,
	},
	"csharp": {
		runtimes: []string{"mcs", "mono"}, file: "capped.cs",
		src: `using System;
@HELPER@
static class Program {
    static void Main(string[] args) {
        if (args.Length > 0) {
            for (int i = 0; i < 3; i++) { @KILL@ System.Threading.Thread.Sleep(50); }
            Console.WriteLine("logged");
            System.Threading.Thread.Sleep(10000);
        }
        for (int i = 0; i < 25; i++) @HOT@
        for (int i = 0; i < 3; i++) @COOL@
    }
}
`,
		calls: map[string]string{"@": `AgentDebugLog.Log("H", "m", () => new { i });`},
		build: [][]string{{"mcs", "-warn:4", "-warnaserror", "-out:program.exe", "capped.cs"}},
		run:   []string{"mono", "program.exe"}, sent: absolute,
	},
}

// buildCompiled writes and builds the program under root; it returns the
// line of each call marker.
func buildCompiled(t *testing.T, e *Env, p compiledProgram, lang, session, root string) map[string]int {
	t.Helper()
	var tmpl renderedTemplate
	e.JSON(&tmpl, append([]string{"template", "--language", lang, "--ingest", "file", "--session", session}, p.args...)...)
	src := p.src
	if p.helperFile != "" {
		writeFile(t, filepath.Join(root, p.helperFile), tmpl.Helper)
	} else {
		src = strings.Replace(src, "@HELPER@\n", withNewline(tmpl.Helper), 1)
	}
	lines := map[string]int{}
	for i, l := range strings.Split(src, "\n") {
		for _, m := range []string{"@HOT@", "@COOL@", "@KILL@"} {
			if strings.Contains(l, m) {
				lines[m] = i + 1
			}
		}
	}
	for _, m := range []string{"HOT", "COOL", "KILL"} {
		src = strings.ReplaceAll(src, "@"+m+"@", strings.Replace(p.calls["@"], `"H"`, `"`+m+`"`, 1))
	}
	writeFile(t, filepath.Join(root, p.file), src)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, argv := range p.build {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s\n%s", argv, err, out, src)
		}
	}
	return lines
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompiledHelperCapAndHeldBack: with AGENT_DEBUG_MODE_MAX_PER_LOCATION=10
// the 25-call location sends 10 events and one held-back record of 15 at
// exit, the 3-call one sends 3; AGENT_DEBUG_MODE_APPEND_PATH wins.
func TestCompiledHelperCapAndHeldBack(t *testing.T) {
	for lang, p := range compiledPrograms {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, p.runtimes)
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			lines := buildCompiled(t, e, p, lang, s.SessionID, root)
			out := filepath.Join(t.TempDir(), "out.ndjson")
			runIn(t, root, []string{"AGENT_DEBUG_MODE_MAX_PER_LOCATION=10", "AGENT_DEBUG_MODE_APPEND_PATH=" + out}, p.run...)
			got := readLines(t, out)
			for i, l := range got { // checkCapped counts H1 and H2
				got[i] = strings.NewReplacer(`"hypothesisId":"HOT"`, `"hypothesisId":"H1"`, `"hypothesisId":"COOL"`, `"hypothesisId":"H2"`).Replace(l)
			}
			checkCapped(t, got, p.sent(root, p.file, lines["@HOT@"]))
			if n := len(e.Logged(s.SessionID)); n != 0 {
				t.Errorf("%d events reached the session's own Append Path; the environment's path must win", n)
			}
		})
	}
}

// TestCompiledHelperWritesInTheBackground: a program killed with SIGKILL
// (no exit hook runs) a moment after logging still delivered its events,
// with the location each call names.
func TestCompiledHelperWritesInTheBackground(t *testing.T) {
	for lang, p := range compiledPrograms {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, p.runtimes)
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			lines := buildCompiled(t, e, p, lang, s.SessionID, root)
			killAfterLogged(t, root, nil, append(p.run, "kill")...)
			evs := e.Logged(s.SessionID)
			if len(evs) != 3 {
				t.Fatalf("%d events delivered before SIGKILL, want 3: %v", len(evs), evs)
			}
			for _, ev := range evs {
				if want := p.file + ":" + strconv.Itoa(lines["@KILL@"]); ev["location"] != want {
					t.Errorf("location %v, want %s", ev["location"], want)
				}
			}
		})
	}
}

// TestCompiledHelperReportsHeldBackWhenKilled: with a cap of 2, the
// location logged 3 times sends 2 events and reports the third as held
// back from the background, before the program is killed with SIGKILL.
func TestCompiledHelperReportsHeldBackWhenKilled(t *testing.T) {
	for lang, p := range compiledPrograms {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, p.runtimes)
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			lines := buildCompiled(t, e, p, lang, s.SessionID, root)
			killAfterLogged(t, root, []string{"AGENT_DEBUG_MODE_MAX_PER_LOCATION=2"}, append(p.run, "kill")...)
			if evs := e.Logged(s.SessionID); len(evs) != 2 {
				t.Errorf("%d events delivered before SIGKILL, want the cap of 2: %v", len(evs), evs)
			}
			checkHeldBack(t, e, s.SessionID, p.file+":"+strconv.Itoa(lines["@KILL@"]), 1)
		})
	}
}

// TestGoHelperWritesTheFirstEventAtOnce: the first event of a process is
// written at once, not at the writer's next tick, so a program killed 15 ms
// after its only event (a 20 ms timer, the old writer, never fires that early) still
// delivered it.
func TestGoHelperWritesTheFirstEventAtOnce(t *testing.T) {
	requireRuntimes(t, []string{"go"})
	t.Parallel()
	e := NewEnv(t)
	root := t.TempDir()
	s := e.CreateAt(root)
	buildGoMain(t, e, s.SessionID, root, `package main

import (
	"syscall"
	"time"
)

func main() {
	agentLog("H1", "only", func() any { return 1 })
	time.Sleep(15 * time.Millisecond)
	syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
}
`)
	cmd := exec.Command("./program")
	cmd.Dir = root
	cmd.Run()
	if evs := e.Logged(s.SessionID); len(evs) != 1 {
		t.Errorf("%d events from a program killed 15 ms after its first, want 1", len(evs))
	}
}

// TestGoHelperLeavesNoGoroutine: past the cap, the Go helper reports the
// held-back count from a timer that stops once the count stops growing, so
// no goroutine of the helper's outlives the calls (a goleak check in the
// user's tests stays clean), and the count still arrives in full.
func TestGoHelperLeavesNoGoroutine(t *testing.T) {
	requireRuntimes(t, []string{"go"})
	t.Parallel()
	e := NewEnv(t)
	root := t.TempDir()
	s := e.CreateAt(root)
	buildGoMain(t, e, s.SessionID, root, `package main

import (
	"fmt"
	"runtime"
	"time"
)

func main() {
	for i := 0; i < 7; i++ {
		agentLog("H1", "capped", func() any { return i })
	}
	time.Sleep(600 * time.Millisecond)
	fmt.Println(runtime.NumGoroutine())
}
`)
	cmd := exec.Command("./program")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AGENT_DEBUG_MODE_MAX_PER_LOCATION=2")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "1" {
		t.Errorf("%s goroutines 600 ms after the last call, want 1 (main alone)", got)
	}
	checkHeldBack(t, e, s.SessionID, "main.go:11", 5)
}

// TestJVMHelpersHeldBackExactAcrossThreads: past the cap the Java and Kotlin
// helpers count in a slot per thread (thread id modulo 64) and, when another
// thread owns that slot, in a shared adder; with 80 threads in two waves (the
// second wave's slots are owned by finished threads) the held-back record
// still counts every call: the last running total is 80 × 250 − 10.
func TestJVMHelpersHeldBackExactAcrossThreads(t *testing.T) {
	programs := map[string]compiledProgram{
		"java": {
			runtimes: compiledPrograms["java"].runtimes, file: "capped/Main.java", helperFile: "capped/AgentDebugLog.java", args: []string{"--package", "capped"},
			src: `package capped;

import java.util.Map;

public class Main {
  public static void main(String[] args) throws Exception {
    for (int wave = 0; wave < 2; wave++) {
      Thread[] ts = new Thread[40];
      for (int k = 0; k < ts.length; k++) {
        ts[k] = new Thread(() -> {
          for (int n = 0; n < 250; n++) {
            final int i = n;
            @HOT@
          }
        });
        ts[k].start();
      }
      for (Thread t : ts) t.join();
    }
  }
}
`,
			calls: compiledPrograms["java"].calls, build: compiledPrograms["java"].build, run: compiledPrograms["java"].run,
		},
		"kotlin": {
			runtimes: compiledPrograms["kotlin"].runtimes, file: "capped.kt",
			src: `@HELPER@
fun main() {
    for (wave in 0 until 2) {
        (0 until 40).map { Thread { for (i in 0 until 250) @HOT@ }.also { it.start() } }.forEach { it.join() }
    }
}
`,
			calls: compiledPrograms["kotlin"].calls, build: compiledPrograms["kotlin"].build, run: compiledPrograms["kotlin"].run,
		},
	}
	for lang, p := range programs {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, p.runtimes)
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			lines := buildCompiled(t, e, p, lang, s.SessionID, root)
			out := filepath.Join(t.TempDir(), "out.ndjson")
			runIn(t, root, []string{"AGENT_DEBUG_MODE_MAX_PER_LOCATION=10", "AGENT_DEBUG_MODE_APPEND_PATH=" + out}, p.run...)
			events, held := 0, []string{}
			for _, l := range readLines(t, out) {
				if strings.HasPrefix(l, `{"agentDebugHeldBack"`) {
					held = append(held, l) // a running total, written whenever it grew
				} else {
					events++
				}
			}
			want := `{"agentDebugHeldBack":{"hypothesisId":"HOT","location":"` + p.file + ":" + strconv.Itoa(lines["@HOT@"]) + `","count":19990,"cap":10,"process":"`
			if events != 10 || len(held) == 0 || !strings.HasPrefix(held[len(held)-1], want) {
				t.Errorf("%d events and held-back records %q; want 10 events and a last record starting %s", events, held, want)
			}
		})
	}
}

// TestJVMHelpersFastPathFitsTheJIT: the JVM helpers are cheap in a hot loop
// only while C2 inlines the probe into its caller (so the data lambda is not
// allocated) and never inlines the part that builds the event: in bytecode,
// the entry point and value() stay under FreqInlineSize (325, C2's limit for
// a hot callee) and record() over it. bench/helpers measures what this buys.
func TestJVMHelpersFastPathFitsTheJIT(t *testing.T) {
	for lang, c := range map[string]struct {
		classpath, helper string
		small             []string // methods under the limit
	}{
		"java":   {"classes", "capped.AgentDebugLog", []string{"void log(java.lang.String, java.lang.String, capped.AgentDebugLog$Data)", "java.lang.Object value("}},
		"kotlin": {"program.jar", "AgentDebug", []string{"java.lang.Object value("}},
	} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			p := compiledPrograms[lang]
			requireRuntimes(t, append(p.runtimes, "javap"))
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			buildCompiled(t, e, p, lang, s.SessionID, root)
			classes := []string{c.helper}
			if lang == "kotlin" {
				classes = append(classes, "CappedKt")
				c.small = append(c.small, "void agentLog(java.lang.String, java.lang.String, java.lang.String, kotlin.jvm.functions.Function0")
			}
			out := runIn(t, root, nil, append([]string{"javap", "-c", "-p", "-cp", c.classpath}, classes...)...)
			sizes := bytecodeSizes(out)
			for _, m := range c.small {
				if n, ok := find(sizes, m); !ok || n >= 325 {
					t.Errorf("%s: %d bytes of bytecode (found %v), want under 325 so that C2 inlines it", m, n, ok)
				}
			}
			if n, ok := find(sizes, " record("); !ok || n <= 325 {
				t.Errorf("record: %d bytes of bytecode (found %v), want over 325 so that C2 never inlines it into the probe", n, ok)
			}
		})
	}
}

// bytecodeSizes maps each method javap -c printed to the offset of its last
// instruction plus one (its code length, give or take the last instruction's
// operands).
func bytecodeSizes(javap string) map[string]int {
	sizes, method := map[string]int{}, ""
	for _, l := range strings.Split(javap, "\n") {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && strings.Contains(l, "(") {
			method = strings.TrimSpace(l)
		} else if off, _, ok := strings.Cut(strings.TrimSpace(l), ": "); ok && method != "" {
			if n, err := strconv.Atoi(off); err == nil {
				sizes[method] = n + 1
			}
		}
	}
	return sizes
}

func find(sizes map[string]int, part string) (int, bool) {
	for m, n := range sizes {
		if strings.Contains(m, part) {
			return n, true
		}
	}
	return 0, false
}

// buildGoMain builds ./program in root from main.go (package main) and the
// session's Go helper beside it.
func buildGoMain(t *testing.T, e *Env, session, root, mainGo string) {
	t.Helper()
	var tmpl renderedTemplate
	e.JSON(&tmpl, "template", "--language", "go", "--ingest", "file", "--session", session, "--package", "main")
	writeFile(t, filepath.Join(root, "agent_debug_log.go"), tmpl.Helper)
	writeFile(t, filepath.Join(root, "main.go"), mainGo)
	runIn(t, root, nil, "go", "mod", "init", "example.com/program")
	runIn(t, root, nil, "go", "build", "-o", "program", ".")
}
