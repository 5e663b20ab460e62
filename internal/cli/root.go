// Package cli is the command line: one file per command, each an options
// struct, a cobra constructor and a run function that hands its result to
// the output package.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/buildinfo"
	"github.com/agentic-debug-mode/debug-mode/internal/client"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/reproduce"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Exit codes, documented in the README and in `debug-mode --help`.
const (
	ExitOK          = 0
	ExitFailure     = 1 // the operation could not be done (storage, service start)
	ExitUsage       = 2 // bad command line: unknown command or flag, bad value, removed interface
	ExitNotFound    = 3 // no session (or capture) with that id
	ExitStale       = 4 // the evidence was reset since the page or cursor was read
	ExitCheckFailed = 5 // probes --check: agent log regions or broken markers remain
	ExitRefused     = 6 // follow: the link is incomplete or unavailable, so nothing proven can be followed
	ExitDamaged     = 7 // the capture no longer matches its hash (or its structure) and is not used
	ExitTimeout     = 8 // reproduce: the timeout ended the command's process tree (the report was printed)
	ExitNotStarted  = 9 // reproduce: the command could not start (not found, not executable)
)

// usageError marks errors that are the caller's command line.
type usageError struct {
	msg    string
	noHint bool // the message already says what to run instead
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// env is what every command shares.
type env struct {
	out, err io.Writer
	json     bool
	client   *client.Client
	command  string
	capture  *output.Envelopes // set by Execute: keep the JSON envelopes too
}

func (e *env) printer() *output.Printer {
	return &output.Printer{Out: e.out, Err: e.err, JSON: e.json, Capture: e.capture}
}

// connect opens the state root and returns a client to the service.
func (e *env) connect() (*client.Client, error) {
	if e.client == nil {
		c, err := client.New()
		if err != nil {
			return nil, err
		}
		e.client = c
	}
	return e.client, nil
}

// callSession validates --session, then sends one control request about
// that session (path is what follows /v1/sessions/<id>).
func (e *env) callSession(flag, method, path string, in, out any) (string, error) {
	id, err := sessionID(flag)
	if err != nil {
		return "", err
	}
	c, err := e.connect()
	if err != nil {
		return id, err
	}
	return id, c.Call(method, "/v1/sessions/"+id+path, in, out)
}

// sessionID validates --session before anything is asked of the service.
func sessionID(flag string) (string, error) {
	if flag == "" {
		return "", usagef("--session is required (list sessions with debug-mode sessions, or start one with debug-mode create)")
	}
	id, err := store.ParseID(flag)
	if err != nil {
		return "", usagef("--session %q is not a session id; session ids look like 707225a6-8e0f-4db4-b64b-e261bd6a861a (see debug-mode sessions)", flag)
	}
	return id, nil
}

// Main runs the CLI and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == client.ServiceCommand {
		return service.RunProcess(os.NewFile(3, "ready"))
	}
	if len(args) > 0 && args[0] == reproduce.SupervisorCommand {
		return reproduce.Supervise(args[1:])
	}
	code, _ := run(context.Background(), &env{out: stdout, err: stderr}, args, true)
	return code
}

// run runs the command tree once and reports a failure through the printer;
// it returns the exit code and the failure's message. hint adds the pointer
// to --help that a person at a terminal needs after a usage error.
func run(ctx context.Context, e *env, args []string, hint bool) (int, string) {
	root := newRootCmd(e)
	root.SetArgs(jqStyleArgs(args))
	root.SetOut(e.out)
	root.SetErr(e.err)
	cmd, err := root.ExecuteContextC(ctx)
	if e.client != nil {
		e.client.Close()
	}
	if err == nil {
		return ExitOK, ""
	}
	name := "debug-mode"
	if cmd != nil {
		name = strings.TrimPrefix(cmd.CommandPath(), "debug-mode ")
	}
	code, kind, msg := classify(err)
	msg = output.Escape(msg) // messages may quote evidence (a location, a file name): one line, always
	var ue *usageError
	if hint && code == ExitUsage && cmd != nil && !e.json && !(errors.As(err, &ue) && ue.noHint) {
		msg += "\nRun '" + cmd.CommandPath() + " --help' for usage."
	}
	e.printer().Error(name, kind, msg, code)
	return code, msg
}

// classify maps an error to its exit code, a stable code word and a message.
func classify(err error) (int, string, string) {
	var ue *usageError
	var ce *client.Error
	var xe *exitError
	switch {
	case errors.As(err, &xe):
		return xe.code, xe.kind, xe.msg
	case errors.As(err, &ue):
		return ExitUsage, "usage", ue.msg
	case errors.As(err, &ce):
		switch {
		case ce.Code == "capture_not_found", ce.Code == "logpoint_not_found":
			return ExitNotFound, "not_found", ce.Msg
		case ce.Code == "damaged":
			return ExitDamaged, "damaged", ce.Msg
		case ce.Code == "refused":
			return ExitRefused, "refused", ce.Msg
		case ce.Status == http.StatusNotFound:
			return ExitNotFound, "not_found", "no session with that id; list sessions with debug-mode sessions --all, or start one with debug-mode create"
		case ce.Status == http.StatusBadRequest:
			return ExitUsage, "usage", ce.Msg
		case ce.Code == "stale":
			return ExitStale, "stale", ce.Msg
		}
		return ExitFailure, ce.Code, ce.Msg
	case isFlagError(err):
		return ExitUsage, "usage", err.Error()
	}
	return ExitFailure, "failure", err.Error()
}

// isFlagError recognises cobra's and pflag's parse errors, which carry no type.
func isFlagError(err error) bool {
	m := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "unknown command", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "required flag", "if any flags in the group"} {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "debug-mode",
		Short: "Runtime evidence for coding agents debugging a program",
		Long: `debug-mode gives a coding agent runtime evidence while it debugs a program.

Create a session, paste the language template's probes into the code (each in
its own "agent log" region), run the bug's reproduction with debug-mode
reproduce, and read the validated, redacted events it reports. Repeat until
the evidence proves the fix, then remove the probes.

Exit codes: 0 ok, 1 failure, 2 usage error, 3 no such session or capture,
4 evidence reset since the page or cursor was read, 5 probes --check found
regions, 6 follow refused a link that is incomplete or unavailable, 7 a
capture is damaged (it no longer matches its hash), 8 reproduce's timeout
ended the command, 9 reproduce could not start the command.`,
		Version:       buildinfo.FullVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.SetVersionTemplate("debug-mode {{.Version}}\n")
	root.PersistentFlags().BoolVar(&e.json, "json", false, "print one JSON envelope instead of text (for programs; agents read the text)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c.Name() == "create" {
			if r := removedFlagError(err); r != nil {
				return r
			}
		}
		return usagef("%s", err.Error())
	})
	root.AddCommand(
		newCreateCmd(e),
		newResetCmd(e),
		newStatusCmd(e),
		newLogsCmd(e),
		newQueryCmd(e),
		newTemplateCmd(e),
		newSessionsCmd(e),
		newCleanCmd(e),
		newStopCmd(e),
		newProbesCmd(e),
		newEvidenceCmd(e),
		newSkillCmd(e),
		newCaptureCmd(e),
		newCapturesCmd(e),
		newFollowCmd(e),
		newDiffCmd(e),
		newReproduceCmd(e),
		newOutputCmd(e),
		newLogpointCmd(e),
		newEnvCmd(e),
		newMCPCmd(e),
	)
	addRemovedCommands(root)
	enableCompletion(root, e)
	return root
}
