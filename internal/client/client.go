// Package client is how a CLI command reaches the hidden service: it reads
// the discovery file, starts the service when none is healthy, replaces one
// from another build, and makes sure concurrent CLIs end with exactly one.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentic-debug-mode/debug-mode/internal/buildinfo"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/service"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// ServiceCommand is the hidden subcommand that runs the service.
const ServiceCommand = "__service"

// StartError is a service that could not start, with the reason it gave.
// Trying again cannot help until the cause is fixed.
type StartError struct{ Reason string }

func (e *StartError) Error() string { return "the debug-mode service cannot start: " + e.Reason }

// Error is an answer from the service that is not a success.
type Error struct {
	Status int
	Code   string
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Client talks to the service of this build, starting it when needed.
type Client struct {
	root *safefs.Root
	disc *service.Discovery
	hc   *http.Client
	// Spawn starts the service process; tests may replace it.
	Spawn func() error
}

// New opens the state root.
func New() (*Client, error) {
	path, err := statedir.Path()
	if err != nil {
		return nil, err
	}
	root, err := safefs.OpenRoot(path)
	if err != nil {
		if msg, ok := service.Refusal(err); ok {
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("state directory %s: %w", path, err)
	}
	c := &Client{root: root, hc: &http.Client{Timeout: 120 * time.Second, Transport: &http.Transport{Proxy: nil, DisableCompression: true}}}
	c.Spawn = c.spawn
	return c, nil
}

// Close releases the state root.
func (c *Client) Close() { c.root.Close() }

// Call sends one control request, making sure a healthy service of this
// build answers it: start one if none runs, replace one that is stale or of
// another build, then retry once.
func (c *Client) Call(method, path string, in, out any) error {
	if c.disc == nil {
		c.disc = c.readDiscovery()
	}
	if c.disc != nil {
		err := c.do(method, path, in, out)
		if !needsService(err) {
			return err
		}
		if method != http.MethodGet && !notDelivered(err) {
			// The request may have been carried out; sending it again could
			// act twice (two sessions, two resets).
			return fmt.Errorf("the answer was lost (%v); check the result (debug-mode sessions) before trying again", err)
		}
	}
	if err := c.ensure(); err != nil {
		return err
	}
	return c.do(method, path, in, out)
}

// notDelivered says whether the request certainly never reached a service:
// the connection was refused, or it answered that it would not act.
func notDelivered(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// needsService says whether err means "no usable service answered".
func needsService(err error) bool {
	if err == nil {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code == "build_mismatch" || e.Code == service.RetiredCode || e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	}
	return true // connection refused, reset, timeout: nothing healthy there
}

func (c *Client) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://127.0.0.1:"+strconv.Itoa(c.disc.Port)+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.disc.Token)
	req.Header.Set(service.BuildHeader, buildinfo.ID())
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var ae service.APIError
		if json.Unmarshal(data, &ae) != nil || ae.Error == "" {
			ae = service.APIError{Error: strings.TrimSpace(string(data)), Code: "internal"}
		}
		return &Error{Status: resp.StatusCode, Code: ae.Code, Msg: ae.Error}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

func (c *Client) readDiscovery() *service.Discovery {
	b, err := c.root.ReadFile(statedir.Discovery)
	if err != nil {
		return nil
	}
	var d service.Discovery
	if json.Unmarshal(b, &d) != nil || d.Port == 0 || d.Token == "" {
		return nil
	}
	return &d
}

// health asks the discovered service who it is.
func (c *Client) health() (*service.Health, error) {
	var h service.Health
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(c.disc.Port)+"/v1/health", nil)
	req.Header.Set("Authorization", "Bearer "+c.disc.Token)
	hc := &http.Client{Timeout: 2 * time.Second, Transport: c.hc.Transport}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("health: %s", resp.Status)
	}
	return &h, json.NewDecoder(resp.Body).Decode(&h)
}

// ensure leaves exactly one healthy service of this build running. The spawn
// lock serialises CLIs racing to start one; the service's own lock makes a
// second service impossible even without it.
func (c *Client) ensure() error {
	spawnLock, err := lockWithTimeout(c.root, statedir.SpawnLock, 30*time.Second)
	if err != nil {
		return fmt.Errorf("waiting to start the debug-mode service: %w", err)
	}
	defer spawnLock.Close()
	for attempt := 0; attempt < 3; attempt++ {
		c.disc = c.readDiscovery()
		if c.disc != nil {
			if h, err := c.health(); err == nil {
				if h.Build == buildinfo.ID() {
					return nil
				}
				c.stopRunning() // another build: replace it
			}
		}
		if !c.waitLockFree(5 * time.Second) {
			c.killHolder()
			if !c.waitLockFree(5 * time.Second) {
				return errors.New("an unresponsive debug-mode service could not be replaced; run debug-mode stop and try again")
			}
		}
		if err := c.Spawn(); err != nil {
			return err
		}
		c.disc = c.readDiscovery()
		if c.disc != nil {
			if h, err := c.health(); err == nil && h.Build == buildinfo.ID() {
				return nil
			}
		}
	}
	return errors.New("the debug-mode service did not start; run debug-mode stop, then try again")
}

// stopRunning asks the discovered service to stop, ignoring failures.
func (c *Client) stopRunning() {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(c.disc.Port)+"/v1/stop", nil)
	req.Header.Set("Authorization", "Bearer "+c.disc.Token)
	hc := &http.Client{Timeout: 2 * time.Second, Transport: c.hc.Transport}
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// killHolder ends a service that holds the lock but does not answer.
// Only a process that is a debug-mode service is killed: a stale discovery
// file may name a pid the system has since given to something else.
func (c *Client) killHolder() {
	d := c.readDiscovery()
	if d == nil || d.PID <= 1 {
		return
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(d.PID) + "/cmdline")
	if err != nil {
		return
	}
	args := strings.Split(string(cmdline), "\x00")
	if len(args) < 2 || args[1] != ServiceCommand {
		return
	}
	syscall.Kill(d.PID, syscall.SIGKILL)
}

// waitLockFree waits until no service holds the service lock.
func (c *Client) waitLockFree(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if f, err := service.LockFile(c.root, statedir.ServiceLock, false); err == nil {
			f.Close()
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// spawn starts the service detached from this process: new session, no
// inherited stdout/stderr, readiness reported on a pipe.
func (c *Client) spawn() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe, ServiceCommand)
	// Keep our argv[0]: multi-call test binaries dispatch on it.
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/"
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("starting the debug-mode service: %w", err)
	}
	w.Close()
	cmd.Process.Release()
	r.SetReadDeadline(time.Now().Add(15 * time.Second))
	line, err := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	switch line {
	case service.ReadyLine:
		return nil
	case service.BusyLine:
		c.waitLockFree(2 * time.Second)
		return nil // the next attempt finds or replaces the holder
	}
	if why, ok := strings.CutPrefix(line, strings.TrimSpace(service.FailedPrefix)); ok {
		return &StartError{Reason: strings.TrimSpace(why)}
	}
	if err != nil {
		return errors.New("the debug-mode service did not become ready in time; run debug-mode stop and try again")
	}
	return &StartError{Reason: line}
}

// Stop stops the running service, if any, and waits until it is gone. It
// holds the spawn lock, so it never mistakes a service being started for a
// hung one.
func (c *Client) Stop() (bool, error) {
	spawnLock, err := lockWithTimeout(c.root, statedir.SpawnLock, 30*time.Second)
	if err != nil {
		return false, fmt.Errorf("waiting for debug-mode to finish starting: %w", err)
	}
	defer spawnLock.Close()
	c.disc = c.readDiscovery()
	running := false
	if c.disc != nil {
		if _, err := c.health(); err == nil {
			running = true
			c.stopRunning()
		}
	}
	if !c.waitLockFree(5 * time.Second) {
		running = true
		c.killHolder()
		if !c.waitLockFree(5 * time.Second) {
			return true, errors.New("the debug-mode service did not stop")
		}
	}
	return running, nil
}

func lockWithTimeout(root *safefs.Root, name string, d time.Duration) (*os.File, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		f, err := service.LockFile(root, name, false)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
