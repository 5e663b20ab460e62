package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentic-debug-mode/debug-mode/internal/cli"
	"github.com/agentic-debug-mode/debug-mode/internal/client"
	"github.com/agentic-debug-mode/debug-mode/internal/mcp"
	"github.com/agentic-debug-mode/debug-mode/internal/reproduce"
)

// The client starts the background service from os.Executable(), which in
// a test is this test binary: it must answer to the service's hidden command.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == client.ServiceCommand || os.Args[1] == reproduce.SupervisorCommand) {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	home, err := os.MkdirTemp("", "debug-mode-mcp-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	state := filepath.Join(home, "state")
	os.Setenv("AGENT_DEBUG_MODE_HOME", state)
	os.Setenv("AGENT_DEBUG_MODE_IDLE_TIMEOUT", "2m")
	code := m.Run()
	stopService(state)
	os.RemoveAll(home)
	os.Exit(code)
}

// stopService ends the service the tests started, if any.
func stopService(state string) {
	b, err := os.ReadFile(filepath.Join(state, "service.json"))
	if err != nil {
		return
	}
	var d struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(b, &d) == nil && d.PID > 1 {
		syscall.Kill(d.PID, syscall.SIGTERM)
		for i := 0; i < 200 && syscall.Kill(d.PID, 0) == nil; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// connect starts a server in process and returns a client session to it.
func connect(t *testing.T) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(cli.MCPConfig(io.Discard)).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// result is one tool call's answer, decoded.
type result struct {
	Text     string
	IsError  bool
	Envelope struct {
		SchemaVersion int             `json:"schemaVersion"`
		Command       string          `json:"command"`
		Result        json.RawMessage `json:"result"`
		Error         *struct {
			Message  string `json:"message"`
			Code     string `json:"code"`
			ExitCode int    `json:"exitCode"`
		} `json:"error"`
	}
	HasEnvelope bool
	Raw         json.RawMessage // the structured content as sent
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	var r result
	r.IsError = res.IsError
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", name, c)
		}
		r.Text += tc.Text
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		r.Raw = b
		if err := json.Unmarshal(b, &r.Envelope); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
		r.HasEnvelope = true
	}
	return r
}

// ok calls a tool that must succeed, and decodes the envelope's result.
func ok(t *testing.T, cs *sdk.ClientSession, name string, args any, v any) result {
	t.Helper()
	r := call(t, cs, name, args)
	if r.IsError {
		t.Fatalf("%s %v failed: %s", name, args, r.Text)
	}
	if !r.HasEnvelope || r.Envelope.SchemaVersion != 1 || r.Envelope.Result == nil {
		t.Fatalf("%s: no envelope in the structured content", name)
	}
	if v != nil {
		if err := json.Unmarshal(r.Envelope.Result, v); err != nil {
			t.Fatalf("%s: result %s: %v", name, r.Envelope.Result, err)
		}
	}
	return r
}

type session struct {
	SessionID  string `json:"sessionId"`
	IngestURL  string `json:"ingestUrl"`
	AppendPath string `json:"appendPath"`
}

func create(t *testing.T, cs *sdk.ClientSession) session {
	t.Helper()
	var s session
	ok(t, cs, "create", map[string]any{}, &s)
	if s.SessionID == "" || s.IngestURL == "" || s.AppendPath == "" {
		t.Fatalf("create: %+v", s)
	}
	return s
}

func event(h, loc string, i int) string {
	return fmt.Sprintf(`{"hypothesisId":%q,"location":%q,"message":"probe","data":{"i":%d},"timestamp":%d}`+"\n", h, loc, i, 1796000000000+int64(i))
}

func appendEvents(t *testing.T, s session, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(s.AppendPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

func postEvents(t *testing.T, s session, lines ...string) {
	t.Helper()
	resp, err := http.Post(s.IngestURL, "application/x-ndjson", strings.NewReader(strings.Join(lines, "")))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("ingest: %s", resp.Status)
	}
}

// nextCall is the "Next page (tool call):" a result offers.
func nextCall(t *testing.T, r result) (string, map[string]any) {
	t.Helper()
	if strings.Contains(r.Text, "Next page: debug-mode") {
		t.Errorf("a next-page command was left as a command line:\n%s", r.Text)
	}
	_, after, found := strings.Cut(r.Text, "Next page (tool call): ")
	if !found {
		t.Fatalf("no next page as a tool call in:\n%s", r.Text)
	}
	line, _, _ := strings.Cut(after, "\n")
	name, args, _ := strings.Cut(line, " ")
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatalf("next call %q: %v", line, err)
	}
	return name, m
}

