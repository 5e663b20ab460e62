package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// hostile is text a probe (or a file name, a source line, a user's note)
// may carry to forge the tool's own output: a new line, a new table column,
// a carriage return over the line, terminal escapes (colour, CSI as C1, a
// bell), Unicode line and paragraph separators and bidirectional overrides.
// Every FORGED follows a \n, \t or \r, so the check can tell whether it was
// escaped.
const hostile = "\nFORGED line \x1b[31mred\x1b[0m\x07\tFORGED col\rFORGED cr \u2028ls\u2029ps\u202eRLO\u2066\u200f\x7f\u0085\u009b"

// hostileInLine is hostile on one line, for file contents and capture
// labels (a capture keeps a source line's text up to a carriage return).
var hostileInLine = "L" + strings.NewReplacer("\n", "\t", "\r", "\t").Replace(hostile)

// unsafeRune is the set no pretty output may contain raw, written out here
// independently of output.Escape so the test checks it rather than trusting
// it: C0 controls except the tool's own line ends, DEL, C1 controls, the line
// and paragraph separators, and the bidirectional controls.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\n'
	case r >= 0x7f && r <= 0x9f, r == 0x2028, r == 0x2029:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

var forgedMark = regexp.MustCompile(`(?s)(.?.?)FORGED`)

// checkUnforgeable fails on any raw unsafe character, any byte that is not
// UTF-8, and any FORGED that is not right after an escaped \n, \t or \r
// (so it starts a line, or a column, of its own).
func checkUnforgeable(t *testing.T, what, text string) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Errorf("%s: output is not valid UTF-8: %q", what, text)
	}
	for i, r := range text {
		if unsafeRune(r) {
			t.Errorf("%s: raw %U at byte %d: …%q…", what, r, i, text[max(0, i-40):min(len(text), i+40)])
			return
		}
	}
	for _, m := range forgedMark.FindAllStringSubmatch(text, -1) {
		if p := m[1]; p != `\n` && p != `\t` && p != `\r` {
			t.Errorf("%s: FORGED follows %q, not an escape: the hostile text split a line or a column\n%s", what, p, text)
			return
		}
	}
}

