package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The helpers debug-mode keeps outside the project (Python, Node, Ruby, PHP)
// are reached by one import line that names them by absolute path. These
// tests run instrumented programs as people do: a Python package with
// relative imports under python -m, files in subfolders, and every program
// started from the project root, from a subfolder and from an unrelated
// working directory. They also prove the cap with its held-back record, and
// the flush when the program ends on SIGTERM.

// outsideProgram is one language's small project: files (with @IMPORT@
// where the import region goes), the command, and how to tell that the
// helper was loaded once in the process (the program prints "loads=<n>").
type outsideProgram struct {
	lang, ingest string
	runtime      string
	files        map[string]string // path under the root → source
	run          func(root string) []string
	env          func(root string) []string
	hypotheses   map[string]string // hypothesis → file it is called in
}

var outsidePrograms = []outsideProgram{
	{
		lang: "python", ingest: "file", runtime: "python3",
		files: map[string]string{
			"pkg/__init__.py": "",
			"pkg/mod.py": `@IMPORT@
import threading
from .sub import helper


def main():
    agent_log("H-mod", "in mod", lambda: {"n": 1})
    helper.work()
    print("loads=%d" % sum(t.name == "agent-debug-mode" for t in threading.enumerate()))


main()
`,
			"pkg/sub/__init__.py": "",
			"pkg/sub/helper.py": `@IMPORT@


def work():
    agent_log("H-sub", "in sub", lambda: {"n": 2})
`,
		},
		run:        func(string) []string { return []string{"python3", "-m", "pkg.mod"} },
		env:        func(root string) []string { return []string{"PYTHONPATH=" + root} },
		hypotheses: map[string]string{"H-mod": "pkg/mod.py", "H-sub": "pkg/sub/helper.py"},
	},
	{
		lang: "javascript", ingest: "file", runtime: "node",
		files: map[string]string{
			"app/main.mjs": `@IMPORT@
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const { work } = require("./lib/util.cjs");

agentLog("H-mod", "in main", () => ({ n: 1 }));
work();
console.log("loads=" + Object.keys(require.cache).filter((k) => k.endsWith("/agent_debug_log.cjs")).length);
`,
			"app/lib/util.cjs": `@IMPORT@
exports.work = () => {
  agentLog("H-sub", "in util", () => ({ n: 2 }));
};
`,
		},
		run:        func(root string) []string { return []string{"node", filepath.Join(root, "app", "main.mjs")} },
		hypotheses: map[string]string{"H-mod": "app/main.mjs", "H-sub": "app/lib/util.cjs"},
	},
	{
		lang: "ruby", ingest: "file", runtime: "ruby",
		files: map[string]string{
			"app/main.rb": `@IMPORT@
require_relative "lib/util"

agent_log("H-mod", "in main") { { "n" => 1 } }
Util.work
puts "loads=#{$LOADED_FEATURES.count { |f| f.end_with?("/agent_debug_log.rb") }}"
`,
			"app/lib/util.rb": `@IMPORT@
module Util
  def self.work
    agent_log("H-sub", "in util") { { "n" => 2 } }
  end
end
`,
		},
		run:        func(root string) []string { return []string{"ruby", filepath.Join(root, "app", "main.rb")} },
		hypotheses: map[string]string{"H-mod": "app/main.rb", "H-sub": "app/lib/util.rb"},
	},
	{
		lang: "php", ingest: "file", runtime: "php",
		files: map[string]string{
			"app/main.php": `<?php
@IMPORT@
require __DIR__ . '/lib/util.php';

agent_log('H-mod', 'in main', fn () => ['n' => 1]);
\App\Lib\work();
echo 'loads=' . count(array_filter(get_included_files(), fn ($f) => substr($f, -20) === '/agent_debug_log.php')) . "\n";
`,
			"app/lib/util.php": `<?php
declare(strict_types=1);

namespace App\Lib;

@IMPORT@
function work(): void
{
    agent_log('H-sub', 'in util', fn () => ['n' => 2]);
}
`,
		},
		run:        func(root string) []string { return []string{"php", filepath.Join(root, "app", "main.php")} },
		hypotheses: map[string]string{"H-mod": "app/main.php", "H-sub": "app/lib/util.php"},
	},
}