func TestToolsMatchCommands(t *testing.T) {
	mcp.ToolsMatchCommands(t, cli.CommandTree())
}

func TestToolList(t *testing.T) {
	cs := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.Annotations == nil || tl.Annotations.Title == "" {
			t.Errorf("%s: no description or title", tl.Name)
		}
		b, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		json.Unmarshal(b, &schema)
		if schema.Type != "object" {
			t.Errorf("%s: input schema %s", tl.Name, b)
		}
		for p, raw := range schema.Properties {
			if !strings.Contains(string(raw), `"description"`) {
				t.Errorf("%s: argument %s has no description", tl.Name, p)
			}
		}
	}
	want := []string{"capture", "captures", "clean", "create", "diff", "env", "evidence_add", "evidence_list", "follow", "logpoint_add", "logpoint_list", "logpoint_remove", "logs", "output", "probes", "probes_remove", "query", "reproduce", "reset", "sessions", "status", "template"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if slices.Contains(names, "stop") || slices.Contains(names, "mcp") {
		t.Error("stop and mcp must not be tools")
	}
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "create") {
		t.Errorf("instructions: %q", got)
	}
}

func TestHappyPaths(t *testing.T) {
	cs := connect(t)
	s := create(t, cs)
	id := s.SessionID
	appendEvents(t, s, event("H1", "app.py:10", 1), event("H2", "app.py:20", 2))

	var tmpl struct {
		Language  string `json:"language"`
		SessionID string `json:"sessionId"`
	}
	r := ok(t, cs, "template", map[string]any{"language": "python", "ingest": "file", "session": id, "section": "helper"}, &tmpl)
	if tmpl.Language != "python" || tmpl.SessionID != id || !strings.Contains(r.Text, s.AppendPath) {
		t.Errorf("template: %+v\n%s", tmpl, r.Text)
	}

	var page struct {
		Matched int `json:"matched"`
	}
	r = ok(t, cs, "logs", map[string]any{"session": id, "hypothesis": []string{"H1"}}, &page)
	if page.Matched != 1 || !strings.Contains(r.Text, "app.py:10") || strings.Contains(r.Text, "app.py:20") {
		t.Errorf("logs: matched %d\n%s", page.Matched, r.Text)
	}

	r = ok(t, cs, "query", map[string]any{"session": id, "program": "select(.data.i == $n) | .location", "argjson": map[string]any{"n": 2}}, nil)
	if !strings.Contains(r.Text, `"app.py:20"`) {
		t.Errorf("query: %s", r.Text)
	}
	r = ok(t, cs, "query", map[string]any{"session": id, "program": "map(.hypothesisId) | join(\",\")", "slurp": true, "arg": map[string]string{"unused": "x"}}, nil)
	if !strings.Contains(r.Text, `"H1,H2"`) {
		t.Errorf("query --slurp: %s", r.Text)
	}
	r = ok(t, cs, "query", map[string]any{"session": id, "program": "reduce inputs as $e ({}; .[$e.hypothesisId] += $e.data.i)", "null-input": true}, nil)
	if !strings.Contains(r.Text, `{"H1":1,"H2":2}`) {
		t.Errorf("query -n: %s", r.Text)
	}

	var st struct {
		Events int `json:"events"`
	}
	r = ok(t, cs, "status", map[string]any{"session": id}, &st)
	if !strings.Contains(r.Text, "SESSION STATUS") {
		t.Errorf("status: %s", r.Text)
	}

	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	ok(t, cs, "sessions", map[string]any{"all": true}, &list)
	if !slices.ContainsFunc(list.Sessions, func(x struct {
		SessionID string `json:"sessionId"`
	}) bool {
		return x.SessionID == id
	}) {
		t.Errorf("sessions: %+v", list)
	}

	// User evidence: a note, then a file with a note.
	ok(t, cs, "evidence_add", map[string]any{"session": id, "note": "the total is negative after SAVE10"}, nil)
	file := filepath.Join(t.TempDir(), "trace.har")
	os.WriteFile(file, []byte("{}"), 0o600)
	ok(t, cs, "evidence_add", map[string]any{"session": id, "file": file, "note": "checkout request"}, nil)
	r = ok(t, cs, "evidence_list", map[string]any{"session": id}, nil)
	if !strings.Contains(r.Text, "SAVE10") || !strings.Contains(r.Text, "trace.har") {
		t.Errorf("evidence_list: %s", r.Text)
	}

	// Probes: list (joined with the session), remove (shown, then written), check.
	dir := t.TempDir()
	src := "def total():\n    # region agent log\n    agent_log(\"H1\", \"app.py:10\", \"probe\", {})\n    # endregion\n    return 1\n"
	os.WriteFile(filepath.Join(dir, "app.py"), []byte(src), 0o600)
	r = ok(t, cs, "probes", map[string]any{"paths": []string{dir}, "session": id, "drift": 0}, nil)
	if !strings.Contains(r.Text, "app.py:2-4") {
		t.Errorf("probes: %s", r.Text)
	}
	r = ok(t, cs, "probes_remove", map[string]any{"paths": []string{dir}}, nil)
	if b, _ := os.ReadFile(filepath.Join(dir, "app.py")); string(b) != src {
		t.Errorf("probes_remove without yes changed the file:\n%s", b)
	}
	ok(t, cs, "probes_remove", map[string]any{"paths": []string{dir}, "yes": true}, nil)
	if b, _ := os.ReadFile(filepath.Join(dir, "app.py")); string(b) != "def total():\n    return 1\n" {
		t.Errorf("probes_remove left:\n%s", b)
	}
	r = ok(t, cs, "probes", map[string]any{"paths": []string{dir}, "check": true}, nil)
	if !strings.Contains(r.Text, "CHECK passed") {
		t.Errorf("probes check: %s", r.Text)
	}

	var reset struct {
		Cycle int `json:"cycle"`
	}
	ok(t, cs, "reset", map[string]any{"session": id}, &reset)
	if reset.Cycle != 2 {
		t.Errorf("reset: cycle %d", reset.Cycle)
	}
	ok(t, cs, "clean", map[string]any{"session": id}, nil)
	if r := call(t, cs, "status", map[string]any{"session": id}); !r.IsError || r.Envelope.Error == nil || r.Envelope.Error.ExitCode != cli.ExitNotFound {
		t.Errorf("status after clean: %+v", r)
	}
}

