package service

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentic-debug-mode/debug-mode/internal/buildinfo"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// MemoryLimit is the service's soft heap ceiling.
const MemoryLimit = 40 << 20

// IdleEnv overrides the idle timeout (a Go duration), for tests.
const IdleEnv = "AGENT_DEBUG_MODE_IDLE_TIMEOUT"

// Discovery is the 0600 file that tells a CLI how to reach the service.
type Discovery struct {
	PID       int    `json:"pid"`
	Port      int    `json:"port"`
	Token     string `json:"token"`
	Build     string `json:"build"`
	Version   string `json:"version"`
	StartedAt int64  `json:"startedAt"`
}

// Endpoint remembers the last port, so a restarted service keeps the
// Ingest URL that probes already in code use.
type Endpoint struct {
	Port int `json:"port"`
}

// Ready lines written to the readiness pipe.
const (
	ReadyLine    = "ready"
	BusyLine     = "busy"     // another service holds the lock
	FailedPrefix = "failed: " // then why, in one line that names what to do
)

// LockFile takes an exclusive flock on a file under root. With wait false it
// fails at once when another holder exists.
func LockFile(root *safefs.Root, name string, wait bool) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// RunProcess is the body of the hidden service process. ready receives one
// line when the service is listening (or knows it must not run, or
// FailedPrefix and why it cannot start); it never writes to the CLI's
// stdout or stderr.
func RunProcess(ready *os.File) int {
	signalReady := func(line string) {
		if ready != nil {
			ready.WriteString(strings.ReplaceAll(line, "\n", " ") + "\n")
			ready.Close()
			ready = nil
		}
	}
	var root *safefs.Root
	logger := log.New(os.Stderr, "", 0)
	fail := func(what string, err error) int {
		logger.Printf("%s: %v", what, err)
		signalReady(FailedPrefix + startFailure(root, what, err))
		return 1
	}
	defer signalReady(FailedPrefix + "it stopped before it was ready (see the service log)")
	// A soft memory ceiling: the collector works harder before the service
	// grows past what an agent's machine should spend on it.
	debug.SetMemoryLimit(MemoryLimit)
	path, err := statedir.Path()
	if err != nil {
		return fail("state directory", err)
	}
	root, err = safefs.OpenRoot(path)
	if err != nil {
		return fail("state directory", err)
	}
	defer root.Close()
	logger = openLog(root)
	root.SetRepairLog(func(r safefs.Repair) { logRepair(logger, r) })
	lock, err := LockFile(root, statedir.ServiceLock, false)
	if err != nil {
		signalReady(BusyLine)
		return 0
	}
	defer lock.Close()

	var ep Endpoint
	if b, err := root.ReadFile(statedir.Endpoint); err == nil {
		json.Unmarshal(b, &ep)
	}
	ln, err := listen(ep.Port)
	if err != nil {
		return fail("listening on 127.0.0.1", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if ep.Port != 0 && port != ep.Port {
		logger.Printf("port %d was taken; now on %d: the Ingest URLs changed, port %d is no longer ours, and whatever probes still post there may reach another program (status, logs and reset warn; reset and template --session print the new URL)", ep.Port, port, ep.Port)
	}
	token := randomToken()
	build := buildinfo.ID()
	if err := writeFileJSON(root, statedir.Endpoint, Endpoint{Port: port}); err != nil {
		return fail("writing "+statedir.Endpoint, err)
	}
	disc := Discovery{PID: os.Getpid(), Port: port, Token: token, Build: build, Version: buildinfo.FullVersion(), StartedAt: time.Now().UnixMilli()}
	if err := writeFileJSON(root, statedir.Discovery, disc); err != nil {
		return fail("writing "+statedir.Discovery, err)
	}
	idle := DefaultIdle
	if v := os.Getenv(IdleEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			idle = d
		}
	}
	srv, err := New(Config{Root: root, IdleTimeout: idle, Build: build, Version: disc.Version, Token: token, Log: logger})
	if err != nil {
		return fail("opening the evidence store", err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		select {
		case s := <-sig:
			logger.Printf("signal %v", s)
			srv.Stop()
		case <-srv.Done():
		}
	}()
	logger.Printf("started pid %d port %d build %s", disc.PID, port, build)
	signalReady(ReadyLine)
	err = srv.Serve(ln)
	// Remove the discovery file only if it is still ours.
	var cur Discovery
	if b, rerr := root.ReadFile(statedir.Discovery); rerr == nil && json.Unmarshal(b, &cur) == nil && cur.PID == disc.PID && cur.Token == token {
		root.Remove(statedir.Discovery)
	}
	logger.Printf("stopped")
	if err != nil && !errors.Is(err, net.ErrClosed) {
		logger.Printf("serve: %v", err)
		return 1
	}
	return 0
}

// logRepair records a permission made private again.
func logRepair(l *log.Logger, r safefs.Repair) {
	l.Printf("%s was open to other users (mode %#o); made it private (%#o)", r.Path, r.From, r.To)
}

// listen binds loopback, preferring the port used last.
func listen(preferred int) (net.Listener, error) {
	if preferred > 0 {
		if ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(preferred)); err == nil {
			return ln, nil
		}
	}
	if preferred == 0 {
		// First start on this machine: try the contract's example port, then any.
		if ln, err := net.Listen("tcp4", "127.0.0.1:4319"); err == nil {
			return ln, nil
		}
	}
	return net.Listen("tcp4", "127.0.0.1:0")
}

// openLog opens the service's own log in the state root, starting afresh
// once it grows past 1 MiB.
func openLog(root *safefs.Root) *log.Logger {
	f, err := root.OpenFile(statedir.ServiceLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return log.New(os.Stderr, "", 0)
	}
	return log.New(&cappedLog{f: f}, fmt.Sprintf("service[%d] ", os.Getpid()), log.LstdFlags|log.Lmicroseconds)
}

// maxLogBytes bounds the service log; past it the log starts afresh.
const maxLogBytes = 1 << 20

// cappedLog keeps the service's own log bounded however long it runs.
type cappedLog struct {
	f *os.File
}

func (c *cappedLog) Write(p []byte) (int, error) {
	if fi, err := c.f.Stat(); err == nil && fi.Size()+int64(len(p)) > maxLogBytes {
		c.f.Truncate(0) // O_APPEND: the next write goes to the new end
	}
	return c.f.Write(p)
}

func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeFileJSON(root *safefs.Root, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return root.WriteFileAtomic(name, append(b, '\n'))
}
