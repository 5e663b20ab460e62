package cli

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/templates"
)

// enableCompletion lists cobra's completion command (debug-mode completion
// bash|zsh|fish|powershell) in the help and completes flag values: languages,
// transports, sections, and the ids of recent sessions.
func enableCompletion(root *cobra.Command, e *env) {
	root.CompletionOptions.HiddenDefaultCmd = false
	fixed := map[string][]string{
		"language": languages(),
		"ingest":   {"http\tJavaScript and TypeScript", "file\tevery other language"},
		"section":  {"all\thelper, call, placeholders, placement, schema", "helper\tthe helper source only", "call\tthe call source only"},
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if values, ok := fixed[f.Name]; ok {
				c.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
			}
			if f.Name == "session" {
				c.RegisterFlagCompletionFunc(f.Name, e.completeSessions)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func languages() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range templates.Combinations() {
		if !seen[c.Language] {
			seen[c.Language] = true
			out = append(out, c.Language+"\t--ingest "+c.Ingest)
		}
	}
	return out
}

// completeSessions offers the newest sessions, with when each was created
// and how many events it holds.
func (e *env) completeSessions(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	c, err := e.connect()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var list service.SessionList
	if err := c.Call(http.MethodGet, "/v1/sessions?limit=20", nil, &list); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, s := range list.Sessions {
		if strings.HasPrefix(s.SessionID, prefix) {
			created := time.UnixMilli(s.CreatedAt).Local().Format("2006-01-02 15:04")
			out = append(out, fmt.Sprintf("%s\tcreated %s, %d events", s.SessionID, created, s.Events))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
