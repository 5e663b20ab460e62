package cli

import (
	"bytes"
	"os"
	"testing"
)

// TestCommandReferenceCurrent fails when docs/commands.md or the README's
// command table no longer match the commands' help.
func TestCommandReferenceCurrent(t *testing.T) {
	const fix = "regenerate with: go run ./internal/cli/gendoc (from the repository root)"
	var ref bytes.Buffer
	CommandReference(&ref)
	got, err := os.ReadFile("../../docs/commands.md")
	if err != nil || !bytes.Equal(got, ref.Bytes()) {
		t.Errorf("docs/commands.md is out of date; %s", fix)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, ok := ReplaceCommandTable(string(readme))
	if !ok {
		t.Fatalf("README.md lacks the command table markers %q … %q", ReferenceBegin, ReferenceEnd)
	}
	if want != string(readme) {
		t.Errorf("the command table in README.md is out of date; %s", fix)
	}
}