// TestNoCommandPrintsEvidenceRaw drives every command that prints text
// derived from evidence (events, diagnostics, user evidence, captures,
// probe regions, source lines, file names, and the error messages that
// quote them) with hostile content, and checks its pretty output and error
// message. Every command of the tree must be walked here or named as one
// that prints no evidence, so a new command cannot be forgotten.
func TestNoCommandPrintsEvidenceRaw(t *testing.T) {
	ctx := context.Background()
	covered := map[string]bool{}
	run := func(wantCode int, wantEvidence bool, args ...string) (string, json.RawMessage) {
		t.Helper()
		text, env, code, msg := Execute(ctx, args)
		what := fmt.Sprintf("%q", args)
		if code != wantCode {
			t.Fatalf("%s: exit %d (%s), want %d\n%s", what, code, msg, wantCode, text)
		}
		checkUnforgeable(t, what, text)
		checkUnforgeable(t, what+" (error)", msg)
		if wantEvidence && !strings.Contains(text+msg, "FORGED") {
			t.Errorf("%s: the hostile evidence does not reach this output, so it proves nothing:\n%s%s", what, text, msg)
		}
		covered[commandPath(args)] = true
		return text, env
	}

	_, env := run(0, false, "create")
	var created struct {
		Result struct {
			SessionID  string `json:"sessionId"`
			AppendPath string `json:"appendPath"`
		} `json:"result"`
	}
	if err := json.Unmarshal(env, &created); err != nil || created.Result.SessionID == "" {
		t.Fatalf("create: %s (%v)", env, err)
	}
	id := created.Result.SessionID

	src := t.TempDir()
	evilFile := "evil\nFORGED\x1b[31m.py"
	writeFile(t, filepath.Join(src, "app.py"), "import os\n# region agent log "+hostileInLine+"\nagent_log('H1', 'app.py:3', 'm', lambda: {'x': 1})  # "+hostileInLine+"\n# endregion\n")
	// A file name with a new line and an escape is in the capture's source
	// root: its region and source lines are frozen and followed like any.
	odd := t.TempDir()
	writeFile(t, filepath.Join(odd, evilFile), "x = 1\n# region agent log\nagent_log('H1', 'evil:3', 'm', lambda: 2)  # "+hostileInLine+"\n# endregion\n# region agent log unclosed "+hostileInLine+"\n")
	writeFile(t, filepath.Join(src, evilFile), "x = 1\n# region agent log\nagent_log('H2', 'evil:3', 'm', lambda: 2)  # "+hostileInLine+"\n# endregion\n")
	userFile := filepath.Join(t.TempDir(), "user\tFORGED\x1b[2J.log")
	writeFile(t, userFile, "what the user saw\n")

	now := time.Now().UnixMilli()
	label := "H1" + hostile
	appendEvidence(t, created.Result.AppendPath, []map[string]any{
		{"hypothesisId": label, "location": "app.py:3", "message": "m" + hostile, "data": map[string]any{"k" + hostile: "v" + hostile, "n": 1}, "timestamp": now},
		{"hypothesisId": "H2", "location": evilFile + ":3", "message": "evil", "data": 2, "timestamp": now + 1},
		{"hypothesisId": label, "location": "nowhere" + hostile, "message": "no line", "data": nil, "timestamp": now + 2},
		{"hypothesisId": label, "location": "app.py:3", "message": "m" + hostile, "data": map[string]any{"k" + hostile: "w" + hostile, "n": 2}, "timestamp": now + 3},
	}, []string{
		// JSON with the characters JSON allows raw, then records that are rejected with them.
		"{\"hypothesisId\":\"H3\u202e\u2028\u0085\x7f\",\"location\":\"raw.py:1\u2029\",\"message\":\"raw\u009b[31m\",\"data\":\"\u202e\u2028\",\"timestamp\":" + fmt.Sprint(now+4) + "}",
		"{\"hypothesisId\":\"H1\",\"location\":\"x:1\",\"message\":\"m\",\"data\":1,\"timestamp\":1,\"\\nFORGED\\u001b[31m\":1}",
		"not json \x1b[31m\x9b\xff\tFORGED \u202e",
	})

	run(0, true, "status", "--session", id)
	run(0, true, "logs", "--session", id)
	run(0, true, "logs", "--session", id, "--hypothesis", label, "--limit", "1")
	run(0, true, "query", "--session", id, ".")
	run(0, true, "query", "--session", id, "--limit", "1", "--hypothesis", label, ".hypothesisId")
	run(0, false, "evidence", "add", "--session", id, "--note", "note"+hostile)
	run(0, true, "evidence", "add", "--session", id, "--file", userFile, "--note", "file note"+hostile)
	run(0, true, "evidence", "--session", id)
	run(0, true, "evidence", "list", "--session", id)
	run(0, true, "probes", src, odd)
	run(0, true, "probes", "--session", id, src, odd)
	run(ExitCheckFailed, true, "probes", "--check", src, odd)
	// Logpoints: a file name, a label, a message, a data expression and a
	// hook's report, all hostile.
	run(ExitUsage, true, "logpoint", "add", "--session", id, "--at", filepath.Join(odd, evilFile)+":1", "--hypothesis", "H1", "--message", "m")
	run(0, true, "logpoint", "add", "--session", id, "--at", filepath.Join(src, "app.py")+":1", "--hypothesis", label, "--message", "lp"+hostile, "--data", `"`+hostileInLine+`"`)
	report, _ := json.Marshal(map[string]any{"agentDebugLogpoint": map[string]any{"id": "lp-1", "state": "failed", "reason": "r" + hostile, "process": "p" + hostile}})
	appendEvidence(t, created.Result.AppendPath, nil, []string{string(report)})
	run(0, true, "logpoint", "list", "--session", id)
	run(0, true, "probes", "--session", id, src)

	capText, env := run(0, true, "capture", "--session", id, "--label", "before"+hostileInLine, "--source-root", src)
	var cap struct {
		Result struct {
			ID string `json:"id"`
		} `json:"result"`
	}
	if json.Unmarshal(env, &cap) != nil || cap.Result.ID == "" {
		t.Fatalf("capture: %s\n%s", env, capText)
	}
	c1 := cap.Result.ID
	run(0, true, "captures", "--session", id)
	run(0, true, "captures", "--session", id, "--capture", c1)
	run(0, true, "logs", "--session", id, "--capture", c1)
	run(0, true, "query", "--session", id, "--capture", c1, ".location")
	run(0, true, "follow", "--session", id, "--capture", c1, "--seq", "1", "--rel", "source")
	run(0, true, "follow", "--session", id, "--capture", c1, "--seq", "1", "--rel", "region")
	run(0, true, "follow", "--session", id, "--capture", c1, "--seq", "1", "--rel", "next_at_location")
	run(ExitRefused, true, "follow", "--session", id, "--capture", c1, "--seq", "3", "--rel", "previous_at_location")
	run(0, true, "follow", "--session", id, "--capture", c1, "--seq", "2", "--rel", "source")
	run(0, true, "follow", "--session", id, "--capture", c1, "--seq", "2", "--rel", "region")

	run(0, false, "reset", "--session", id)
	appendEvidence(t, created.Result.AppendPath, []map[string]any{
		{"hypothesisId": label, "location": "app.py:3", "message": "m" + hostile, "data": map[string]any{"k" + hostile: "after" + hostile, "n": 1}, "timestamp": now + 10},
		{"hypothesisId": label + "new", "location": "new.py:1" + hostile, "message": "new" + hostile, "data": "x" + hostile, "timestamp": now + 11},
	}, nil)
	run(0, true, "diff", "--session", id, "--from", c1)
	_, env = run(0, true, "capture", "--session", id, "--label", "after"+hostileInLine, "--source-root", src)
	if json.Unmarshal(env, &cap) != nil || cap.Result.ID == "" {
		t.Fatalf("second capture: %s", env)
	}
	run(0, true, "diff", "--session", id, "--from", c1, "--to", cap.Result.ID)
	run(0, true, "diff", "--session", id, "--from", c1, "--to", cap.Result.ID, "--mode", "distribution")
	run(ExitStale, false, "logs", "--session", id, "--cycle", "1")
	// reproduce: the command's output, its events, a held-back record and
	// its own arguments are hostile; so are the capture label and the diff.
	writeFile(t, filepath.Join(src, "out.txt"), "stdout"+hostileInLine+"\n") // a newline in output is a line of its own
	writeFile(t, filepath.Join(src, "err.txt"), "stderr"+hostileInLine+"\n")
	held, _ := json.Marshal(map[string]any{"agentDebugHeldBack": map[string]any{"hypothesisId": label, "location": "hot.py:1" + hostile, "process": "p" + hostile, "count": 5, "cap": 2}})
	appendEvidence(t, filepath.Join(src, "ev.ndjson"), []map[string]any{
		{"hypothesisId": label, "location": "app.py:3", "message": "m" + hostile, "data": map[string]any{"k" + hostile: "again" + hostile}, "timestamp": now + 20},
	}, []string{string(held), "not json \x1b[31m\tFORGED"})
	t.Chdir(src)
	script := `cat out.txt; cat err.txt >&2; cat ev.ndjson >> "$AGENT_DEBUG_MODE_APPEND_PATH"; exit 1`
	run(0, true, "reproduce", "--session", id, "--capture", "rep"+hostileInLine, "--diff", c1, "--", "sh", "-c", script, "sh", "arg"+hostile)
	run(0, true, "output", "--session", id)
	run(0, true, "output", "--session", id, "--stream", "stderr", "--limit", "1")
	run(ExitNotStarted, true, "reproduce", "--session", id, "--", "./no such"+hostile)
	run(0, false, "sessions")
	run(0, false, "sessions", "--all")
	run(0, true, "logpoint", "remove", "--session", id, "lp-1")
	run(0, true, "probes", "--remove", src, odd)
	// It ends with the proof --check gives: the file with a broken marker remains.
	run(ExitCheckFailed, true, "probes", "--remove", "--yes", src, odd)
	run(0, false, "clean", "--session", id)
	run(0, false, "stop")

	// Commands that print only debug-mode's own text and what the caller
	// typed; mcp serves the commands above through the same Execute.
	noEvidence := map[string]string{
		"":              "the root prints help",
		"template":      "templates are debug-mode's own sources",
		"skill":         "the skill is debug-mode's own text",
		"skill install": "paths the caller gave and the skill's file names",
		"mcp":           "serves the commands above through Execute",
		"logpoint":      "the parent prints help",
		"env":           "the session's own paths and the caller's own environment, quoted for a shell",
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "debug-mode"), " ")
		if c.Runnable() && !c.Hidden && !covered[path] && noEvidence[path] == "" && c.Name() != "help" && c.Name() != "completion" {
			t.Errorf("command %q is not walked by this test: drive it with hostile evidence above, or name it in noEvidence with the reason it prints none", path)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(CommandTree())
}

// commandPath is the command args run, as the tree names it.
func commandPath(args []string) string {
	c, _, err := CommandTree().Find(args)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "debug-mode"), " ")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// appendEvidence appends events (encoded as JSON) and raw lines to a
// session's Append Path, as a helper would.
func appendEvidence(t *testing.T, path string, events []map[string]any, raw []string) {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	for _, l := range raw {
		b.WriteString(l + "\n")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
}