// The tool's text and envelope are exactly what the command gives.
func TestSameAsCLI(t *testing.T) {
	cs := connect(t)
	s := create(t, cs)
	appendEvents(t, s, event("H1", "a.go:1", 1), event("H1", "a.go:2", 2), event("H2", "a.go:3", 3))
	for _, c := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"logs", map[string]any{"session": s.SessionID, "location": "a.go", "limit": 10}, []string{"logs", "--session", s.SessionID, "--location", "a.go", "--limit", "10"}},
		{"status", map[string]any{"session": s.SessionID}, []string{"status", "--session", s.SessionID}},
		{"template", map[string]any{"language": "go", "ingest": "file"}, []string{"template", "--language", "go", "--ingest", "file"}},
	} {
		r := ok(t, cs, c.tool, c.args, nil)
		text, envelope, code, _ := cli.Execute(context.Background(), c.cli)
		if code != 0 || r.Text != text {
			t.Errorf("%s: tool text differs from the command's (exit %d):\n%s\n---\n%s", c.tool, code, r.Text, text)
		}
		var want, got any
		json.Unmarshal(envelope, &want)
		json.Unmarshal(r.Raw, &got)
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Errorf("%s: envelope differs:\n%s\n%s", c.tool, gb, wb)
		}
	}
}

