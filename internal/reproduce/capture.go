package reproduce

import (
	"bytes"
	"strconv"
	"sync"
)

// Bounds of the output kept per stream: the head and the tail, since the
// start says what ran and the end says how it failed.
const (
	HeadBytes = 256 << 10
	TailBytes = 768 << 10
	// lineSlack is how far a cut may move to fall between two lines, so
	// that no half line (half a secret, say) is kept at either side of it.
	lineSlack = 4 << 10
)

// Stream keeps the head and the tail of one output stream, whatever its
// length, in constant memory.
type Stream struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // a ring of TailBytes once full
	pos     int    // next write position in tail once full
	full    bool
	total   int64
	headMax int // HeadBytes (tests shrink it)
	tailMax int
}

func newStream(head, tail int) *Stream { return &Stream{headMax: head, tailMax: tail} }

// Write keeps what fits in the head and the latest bytes in the tail.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	s.total += int64(n)
	if room := s.headMax - len(s.head); room > 0 {
		k := min(room, len(p))
		s.head = append(s.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(p) >= s.tailMax {
		s.tail = append(s.tail[:0], p[len(p)-s.tailMax:]...)
		s.pos, s.full = 0, true
		return n, nil
	}
	if !s.full {
		if len(s.tail)+len(p) <= s.tailMax {
			s.tail = append(s.tail, p...)
			return n, nil
		}
		k := s.tailMax - len(s.tail)
		s.tail = append(s.tail, p[:k]...)
		p = p[k:]
		s.full, s.pos = true, 0
	}
	for len(p) > 0 {
		k := copy(s.tail[s.pos:], p)
		p = p[k:]
		s.pos = (s.pos + k) % s.tailMax
	}
	return n, nil
}

// Kept is what is kept of the stream: everything when it fit, else the head
// and the tail, each cut at a line boundary near the cut, with one marker
// line between them that says how much was left out.
func (s *Stream) Kept() (kept []byte, total, omitted int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tail := s.tail
	if s.full {
		tail = append(append([]byte{}, s.tail[s.pos:]...), s.tail[:s.pos]...)
	}
	if s.total <= int64(len(s.head)+len(tail)) {
		return append(append([]byte{}, s.head...), tail...), s.total, 0
	}
	head := s.head
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 && len(head)-i-1 <= lineSlack {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < lineSlack {
		tail = tail[i+1:]
	}
	omitted = s.total - int64(len(head)+len(tail))
	var b bytes.Buffer
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(OmittedMarker(omitted))
	b.WriteByte('\n')
	b.Write(tail)
	return b.Bytes(), s.total, omitted
}

// OmittedMarker is the line that stands for the middle of a long stream.
func OmittedMarker(n int64) string {
	return "[debug-mode: " + strconv.FormatInt(n, 10) + " bytes of output omitted here; the head and the tail are kept]"
}
