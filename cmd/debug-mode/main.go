// Command debug-mode gives a coding agent runtime evidence while it debugs.
package main

import (
	"os"

	"github.com/agentic-debug-mode/debug-mode/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