// importFor renders the language's import region for a session.
func importFor(t *testing.T, e *Env, lang, ingest, session string) string {
	t.Helper()
	var tmpl renderedTemplate
	e.JSON(&tmpl, "template", "--language", lang, "--ingest", ingest, "--session", session)
	if tmpl.Placement.Helper != "outside-project" || tmpl.Import == "" || tmpl.Helper != "" {
		t.Fatalf("%s + %s: not an outside-project helper: %+v", lang, ingest, tmpl.Placement)
	}
	return tmpl.Import
}

// writeProject writes files under root with the import in place and returns,
// per hypothesis, the root-relative location of its call.
func writeProject(t *testing.T, root, imp string, files map[string]string) map[string]string {
	t.Helper()
	where := map[string]string{}
	for rel, src := range files {
		src = strings.ReplaceAll(src, "@IMPORT@\n", imp)
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(src, "\n") {
			if m := regexp.MustCompile(`agent_?[lL]og\(["'](H[-a-z0-9]+)["']`).FindStringSubmatch(line); m != nil {
				where[m[1]] = fmt.Sprintf("%s:%d", rel, i+1)
			}
		}
	}
	return where
}

func runIn(t *testing.T, dir string, env []string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v in %s: %v\n%s", argv, dir, err, out)
	}
	return string(out)
}

// TestOutsideHelpersFromAnywhere: the same import works from a package, a
// subfolder and another working directory, the helper loads once per
// process, and every event names its call's file relative to the root.
func TestOutsideHelpersFromAnywhere(t *testing.T) {
	for _, p := range outsidePrograms {
		t.Run(p.lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, []string{p.runtime})
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			where := writeProject(t, root, importFor(t, e, p.lang, p.ingest, s.SessionID), p.files)
			sub := filepath.Join(root, filepath.Dir(filepath.FromSlash(p.hypotheses["H-sub"])))
			for _, dir := range []string{root, sub, t.TempDir()} {
				e.MustRun("reset", "--session", s.SessionID)
				var env []string
				if p.env != nil {
					env = p.env(root)
				}
				out := runIn(t, dir, env, p.run(root)...)
				if strings.TrimSpace(out) != "loads=1" {
					t.Errorf("run from %s: output %q, want loads=1 (the helper loaded once)", dir, out)
				}
				got := map[string][]string{}
				for _, ev := range e.Logged(s.SessionID) {
					got[ev["hypothesisId"].(string)] = append(got[ev["hypothesisId"].(string)], ev["location"].(string))
				}
				for h, loc := range where {
					if len(got[h]) != 1 || got[h][0] != loc {
						t.Errorf("run from %s: %s events at %v, want one at %s", dir, h, got[h], loc)
					}
				}
			}
		})
	}
}

// capProgram logs 25 times from one line and 3 times from another, then
// ends; with a cap of 10 the first line holds 15 back.
var capPrograms = map[string]struct {
	runtime, file, src string
	run                []string
}{
	"python":     {"python3", "cap.py", "@IMPORT@\nfor i in range(25):\n    agent_log(\"H1\", \"hot\", lambda: {\"i\": i})\nfor i in range(3):\n    agent_log(\"H2\", \"cool\", lambda: {\"i\": i})\n", []string{"python3", "cap.py"}},
	"javascript": {"node", "cap.mjs", "@IMPORT@\nfor (let i = 0; i < 25; i++) agentLog(\"H1\", \"hot\", () => ({ i }));\nfor (let i = 0; i < 3; i++) agentLog(\"H2\", \"cool\", () => ({ i }));\n", []string{"node", "cap.mjs"}},
	"ruby":       {"ruby", "cap.rb", "@IMPORT@\n25.times { |i| agent_log(\"H1\", \"hot\") { { \"i\" => i } } }\n3.times { |i| agent_log(\"H2\", \"cool\") { { \"i\" => i } } }\n", []string{"ruby", "cap.rb"}},
	"php":        {"php", "cap.php", "<?php\n@IMPORT@\nfor ($i = 0; $i < 25; $i++) agent_log('H1', 'hot', fn () => ['i' => $i]);\nfor ($i = 0; $i < 3; $i++) agent_log('H2', 'cool', fn () => ['i' => $i]);\n", []string{"php", "cap.php"}},
}

