// Package logpoints holds logpoints: probes that record an event when a
// line of an interpreted program runs, put there at start-up by a hook the
// program loads from debug-mode's private state directory, so no file of
// the project is ever edited.
//
// The contract every language hook follows (Python's, python.go, and
// Node.js's, node.go, follow it; another plugs in the same way, see
// Register):
//
//   - The spec. A session's logpoints are stored by the service in the
//     session directory as logpoints.json (owner-only), the File type. A
//     process learns its path from AGENT_DEBUG_MODE_LOGPOINTS and reads it
//     once at start-up; logpoints added later reach processes started later.
//     A hook takes the entries whose language is its own and compares
//     RealFile (symbolic links resolved) with the files the runtime loads.
//   - The events. Each time the line is reached, just before it runs, the
//     hook evaluates Data (an expression of the language, in the frame that
//     reaches the line; none means null) and queues an ordinary event:
//     hypothesisId, location (Location: the project-root-relative path:line,
//     the same for every process), message, data, timestamp in epoch ms. A
//     background writer appends queued lines to AGENT_DEBUG_MODE_APPEND_PATH
//     in batches (one write per batch) and flushes at exit, so the hit
//     itself makes no system call (past a thread's first 100 records,
//     which are written at once, so a process killed early keeps them). An expression that throws records
//     {"agentDebugLogpointError":"<Type>: <message>"} as data. Nothing a
//     logpoint does may change the program's output, behaviour or exit
//     status.
//   - The report. When a hook has placed (or failed to place) a logpoint in
//     a process, it appends one control record on the same path:
//     {"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"<pid>-<start ms>"}}
//     (a Node.js worker thread adds "-t<thread id>": it is a hook instance
//     of its own, with its own cap)
//     or with "state":"failed" and a one-line "reason" that names the line to
//     use instead where there is one. The service keeps these per cycle
//     (evidence.ParseLogpointReport, store) and never counts them as events;
//     `logpoint list` and reproduce turn them into hit / never hit / never
//     installed.
//   - The cap. Past AGENT_DEBUG_MODE_MAX_PER_LOCATION events (default
//     sessionenv.DefaultMaxPerLocation) from one logpoint in one process, a
//     hook stops sending and reports the count with a held-back record, as
//     the code helpers do. (Node.js counts 1,000 at most, then removes the
//     breakpoint: counting costs a V8 breakpoint hit each.)
package logpoints

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
)

// FileVersion is the version of logpoints.json; a hook ignores a file of a
// version it does not know.
const FileVersion = 1

// Bounds of what a session holds.
const (
	MaxLogpoints = 100  // per session
	MaxDataBytes = 4096 // the source of a data expression
)

// Logpoint is one logpoint, as stored and as hooks read it.
type Logpoint struct {
	ID           string `json:"id"`       // lp-1, lp-2, …: never reused within a session
	Language     string `json:"language"` // a registered Language's ID
	File         string `json:"file"`     // absolute path, as resolved from the adding command's folder
	RealFile     string `json:"realFile"` // File with symbolic links resolved: what hooks compare
	Path         string `json:"path"`     // relative to the project root when under it, else absolute
	Line         int    `json:"line"`
	Location     string `json:"location"` // Path:Line, the location of every event it records
	HypothesisID string `json:"hypothesisId"`
	Message      string `json:"message"`
	Data         string `json:"data,omitempty"` // an expression of the language; empty: data is null
	// Placement says where the logpoint runs when that is not simply
	// "before the statement on this line" (an except clause's body, say);
	// the language check fills it.
	Placement string `json:"placement,omitempty"`
	CreatedAt int64  `json:"createdAt"` // epoch milliseconds
}

// File is logpoints.json: every logpoint of a session.
type File struct {
	Version   int        `json:"version"`
	SessionID string     `json:"sessionId"`
	NextID    int64      `json:"nextId"` // the number the next logpoint's id gets
	Logpoints []Logpoint `json:"logpoints"`
}

// ValidID reports whether s is a logpoint id.
func ValidID(s string) bool { return evidence.ValidLogpointID(s) }

// FormatID is the id of the n-th logpoint of a session.
func FormatID(n int64) string { return "lp-" + strconv.FormatInt(n, 10) }

// ErrInvalid marks a spec that breaks the rules; its message says which.
var ErrInvalid = errors.New("invalid logpoint")

func invalidf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// CheckText applies the rules of an event's text fields to a flag's value:
// valid UTF-8, not blank, within the field's limit.
func CheckText(flag, s string, max int) error {
	switch {
	case !utf8.ValidString(s):
		return invalidf("%s is not valid UTF-8", flag)
	case strings.TrimSpace(s) == "":
		return invalidf("%s must not be empty", flag)
	case len(s) > max:
		return invalidf("%s is %d bytes; the limit is %d bytes, so shorten it", flag, len(s), max)
	}
	return nil
}

// Validate checks a logpoint as the service receives it, before it gets an
// id: everything the adding command resolved, bounded as an event would be.
// The file itself was checked by the adding command, which can see it.
func (lp *Logpoint) Validate() error {
	lim := evidence.DefaultLimits
	if err := CheckText("--hypothesis", lp.HypothesisID, lim.MaxLabelBytes); err != nil {
		return err
	}
	if err := CheckText("--message", lp.Message, lim.MaxMessageBytes); err != nil {
		return err
	}
	if err := CheckData(lp.Data); err != nil {
		return err
	}
	if Lookup(lp.Language) == nil {
		return invalidf("language %q has no logpoint support in this build", lp.Language)
	}
	for _, p := range []struct{ name, v string }{{"file", lp.File}, {"realFile", lp.RealFile}} {
		if !filepath.IsAbs(p.v) || filepath.Clean(p.v) != p.v || !utf8.ValidString(p.v) || strings.ContainsAny(p.v, "\x00\n\r") {
			return invalidf("%s must be a clean absolute path", p.name)
		}
	}
	if lp.Line < 1 || lp.Line > 10_000_000 {
		return invalidf("the line must be a number from 1")
	}
	if err := CheckText("the path", lp.Path, lim.MaxLocationBytes-12); err != nil {
		return err
	}
	if lp.Location != Location(lp.Path, lp.Line) {
		return invalidf("the location must be %q", Location(lp.Path, lp.Line))
	}
	if len(lp.Placement) > 200 || !utf8.ValidString(lp.Placement) {
		return invalidf("the placement note is too long")
	}
	return nil
}

// CheckData bounds a data expression; its syntax is the language check's.
func CheckData(expr string) error {
	switch {
	case expr == "":
		return nil
	case !utf8.ValidString(expr):
		return invalidf("--data is not valid UTF-8")
	case strings.TrimSpace(expr) == "":
		return invalidf("--data is blank; leave it out to record null")
	case len(expr) > MaxDataBytes:
		return invalidf("--data is %d bytes; the limit is %d bytes: record only the values that test the hypothesis", len(expr), MaxDataBytes)
	}
	return nil
}

// Location is the location of a logpoint's events.
func Location(path string, line int) string { return path + ":" + strconv.Itoa(line) }

// SplitAt splits --at PATH:LINE at its last colon.
func SplitAt(at string) (path string, line int, err error) {
	i := strings.LastIndexByte(at, ':')
	if i <= 0 || i == len(at)-1 {
		return "", 0, invalidf("--at %q must be PATH:LINE, e.g. src/report.py:44", at)
	}
	n, perr := strconv.Atoi(at[i+1:])
	if perr != nil || n < 1 {
		return "", 0, invalidf("--at %q: the line after the last colon must be a number from 1, e.g. src/report.py:44", at)
	}
	return at[:i], n, nil
}
