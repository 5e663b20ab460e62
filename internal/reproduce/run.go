// Package reproduce runs one reproduction: the command in a process group
// of its own under a supervisor that reaps and, at the timeout, ends its
// whole process tree, with the session's endpoints in its environment and
// the head and tail of its output kept in constant memory.
package reproduce

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults of a run.
const (
	DefaultTimeout = 10 * time.Minute
	MaxTimeout     = 24 * time.Hour
	DefaultGrace   = time.Second // SIGTERM, then SIGKILL this much later
	keepaliveEvery = 30 * time.Second
	// drainAfterExit bounds the wait for the output pipes once the
	// supervisor is gone: every writer has ended by then, unless a process
	// escaped the tree and still holds them.
	drainAfterExit = 2 * time.Second
)

// Spec is one reproduction to run.
type Spec struct {
	Path    string   // the resolved executable (Resolve)
	Args    []string // the command as typed; Args[0] is replaced by Path only for starting
	Env     []string // the whole environment of the command
	Timeout time.Duration
	Grace   time.Duration
	// Keepalive is called every 30 s while the command runs (the service
	// must not shut down idle under a long reproduction).
	Keepalive func()
}

// Result is how the run went.
type Result struct {
	Report
	Stdout, Stderr *Stream
}

// NotStartedError means the command could not be started at all.
type NotStartedError struct {
	Command string
	Reason  string // what went wrong, in words
	Fix     string // what to do about it
}

func (e *NotStartedError) Error() string {
	return fmt.Sprintf("cannot run %q: %s; %s", e.Command, e.Reason, e.Fix)
}

// Resolve finds the command's executable as exec would, and says clearly
// why it cannot run before anything of the session is touched.
func Resolve(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil {
		return p, nil
	}
	notFound := func(reason string) error {
		fix := "check the name, give its path (./" + filepath.Base(name) + "), or install it"
		if strings.Contains(name, "/") {
			fix = "check the path (it is relative to the current folder)"
		}
		return &NotStartedError{Command: name, Reason: reason, Fix: fix}
	}
	var fi fs.FileInfo
	if strings.Contains(name, "/") {
		fi, _ = os.Stat(name)
	}
	switch {
	case errors.Is(err, exec.ErrDot):
		return "", &NotStartedError{Command: name, Reason: "it is in the current folder, which is not searched", Fix: "run it as ./" + name}
	case fi != nil && fi.IsDir():
		return "", &NotStartedError{Command: name, Reason: "it is a folder", Fix: "name the program inside it"}
	case fi != nil || errors.Is(err, fs.ErrPermission):
		return "", &NotStartedError{Command: name, Reason: "it is not executable",
			Fix: "make it executable (chmod +x " + name + ") or run it through its interpreter, e.g. -- sh " + name}
	case strings.Contains(name, "/"):
		return "", notFound("no such file")
	}
	return "", notFound("not found in PATH")
}

// startFailure turns the supervisor's report of a failed start into words.
func startFailure(name string, r Report) error {
	switch r.StartErrno {
	case "ENOENT":
		return &NotStartedError{Command: name, Reason: "it or its interpreter (the #! line) was not found", Fix: "check the #! line, or run it through its interpreter"}
	case "EACCES", "EPERM":
		return &NotStartedError{Command: name, Reason: "permission denied", Fix: "make it executable (chmod +x " + name + ") or run it through its interpreter"}
	case "ENOEXEC":
		return &NotStartedError{Command: name, Reason: "it is not a program this system can run (a script without a #! line?)", Fix: "add a #! line, or run it through its interpreter, e.g. -- sh " + name}
	}
	return &NotStartedError{Command: name, Reason: r.StartError, Fix: "check the command"}
}

// Run runs the reproduction and waits until every process of its tree has
// ended (or was ended at the timeout, or when ctx is done). The error is a
// *NotStartedError when the command could not start, another error when the
// supervisor failed.
func Run(ctx context.Context, sp Spec) (Result, error) {
	res := Result{Stdout: newStream(HeadBytes, TailBytes), Stderr: newStream(HeadBytes, TailBytes)}
	exe, err := os.Executable()
	if err != nil {
		return res, err
	}
	if sp.Timeout <= 0 {
		sp.Timeout = DefaultTimeout
	}
	if sp.Grace <= 0 {
		sp.Grace = DefaultGrace
	}
	args := append([]string{sp.Path}, sp.Args[1:]...)
	b, err := json.Marshal(spec{Args: args, Timeout: sp.Timeout.Milliseconds(), Grace: sp.Grace.Milliseconds()})
	if err != nil {
		return res, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return res, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return res, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return res, err
	}
	cmd := exec.Command(exe, SupervisorCommand)
	cmd.Stdin = bytes.NewReader(b)
	cmd.Args[0] = os.Args[0] // multi-call test binaries dispatch on it
	cmd.Env = sp.Env
	cmd.Stdout, cmd.Stderr = outW, errW // files: the command writes to the pipes directly
	cmd.ExtraFiles = []*os.File{repW}
	// If this process dies, the supervisor is told and ends the tree.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	repW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		repR.Close()
		return res, fmt.Errorf("starting the reproduction: %w", err)
	}

	var copying sync.WaitGroup
	for _, c := range []struct {
		r *os.File
		w io.Writer
	}{{outR, res.Stdout}, {errR, res.Stderr}} {
		copying.Add(1)
		go func() { defer copying.Done(); io.Copy(c.w, c.r) }()
	}
	reportc := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(repR); reportc <- b }()
	waitc := make(chan error, 1)
	go func() { waitc <- cmd.Wait() }()

	keep := time.NewTicker(keepaliveEvery)
	defer keep.Stop()
	done := ctx.Done()
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-waitc:
			break wait
		case <-keep.C:
			if sp.Keepalive != nil {
				sp.Keepalive()
			}
		case <-done:
			cmd.Process.Signal(syscall.SIGTERM) // the supervisor ends the tree and reports
			done = nil
		}
	}
	// The supervisor is gone, so its report is complete (a descendant
	// never holds the descriptor, but the read is bounded all the same).
	repR.SetReadDeadline(time.Now().Add(drainAfterExit))
	rep := <-reportc
	repR.Close()
	// Every process of the tree has ended, so the pipes are at their end;
	// a process that escaped the tree must not hold the report up.
	drained := make(chan struct{})
	go func() { copying.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainAfterExit):
		outR.SetReadDeadline(time.Now())
		errR.SetReadDeadline(time.Now())
		<-drained
	}
	outR.Close()
	errR.Close()
	if err := json.Unmarshal(rep, &res.Report); err != nil {
		return res, fmt.Errorf("the reproduction's supervisor failed (%v); run the command again", waitErr)
	}
	if !res.Started {
		return res, startFailure(sp.Args[0], res.Report)
	}
	return res, nil
}