// TestHelperCapAndHeldBack: AGENT_DEBUG_MODE_MAX_PER_LOCATION and
// AGENT_DEBUG_MODE_APPEND_PATH win over what the import line binds; a capped
// location sends cap events and held-back records whose count ends at 15.
func TestHelperCapAndHeldBack(t *testing.T) {
	for lang, p := range capPrograms {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, []string{p.runtime})
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			where := writeProject(t, root, importFor(t, e, lang, "file", s.SessionID), map[string]string{p.file: p.src})
			out := filepath.Join(t.TempDir(), "out.ndjson")
			runIn(t, root, []string{"AGENT_DEBUG_MODE_MAX_PER_LOCATION=10", "AGENT_DEBUG_MODE_APPEND_PATH=" + out}, p.run...)
			checkCapped(t, readLines(t, out), filepath.Join(root, where["H1"])) // as sent: the absolute path
			if n := len(e.Logged(s.SessionID)); n != 0 {
				t.Errorf("%d events reached the session's own Append Path; the environment's path must win", n)
			}

			// Without the environment, the import line binds the session's
			// cap and Append Path, and status counts the held-back events
			// at the root-relative location.
			e2 := NewEnv(t)
			var s2 Session
			e2.JSON(&s2, "create", "--root", root, "--max-per-location", "10")
			writeProject(t, root, importFor(t, e2, lang, "file", s2.SessionID), map[string]string{p.file: p.src})
			runIn(t, root, nil, p.run...)
			var st struct {
				Events   int64 `json:"events"`
				HeldBack []struct {
					Location string `json:"location"`
					Count    int64  `json:"count"`
				} `json:"heldBack"`
			}
			e2.JSON(&st, "status", "--session", s2.SessionID)
			if st.Events != 13 || len(st.HeldBack) != 1 || st.HeldBack[0].Location != where["H1"] || st.HeldBack[0].Count != 15 {
				t.Errorf("with the session's cap of 10: %d events, held back %+v; want 13 events and 15 held back at %s", st.Events, st.HeldBack, where["H1"])
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// checkCapped: 10 H1 events, 3 H2 events, and held-back records for H1's
// location (as the helper sent it: an absolute path) whose running total
// never shrinks and ends at 15 (a helper may report it when the cap is
// first reached and again as it grows).
func checkCapped(t *testing.T, lines []string, hot string) {
	t.Helper()
	heldRE := regexp.MustCompile(`^\{"agentDebugHeldBack":\{"hypothesisId":"H1","location":"` + regexp.QuoteMeta(hot) + `","count":(\d+),"cap":10,"process":"\d+-\d{13}"\}\}$`)
	counts, held, last := map[string]int{}, 0, 0
	for _, l := range lines {
		if strings.HasPrefix(l, `{"agentDebugHeldBack"`) {
			held++
			m := heldRE.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("held-back record %s, want the format %s", l, heldRE)
				continue
			}
			n, _ := strconv.Atoi(m[1])
			if n <= last || n > 15 {
				t.Errorf("held-back count %d after %d: a running total grows, up to 15", n, last)
			}
			last = n
			continue
		}
		var ev struct {
			HypothesisID string `json:"hypothesisId"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not an event: %q", l)
		}
		counts[ev.HypothesisID]++
	}
	if counts["H1"] != 10 || counts["H2"] != 3 || held == 0 || last != 15 {
		t.Errorf("H1 %d events, H2 %d, %d held-back records ending at %d; want 10, 3 and records ending at 15:\n%s", counts["H1"], counts["H2"], held, last, strings.Join(lines, "\n"))
	}
}

// TestHTTPHelperCapAndHeldBack: the http module (on Node) reads
// AGENT_DEBUG_MODE_INGEST_URL and sends the held-back record as the last
// request, at the end of the event loop.
func TestHTTPHelperCapAndHeldBack(t *testing.T) {
	requireRuntimes(t, []string{"node"})
	t.Parallel()
	e := NewEnv(t)
	root := t.TempDir()
	s := e.CreateAt(root)
	var tmpl renderedTemplate
	e.JSON(&tmpl, "template", "--language", "javascript", "--ingest", "http", "--session", s.SessionID)
	if err := os.WriteFile(filepath.Join(root, tmpl.Placement.HelperFile), []byte(tmpl.Helper), 0o644); err != nil {
		t.Fatal(err)
	}
	where := writeProject(t, root, tmpl.Import, map[string]string{"cap.mjs": capPrograms["javascript"].src})
	var mu sync.Mutex
	var lines []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		mu.Unlock()
		fmt.Fprint(w, `{"accepted":1,"rejected":0}`)
	}))
	defer srv.Close()
	runIn(t, root, []string{"AGENT_DEBUG_MODE_MAX_PER_LOCATION=10", "AGENT_DEBUG_MODE_INGEST_URL=" + srv.URL}, "node", "cap.mjs")
	mu.Lock()
	checkCapped(t, lines, "file://"+filepath.Join(root, where["H1"])) // an ES module's URL, as V8 names it

	// Killed with SIGKILL after passing the cap (no beforeExit): the
	// held-back count was sent when the cap was first reached.
	lines = nil
	mu.Unlock()
	where = writeProject(t, root, tmpl.Import, map[string]string{"kill.mjs": capPrograms["javascript"].src + "console.log(\"logged\");\nsetTimeout(() => {}, 10000);\n"})
	killAfterLogged(t, root, []string{"AGENT_DEBUG_MODE_MAX_PER_LOCATION=10", "AGENT_DEBUG_MODE_INGEST_URL=" + srv.URL}, "node", "kill.mjs")
	mu.Lock()
	defer mu.Unlock()
	checkCapped(t, lines, "file://"+filepath.Join(root, where["H1"]))
}

// TestHelperFlushOnSIGTERM: a program that logs and is ended by SIGTERM
// straight away (before any background write) still delivers every event,
// where the runtime lets the helper handle the signal.
func TestHelperFlushOnSIGTERM(t *testing.T) {
	for lang, p := range map[string]struct{ runtime, file, src string }{
		"python":     {"python3", "term.py", "@IMPORT@\nimport os, signal, time\nfor i in range(3):\n    agent_log(\"H1\", \"before the signal\", lambda: {\"i\": i})\nos.kill(os.getpid(), signal.SIGTERM)\ntime.sleep(10)\n"},
		"javascript": {"node", "term.mjs", "@IMPORT@\nfor (let i = 0; i < 3; i++) agentLog(\"H1\", \"before the signal\", () => ({ i }));\nprocess.kill(process.pid, \"SIGTERM\");\nsetTimeout(() => {}, 10000);\n"},
		"ruby":       {"ruby", "term.rb", "@IMPORT@\n3.times { |i| agent_log(\"H1\", \"before the signal\") { { \"i\" => i } } }\nProcess.kill(\"TERM\", Process.pid)\nsleep 10\n"},
	} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, []string{p.runtime})
			e := NewEnv(t)
			root := t.TempDir()
			s := e.CreateAt(root)
			writeProject(t, root, importFor(t, e, lang, "file", s.SessionID), map[string]string{p.file: p.src})
			out := filepath.Join(t.TempDir(), "out.ndjson")
			cmd := exec.Command(p.runtime, p.file)
			cmd.Dir, cmd.Env = root, append(os.Environ(), "AGENT_DEBUG_MODE_APPEND_PATH="+out)
			began := time.Now()
			cmd.Run()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
				t.Errorf("the program was to end by SIGTERM, as without the helper: %v", cmd.ProcessState)
			}
			if time.Since(began) > 8*time.Second {
				t.Errorf("the program outlived SIGTERM (%s): the helper swallowed the signal", time.Since(began))
			}
			if lines := readLines(t, out); len(lines) != 3 {
				t.Errorf("%d lines delivered before the program ended, want 3:\n%s", len(lines), strings.Join(lines, "\n"))
			}
		})
	}
}

// TestHelperReportsHeldBackWhenKilled: a program that passes the cap and is
// then killed with SIGKILL (no exit hook runs) has still reported what it
// held back: the helper sends the count when the cap is first reached and
// keeps it current from the background. PHP has no background: it reports
// the first call held back at once (then at most once a second).
func TestHelperReportsHeldBackWhenKilled(t *testing.T) {
	for lang, p := range map[string]struct {
		runtime, file, src string
		want               int64
	}{
		"python":     {"python3", "kill.py", "@IMPORT@\nimport time\nfor i in range(25):\n    agent_log(\"H1\", \"hot\", lambda: {\"i\": i})\nprint(\"logged\", flush=True)\ntime.sleep(10)\n", 15},
		"javascript": {"node", "kill.mjs", "@IMPORT@\nfor (let i = 0; i < 25; i++) agentLog(\"H1\", \"hot\", () => ({ i }));\nconsole.log(\"logged\");\nsetTimeout(() => {}, 10000);\n", 15},
		"ruby":       {"ruby", "kill.rb", "@IMPORT@\n25.times { |i| agent_log(\"H1\", \"hot\") { { \"i\" => i } } }\nputs \"logged\"\n$stdout.flush\nsleep 10\n", 15},
		"php":        {"php", "kill.php", "<?php\n@IMPORT@\nfor ($i = 0; $i < 25; $i++) agent_log('H1', 'hot', fn () => ['i' => $i]);\necho \"logged\\n\";\nsleep(10);\n", 1},
	} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			requireRuntimes(t, []string{p.runtime})
			e := NewEnv(t)
			root := t.TempDir()
			var s Session
			e.JSON(&s, "create", "--root", root, "--max-per-location", "10")
			where := writeProject(t, root, importFor(t, e, lang, "file", s.SessionID), map[string]string{p.file: p.src})
			killAfterLogged(t, root, nil, p.runtime, p.file)
			checkHeldBack(t, e, s.SessionID, where["H1"], p.want)
		})
	}
}

// killAfterLogged runs the program until it prints "logged", gives its
// background writer half a second, then ends it with SIGKILL.
func killAfterLogged(t *testing.T, dir string, env []string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if sc := bufio.NewScanner(stdout); !sc.Scan() || sc.Text() != "logged" {
		t.Fatalf("the program did not log: %q", sc.Text())
	}
	time.Sleep(500 * time.Millisecond) // the writers run every 20 to 100 ms
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

// checkHeldBack: the session counts want events held back at location, as
// the helper reported before it was killed.
func checkHeldBack(t *testing.T, e *Env, session, location string, want int64) {
	t.Helper()
	var st struct {
		HeldBack []struct {
			Location string `json:"location"`
			Count    int64  `json:"count"`
		} `json:"heldBack"`
	}
	e.JSON(&st, "status", "--session", session)
	if len(st.HeldBack) != 1 || st.HeldBack[0].Location != location || st.HeldBack[0].Count != want {
		t.Errorf("held back after SIGKILL: %+v; want %d at %s", st.HeldBack, want, location)
	}
}
