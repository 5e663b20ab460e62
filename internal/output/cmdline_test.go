package output

import (
	"os/exec"
	"slices"
	"strings"
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

// TestCommandLineControlCharacters: an argument that holds a character
// Escape changes (a label copied from evidence) is still printed on one line
// with no raw control character, and both SplitCommandLine and a real shell
// read back exactly the same bytes.
func TestCommandLineControlCharacters(t *testing.T) {
	args := []string{"logs", "--hypothesis", "H1\nWARNING: forged\x1b[31m", "--location", "a\u202eb\u2028c\x07'\\", "--message", "bad\xffbyte\u0085"}
	line := CommandLine(args...)
	if Escape(line) != line {
		t.Fatalf("%q holds characters Escape would change", line)
	}
	got, ok := SplitCommandLine(line[len("debug-mode "):])
	if !ok || !slices.Equal(got, args) {
		t.Fatalf("%q split back into %q (ok %v), want %q", line, got, ok, args)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to check the quoting against")
	}
	out, err := exec.Command(bash, "-c", `debug-mode() { printf '%s\0' "$@"; }; `+line).Output()
	if err != nil {
		t.Fatal(err)
	}
	if words := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(words, args) {
		t.Errorf("bash read %q back as %q", line, words)
	}
}
