package cli

import (
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
)

type queryOptions struct {
	*env
	session string
	filters filterFlags
	slurp   bool
	null    bool
	args    []string
	argJSON []string
	limit   int
	cursor  string
	capture string
	countBy string
}

func newQueryCmd(e *env) *cobra.Command {
	o := &queryOptions{env: e}
	cmd := &cobra.Command{
		Use:   "query --session <id> '<jq program>'",
		Short: "Run a jq program over a session's events",
		Long: `Run a jq program (the gojq dialect) over a session's events.

By default the program runs once per event, in logs order (time, then
sequence), and each output value is printed on its own line. With -n it runs
once, on null, and input/inputs read the matching events one at a time in
logs order: 'reduce inputs as $e (…)' counts, sums or groups any number of
events in the memory of its result. With --slurp it runs once over the array
of all matching events: at most 150,000 when the program only reads fields
of the events by name (only those are decoded), else 15,000 events or
5 MiB. The same filters as logs narrow the events first.

--count-by PATH counts the events per value of PATH (a jq path such as
.data.stale, .location or [.location, .data.key]) in one pass, in the
memory of one count per distinct value, and prints a table, most frequent first: the counting that otherwise takes a
reduce program. A value of null counts the events without that field.

The program cannot read the environment, files or modules. A page holds at
most --limit values (1 MiB in all; a value over 64 KiB is replaced by a
marker); the query may run 20 s and use 24 MiB of memory. A page that stops
early ends with a next-page command carrying an opaque cursor (with -n or
--slurp the next page runs the program again and skips what was shown); a
cursor is refused after a reset, for another session, or if edited.`,
		Example: `  debug-mode query --session 707225a6-8e0f-4db4-b64b-e261bd6a861a 'select(.data.total < 0) | {seq: .sequence, total: .data.total}'
  debug-mode query --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --hypothesis H2 '.data.userId'
  debug-mode query --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --hypothesis H2 --count-by .data.stale
  debug-mode query --session 707225a6-8e0f-4db4-b64b-e261bd6a861a -n 'reduce inputs as $e ({}; .[$e.data.month] += 1)'
  debug-mode query --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --slurp 'group_by(.location) | map({location: .[0].location, n: length})'
  debug-mode query --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --arg want H1 'select(.hypothesisId == $want) | .data'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	cmd.Flags().StringVar(&o.session, "session", "", "session id (from debug-mode create)")
	o.filters.register(cmd)
	cmd.Flags().BoolVar(&o.slurp, "slurp", false, "run the program once over the array of all matching events")
	cmd.Flags().BoolVarP(&o.null, "null-input", "n", false, "run the program once on null; input and inputs read the matching events one at a time")
	cmd.Flags().StringArrayVar(&o.args, "arg", nil, "NAME=VALUE or NAME VALUE: bind $NAME to the string VALUE (repeatable)")
	cmd.Flags().StringArrayVar(&o.argJSON, "argjson", nil, "NAME=JSON or NAME JSON: bind $NAME to the JSON value (repeatable)")
	cmd.Flags().IntVar(&o.limit, "limit", query.DefaultValues, "values per page (1–1000)")
	cmd.Flags().StringVar(&o.cursor, "cursor", "", "continue a query from its next-page command")
	cmd.Flags().StringVar(&o.countBy, "count-by", "", "count the events per value of this path (e.g. .data.stale), as a table, most first; no program")
	cmd.Flags().StringVar(&o.capture, "capture", "", "run over this capture's frozen evidence instead of the live cycle (the cursor stays bound to it)")
	return cmd
}

// jqStyleArgs rewrites jq's two-word forms (--arg NAME VALUE) into the
// NAME=VALUE form cobra parses, so both spellings work.
func jqStyleArgs(args []string) []string {
	if i := slices.IndexFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") }); i < 0 || args[i] != "query" {
		return args // another command's arguments (reproduce's command above all) are left alone
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--arg" || a == "--argjson") && i+2 < len(args) && !strings.Contains(args[i+1], "=") {
			out = append(out, a+"="+args[i+1]+"="+args[i+2])
			i += 2
			continue
		}
		out = append(out, a)
	}
	return out
}

func splitBinding(flag, b string) (string, string, error) {
	name, value, ok := strings.Cut(b, "=")
	if !ok || name == "" {
		return "", "", usagef("%s takes NAME VALUE (or NAME=VALUE), got %q", flag, b)
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", "", usagef("%s name %q must be letters, digits and _", flag, name)
		}
	}
	return name, value, nil
}

func (o *queryOptions) run(cmd *cobra.Command, args []string) error {
	id, err := sessionID(o.session)
	if err != nil {
		return err
	}
	req := service.QueryRequest{Cursor: o.cursor}
	if o.cursor != "" {
		// --count-by beside a cursor only names the table's column (the
		// next-page command of a --count-by query carries it).
		if len(args) > 0 || cmd.Flags().NFlag() > 2+boolFlagCount(cmd, "json")+boolFlagCount(cmd, "count-by") {
			return usagef("--cursor continues a query as it was; give only --session and --cursor")
		}
	} else {
		if o.countBy != "" {
			if len(args) > 0 || o.slurp || o.null {
				return usagef("--count-by is the whole query: leave out the program, --slurp and -n")
			}
			args = []string{countByProgram(o.countBy)}
		}
		if len(args) == 0 {
			return usagef("give a jq program, e.g. debug-mode query --session %s '.data'", id)
		}
		f, err := o.filters.filter()
		if err != nil {
			return err
		}
		if o.slurp && o.null {
			return usagef("--slurp and -n (--null-input) do not go together: with -n the program reads the events itself with input or inputs; keep one of them")
		}
		if o.limit < 1 || o.limit > query.MaxValues {
			return usagef("--limit must be between 1 and %d", query.MaxValues)
		}
		spec := query.Spec{Program: args[0], Slurp: o.slurp, NullInput: o.null || o.countBy != "", Filter: f, Limit: o.limit}
		if o.capture != "" {
			if spec.Capture, err = captureID("--capture", o.capture); err != nil {
				return err
			}
		}
		for _, b := range o.args {
			name, v, err := splitBinding("--arg", b)
			if err != nil {
				return err
			}
			if spec.Args == nil {
				spec.Args = map[string]string{}
			}
			spec.Args[name] = v
		}
		for _, b := range o.argJSON {
			name, v, err := splitBinding("--argjson", b)
			if err != nil {
				return err
			}
			if spec.JSON == nil {
				spec.JSON = map[string]string{}
			}
			spec.JSON[name] = v
		}
		// Compile here too, so a bad program is a usage error without a round trip.
		if _, _, err := query.Compile(spec); err != nil {
			if o.countBy != "" {
				return usagef("--count-by %q is not a jq path (e.g. .data.stale or [.location, .data.key]): %s", o.countBy, err.Error())
			}
			return usagef("%s", err.Error())
		}
		req.Spec = spec
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	var res service.QueryResult
	if err := c.Call(http.MethodPost, "/v1/sessions/"+id+"/query", req, &res); err != nil {
		return err
	}
	view := output.QueryView{QueryResult: res, CountBy: o.countBy}
	if res.NextCursor != "" {
		next := []string{"query", "--session", id, "--cursor", res.NextCursor}
		if o.countBy != "" {
			next = append(next, "--count-by", o.countBy) // the next page is a table again
		}
		view.Next = output.CommandLine(next...)
	}
	return o.printer().Result("query", view, func(w io.Writer) { output.Query(w, view) })
}

// countByProgram counts the events per value of path in one pass, in the
// memory of the counts: {count, value} objects, most first, ties by value.
func countByProgram(path string) string {
	return "reduce inputs as $e ({}; .[$e | (" + path + ") | tojson] += 1) | to_entries | sort_by(-.value, .key) | .[] | {count: .value, value: (.key | fromjson)}"
}

func boolFlagCount(cmd *cobra.Command, name string) int {
	if cmd.Flags().Changed(name) || cmd.InheritedFlags().Changed(name) {
		return 1
	}
	return 0
}
