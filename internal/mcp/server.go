// Package mcp serves debug-mode's evidence tools over the Model Context
// Protocol. Each tool is a thin adapter over a CLI command: it turns its
// typed arguments into that command's own arguments (an argument is named
// like the flag it becomes, without the dashes) and runs the command in
// process, so a tool answers with exactly the text the command prints, plus
// the command's JSON envelope as structured content, and fails with the
// command's own error message. There is no second implementation of any
// operation.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"runtime/debug"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
)

// Runner runs one CLI command in process: the pretty text it printed, its
// JSON envelope, its exit code and, on failure, its error message.
type Runner func(ctx context.Context, args []string) (text string, envelope json.RawMessage, exitCode int, errMsg string)

// Config is what the server needs from the CLI.
type Config struct {
	Run     Runner
	Tree    func() *cobra.Command // a fresh command tree, for help texts and flags
	Version string
	Log     io.Writer // diagnostics (never the protocol stream); nil discards them
}

// Instructions tell a client's model how the tools fit together.
const Instructions = `debug-mode gives runtime evidence while you debug a program. Read the code and run the program or its tests yourself first; use these tools only when the cause depends on values that exist only at run time.

Loop: create with language and ingest (a session, and the probe template for the program's language filled in for it; the template tool prints it again, or one section alone) → paste one probe per hypothesis, each inside an "agent log" region → reproduce with capture (runs the program in a new cycle, reports its evidence and freezes that cycle) → query, logs (cite events by SEQ) → fix only what the evidence proves → reproduce with diff to verify → probes_remove with yes (it ends with the same check as probes with check) → clean. For Python and Node.js (JavaScript, TypeScript through tsx), logpoint_add records values at a line with no edit to the program (reproduce puts it in place; nothing to remove afterwards).

Arguments are the CLI's flags without the leading dashes: a message about --limit means the argument limit. Where a result names a debug-mode command, call the tool of that name (evidence add is evidence_add, probes --remove is probes_remove) with its flags as arguments; a next page is given as the tool call itself. The text result is what the debug-mode command prints; structured content is its JSON envelope. Relative paths are relative to the folder this server was started in. The full method: run debug-mode skill.`

// NewServer builds the server with one tool per CLI operation that exists
// in cfg.Tree.
func NewServer(cfg Config) *sdk.Server {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "debug-mode", Title: "debug-mode", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: Instructions,
		Logger:       slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	root := cfg.Tree()
	for _, t := range Tools {
		cmd := lookup(root, t.Command)
		if cmd == nil {
			continue // a command this build does not have
		}
		t.add(s, cfg, describe(t, cmd), cmd)
	}
	return s
}

// Serve runs the server on one connection until the client goes away (the
// input ends, after the answers to every request already read) or ctx is
// done; either way is a clean end.
func Serve(ctx context.Context, cfg Config, in io.ReadCloser, out io.WriteCloser) error {
	d := newDrain()
	t := &sdk.IOTransport{Reader: newDrainReader(d, in), Writer: &drainWriter{d: d, out: out}}
	err := NewServer(cfg).Run(ctx, t)
	if err == nil || ctx.Err() != nil || isClosed(err) {
		return nil
	}
	return err
}

func isClosed(err error) bool {
	m := err.Error()
	return strings.Contains(m, "EOF") || strings.Contains(m, "closed")
}

// lookup finds the command named by a tool's command words (flags ignored).
func lookup(root *cobra.Command, words []string) *cobra.Command {
	cmd := root
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			break
		}
		var next *cobra.Command
		for _, c := range cmd.Commands() {
			if c.Name() == w {
				next = c
			}
		}
		if next == nil {
			return nil
		}
		cmd = next
	}
	return cmd
}

// describe is the tool as a client sees it: its help comes from the command.
func describe(t Tool, cmd *cobra.Command) *sdk.Tool {
	desc := cmd.Short + "."
	if t.Note != "" {
		desc += " " + t.Note
	}
	if cmd.Long != "" {
		desc += "\n\n" + cmd.Long
	}
	if len(t.Command) > len(strings.Fields(cmd.CommandPath()))-1 {
		desc = t.Note // fixed flags: one mode of the command, described on its own
	}
	f := false
	ann := &sdk.ToolAnnotations{Title: t.Title, OpenWorldHint: &f}
	switch t.Effect {
	case ReadOnly:
		ann.ReadOnlyHint = true
	case Additive:
		ann.DestructiveHint = &f
	}
	return &sdk.Tool{Name: t.Name, Title: t.Title, Description: desc, Annotations: ann}
}

// handle runs one call: arguments to command line, command, result.
func handle[In any](cfg Config, t Tool) sdk.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out any, err error) {
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(cfg.logWriter(), "debug-mode mcp: tool %s panicked: %v\n%s", t.Name, p, debug.Stack())
				res, out, err = nil, nil, fmt.Errorf("debug-mode failed inside the %s tool (%v); please report it", t.Name, p)
			}
		}()
		args, err := cliArgs(t.Command, &in)
		if err != nil {
			return nil, nil, err
		}
		text, envelope, code, msg := cfg.Run(ctx, args)
		res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: resultText(text, code, msg)}}, IsError: code != 0}
		if len(envelope) > 0 {
			out = envelope
		}
		return res, out, nil
	}
}

func (c Config) logWriter() io.Writer {
	if c.Log == nil {
		return io.Discard
	}
	return c.Log
}

var nextPage = regexp.MustCompile(`(?m)^Next page: (debug-mode .*)$`)

// resultText is the command's text, each next-page command turned into the
// same page as a tool call, and the error message last.
func resultText(text string, code int, msg string) string {
	text = nextPage.ReplaceAllStringFunc(text, func(line string) string {
		name, args, ok := ToolCall(strings.TrimPrefix(line, "Next page: "))
		if !ok {
			return line
		}
		b, err := json.Marshal(args)
		if err != nil {
			return line
		}
		return "Next page (tool call): " + name + " " + output.Escape(string(b))
	})
	if code != 0 && msg != "" {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "Error: " + msg
	}
	return text
}
