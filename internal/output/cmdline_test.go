package output

import (
	"slices"
	"testing"
)

// TestCommandLineRoundTrip: a continuation command printed for any
// arguments splits back into exactly those arguments, as a shell would.
func TestCommandLineRoundTrip(t *testing.T) {
	for _, args := range [][]string{
		{"logs", "--session", "707225a6-8e0f-4db4-b64b-e261bd6a861a", "--offset", "50"},
		{"query", "--session", "x", "select(.data.total > 10) | {seq: .sequence}"},
		{"logs", "--message", "it's \"quoted\" \\ and spaced", "--location", ""},
		{"query", "--arg", "name=O'Brien", "$name"},
	} {
		line := CommandLine(args...)
		got, ok := SplitCommandLine(line[len("debug-mode "):])
		if !ok || !slices.Equal(got, args) {
			t.Errorf("%q split back into %q (ok %v), want %q", line, got, ok, args)
		}
	}
	if _, ok := SplitCommandLine("logs 'open"); ok {
		t.Error("an unterminated quote must be refused")
	}
}
