package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/projectroot"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

const logpointLong = `Logpoints record an event when a line of a Python or Node.js program runs
(JavaScript, and TypeScript through a loader that keeps source maps, such as
tsx), with no edit to the program: nothing to place in a region, nothing to
rebuild, nothing to remove afterwards. The session keeps them; reproduce (or,
for a program started some other way, the exports of debug-mode env) gives
the program a start-up hook, loaded from debug-mode's own folder, that puts
them in place in every process of the program, child processes (and Node
worker threads) included. The project's files are never touched.

Each time the line is reached, just before it runs, the hook evaluates the
--data expression in that frame (its locals, closure and module variables)
and records an ordinary event: the label, the location path:line (relative to
the project root), the message and the value. An expression that throws
records {"agentDebugLogpointError": "<error>"}; nothing a logpoint does
changes the program's output, behaviour or exit status.

Logpoints survive reset; clean deletes them. Prefer code probes (debug-mode
template) for compiled languages, browser code, and values that need code of
their own to compute.`

func newLogpointCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "logpoint",
		Short: "Record values at a line of a Python or Node.js program without editing it",
		Long:  logpointLong,
		Example: `  debug-mode logpoint add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --at report.py:44 --hypothesis H1 --message "amount converted" --data '{"amount": str(amount), "usd": str(usd)}'
  debug-mode logpoint add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --at src/cart.js:12 --hypothesis H2 --message "discount applied" --data '({total, n: items.length})'
  debug-mode logpoint list --session 707225a6-8e0f-4db4-b64b-e261bd6a861a
  debug-mode logpoint remove --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newLogpointAddCmd(e), newLogpointListCmd(e), newLogpointRemoveCmd(e))
	return cmd
}

type logpointAddOptions struct {
	*env
	session, at, hypothesis, message, data string
}

func newLogpointAddCmd(e *env) *cobra.Command {
	o := &logpointAddOptions{env: e}
	cmd := &cobra.Command{
		Use:   "add --session <id> --at <path:line> --hypothesis <label> --message <text> [--data <expression>]",
		Short: "Add a logpoint at a line",
		Long: `Add a logpoint at PATH:LINE (a relative path is resolved from the current
folder). It is checked now: the file exists and is Python (.py) or Node.js
(.js .mjs .cjs .ts .mts .cts), the line holds code, the label and message
follow the event rules, and --data is one valid expression of the language.
The checks run python3 or node when installed, with the hook's own code, so
their verdict is the hook's; without them the logpoint is kept unchecked.

Python: the logpoint runs just before the statement that starts on that
line, once each time it is reached. On an except, else, finally or case line
it runs when that branch is entered; on a for or while line, once when the
loop is reached (put it on the first line of the body to record every
iteration). A def, class or decorator line is refused with the line to use
instead (the first line of the body records each call), as is a line inside a
statement that starts higher up, a blank line, a comment or the inside of a
string.

Node.js: the logpoint is a breakpoint whose condition records and never
stops, on the first place of the line where V8 can stop. A line with none (a
blank line, a comment, a function or class declaration line, a lone brace, a
type) is refused with the next line that has one. --data is a JavaScript
expression, e.g. '({total, n: items.length})'. A TypeScript line is checked
on the file compiled by the esbuild (what tsx uses) or typescript found from
the file's folder.

It takes effect in programs started from now on by reproduce (or with the
exports of debug-mode env).`,
		Example: `  debug-mode logpoint add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --at report.py:44 --hypothesis H1 --message "amount converted" --data '{"amount": str(amount), "usd": str(usd)}'
  debug-mode logpoint add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --at src/shop/cart.py:12 --hypothesis H2 --message "discount applied"
  debug-mode logpoint add --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --at src/cart.ts:30 --hypothesis H3 --message "total computed" --data '({total, n: items.length})'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context()) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	fl.StringVar(&o.at, "at", "", "the line: PATH:LINE, e.g. src/report.py:44")
	fl.StringVar(&o.hypothesis, "hypothesis", "", "the hypothesis label its events carry, e.g. H1")
	fl.StringVar(&o.message, "message", "", "a short constant description of the observation")
	fl.StringVar(&o.data, "data", "", "an expression in the program's language, evaluated where the line runs, e.g. '{\"total\": total, \"n\": len(items)}' (Python) or '({total, n: items.length})' (JavaScript) (default: no data, null)")
	return cmd
}

// checkTimeout bounds a language check (python3 or node compiling one file).
const checkTimeout = 20 * time.Second

