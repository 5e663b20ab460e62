package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// removedCommands are the old interface, refused with the replacement.
var removedCommands = map[string]string{
	"start":  "start was removed: use debug-mode create to start a session",
	"probe":  "probe was removed: use debug-mode template to get the probe helper and call, and debug-mode probes to list or remove inserted probes",
	"run":    "run was removed: run the reproduction with debug-mode reproduce --session <id> -- <command> [args...]",
	"clear":  "clear was removed: use debug-mode reset --session <id>",
	"daemon": "daemon was removed: the background work manages itself; use debug-mode stop to end it",
}

// addRemovedCommands registers hidden commands that fail with a clear error,
// so the old interface never silently does something else.
func addRemovedCommands(root *cobra.Command) {
	for name, msg := range removedCommands {
		msg := msg
		root.AddCommand(&cobra.Command{
			Use:                name,
			Hidden:             true,
			DisableFlagParsing: true,
			RunE:               func(*cobra.Command, []string) error { return &usageError{msg: msg, noHint: true} },
		})
	}
}

// removedFlags are the old create options, refused with the reason.
var removedFlags = map[string]string{
	"workspace":  "--workspace was removed: a session has no workspace; run debug-mode create with no options",
	"run-id":     "--run-id was removed: there are no runs; use debug-mode reset --session <id> between reproductions",
	"hypothesis": "--hypothesis was removed from create: hypotheses are not registered; put your label in each event's hypothesisId",
}

// addRemovedFlags declares the old flags hidden, so using them gets the
// reason instead of a bare "unknown flag".
func addRemovedFlags(cmd *cobra.Command) {
	for name := range removedFlags {
		cmd.Flags().String(name, "", "")
		cmd.Flags().MarkHidden(name)
	}
}

// removedFlagError turns a parse error about a removed flag (given without
// its value) into the removal message.
func removedFlagError(err error) error {
	for name, msg := range removedFlags {
		if strings.HasSuffix(err.Error(), "--"+name) {
			return &usageError{msg: msg, noHint: true}
		}
	}
	return nil
}

func checkRemovedFlags(cmd *cobra.Command) error {
	for _, name := range []string{"workspace", "run-id", "hypothesis"} {
		if cmd.Flags().Changed(name) {
			return &usageError{msg: removedFlags[name], noHint: true}
		}
	}
	return nil
}
