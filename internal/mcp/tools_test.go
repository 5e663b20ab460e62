package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
)

func TestCLIArgs(t *testing.T) {
	drift := 0
	for _, c := range []struct {
		tool string
		in   any
		want string
	}{
		{"create", &CreateInput{}, "create"},
		{"logs", &LogsInput{Session: "S", Filters: Filters{Hypothesis: []string{"H1", "H 2"}, SeqFrom: 3, Since: "2026-11-30 08:01:02"}, Limit: 5, Cycle: 2},
			"logs|--session=S|--hypothesis=H1|--hypothesis=H 2|--seq-from=3|--since=2026-11-30 08:01:02|--limit=5|--cycle=2"},
		{"query", &QueryInput{Session: "S", Program: "-1 | .x", Slurp: true, NullInput: true, Arg: map[string]string{"b": "x=y", "a": "1"}, ArgJSON: map[string]any{"n": []any{1.0, "two"}}},
			"query|--session=S|--slurp|--null-input|--arg=a=1|--arg=b=x=y|--argjson=n=[1,\"two\"]|--|-1 | .x"},
		{"query", &QueryInput{Session: "S", Cursor: "c1"}, "query|--session=S|--cursor=c1"},
		{"probes", &ProbesInput{Paths: []string{"-src", "b c"}, Check: true, Drift: &drift}, "probes|--check|--drift=0|--|-src|b c"},
		{"probes_remove", &ProbesRemoveInput{Yes: true}, "probes|--remove|--yes"},
		{"evidence_add", &EvidenceAddInput{Session: "S", Note: "--note"}, "evidence|add|--session=S|--note=--note"},
	} {
		tl := find(c.tool)
		got, err := cliArgs(tl.Command, c.in)
		if err != nil || strings.Join(got, "|") != c.want {
			t.Errorf("%s: %q, %v\nwant %q", c.tool, strings.Join(got, "|"), err, c.want)
		}
	}
}

func find(name string) Tool {
	for _, t := range Tools {
		if t.Name == name {
			return t
		}
	}
	panic("no tool " + name)
}

// Every "Next page:" command the CLI prints becomes the same call of a tool.
func TestToolCall(t *testing.T) {
	for _, c := range []struct {
		line, tool, args string
	}{
		{"debug-mode logs --session 707225a6-8e0f-4db4-b64b-e261bd6a861a --hypothesis H1 --hypothesis 'H 2' --location 'cart.py:4' --offset 6 --limit 6 --cycle 1",
			"logs", `{"cycle":1,"hypothesis":["H1","H 2"],"limit":6,"location":"cart.py:4","offset":6,"session":"707225a6-8e0f-4db4-b64b-e261bd6a861a"}`},
		{"debug-mode logs --session S --since '2026-11-30 08:01:02.123' --seq-to 9 --offset 2 --limit 2 --cycle 3",
			"logs", `{"cycle":3,"limit":2,"offset":2,"seq-to":9,"session":"S","since":"2026-11-30 08:01:02.123"}`},
		{"debug-mode query --session S --cursor 'q1.abc_-='", "query", `{"cursor":"q1.abc_-=","session":"S"}`},
		{"debug-mode query --session S --argjson n=3 --arg w=x 'select(.a == $n)'", "query", `{"arg":{"w":"x"},"argjson":{"n":3},"program":"select(.a == $n)","session":"S"}`},
		{"debug-mode probes --remove --yes src 'my dir'", "probes_remove", `{"paths":["src","my dir"],"yes":true}`},
		{"debug-mode probes --check src", "probes", `{"check":true,"paths":["src"]}`},
		{"debug-mode evidence add --session S --note 'it'\\''s red'", "evidence_add", `{"note":"it's red","session":"S"}`},
	} {
		name, args, ok := ToolCall(c.line)
		b, _ := json.Marshal(args)
		if !ok || name != c.tool || string(b) != c.args {
			t.Errorf("%s:\ngot  %v %s %s\nwant %s %s", c.line, ok, name, b, c.tool, c.args)
		}
	}
	for _, line := range []string{
		"debug-mode logs --session S --bogus 1",
		"debug-mode stop",
		"debug-mode status --session S extra",
		"debug-mode logs --session 'S",
		"jq .",
	} {
		if name, args, ok := ToolCall(line); ok {
			t.Errorf("%s: %s %v, want no tool call", line, name, args)
		}
	}
}

