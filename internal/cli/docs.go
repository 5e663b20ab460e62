package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Reference documents generated from the command tree, so they cannot drift
// from the help: docs/commands.md holds every command's --help, and the
// README's command table sits between these markers.
const (
	ReferenceBegin = "<!-- BEGIN GENERATED COMMAND TABLE: go run ./internal/cli/gendoc -->"
	ReferenceEnd   = "<!-- END GENERATED COMMAND TABLE -->"
)

// publicCommands lists every command a user can run, depth first, root
// first: no hidden ones, no help, no completion scripts per shell.
func publicCommands() []*cobra.Command {
	root := newRootCmd(&env{out: io.Discard, err: io.Discard})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		out = append(out, c)
		if c.Name() == "completion" {
			return
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// anchor is GitHub's heading anchor for "debug-mode logs".
func anchor(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// CommandReference writes docs/commands.md: every command's help, exactly
// as --help prints it.
func CommandReference(w io.Writer) {
	cmds := publicCommands()
	fmt.Fprintln(w, "# Command reference")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated from the commands' own help by `go run ./internal/cli/gendoc`; a test fails when it")
	fmt.Fprintln(w, "drifts. The same text is `debug-mode <command> --help`.")
	fmt.Fprintln(w)
	for _, c := range cmds[1:] {
		fmt.Fprintf(w, "- [`%s`](#%s): %s\n", c.CommandPath(), anchor(c), c.Short)
	}
	for _, c := range cmds {
		var help bytes.Buffer
		c.SetOut(&help)
		c.InitDefaultHelpFlag()
		c.Help()
		fmt.Fprintf(w, "\n## %s\n\n```text\n%s```\n", c.CommandPath(), help.String())
	}
}

// CommandTable writes the README's table of commands, markers included.
func CommandTable(w io.Writer) {
	fmt.Fprintln(w, ReferenceBegin)
	fmt.Fprintln(w, "| command | what it does |")
	fmt.Fprintln(w, "|---|---|")
	for _, c := range publicCommands()[1:] {
		fmt.Fprintf(w, "| [`%s`](docs/commands.md#%s) | %s |\n", strings.TrimPrefix(c.CommandPath(), "debug-mode "), anchor(c), c.Short)
	}
	fmt.Fprintln(w, ReferenceEnd)
}

// ReplaceCommandTable puts a fresh command table between the markers of a
// README; ok is false when the markers are missing.
func ReplaceCommandTable(readme string) (string, bool) {
	i := strings.Index(readme, ReferenceBegin)
	j := strings.Index(readme, ReferenceEnd)
	if i < 0 || j < i {
		return readme, false
	}
	var b strings.Builder
	CommandTable(&b)
	return readme[:i] + strings.TrimSuffix(b.String(), "\n") + readme[j+len(ReferenceEnd):], true
}
