package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/client"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/reproduce"
)

// mcpCommand serves MCP; it never runs inside Execute.
const mcpCommand = "mcp"

// Execute runs one command in this process, exactly as Main would, without
// touching the process's own stdout or stderr. It returns the pretty text the
// command printed, its JSON envelope (on failure the error envelope, or the
// result envelope with an "error" member when a result was printed too, as
// with probes --check), the exit code, and the error message (empty on
// success). It is the MCP server's way into the CLI: no second
// implementation of any command.
func Execute(ctx context.Context, args []string) (text string, envelope json.RawMessage, exitCode int, errMsg string) {
	if len(args) > 0 && (args[0] == client.ServiceCommand || args[0] == reproduce.SupervisorCommand || args[0] == mcpCommand) {
		return "", nil, ExitUsage, args[0] + " cannot run inside another command"
	}
	var out, errOut bytes.Buffer
	captured := &output.Envelopes{}
	code, msg := run(ctx, &env{out: &out, err: &errOut, capture: captured}, args, false)
	return out.String(), mergeEnvelopes(captured), code, msg
}

// mergeEnvelopes is the one envelope Execute returns.
func mergeEnvelopes(e *output.Envelopes) json.RawMessage {
	switch {
	case e.Error == nil:
		return e.Result
	case e.Result == nil:
		return e.Error
	}
	var res struct {
		SchemaVersion int             `json:"schemaVersion"`
		Command       string          `json:"command"`
		Result        json.RawMessage `json:"result"`
		Error         json.RawMessage `json:"error"`
	}
	var failed struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(e.Result, &res) != nil || json.Unmarshal(e.Error, &failed) != nil {
		return e.Error
	}
	res.Error = failed.Error
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(res) != nil {
		return e.Error
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// CommandTree is a fresh copy of the command tree, for reading its commands,
// flags and help (nothing it runs prints anywhere).
func CommandTree() *cobra.Command {
	return newRootCmd(&env{out: io.Discard, err: io.Discard})
}
