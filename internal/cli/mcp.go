package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/agentic-debug-mode/debug-mode/internal/buildinfo"
	"github.com/agentic-debug-mode/debug-mode/internal/mcp"
)

type mcpOptions struct{ *env }

func newMCPCmd(e *env) *cobra.Command {
	o := &mcpOptions{env: e}
	return &cobra.Command{
		Use:   mcpCommand,
		Short: "Serve the evidence tools to an MCP client over stdin and stdout",
		Long: `Serve debug-mode's evidence tools over the Model Context Protocol (MCP), on
stdin and stdout, for agents whose host speaks MCP. An MCP client starts it;
register it with the client, for example:

  {"mcpServers": {"debug-mode": {"command": "debug-mode", "args": ["mcp"]}}}

One tool per operation, each running the command of the same name: create,
template, reset, logs, query, status, sessions, clean, probes, probes_remove
(probes --remove), evidence_add, evidence_list, capture, captures, follow
and diff. Arguments are the commands' flags without the dashes; a result is
the text the command prints, with its --json envelope as structured
content, and a failure is the command's own error message. stop is not a
tool.

Nothing but protocol messages is written to stdout; diagnostics go to
stderr. When stdin closes it answers the requests already read, then ends.
Relative paths given to probes, probes_remove or evidence_add start from the
folder it was started in.`,
		Example: "  debug-mode mcp",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.json {
				return usagef("mcp answers every call with the text and its JSON envelope; drop --json")
			}
			return o.run(cmd.Context())
		},
	}
}

// MCPConfig is the MCP server's view of the CLI: the in-process entry and
// the command tree.
func MCPConfig(log io.Writer) mcp.Config {
	return mcp.Config{Run: Execute, Tree: CommandTree, Version: buildinfo.FullVersion(), Log: log}
}

func (o *mcpOptions) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := o.out
	if f, ok := out.(*os.File); ok && f == os.Stdout {
		// Keep the real stdout for protocol messages only: anything else in
		// this process (or a child) that writes to file descriptor 1 lands
		// on stderr instead of corrupting the stream.
		fd, err := unix.Dup(int(f.Fd()))
		if err != nil {
			return err
		}
		unix.CloseOnExec(fd)
		if err := unix.Dup3(int(os.Stderr.Fd()), int(f.Fd()), 0); err != nil {
			unix.Close(fd)
			return err
		}
		protocol := os.NewFile(uintptr(fd), "mcp-stdout")
		defer protocol.Close()
		out = protocol
	}
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintln(o.err, "debug-mode mcp: serving MCP on stdin and stdout; an MCP client starts this (see debug-mode mcp --help). End it with Ctrl-D.")
	}
	return mcp.Serve(ctx, MCPConfig(o.err), os.Stdin, nopCloser{out})
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