// toolsMatchCommands checks the tools against the CLI: every argument is a
// flag of its command with the same kind of value, every flag of the
// command is an argument (unless another tool takes it), and every command
// is a tool unless it is listed as not one.
func toolsMatchCommands(t *testing.T, root *cobra.Command) {
	// Commands that are no tool: stop (the server's next call would start the
	// background work again), the skill, completion, help, mcp itself, and
	// evidence (the same list as evidence list), and logpoint (its parent: help).
	notTools := []string{"completion", "help", "mcp", "skill", "skill install", "stop", "evidence", "logpoint"}
	covered := map[string]bool{}
	for _, tl := range Tools {
		cmd := lookup(root, tl.Command)
		if cmd == nil {
			t.Errorf("%s: no %q command", tl.Name, strings.Join(tl.Command, " "))
			continue
		}
		covered[cmd.CommandPath()] = true
		fixed := map[string]bool{}
		for _, w := range tl.Command {
			if name, ok := strings.CutPrefix(w, "--"); ok {
				fixed[name] = true
			}
		}
		args := map[string]bool{}
		for _, f := range fields(reflect.TypeOf(tl.input).Elem()) {
			args[f.name] = true
			if f.arg {
				if cmd.Args == nil {
					t.Errorf("%s: argument %s is positional, but %s takes no arguments", tl.Name, f.name, cmd.CommandPath())
				}
				continue
			}
			flag := cmd.Flags().Lookup(f.name)
			if flag == nil {
				t.Errorf("%s: argument %s is no flag of %s", tl.Name, f.name, cmd.CommandPath())
				continue
			}
			typ := f.typ
			if typ.Kind() == reflect.Pointer {
				typ = typ.Elem()
			}
			want := map[string][]reflect.Kind{
				"string": {reflect.String}, "bool": {reflect.Bool}, "int": {reflect.Int}, "int64": {reflect.Int64},
				"stringArray": {reflect.Slice, reflect.Map}, "stringSlice": {reflect.Slice}, "duration": {reflect.String},
			}[flag.Value.Type()]
			if !slices.Contains(want, typ.Kind()) {
				t.Errorf("%s: argument %s is a %s, flag --%s a %s", tl.Name, f.name, typ, f.name, flag.Value.Type())
			}
		}
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" || f.Name == "json" || fixed[f.Name] || slices.Contains(tl.Omit, f.Name) {
				return
			}
			if !args[f.Name] {
				t.Errorf("%s: the flag --%s of %s is no argument of the tool; add a field with json:%q to its input (or list it in Omit if another tool takes it)",
					tl.Name, f.Name, cmd.CommandPath(), f.Name)
			}
		})
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			path := strings.TrimPrefix(sub.CommandPath(), root.Name()+" ")
			if sub.Hidden || sub.Name() == "completion" {
				continue
			}
			if !covered[sub.CommandPath()] && !slices.Contains(notTools, path) {
				t.Errorf("%s is no MCP tool: add one line to Tools in internal/mcp/tools.go (or list it in notTools here)", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(root)
}

// A next-page command that carries a label copied from evidence (quoted
// $'…' by the CLI) becomes a tool call with the very same label, and the
// text the tool returns holds it escaped, never raw.
func TestNextPageWithHostileLabel(t *testing.T) {
	label := "H1\nFORGED\x1b[31m\u202e\u0085"
	line := output.CommandLine("logs", "--session", "S", "--hypothesis", label, "--offset", "1", "--limit", "1", "--cycle", "1")
	name, args, ok := ToolCall(line)
	if hyp, _ := args["hypothesis"].([]string); !ok || name != "logs" || len(hyp) != 1 || hyp[0] != label {
		t.Fatalf("%s: %v %s %v", line, ok, name, args)
	}
	text := resultText("LOGS\nNext page: "+line+"\n", 0, "")
	if !strings.Contains(text, "Next page (tool call): logs ") {
		t.Fatalf("no tool call in %q", text)
	}
	if strings.ContainsAny(text, "\x1b\u202e\u0085") || strings.Contains(text, "\nFORGED") {
		t.Errorf("tool text holds raw control characters: %q", text)
	}
}
