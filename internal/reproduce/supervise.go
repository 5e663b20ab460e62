package reproduce

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// SupervisorCommand is the hidden subcommand that supervises one
// reproduction. The CLI starts it (the same binary) with the command's
// spec; it makes itself a child subreaper, starts the command in a process
// group of its own, reaps every process of the tree (orphaned grandchildren
// are reparented to it, however they left the group), ends the whole tree
// at the timeout or when asked to, and reports on the file descriptor 3.
//
// A process of its own, not the CLI: a subreaper must wait for any child,
// and the CLI has children of its own (the service it may have started,
// tools it runs) that such a wait would steal, above all inside the MCP
// server, where tool calls run side by side.
const SupervisorCommand = "__reproduce"

// spec is what the CLI passes to the supervisor, as JSON on its stdin (an
// argument could not hold a long command line).
type spec struct {
	Args    []string `json:"args"` // Args[0] resolved to a path already
	Timeout int64    `json:"timeoutMs"`
	Grace   int64    `json:"graceMs"` // between SIGTERM and SIGKILL when ending the tree
}

// Ends of a reproduction.
const (
	EndExited      = "exited"      // every process ended by itself
	EndTimeout     = "timeout"     // the timeout ended the tree
	EndInterrupted = "interrupted" // the CLI was interrupted or its caller gave up
)

// Report is what the supervisor tells the CLI.
type Report struct {
	Started    bool   `json:"started"`
	StartError string `json:"startError,omitempty"` // why the command could not start
	StartErrno string `json:"startErrno,omitempty"` // ENOENT, EACCES, ENOEXEC, …
	PID        int    `json:"pid,omitempty"`
	ExitCode   int    `json:"exitCode"`         // -1 when a signal ended it
	Signal     string `json:"signal,omitempty"` // the signal that ended it
	CoreDumped bool   `json:"coreDumped,omitempty"`
	CommandMs  int64  `json:"commandMs"` // start → the command's own process ended
	TreeMs     int64  `json:"treeMs"`    // start → the last process of the tree ended
	Processes  int    `json:"processes"` // processes reaped: the command and every orphan of its tree
	End        string `json:"end"`       // EndExited, EndTimeout or EndInterrupted
	Signalled  int    `json:"signalled"` // processes the supervisor signalled to end the tree
	Killed     bool   `json:"killed"`    // the grace ran out and SIGKILL was sent
	Subreaper  bool   `json:"subreaper"` // orphans were tracked (PR_SET_CHILD_SUBREAPER worked)
	Note       string `json:"note,omitempty"`
}

// maxSpecBytes bounds the spec read from stdin.
const maxSpecBytes = 16 << 20

// Supervise is the supervisor process's main: it reads the spec from
// stdin and writes one JSON report on descriptor 3.
func Supervise(args []string) int {
	// The report descriptor must not reach the command: a process that
	// outlived us would hold the CLI's read open, or write into it.
	syscall.CloseOnExec(3)
	out := os.NewFile(3, "report")
	var sp spec
	b, err := io.ReadAll(io.LimitReader(os.Stdin, maxSpecBytes))
	if len(args) != 0 || err != nil || json.Unmarshal(b, &sp) != nil || len(sp.Args) == 0 {
		fmt.Fprintln(os.Stderr, "debug-mode: "+SupervisorCommand+" is internal to debug-mode reproduce")
		return 2
	}
	rep := supervise(sp)
	if out != nil {
		json.NewEncoder(out).Encode(rep)
		out.Close()
	}
	return 0
}

func supervise(sp spec) Report {
	rep := Report{End: EndExited}
	rep.Subreaper = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	if !rep.Subreaper {
		rep.Note = "this system refused PR_SET_CHILD_SUBREAPER: processes that left the tree were not waited for"
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		rep.StartError, rep.StartErrno = err.Error(), "EIO"
		return rep
	}
	start := time.Now()
	p, err := os.StartProcess(sp.Args[0], sp.Args, &os.ProcAttr{
		Files: []*os.File{devnull, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	devnull.Close()
	if err != nil {
		rep.StartError, rep.StartErrno = startError(err)
		return rep
	}
	rep.Started, rep.PID = true, p.Pid

	// One goroutine reaps every child, the command and adopted orphans
	// alike, until none is left.
	type reaped struct {
		pid int
		ws  unix.WaitStatus
	}
	reapedc := make(chan reaped, 16)
	go func() {
		defer close(reapedc)
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return // ECHILD: the whole tree is gone
			}
			reapedc <- reaped{pid, ws}
		}
	}()

	timeout := time.NewTimer(time.Duration(sp.Timeout) * time.Millisecond)
	defer timeout.Stop()
	var (
		ending    bool
		sig       = syscall.SIGTERM
		grace     <-chan time.Time
		rescan    <-chan time.Time
		commandUp = true
	)
	end := func(why string) {
		if ending {
			return
		}
		ending, rep.End = true, why
		grace = time.After(time.Duration(sp.Grace) * time.Millisecond)
		tick := time.NewTicker(20 * time.Millisecond)
		rescan = tick.C
		rep.Signalled += endTree(p.Pid, commandUp, sig)
	}
	for {
		select {
		case r, ok := <-reapedc:
			if !ok {
				rep.TreeMs = time.Since(start).Milliseconds()
				return rep
			}
			rep.Processes++
			if r.pid == p.Pid {
				commandUp = false
				rep.CommandMs = time.Since(start).Milliseconds()
				switch {
				case r.ws.Exited():
					rep.ExitCode = r.ws.ExitStatus()
				case r.ws.Signaled():
					rep.ExitCode, rep.Signal, rep.CoreDumped = -1, signalName(r.ws.Signal()), r.ws.CoreDump()
				}
			}
		case <-timeout.C:
			end(EndTimeout)
		case <-sigs:
			end(EndInterrupted)
		case <-grace:
			sig, rep.Killed, grace = syscall.SIGKILL, true, nil
			endTree(p.Pid, commandUp, sig)
		case <-rescan:
			// Processes forked meanwhile, or reparented to us, get the
			// signal too.
			endTree(p.Pid, commandUp, sig)
		}
	}
}

// endTree signals the command's process group (while its leader is
// unreaped, so the group id cannot name anyone else) and every process
// below the supervisor; it returns how many processes it reached.
func endTree(leader int, leaderUp bool, sig syscall.Signal) int {
	if leaderUp {
		syscall.Kill(-leader, sig)
	}
	return signalTree(os.Getpid(), sig)
}

// startError names why the command could not start.
func startError(err error) (string, string) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error(), "EIO"
	}
	name := map[syscall.Errno]string{
		syscall.ENOENT: "ENOENT", syscall.EACCES: "EACCES", syscall.ENOEXEC: "ENOEXEC",
		syscall.EISDIR: "EISDIR", syscall.ENOTDIR: "ENOTDIR", syscall.E2BIG: "E2BIG",
		syscall.ETXTBSY: "ETXTBSY", syscall.ELOOP: "ELOOP", syscall.EPERM: "EPERM",
	}[errno]
	if name == "" {
		name = "E" + fmt.Sprint(int(errno))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error(), name
	}
	return err.Error(), name
}

func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}