func (o *logpointAddOptions) run(ctx context.Context) error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	if o.at == "" {
		return usagef("--at is required: the line, as PATH:LINE (e.g. src/report.py:44)")
	}
	lim := evidence.DefaultLimits
	for _, c := range []error{
		logpoints.CheckText("--hypothesis", o.hypothesis, lim.MaxLabelBytes),
		logpoints.CheckText("--message", o.message, lim.MaxMessageBytes),
		logpoints.CheckData(o.data),
	} {
		if c != nil {
			return invalidLogpoint(c)
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	var envr service.Environment
	if err := c.Call(http.MethodGet, "/v1/sessions/"+id+"/environment", nil, &envr); err != nil {
		return err
	}
	// Events carry the path the session shows everywhere: relative to its
	// project root (a session from before roots were recorded: found as
	// create would).
	root := envr.ProjectRoot
	if root == "" {
		root = projectroot.Find(cwd)
	}
	t, err := logpoints.Resolve(cwd, root, o.at)
	if err != nil {
		return invalidLogpoint(err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	verdict := t.Language.Check(ctx, envr.Hooks.Languages[t.Language.ID], logpoints.CheckRequest{File: t.File, Line: t.Line, Data: o.data})
	if !verdict.OK {
		return usagef("--at %s: %s", o.at, verdict.Reason)
	}
	lp := logpoints.Logpoint{Language: t.Language.ID, File: t.File, RealFile: t.RealFile, Path: t.Path, Line: t.Line,
		Location: logpoints.Location(t.Path, t.Line), HypothesisID: o.hypothesis, Message: o.message, Data: o.data, Placement: verdict.Placement}
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/logpoints", lp, &lp); err != nil {
		return err
	}
	view := output.LogpointAdded{SessionID: id, Logpoint: lp, Unchecked: verdict.Unchecked, Next: o.next(id)}
	return o.printer().Result("logpoint add", view, func(w io.Writer) { output.LogpointAdd(w, view) })
}

// next is how the agent runs the program with the logpoints.
func (o *logpointAddOptions) next(id string) string {
	return "Run the program with it: " + output.CommandLine("reproduce", "--session", id) + " -- <command> (a program started some other way: eval \"$(" + output.CommandLine("env", "--session", id) + ")\" first)"
}

// invalidLogpoint turns a refused spec into a usage error.
func invalidLogpoint(err error) error {
	if errors.Is(err, logpoints.ErrInvalid) {
		msg := err.Error()[len(logpoints.ErrInvalid.Error())+2:]
		return usagef("%s", msg)
	}
	return err
}

type logpointListOptions struct {
	*env
	session string
}

func newLogpointListCmd(e *env) *cobra.Command {
	o := &logpointListOptions{env: e}
	cmd := &cobra.Command{
		Use:   "list --session <id>",
		Short: "List the logpoints with what became of each in this cycle",
		Long: `List the session's logpoints, each with its state in the current cycle:

  hit N            N events arrived from it
  never hit        a process put it in place, but the line never ran
  never installed  no process put it in place: its file was never loaded by a
                   program started by reproduce (or with debug-mode env's
                   exports), or the line could not take it (the reason says)

Never installed is not evidence about the program: the logpoint was not
there to see.`,
		Example: "  debug-mode logpoint list --session 707225a6-8e0f-4db4-b64b-e261bd6a861a",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	return cmd
}

func (o *logpointListOptions) run() error {
	var list service.LogpointList
	if _, err := o.callSession(o.session, http.MethodGet, "/logpoints", nil, &list); err != nil {
		return err
	}
	return o.printer().Result("logpoint list", list, func(w io.Writer) { output.LogpointList(w, list) })
}

type logpointRemoveOptions struct {
	*env
	session string
	all     bool
	ids     []string
}

func newLogpointRemoveCmd(e *env) *cobra.Command {
	o := &logpointRemoveOptions{env: e}
	cmd := &cobra.Command{
		Use:   "remove --session <id> (<logpoint id>... | --all)",
		Short: "Remove logpoints from the session",
		Long: `Remove logpoints by id (lp-1 …), or every one with --all. Programs started
from now on no longer take them; the project has nothing to clean up, since
logpoints never touch its files.`,
		Example: `  debug-mode logpoint remove --session 707225a6-8e0f-4db4-b64b-e261bd6a861a lp-2
  debug-mode logpoint remove --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --all`,
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error { o.ids = args; return o.run() },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	cmd.Flags().BoolVar(&o.all, "all", false, "remove every logpoint of the session")
	return cmd
}

func (o *logpointRemoveOptions) run() error {
	switch {
	case o.all && len(o.ids) > 0:
		return usagef("name logpoints or give --all, not both")
	case !o.all && len(o.ids) == 0:
		return usagef("name the logpoints to remove (ids such as lp-1, from debug-mode logpoint list), or give --all")
	}
	for _, id := range o.ids {
		if !logpoints.ValidID(id) {
			return usagef("%q is not a logpoint id; ids look like lp-1 (see debug-mode logpoint list)", id)
		}
	}
	var res service.LogpointRemoved
	if _, err := o.callSession(o.session, http.MethodPost, "/logpoints/remove", service.LogpointRemoveRequest{IDs: o.ids, All: o.all}, &res); err != nil {
		return err
	}
	return o.printer().Result("logpoint remove", res, func(w io.Writer) { output.LogpointRemove(w, res) })
}
