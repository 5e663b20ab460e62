package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// demoRun is one run of ./scripts/demo.sh, shared by the tests that read it.
var demoRun struct {
	once           sync.Once
	stdout, stderr string
	err            error
	home           string
}

// runDemo runs the README's main-job command as a newcomer would: from the
// repository root, with a fresh HOME and no debug-mode settings. Go's build
// and module caches are kept so the run needs no network.
func runDemo(t *testing.T) (string, string) {
	t.Helper()
	for _, n := range []string{"go", "python3", "bash"} {
		requireRuntimes(t, []string{n})
	}
	demoRun.once.Do(func() {
		home, err := os.MkdirTemp("", "debug-mode-demo-home-")
		if err != nil {
			demoRun.err = err
			return
		}
		demoRun.home = home
		env := []string{"HOME=" + home}
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if k != "HOME" && !strings.HasPrefix(k, "AGENT_DEBUG_MODE") && !strings.HasPrefix(k, "GO") {
				env = append(env, kv)
			}
		}
		for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
			if v, err := exec.Command("go", "env", k).Output(); err == nil && len(bytes.TrimSpace(v)) > 0 {
				env = append(env, k+"="+string(bytes.TrimSpace(v)))
			}
		}
		cmd := exec.Command("bash", "scripts/demo.sh")
		cmd.Dir = ".."
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		demoRun.err = cmd.Run()
		demoRun.stdout, demoRun.stderr = out.String(), errb.String()
	})
	if demoRun.err != nil {
		t.Fatalf("./scripts/demo.sh: %v\nstdout:\n%s\nstderr:\n%s", demoRun.err, demoRun.stdout, demoRun.stderr)
	}
	return demoRun.stdout, demoRun.stderr
}

