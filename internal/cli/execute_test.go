package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Execute gives what Main prints: the same text, and the --json envelope.
func TestExecuteIsMain(t *testing.T) {
	args := []string{"template", "--language", "python", "--ingest", "file", "--section", "call"}
	text, envelope, code, msg := Execute(context.Background(), args)
	var out, errOut, jsonOut bytes.Buffer
	if Main(args, &out, &errOut) != 0 || Main(append(args, "--json"), &jsonOut, &errOut) != 0 {
		t.Fatalf("template failed: %s", errOut.String())
	}
	if code != 0 || msg != "" || text != out.String() {
		t.Errorf("Execute: exit %d %q, text %q; Main printed %q", code, msg, text, out.String())
	}
	var got, want any
	json.Unmarshal(envelope, &got)
	json.Unmarshal(jsonOut.Bytes(), &want)
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || bytes.Contains(envelope, []byte("\n")) {
		t.Errorf("envelope %s\nwant %s", envelope, w)
	}
}

func TestExecuteFailures(t *testing.T) {
	// A usage error: the message without the pointer to --help.
	text, envelope, code, msg := Execute(context.Background(), []string{"logs", "--session", "nope"})
	if code != ExitUsage || text != "" || !strings.Contains(msg, "is not a session id") || strings.Contains(msg, "--help") {
		t.Errorf("logs --session nope: exit %d, text %q, message %q", code, text, msg)
	}
	var e struct {
		Command string `json:"command"`
		Error   struct {
			Message  string `json:"message"`
			ExitCode int    `json:"exitCode"`
		} `json:"error"`
	}
	if json.Unmarshal(envelope, &e) != nil || e.Command != "logs" || e.Error.Message != msg || e.Error.ExitCode != ExitUsage {
		t.Errorf("error envelope %s", envelope)
	}

	// A failed check prints its page too: one envelope with result and error.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("# region agent log\nx = 1\n# endregion\n"), 0o600)
	text, envelope, code, msg = Execute(context.Background(), []string{"probes", "--check", dir})
	var both struct {
		SchemaVersion int             `json:"schemaVersion"`
		Command       string          `json:"command"`
		Result        json.RawMessage `json:"result"`
		Error         struct {
			ExitCode int `json:"exitCode"`
		} `json:"error"`
	}
	if code != ExitCheckFailed || !strings.Contains(text, "a.py:1-3") || !strings.HasPrefix(msg, "check failed") ||
		json.Unmarshal(envelope, &both) != nil || both.SchemaVersion != 1 || both.Command != "probes" || both.Result == nil || both.Error.ExitCode != ExitCheckFailed {
		t.Errorf("probes --check: exit %d, message %q, envelope %s\n%s", code, msg, envelope, text)
	}

	// The hidden service command and mcp itself never run inside Execute.
	for _, name := range []string{"__service", "mcp"} {
		if _, _, code, _ := Execute(context.Background(), []string{name}); code != ExitUsage {
			t.Errorf("%s: exit %d", name, code)
		}
	}
}