func TestBadInput(t *testing.T) {
	cs := connect(t)
	s := create(t, cs)
	id := s.SessionID
	missing := "00000000-0000-4000-8000-000000000000"
	for _, c := range []struct {
		tool string
		args map[string]any
		want string // in the error text
		exit int    // the CLI's exit code, when the command ran
	}{
		{"create", map[string]any{"workspace": "x"}, "workspace", 0},
		{"template", map[string]any{"language": "cobol", "ingest": "file"}, "cobol", cli.ExitUsage},
		{"template", map[string]any{"language": "python", "ingest": "carrier-pigeon"}, "--ingest must be http or file", cli.ExitUsage},
		{"template", map[string]any{"language": "python"}, "ingest", 0},
		{"reset", map[string]any{"session": "nope"}, "is not a session id", cli.ExitUsage},
		{"reset", map[string]any{"session": missing}, "no session with that id", cli.ExitNotFound},
		{"logs", map[string]any{"session": id, "limit": 5000}, "--limit must be between 1 and 1000", cli.ExitUsage},
		{"logs", map[string]any{"session": id, "since": "yesterday"}, "is not a time", cli.ExitUsage},
		{"logs", map[string]any{"session": id, "offset": -1}, "--offset must be 0 or more", cli.ExitUsage},
		{"logs", map[string]any{"session": id, "limit": "ten"}, "limit", 0},
		{"logs", map[string]any{}, "session", 0},
		{"query", map[string]any{"session": id}, "give a jq program", cli.ExitUsage},
		{"query", map[string]any{"session": id, "program": "select("}, "", cli.ExitUsage},
		{"query", map[string]any{"session": id, "program": ".", "cursor": "abc"}, "give only --session and --cursor", cli.ExitUsage},
		{"query", map[string]any{"session": id, "cursor": "abc"}, "cursor", cli.ExitUsage},
		{"query", map[string]any{"session": id, "program": ".", "arg": map[string]string{"bad name": "x"}}, "must be letters, digits and _", cli.ExitUsage},
		{"status", map[string]any{"session": missing}, "no session with that id", cli.ExitNotFound},
		{"sessions", map[string]any{"all": "yes"}, "all", 0},
		{"clean", map[string]any{}, "session", 0},
		{"clean", map[string]any{"session": missing}, "no session with that id", cli.ExitNotFound},
		{"probes", map[string]any{"paths": []string{"/nonexistent/src"}}, "/nonexistent/src", cli.ExitUsage},
		{"probes", map[string]any{"drift": 5000}, "--drift must be between 0 and 1000", cli.ExitUsage},
		{"probes_remove", map[string]any{"paths": []string{"/nonexistent/src"}, "yes": true}, "/nonexistent/src", cli.ExitUsage},
		{"evidence_add", map[string]any{"session": id}, "give --note", cli.ExitUsage},
		{"evidence_add", map[string]any{"session": id, "file": "/nonexistent/shot.png"}, "--file", cli.ExitUsage},
		{"evidence_add", map[string]any{"session": id, "note": strings.Repeat("x", 4001)}, "4,000", cli.ExitUsage},
		{"evidence_list", map[string]any{"session": "1234"}, "is not a session id", cli.ExitUsage},
		{"capture", map[string]any{"session": missing}, "no session with that id", cli.ExitNotFound},
		{"capture", map[string]any{"session": id, "source-root": "/nonexistent/src"}, "is not a folder", cli.ExitUsage},
		{"captures", map[string]any{"session": id, "capture": "nope"}, "is not a capture id", cli.ExitUsage},
		{"captures", map[string]any{"session": id, "capture": "c-000000000000"}, "no capture with that id", cli.ExitNotFound},
		{"follow", map[string]any{"session": id, "capture": "c-000000000000", "seq": 1, "rel": "sideways"}, "--rel must be one of", cli.ExitUsage},
		{"follow", map[string]any{"session": id, "capture": "c-000000000000", "seq": 1}, "rel", 0},
		{"diff", map[string]any{"session": id, "from": "nope"}, "is not a capture id", cli.ExitUsage},
		{"diff", map[string]any{"session": id}, "from", 0},
	} {
		r := call(t, cs, c.tool, c.args)
		if !r.IsError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%s %v: isError %v, text %q; want an error saying %q", c.tool, c.args, r.IsError, r.Text, c.want)
			continue
		}
		if c.exit != 0 && (r.Envelope.Error == nil || r.Envelope.Error.ExitCode != c.exit || !strings.HasPrefix(r.Text, "Error: ")) {
			t.Errorf("%s %v: envelope %+v, want exit code %d", c.tool, c.args, r.Envelope.Error, c.exit)
		}
	}
	// An unknown tool is a protocol error; the server keeps serving.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "stop", Arguments: map[string]any{}}); err == nil {
		t.Error("stop: want an unknown-tool error")
	}
	ok(t, cs, "status", map[string]any{"session": id}, nil)
}