// TestDemo checks the main job's key lines, in order: the bug reproduced,
// probes in, the cause isolated by one query, the failing cycle captured and
// the decisive event followed to its source, the fix verified by diffing the
// same probes' second run against the capture, every probe removed and proved
// gone, the session deleted.
func TestDemo(t *testing.T) {
	stdout, stderr := runDemo(t)
	if stderr != "" {
		t.Errorf("the demo wrote to stderr:\n%s", stderr)
	}
	want := []string{
		"== 1. Build debug-mode",
		"$ python3 report.py\n2026-11 revenue: 1,200.20 USD\n",
		"$ debug-mode create\nSESSION CREATED\n",
		"--section import --session ",
		"# region agent log helper\ntry: import importlib.util",
		"PROBES 4 regions in 1 file",
		"report.py:12-15  helper ",
		"Events        52 events (H1 17, H2 17, H3 18)\n",
		"\nSEQ  TIME          HYP  LOCATION      MESSAGE                    DATA\n",
		`{"amount":"59.00","currency":"EUR","seq":33,"usd":"63.72"}`,
		`{"amount":"129.00","id":"T-1002","net":"64.50","refund":"64.50","seq":5}`,
		`{"created":"1970-01-21T18:48:09.840000+00:00","id":"A-1012","month":"1970-01","seq":34}` + "\n",
		"H3 confirmed (SEQ 34): order A-1012 falls in January 1970.",
		"A-1012,1795689840,74.20,,EUR\n",
		"--label before-fix --source-root ",
		"\nLabel          before-fix\n",
		"Events         52 events (every stored event of the cycle)",
		"Source         3 of 3 locations looked at (±8 lines): 3 complete; no bound reached\n",
		" --seq 34 --rel source\nFOLLOW SEQ 34 source · complete · capture c-",
		"report.py lines 58–74 of 76 (event at line 66)\n",
		`>66          agent_log("H3", "order assigned to a month"`,
		"+        if stamp < 10**11:",
		"$ debug-mode reset --session ",
		"Cycle        2 (sequence restarts at 1",
		"2026-11 revenue: 1,280.34 USD\n",
		"Events        54 events (H1 18, H2 18, H3 18)\n",
		"$ debug-mode diff --session ",
		"Whole comparison: every event of both sides was compared.\n",
		// Aligned by data: the one real change, the two events the fix
		// added, and nothing else.
		// The fix added three lines above every probe, and each helper
		// names its own line: every group moved, and is still paired.
		"Groups (hypothesis, location, message): 3: 1 with changed data (1 value), 2 with another event count, 3 moved to another line.\n" +
			"Events, aligned by data within each group: 51 the same, 1 changed, 0 only before, 2 only after.\n",
		// The first divergence is within one group, the same event. The fix
		// added three lines above every probe, and each helper names its
		// own line: every group moved, and is still paired.
		"First divergence at event 34 in logs order: H3 report.py:66 order assigned to a month, the same event with different data:\n" +
			`  before  SEQ 34  {"id":"A-1012","created":"1970-01-21T18:48:09.840000+00:00","month":"1970-01"}` + "\n" +
			`  after   SEQ 34  {"id":"A-1012","created":"2026-11-26T10:44:00+00:00","month":"2026-11"}` + "\n",
		"changed  18      18     H3   report.py:66 → report.py:69  order assigned to a month\n" +
			"count    17      18     H1   report.py:45 → report.py:48  amount converted to USD\n" +
			"count    17      18     H2   report.py:53 → report.py:56  refund subtracted\n",
		// Each changed field with its value before and after, whole.
		"\nChanged values (aligned events of a group whose data differ):\n" +
			"  H3 report.py:66 order assigned to a month  SEQ 34 → SEQ 34\n" +
			`    .created  "1970-01-21T18:48:09.840000+00:00" → "2026-11-26T10:44:00+00:00"` + "\n" +
			`    .month    "1970-01" → "2026-11"` + "\n",
		"\nEvents on one side only (removed or added within a group):\n" +
			`  H1 report.py:45 amount converted to USD: only after  SEQ 36 {"amount":"74.20","currency":"EUR","usd":"80.14"}` + "\n" +
			`  H2 report.py:53 refund subtracted: only after  SEQ 35 {"id":"A-1012","amount":"74.20","refund":"0","net":"74.20"}` + "\n",
		"H3: 18 events on both sides and one changed value: SEQ 34, order A-1012, 1970-01 before, 2026-11 now.\n",
		"H1's new event, SEQ 36, is 74.20 EUR = 80.14 USD: exactly the missing amount. Nothing else changed.\n",
		`[{"month":"2026-11","orders":18}]` + "\n",
		"REMOVE (dry run: nothing written) 4 regions",
		"REMOVED 4 regions, 13 lines from 1 file",
		// One command, and the proof --check gives ends it.
		"\nCHECK passed: no agent log region or broken marker remains.\n",
		"$ debug-mode probes --check\nPROBES none",
		"CHECK passed: no agent log region or broken marker remains.\n",
		"What remains in the code is the fix alone:",
		"SESSION CLEANED\n",
		"STOPPED\n",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(stdout[at:], w)
		if i < 0 {
			t.Fatalf("the demo output lacks, after byte %d, %q\n\nfull output:\n%s", at, w, stdout)
		}
		at += i + len(w)
	}
	// What is left in the code is the fix alone: no probe, no helper import.
	final := stdout[strings.LastIndex(stdout, "What remains in the code is the fix alone:"):]
	final = final[:strings.Index(final, "== 12.")]
	for _, bad := range []string{"agent_log", "region agent log", "agent_debug_log"} {
		if strings.Contains(final, bad) {
			t.Errorf("the final diff still mentions %q:\n%s", bad, final)
		}
	}
	if strings.Count(final, "\n+") != 5 || strings.Count(final, "\n-") != 2 { // +++ and --- headers count once each
		t.Errorf("the final diff should be the 4-line fix replacing 1 line:\n%s", final)
	}
	// It left nothing behind in the newcomer's home.
	if _, err := os.Stat(filepath.Join(demoRun.home, ".agent-debug-mode")); err == nil {
		t.Error("the demo wrote ~/.agent-debug-mode; it must use its own private folder")
	}
}
