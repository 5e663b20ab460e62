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
	for _, n := range []string{"go", "python3", "git", "bash"} {
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

// TestDemo checks the main job's key lines, in order: a session created with
// its Python template, the import and probes pasted from it, the bug
// reproduced with every event counted and the failing cycle captured, the
// cause isolated by one query (every hypothesis classified by SEQ), the fix
// verified by reproducing with the same probes and diffing against the
// capture, every probe removed with the fix alone left and the proof, the
// session deleted; and it did all that with six debug-mode commands and no
// other command printed.
func TestDemo(t *testing.T) {
	stdout, stderr := runDemo(t)
	if stderr != "" {
		t.Errorf("the demo wrote to stderr:\n%s", stderr)
	}
	want := []string{
		"== Set-up: build debug-mode",
		"$ debug-mode create --language python --ingest file\nSESSION CREATED\n",
		"IMPORT (paste once in each file with probes, in its own region)\n# region agent log helper\ntry: import importlib.util",
		"CALL TEMPLATE\n# region agent log\nagent_log(\"__HYPOTHESIS_ID__\", \"__MESSAGE__\", lambda: __DATA_EXPRESSION__)\n# endregion\n",
		// The editor's changes: the import region, then the three probes.
		"+ # region agent log helper\n+ try: import importlib.util",
		"+     agent_log(\"H1\", \"amount converted to USD\", lambda: {",
		"+         agent_log(\"H3\", \"order assigned to a month\", lambda: {",
		"$ debug-mode reproduce --session ",
		" --capture before-fix -- python3 report.py\nREPRODUCED python3 report.py\n",
		"Exit     exit status 0 after ",
		"the counts below are final\nEvents   52 events (H1 17, H2 17, H3 18)\nRegions  3 of 3 probe regions under . fired; 1 helper region not counted (helpers send nothing themselves)\nCapture  c-",
		"\"before-fix\" (new) · 52 events\n",
		"STDOUT 1 line\n  2026-11 revenue: 1,200.20 USD\n",
		"$ debug-mode query --session ",
		`[5,"H2",{"amount":"129.00","id":"T-1002","net":"64.50","refund":"64.50"}]` + "\n",
		`[33,"H1",{"amount":"59.00","currency":"EUR","usd":"63.72"}]` + "\n" +
			`[34,"H3",{"created":"1970-01-21T18:48:09.840000+00:00","id":"A-1012","month":"1970-01"}]` + "\n",
		"12 values from 52 events read",
		"complete.\n",
		"H1 rejected (SEQ 12, 18, 21, 24, 30, 33, 40, 49): 1.08 USD per EUR and 1.27 per GBP",
		"H2 rejected (SEQ 5, 8, 26): each refund subtracted once, from its own order.",
		"H3 confirmed (SEQ 34): order A-1012 falls in January 1970.",
		"== 6. Fix only what the evidence proves",
		"-         return datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)\n+         stamp = int(value)\n+         if stamp < 10**11:",
		" --diff c-",
		" -- python3 report.py\nREPRODUCED python3 report.py\n",
		"Events   54 events (H1 18, H2 18, H3 18)\n",
		"STDOUT 1 line\n  2026-11 revenue: 1,280.34 USD\n",
		"Whole comparison: every event of both sides was compared.\n",
		// Aligned by data: the one real change, the two events the fix
		// added, and nothing else. The fix added three lines above every
		// probe, and each helper names its own line: every group moved, and
		// is still paired.
		"Groups (hypothesis, location, message): 3: 1 with changed data (1 value), 2 with another event count, 3 moved to another line.\n" +
			"Events, aligned by data within each group: 51 the same, 1 changed, 0 only before, 2 only after.\n",
		// The first divergence is within one group, the same event.
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
		"$ debug-mode probes --remove --yes\nREMOVED 4 regions, 13 lines from 1 file",
		"report.py:12-15  (4 lines)  (helper) try: import importlib.util",
		// What is left outside the regions is the fix alone: one hunk in
		// parse_created, its 5 lines.
		"Outside the regions, 1 of 1 rewritten file still differs from git HEAD",
		"\n  report.py:22  +        stamp = int(value)  (5 lines in this hunk)\n",
		// One command, and the proof --check gives ends it.
		"\nCHECK passed: no agent log region or broken marker remains.\n",
		"$ debug-mode clean --session ",
		"SESSION CLEANED\n",
		"Done: six debug-mode commands, no other shell command.",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(stdout[at:], w)
		if i < 0 {
			t.Fatalf("the demo output lacks, after byte %d, %q\n\nfull output:\n%s", at, w, stdout)
		}
		at += i + len(w)
	}
	// Counted, not claimed: every command the demo prints is debug-mode's,
	// six of them, and the removal left exactly one hunk outside the regions.
	var commands []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "$ ") {
			commands = append(commands, line)
		}
	}
	if len(commands) != 6 {
		t.Errorf("the demo prints %d commands, want the six of the loop:\n%s", len(commands), strings.Join(commands, "\n"))
	}
	for _, c := range commands {
		if !strings.HasPrefix(c, "$ debug-mode ") {
			t.Errorf("the demo runs a command that is not debug-mode's: %s", c)
		}
	}
	if n := strings.Count(stdout, "lines in this hunk)"); n != 1 {
		t.Errorf("probes --remove --yes lists %d hunks outside the regions, want the fix alone", n)
	}
	// It left nothing behind in the newcomer's home.
	if _, err := os.Stat(filepath.Join(demoRun.home, ".agent-debug-mode")); err == nil {
		t.Error("the demo wrote ~/.agent-debug-mode; it must use its own private folder")
	}
}
