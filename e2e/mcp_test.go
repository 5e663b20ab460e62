package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// inspector is the MCP Inspector's command line (scripts/setup.d/mcp-inspector.sh
// installs it): a real MCP client that is none of this project's code.
func inspector(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../tools/node_modules/.bin/mcp-inspector")
	if err == nil {
		_, err = os.Stat(p)
	}
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("DEBUG_MODE_REQUIRE_RUNTIMES") == "1" {
			t.Fatalf("the MCP Inspector is missing (%v) and DEBUG_MODE_REQUIRE_RUNTIMES=1 (install it with scripts/setup.sh)", err)
		}
		t.Skipf("the MCP Inspector is missing (%v); scripts/setup.sh installs it", err)
	}
	return p
}

// inspect runs one Inspector CLI call against `debug-mode mcp` and returns
// its stdout (the method's JSON result), its stderr and its exit code. The
// Inspector gives the server only the variables passed with -e.
func (e *Env) inspect(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	argv := append([]string{"--cli", "-e", "AGENT_DEBUG_MODE_HOME=" + e.Home, "-e", "AGENT_DEBUG_MODE_IDLE_TIMEOUT=2m", binary, "mcp"}, args...)
	cmd := exec.Command(bin, argv...)
	cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "mcp.json"))
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("inspector %v: no answer in 90 s", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// toolResult is a tools/call answer as the Inspector prints it.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		SchemaVersion int             `json:"schemaVersion"`
		Command       string          `json:"command"`
		Result        json.RawMessage `json:"result"`
		Error         *struct {
			Message  string `json:"message"`
			ExitCode int    `json:"exitCode"`
		} `json:"error"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

func (e *Env) callTool(t *testing.T, bin, tool string, args ...string) toolResult {
	t.Helper()
	argv := []string{"--method", "tools/call", "--tool-name", tool}
	for _, a := range args {
		argv = append(argv, "--tool-arg", a)
	}
	out, stderr, code := e.inspect(t, bin, argv...)
	var r toolResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%s: exit %d, stdout is not a tool result (%v):\n%s\nstderr: %s", tool, code, err, out, stderr)
	}
	if len(r.Content) != 1 || r.Content[0].Type != "text" || r.StructuredContent.SchemaVersion != 1 || r.StructuredContent.Command != tool {
		t.Fatalf("%s: unexpected result:\n%s", tool, out)
	}
	if r.IsError != (code != 0) {
		t.Fatalf("%s: isError %v but the Inspector exited %d", tool, r.IsError, code)
	}
	return r
}

// TestMCPInspector drives `debug-mode mcp` from the MCP Inspector: list the
// tools (with the Inspector's schema portability check), create a session,
// deliver events, read them with logs and query, and get a bad argument
// back as a tool error.
func TestMCPInspector(t *testing.T) {
	bin := inspector(t)
	e := NewEnv(t)

	out, stderr, code := e.inspect(t, bin, "--method", "tools/list", "--strict")
	if code != 0 {
		t.Fatalf("tools/list: exit %d\n%s\n%s", code, out, stderr)
	}
	if strings.TrimSpace(stderr) != "" {
		t.Errorf("tools/list --strict reports schema problems:\n%s", stderr)
	}
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"create", "template", "reset", "logs", "query", "status", "sessions", "clean", "probes", "probes_remove", "evidence_add", "evidence_list"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list: no %s tool in %v", want, names)
		}
	}

	// A project root of its own: the hand-written locations below must not
	// match a file of this repository (the service would name that file).
	r := e.callTool(t, bin, "create", "root="+t.TempDir())
	var s Session
	if err := json.Unmarshal(r.StructuredContent.Result, &s); err != nil || s.SessionID == "" {
		t.Fatalf("create: %v %s", err, r.StructuredContent.Result)
	}
	if !strings.Contains(r.Content[0].Text, "SESSION CREATED") || !strings.Contains(r.Content[0].Text, s.AppendPath) {
		t.Errorf("create text:\n%s", r.Content[0].Text)
	}
	f, err := os.OpenFile(s.AppendPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(f, `{"hypothesisId":"H%d","location":"cart.py:%d","message":"total","data":{"total":%d},"timestamp":%d}`+"\n", i, 10*i, 100*i, time.Now().UnixMilli())
	}
	f.Close()

	r = e.callTool(t, bin, "logs", "session="+s.SessionID, "limit=2")
	text := r.Content[0].Text
	if r.IsError || !strings.Contains(text, "cart.py:10") || !strings.Contains(text, "cart.py:20") || strings.Contains(text, "cart.py:30") ||
		!strings.Contains(text, `Next page (tool call): logs {"cycle":1,"limit":2,"offset":2,"session":"`+s.SessionID+`"}`) {
		t.Errorf("logs:\n%s", text)
	}
	// The text is exactly what the command prints, but for the next page.
	cliText := e.MustRun("logs", "--session", s.SessionID, "--limit", "2")
	if before, _, _ := strings.Cut(cliText, "Next page:"); !strings.HasPrefix(text, before) {
		t.Errorf("logs text differs from the command's:\n%s\n---\n%s", text, cliText)
	}

	r = e.callTool(t, bin, "query", "session="+s.SessionID, "program=select(.data.total >= 200) | .location")
	if r.IsError || !strings.HasPrefix(r.Content[0].Text, "\"cart.py:20\"\n\"cart.py:30\"\n") {
		t.Errorf("query:\n%s", r.Content[0].Text)
	}

	r = e.callTool(t, bin, "logs", "session="+s.SessionID, "limit=5000")
	if !r.IsError || r.StructuredContent.Error == nil || r.StructuredContent.Error.ExitCode != 2 ||
		r.Content[0].Text != "Error: --limit must be between 1 and 1000" {
		t.Errorf("logs limit=5000: %+v", r)
	}
}

// TestMCPStdio speaks the protocol to `debug-mode mcp` by hand: every line
// on stdout is a protocol message, and closing stdin ends the server with
// exit code 0.
func TestMCPStdio(t *testing.T) {
	e := NewEnv(t)
	cmd := exec.Command(binary, "mcp")
	cmd.Env = e.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(msg string) {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answers := map[float64]map[string]any{}
	await := func(id float64) map[string]any {
		t.Helper()
		for answers[id] == nil {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("stdout ended before answer %v; stderr: %s", id, stderr.String())
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
					t.Fatalf("stdout carries something other than a protocol message: %q", line)
				}
				if n, ok := m["id"].(float64); ok {
					answers[n] = m
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no answer %v in 30 s; stderr: %s", id, stderr.String())
			}
		}
		return answers[id]
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"template","arguments":{"language":"python","ingest":"file"}}}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"status","arguments":{"session":"not-a-session"}}}`)
	for id := 2.0; id <= 4; id++ {
		res, _ := await(id)["result"].(map[string]any)
		if res == nil || (res["isError"] == true) != (id == 4) {
			t.Errorf("answer %v: %v", id, answers[id])
		}
	}
	stdin.Close()
	exited := make(chan error, 1)
	go func() {
		for range lines {
		}
		exited <- cmd.Wait()
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("debug-mode mcp ended with %v after stdin closed; stderr: %s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("debug-mode mcp still runs 10 s after stdin closed")
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}
