// Package harness is what the benchmark programs share: running the real
// debug-mode binary against an isolated state root, and reading the
// service's memory and CPU use from /proc.
package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HomeEnv is the variable that points debug-mode at its state root.
const HomeEnv = "AGENT_DEBUG_MODE_HOME"

// Env is one isolated state root and the binary run against it.
type Env struct {
	Bin     string
	Home    string
	Extra   []string // KEY=VALUE added to the CLI's environment, which the service it starts inherits
	tempDir string   // removed by Close when the harness made it
}

// NewEnv uses home, or makes a private temporary state root when home is "".
func NewEnv(bin, home string) (*Env, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("debug-mode binary: %w", err)
	}
	e := &Env{Bin: abs}
	if home == "" {
		dir, err := os.MkdirTemp("", "debug-mode-bench-")
		if err != nil {
			return nil, err
		}
		e.tempDir, home = dir, filepath.Join(dir, "state")
	}
	if e.Home, err = filepath.Abs(home); err != nil {
		return nil, err
	}
	return e, nil
}

// Command is the debug-mode CLI with args, run against this state root.
func (e *Env) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.Bin, args...)
	cmd.Env = append(append(os.Environ(), HomeEnv+"="+e.Home), e.Extra...)
	return cmd
}

// Run runs the CLI and returns its stdout; a non-zero exit is an error that
// carries stderr.
func (e *Env) Run(args ...string) ([]byte, error) {
	cmd := e.Command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("debug-mode %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// Session is what create --json reports.
type Session struct {
	SessionID    string `json:"sessionId"`
	IngestURL    string `json:"ingestUrl"`
	AppendPath   string `json:"appendPath"`
	OTLPEndpoint string `json:"otlpEndpoint"`
}

// Create makes a session (starting the service if none runs).
func (e *Env) Create() (Session, error) {
	out, err := e.Run("create", "--json")
	if err != nil {
		return Session{}, err
	}
	var env struct{ Result Session }
	if err := json.Unmarshal(out, &env); err != nil || env.Result.SessionID == "" {
		return Session{}, fmt.Errorf("create --json printed %q: %v", out, err)
	}
	return env.Result, nil
}

// Status is the part of status --json the benchmarks check.
type Status struct {
	Events                int64 `json:"events"`
	HeldBackEvents        int64 `json:"heldBackEvents"`
	RejectedRecords       int64 `json:"rejectedRecords"`
	Warnings              int64 `json:"warnings"`
	IncompleteRecordBytes int64 `json:"incompleteRecordBytes"`
}

// Status runs status --session id --json.
func (e *Env) Status(id string) (Status, error) {
	out, err := e.Run("status", "--session", id, "--json")
	if err != nil {
		return Status{}, err
	}
	var env struct{ Result Status }
	if err := json.Unmarshal(out, &env); err != nil {
		return Status{}, fmt.Errorf("status --json printed %q: %v", out, err)
	}
	return env.Result, nil
}

// ServicePID reads the running service's pid from service.json.
func (e *Env) ServicePID() (int, error) {
	b, err := os.ReadFile(filepath.Join(e.Home, "service.json"))
	if err != nil {
		return 0, err
	}
	var d struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(b, &d); err != nil || d.PID <= 0 {
		return 0, fmt.Errorf("service.json has no pid: %q", b)
	}
	return d.PID, nil
}

// Close stops the service and removes a state root the harness made.
func (e *Env) Close() {
	e.Run("stop")
	if e.tempDir != "" {
		os.RemoveAll(e.tempDir)
	}
}

// ProcMem is a process's resident memory in bytes.
type ProcMem struct{ RSS, HWM int64 }

// ReadMem reads VmRSS and VmHWM from /proc/<pid>/status.
func ReadMem(pid int) (ProcMem, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return ProcMem{}, err
	}
	var m ProcMem
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.HWM
		default:
			continue
		}
		f := strings.Fields(v) // "12345 kB"
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			*dst = n << 10
		}
	}
	return m, nil
}

// ResetHWM asks the kernel to restart the VmHWM peak from the current RSS
// (writing 5 to clear_refs, Linux 4.0+). It reports whether that worked.
func ResetHWM(pid int) bool {
	return os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0) == nil
}

// CPUSeconds is the process's user and system CPU time so far.
func CPUSeconds(pid int) (user, sys float64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name is parenthesised and may hold spaces: skip past it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	const hz = 100 // USER_HZ; 100 on every Linux ABI Go supports
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return ut / hz, st / hz, nil
}

// Sampler polls a process's VmRSS at a fixed interval and keeps the peak.
type Sampler struct {
	pid     int
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	peak    int64
	samples int
}

// StartSampler samples pid every interval until Stop.
func StartSampler(pid int, interval time.Duration) *Sampler {
	s := &Sampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	s.sample()
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *Sampler) sample() {
	m, err := ReadMem(s.pid)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.peak = max(s.peak, m.RSS)
	s.samples++
	s.mu.Unlock()
}

// Stop takes a last sample and returns the peak VmRSS seen and the number
// of samples.
func (s *Sampler) Stop() (peak int64, samples int) {
	close(s.stop)
	<-s.done
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.samples
}

// MiB formats bytes as mebibytes.
func MiB(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" }

// Group formats n with thousands separators.
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Verdict words a target check.
func Verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}
