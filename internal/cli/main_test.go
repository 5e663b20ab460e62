package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/client"
	"github.com/agentic-debug-mode/debug-mode/internal/reproduce"
)

// TestMain lets the test binary serve as the background service the tests
// that read evidence start, and gives them a state root of their own.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == client.ServiceCommand || os.Args[1] == reproduce.SupervisorCommand) {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	home, err := os.MkdirTemp("", "debug-mode-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	state := filepath.Join(home, "state")
	os.Setenv("AGENT_DEBUG_MODE_HOME", state)
	os.Setenv("AGENT_DEBUG_MODE_IDLE_TIMEOUT", "2m")
	code := m.Run()
	stopService(state)
	os.RemoveAll(home)
	os.Exit(code)
}

// stopService ends the service the tests started, if any.
func stopService(state string) {
	b, err := os.ReadFile(filepath.Join(state, "service.json"))
	if err != nil {
		return
	}
	var d struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(b, &d) == nil && d.PID > 1 {
		syscall.Kill(d.PID, syscall.SIGTERM)
		for i := 0; i < 200 && syscall.Kill(d.PID, 0) == nil; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
}