// A failed check is an error that still carries the page it printed.
func TestProbesCheckFails(t *testing.T) {
	cs := connect(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n\n// #region agent log\nvar _ = 1\n// #endregion\n"), 0o600)
	r := call(t, cs, "probes", map[string]any{"paths": []string{dir}, "check": true})
	if !r.IsError || r.Envelope.Error == nil || r.Envelope.Error.ExitCode != cli.ExitCheckFailed || r.Envelope.Result == nil {
		t.Fatalf("probes check: %+v", r)
	}
	if !strings.Contains(r.Text, "m.go:3-5") || !strings.Contains(r.Text, "Error: check failed: 1 agent log region remains") {
		t.Errorf("probes check text:\n%s", r.Text)
	}
}

func TestPagingAcrossCalls(t *testing.T) {
	cs := connect(t)
	s := create(t, cs)
	for i := 1; i <= 5; i++ {
		appendEvents(t, s, event("H1", "p.py:1", i))
	}

	// logs: three pages of two, each next page taken from the previous one.
	var seqs []int
	args := map[string]any{"session": s.SessionID, "hypothesis": []string{"H1"}, "limit": 2}
	for page := 1; ; page++ {
		var p struct {
			Events []struct {
				Sequence int `json:"sequence"`
			} `json:"events"`
		}
		r := ok(t, cs, "logs", args, &p)
		for _, e := range p.Events {
			seqs = append(seqs, e.Sequence)
		}
		if page == 3 {
			if strings.Contains(r.Text, "Next page") {
				t.Errorf("last page offers a next page:\n%s", r.Text)
			}
			break
		}
		name, next := nextCall(t, r)
		if name != "logs" || next["cycle"] != float64(1) || next["offset"] != float64(2*page) {
			t.Fatalf("page %d: next call %s %v", page, name, next)
		}
		args = next
	}
	if !slices.Equal(seqs, []int{1, 2, 3, 4, 5}) {
		t.Errorf("logs pages: %v", seqs)
	}

	// query: the cursor carries the rest.
	var values []string
	qargs := map[string]any{"session": s.SessionID, "program": ".sequence", "limit": 2}
	var firstNext map[string]any
	for page := 1; page <= 3; page++ {
		var q struct {
			Values     []json.RawMessage `json:"values"`
			NextCursor string            `json:"nextCursor"`
		}
		r := ok(t, cs, "query", qargs, &q)
		for _, v := range q.Values {
			values = append(values, string(v))
		}
		if page == 3 {
			if q.NextCursor != "" {
				t.Errorf("last query page has a cursor")
			}
			break
		}
		name, next := nextCall(t, r)
		if name != "query" || next["cursor"] != q.NextCursor || len(next) != 2 {
			t.Fatalf("query page %d: next call %s %v (cursor %q)", page, name, next, q.NextCursor)
		}
		if firstNext == nil {
			firstNext = next
		}
		qargs = next
	}
	if strings.Join(values, ",") != "1,2,3,4,5" {
		t.Errorf("query pages: %v", values)
	}

	// After a reset, an old page or cursor fails as the CLI does (exit 4).
	ok(t, cs, "reset", map[string]any{"session": s.SessionID}, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"query", firstNext}, {"logs", map[string]any{"session": s.SessionID, "offset": 2, "limit": 2, "cycle": 1}}} {
		r := call(t, cs, c.tool, c.args)
		if !r.IsError || r.Envelope.Error == nil || r.Envelope.Error.ExitCode != cli.ExitStale {
			t.Errorf("%s after reset: %+v", c.tool, r)
		}
	}
}

