package reproduce

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"
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

// Kept is what is kept of the stream, as text: every byte that is not
// UTF-8 (binary output, a lone surrogate) is written as the four
// characters \xNN, and the text is everything when it fits, else the head
// and the tail, each within its bound after that escaping and cut at a
// line boundary near the cut, with one marker line between them that says
// how many bytes of output were left out.
func (s *Stream) Kept() (kept []byte, total, omitted int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tail := s.tail
	if s.full {
		tail = append(append([]byte{}, s.tail[s.pos:]...), s.tail[:s.pos]...)
	}
	head := s.head
	if s.total <= int64(len(s.head)+len(tail)) {
		all := append(append([]byte{}, s.head...), tail...)
		h := fitHead(all, s.headMax)
		rest := all[h:]
		t := fitTail(rest, s.tailMax)
		if t == 0 {
			return EscapeInvalid(all), s.total, 0
		}
		head, tail = all[:h], rest[t:]
	} else {
		head, tail = head[:fitHead(head, s.headMax)], tail[fitTail(tail, s.tailMax):]
	}
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 && len(head)-i-1 <= lineSlack {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < lineSlack {
		tail = tail[i+1:]
	}
	for k := 0; k < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); k++ {
		tail = tail[1:] // the rest of a character cut in two
	}
	omitted = s.total - int64(len(head)+len(tail))
	var b bytes.Buffer
	b.Write(EscapeInvalid(head))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(OmittedMarker(omitted))
	b.WriteByte('\n')
	b.Write(EscapeInvalid(tail))
	return b.Bytes(), s.total, omitted
}

// escapedLen is how long the character (or invalid byte) at the start of
// b is once escaped, and how many bytes of b it takes.
func escapedLen(b []byte) (out, in int) {
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		return 4, 1
	}
	return size, size
}

// fitHead is how many bytes at the start of b stay within max once
// escaped; a character is never cut in two.
func fitHead(b []byte, max int) int {
	n, i := 0, 0
	for i < len(b) {
		out, in := escapedLen(b[i:])
		if n+out > max {
			break
		}
		n, i = n+out, i+in
	}
	return i
}

// fitTail is where the end of b that stays within max once escaped
// starts.
func fitTail(b []byte, max int) int {
	n := 0
	for i := 0; i < len(b); {
		out, in := escapedLen(b[i:])
		n += out
		i += in
	}
	i := 0
	for i < len(b) && n > max {
		out, in := escapedLen(b[i:])
		n, i = n-out, i+in
	}
	return i
}

// EscapeInvalid returns b as valid UTF-8, every byte that is not part of a
// UTF-8 character written as \xNN (as output.Escape shows it): binary
// output stays readable and costs four bytes a byte, never more.
func EscapeInvalid(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+len(b)/4)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			out = append(out, '\\', 'x', hexDigit[b[i]>>4], hexDigit[b[i]&15])
			i++
			continue
		}
		out = append(out, b[i:i+size]...)
		i += size
	}
	return out
}

const hexDigit = "0123456789abcdef"

// KeepText bounds text that reached the service from elsewhere than Kept
// (an older client): escaped as Kept escapes it, and cut to the head and
// the tail when it is longer than Kept keeps. omitted grows by what the
// cut left out.
func KeepText(raw []byte, omitted int64) ([]byte, int64) {
	if len(raw) <= HeadBytes+TailBytes && utf8.Valid(raw) {
		return raw, omitted
	}
	s := newStream(HeadBytes, TailBytes)
	s.Write(raw)
	text, _, cut := s.Kept()
	return text, omitted + cut
}

// OmittedMarker is the line that stands for the middle of a long stream.
func OmittedMarker(n int64) string {
	return "[debug-mode: " + strconv.FormatInt(n, 10) + " bytes of output omitted here; the head and the tail are kept]"
}
