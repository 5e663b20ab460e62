package cli

import (
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type outputOptions struct {
	*env
	session      string
	stream       string
	offset       int
	limit        int
	reproduction int64
}

func newOutputCmd(e *env) *cobra.Command {
	o := &outputOptions{env: e}
	cmd := &cobra.Command{
		Use:   "output --session <id> [--stream stdout|stderr]",
		Short: "Page the output of the cycle's last reproduction",
		Long: `Page what the command of the cycle's last reproduce wrote to stdout or
stderr, as numbered lines. At most 1 MiB of each stream is kept (its head and
tail, with one line saying how much of the middle was left out), redacted
like evidence; control characters are shown escaped. A page holds at most
--limit lines and 64 KiB.

A new reproduce or a reset replaces the output; the next-page command names
the reproduction it continues, so it fails (exit code 4) instead of mixing
two runs.`,
		Example: `  debug-mode output --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --stream stderr
  debug-mode output --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --offset 100 --limit 100`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	fl.StringVar(&o.stream, "stream", "stdout", "stdout or stderr")
	fl.IntVar(&o.offset, "offset", 0, "skip this many lines")
	fl.IntVar(&o.limit, "limit", service.DefaultOutputLimit, "show at most this many lines (1–1000)")
	fl.Int64Var(&o.reproduction, "reproduction", 0, "fail unless the output is still this reproduction's (next pages set it)")
	return cmd
}

func (o *outputOptions) run() error {
	switch {
	case o.stream != "stdout" && o.stream != "stderr":
		return usagef("--stream must be stdout or stderr, not %q", o.stream)
	case o.offset < 0:
		return usagef("--offset must be 0 or more")
	case o.limit < 1 || o.limit > service.MaxOutputLimit:
		return usagef("--limit must be between 1 and %d", service.MaxOutputLimit)
	case o.reproduction < 0:
		return usagef("--reproduction must be a reproduction number from a next-page command")
	}
	q := url.Values{"stream": {o.stream}, "offset": {strconv.Itoa(o.offset)}, "limit": {strconv.Itoa(o.limit)}}
	if o.reproduction > 0 {
		q.Set("reproduction", strconv.FormatInt(o.reproduction, 10))
	}
	var page service.OutputPage
	id, err := o.callSession(o.session, http.MethodGet, "/output?"+q.Encode(), nil, &page)
	if err != nil {
		return err
	}
	v := output.OutputView{OutputPage: page}
	if next := o.offset + page.Returned; page.Available && page.Returned > 0 && next < page.TotalLines {
		v.Next = output.CommandLine("output", "--session", id, "--stream", o.stream, "--offset", strconv.Itoa(next),
			"--limit", strconv.Itoa(o.limit), "--reproduction", strconv.FormatInt(page.Reproduction, 10))
	}
	return o.printer().Result("output", v, func(w io.Writer) { output.Output(w, v) })
}
