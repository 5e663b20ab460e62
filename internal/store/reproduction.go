package store

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
)

// ErrBadCap means a per-location cap outside the accepted range.
var ErrBadCap = fmt.Errorf("--max-per-location must be between 1 and %d events", sessionenv.MaxMaxPerLocation)

// SetMaxPerLocation changes the session's cap of events per location per
// process (0 leaves it as it is).
func (s *Session) SetMaxPerLocation(n int64) error {
	if n == 0 {
		return nil
	}
	if n < 0 || n > sessionenv.MaxMaxPerLocation {
		return ErrBadCap
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrNotFound
	}
	if s.meta.MaxPerLocation == n {
		return nil
	}
	s.meta.MaxPerLocation = n
	return writeJSON(s.st.root, s.path(statedir.MetaFile), s.meta)
}

// BeginReproduction starts a reproduction: a new cycle unless keep, the cap
// set when maxPerLocation is not 0, and the next reproduction number.
func (s *Session) BeginReproduction(keep bool, maxPerLocation int64) (Meta, error) {
	if maxPerLocation < 0 || maxPerLocation > sessionenv.MaxMaxPerLocation {
		return Meta{}, ErrBadCap
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Meta{}, ErrNotFound
	}
	if maxPerLocation > 0 {
		s.meta.MaxPerLocation = maxPerLocation
	}
	s.meta.Reproductions++
	if !keep {
		if err := s.resetLocked(); err != nil { // writes the meta too
			return Meta{}, err
		}
		return s.meta, nil
	}
	return s.meta, writeJSON(s.st.root, s.path(statedir.MetaFile), s.meta)
}

// MaxOutputBytes bounds each stream of a stored output.
const MaxOutputBytes = 1 << 20

// OutputStream is one stream of a reproduction's output as stored: the
// bytes kept (the head and the tail, with a marker line between them when
// the middle was left out), redacted, as valid UTF-8.
type OutputStream struct {
	Text         string `json:"text"`
	TotalBytes   int64  `json:"totalBytes"`   // what the program wrote
	OmittedBytes int64  `json:"omittedBytes"` // left out of the middle
	Redactions   int    `json:"redactions"`   // secret-looking values replaced
}

// Exit is how a reproduction's command ended.
type Exit struct {
	Code        int    `json:"code"`             // the exit status, -1 when ended by a signal
	Signal      string `json:"signal,omitempty"` // e.g. SIGKILL
	TimedOut    bool   `json:"timedOut"`
	Interrupted bool   `json:"interrupted"`
	DurationMs  int64  `json:"durationMs"`
}

// Output is the output of the last reproduction of a cycle.
type Output struct {
	Cycle        int64        `json:"cycle"`
	Reproduction int64        `json:"reproduction"`
	Command      []string     `json:"command"`
	Exit         Exit         `json:"exit"`
	Stdout       OutputStream `json:"stdout"`
	Stderr       OutputStream `json:"stderr"`
	StoredAt     int64        `json:"storedAt"`
}

// ErrOutputStale means the output belongs to a reproduction that is no
// longer the session's last one (a reset or a newer reproduce came first).
var ErrOutputStale = errors.New("a newer reproduction or a reset came after this reproduction")

// SetOutput keeps o as the output of the cycle's last reproduction,
// redacting it first. It is refused unless o is that reproduction's.
func (s *Session) SetOutput(o Output) (Output, error) {
	o.Command, _ = evidence.RedactArgs(o.Command)
	for _, st := range []*OutputStream{&o.Stdout, &o.Stderr} {
		if len(st.Text) > MaxOutputBytes+4096 {
			return Output{}, fmt.Errorf("%w: an output stream is larger than %d bytes", ErrBadOutput, MaxOutputBytes)
		}
		var n int
		st.Text, n = evidence.RedactText(st.Text)
		st.Redactions += n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Output{}, ErrNotFound
	}
	if o.Cycle != s.meta.Epoch || o.Reproduction != s.meta.Reproductions {
		return Output{}, ErrOutputStale
	}
	o.StoredAt = s.st.now().UnixMilli()
	return o, writeJSON(s.st.root, s.path(statedir.OutputFile), o)
}

// ErrBadOutput means an output that cannot be stored as sent.
var ErrBadOutput = errors.New("bad output")

// Output is the output of the cycle's last reproduction; false when this
// cycle has none.
func (s *Session) Output() (Output, bool, error) {
	s.mu.Lock()
	epoch, closed := s.meta.Epoch, s.closed
	s.mu.Unlock()
	if closed {
		return Output{}, false, ErrNotFound
	}
	var o Output
	if err := readJSON(s.st.root, s.path(statedir.OutputFile), &o); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Output{}, false, nil
		}
		return Output{}, false, err
	}
	if o.Cycle != epoch {
		return Output{}, false, nil
	}
	return o, true, nil
}

// SplitOutput splits stored output into lines, without their newlines; a
// final newline ends the last line rather than starting an empty one.
func SplitOutput(text string) []string {
	if text == "" {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
