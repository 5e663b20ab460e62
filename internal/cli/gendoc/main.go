// Command gendoc regenerates the command reference from the command tree:
// docs/commands.md and the command table in README.md. Run it from the
// repository root after changing any command's help:
//
//	go run ./internal/cli/gendoc
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/agentic-debug-mode/debug-mode/internal/cli"
)

func main() {
	var ref bytes.Buffer
	cli.CommandReference(&ref)
	if err := os.WriteFile("docs/commands.md", ref.Bytes(), 0o644); err != nil {
		fail(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		fail(err)
	}
	out, ok := cli.ReplaceCommandTable(string(readme))
	if !ok {
		fail(fmt.Errorf("README.md lacks the %q and %q markers", cli.ReferenceBegin, cli.ReferenceEnd))
	}
	if err := os.WriteFile("README.md", []byte(out), 0o644); err != nil {
		fail(err)
	}
	fmt.Println("wrote docs/commands.md and the command table in README.md")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gendoc:", err, "(run it from the repository root)")
	os.Exit(1)
}