// The whole loop an agent runs, through the tools only: create → template
// → events (appended and posted) → logs → query → capture → follow → reset
// → reproduce again → diff → clean.
func TestFullLoop(t *testing.T) {
	cs := connect(t)
	s := create(t, cs)
	id := s.SessionID
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "cart.js"), []byte("function total(items) {\n  let sum = 0\n  for (const i of items) sum += i.price\n  return sum\n}\n"), 0o600)

	r := ok(t, cs, "template", map[string]any{"language": "javascript", "ingest": "http", "session": id}, nil)
	if !strings.Contains(r.Text, s.IngestURL) {
		t.Fatalf("template does not carry the Ingest URL:\n%s", r.Text)
	}
	appendEvents(t, s, event("H1", "cart.js:3", 1), event("H2", "cart.js:4", 2))
	postEvents(t, s, event("H1", "cart.js:3", 3), event("H3", "cart.js:2", 4))

	var page struct {
		Matched int `json:"matched"`
	}
	ok(t, cs, "logs", map[string]any{"session": id}, &page)
	if page.Matched != 4 {
		t.Fatalf("logs: %d events, want 4 (two appended, two posted)", page.Matched)
	}
	r = ok(t, cs, "query", map[string]any{"session": id, "hypothesis": []string{"H1"}, "program": ".data.i"}, nil)
	if !strings.HasPrefix(r.Text, "1\n3\n") {
		t.Errorf("query H1: %q", r.Text)
	}

	// Freeze the evidence before the fix, and read it back.
	var c struct {
		ID     string `json:"id"`
		Events int    `json:"events"`
	}
	ok(t, cs, "capture", map[string]any{"session": id, "label": "before fix", "source-root": src}, &c)
	if c.ID == "" || c.Events != 4 {
		t.Fatalf("capture: %+v", c)
	}
	r = ok(t, cs, "captures", map[string]any{"session": id}, nil)
	if !strings.Contains(r.Text, c.ID) || !strings.Contains(r.Text, "before fix") {
		t.Errorf("captures:\n%s", r.Text)
	}
	ok(t, cs, "captures", map[string]any{"session": id, "capture": c.ID}, nil)
	r = ok(t, cs, "logs", map[string]any{"session": id, "capture": c.ID, "hypothesis": []string{"H1"}}, nil)
	if !strings.Contains(r.Text, "cart.js:3") {
		t.Errorf("logs of the capture:\n%s", r.Text)
	}
	// The two H1 events share a location: the second links to the first.
	var q struct {
		Values []int `json:"values"`
	}
	ok(t, cs, "query", map[string]any{"session": id, "capture": c.ID, "hypothesis": []string{"H1"}, "program": ".sequence"}, &q)
	if len(q.Values) != 2 {
		t.Fatalf("query of the capture: %v", q.Values)
	}
	r = ok(t, cs, "follow", map[string]any{"session": id, "capture": c.ID, "seq": q.Values[1], "rel": "previous_at_location"}, nil)
	if !strings.Contains(r.Text, "complete") {
		t.Errorf("follow previous_at_location:\n%s", r.Text)
	}
	r = call(t, cs, "follow", map[string]any{"session": id, "capture": c.ID, "seq": q.Values[0], "rel": "previous_at_location"})
	if !r.IsError || r.Envelope.Error == nil || r.Envelope.Error.ExitCode != cli.ExitRefused {
		t.Errorf("follow from the first event at a location: %+v", r)
	}
	r = ok(t, cs, "follow", map[string]any{"session": id, "capture": c.ID, "seq": q.Values[0], "rel": "source"}, nil)
	if !strings.Contains(r.Text, "for (const i of items) sum += i.price") {
		t.Errorf("follow source:\n%s", r.Text)
	}

	// Fix, reset, reproduce, compare.
	ok(t, cs, "reset", map[string]any{"session": id}, nil)
	postEvents(t, s, event("H1", "cart.js:3", 5), event("H2", "cart.js:4", 6))
	r = ok(t, cs, "diff", map[string]any{"session": id, "from": c.ID}, nil)
	if !strings.Contains(r.Text, "capture "+c.ID+` "before fix"`) || !strings.Contains(r.Text, "only_before") {
		t.Errorf("diff:\n%s", r.Text)
	}
	ok(t, cs, "clean", map[string]any{"session": id}, nil)
}

