package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentic-debug-mode/debug-mode/internal/cli"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"debug-mode": func() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI contract: testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_GOLDEN") == "1",
		Setup: func(e *testscript.Env) error {
			state := filepath.Join(e.WorkDir, "state")
			e.Setenv("AGENT_DEBUG_MODE_HOME", state)
			e.Setenv("AGENT_DEBUG_MODE_IDLE_TIMEOUT", "2m")
			e.Setenv("TZ", "UTC")
			e.Defer(func() { stopService(state) })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"appendline": cmdAppendLine,
			"exitcode":   cmdExitCode,
			"capture":    cmdCapture,
			"post":       cmdPost,
			"nextpage":   cmdNextPage,
		},
	})
}

// stopService ends the service a script started, if any.
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
		for i := 0; i < 200; i++ {
			if syscall.Kill(d.PID, 0) != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// cmdAppendLine appends the content of a file to the append path of a
// session: appendline [-n] <session-id> <file>; -n drops the final newline,
// leaving a partial last line.
func cmdAppendLine(ts *testscript.TestScript, neg bool, args []string) {
	trim := len(args) > 0 && args[0] == "-n"
	if trim {
		args = args[1:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: appendline [-n] <session-id> <file>")
	}
	data := ts.ReadFile(args[1])
	if trim {
		data = strings.TrimSuffix(data, "\n")
	}
	p := filepath.Join(ts.Getenv("AGENT_DEBUG_MODE_HOME"), "sessions", args[0], "incoming.ndjson")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	ts.Check(err)
	_, err = f.WriteString(data)
	ts.Check(err)
	ts.Check(f.Close())
}

// cmdExitCode runs a command and checks its exit code, keeping its output
// for stdout/stderr assertions: exitcode <code> <command> [args...].
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode <code> <command> [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// cmdCapture sets an environment variable from the first submatch of a
// regexp in the last command's stdout: capture NAME REGEXP.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: capture NAME REGEXP")
	}
	re := regexp.MustCompile("(?m)" + args[1])
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil || len(m) < 2 {
		ts.Fatalf("capture: %q does not match stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// cmdPost posts a file to a URL and prints the status code and body:
// post URL FILE [CONTENT-TYPE].
func cmdPost(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: post URL FILE [CONTENT-TYPE]")
	}
	ct := "application/x-ndjson"
	if len(args) > 2 {
		ct = args[2]
	}
	resp, err := http.Post(args[0], ct, strings.NewReader(ts.ReadFile(args[1])))
	ts.Check(err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Fprintf(ts.Stdout(), "%d %s", resp.StatusCode, b)
}

// cmdNextPage runs the "Next page:" command the last stdout printed, exactly
// as an agent would paste it: nextpage [-from FILE] [exitcode].
func cmdNextPage(ts *testscript.TestScript, neg bool, args []string) {
	from := "stdout"
	if len(args) >= 2 && args[0] == "-from" {
		from, args = args[1], args[2:]
	}
	m := regexp.MustCompile(`(?m)^Next page: (debug-mode .*)$`).FindStringSubmatch(ts.ReadFile(from))
	if m == nil {
		ts.Fatalf("no Next page: line in stdout")
	}
	words, ok := output.SplitCommandLine(m[1])
	if !ok {
		ts.Fatalf("unterminated quote in %q", m[1])
	}
	want := "0"
	if len(args) > 0 {
		want = args[0]
	}
	cmdExitCode(ts, false, append([]string{want}, words...))
}