type bufferCloser struct{ bytes.Buffer }

func (*bufferCloser) Close() error { return nil }

// A client that writes its requests and closes its end at once still gets
// every answer, and the server then ends cleanly.
func TestServeAnswersBeforeTheEnd(t *testing.T) {
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"create","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"template","arguments":{"language":"go","ingest":"file","section":"call"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"logs","arguments":{"session":"bad"}}}`,
	}, "\n") + "\n"
	var out bufferCloser
	if err := mcp.Serve(context.Background(), cli.MCPConfig(io.Discard), io.NopCloser(strings.NewReader(requests)), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
			t.Errorf("not an answer: %q", line)
		}
		got[string(m.ID)] = true
	}
	for _, id := range []string{`1`, `2`, `"three"`, `4`, `5`} {
		if !got[id] {
			t.Errorf("no answer to request %s in:\n%s", id, out.String())
		}
	}
}

// TestReproduceTool: the reproduce tool runs a command (its words as the
// command argument, flags of its own included) with the session in its
// environment, reports its exit status, events and output tail, and the
// output tool pages the rest, its next page given as the tool call.
func TestReproduceTool(t *testing.T) {
	cs := connect(t)
	s := create(t, cs)
	script := `for i in $(seq 1 150); do echo "line $i"; done
printf '{"hypothesisId":"H1","location":"run.sh:2","message":"from the tool","data":{"session":"%s"},"timestamp":1784313728231}\n' "$AGENT_DEBUG_MODE_SESSION" >> "$AGENT_DEBUG_MODE_APPEND_PATH"
echo "to stderr --json" >&2
exit 4`
	var rep struct {
		Run struct {
			ExitCode int `json:"exitCode"`
		} `json:"run"`
		Evidence struct {
			Events int `json:"events"`
		} `json:"evidence"`
		Stdout struct {
			TotalLines int `json:"totalLines"`
		} `json:"stdout"`
	}
	r := ok(t, cs, "reproduce", map[string]any{"session": s.SessionID, "command": []string{"sh", "-c", script, "--json"}, "timeout": "1m"}, &rep)
	if rep.Run.ExitCode != 4 || rep.Evidence.Events != 1 || rep.Stdout.TotalLines != 150 {
		t.Fatalf("reproduce: %+v\n%s", rep, r.Text)
	}
	if !strings.Contains(r.Text, "exit status 4") || !strings.Contains(r.Text, "line 150") || !strings.Contains(r.Text, "to stderr --json") {
		t.Fatalf("reproduce text:\n%s", r.Text)
	}
	var events struct {
		Events []struct {
			Data struct {
				Session string `json:"session"`
			} `json:"data"`
		} `json:"events"`
	}
	ok(t, cs, "logs", map[string]any{"session": s.SessionID}, &events)
	if len(events.Events) != 1 || events.Events[0].Data.Session != s.SessionID {
		t.Fatalf("the command did not get the session in its environment: %+v", events)
	}
	r = ok(t, cs, "output", map[string]any{"session": s.SessionID, "limit": 100}, nil)
	name, args := nextCall(t, r)
	if name != "output" || args["offset"] != float64(100) {
		t.Fatalf("next page %s %v\n%s", name, args, r.Text)
	}
	r = ok(t, cs, name, args, nil)
	if !strings.Contains(r.Text, "line 101") || !strings.Contains(r.Text, "line 150") {
		t.Fatalf("second page:\n%s", r.Text)
	}
	if r := call(t, cs, "reproduce", map[string]any{"session": s.SessionID, "command": []string{"no-such-program-xyz"}}); !r.IsError || r.Envelope.Error == nil || r.Envelope.Error.ExitCode != cli.ExitNotStarted {
		t.Fatalf("a missing program: %+v", r)
	}
}
