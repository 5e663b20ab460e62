// Package spool reads the append path: the file instrumented programs append
// NDJSON records to. It hands out complete lines only; a partial last line
// waits for its newline, and a line that grows past the record bound is
// reported once and skipped, so a runaway writer cannot make the reader
// buffer without limit.
package spool

import (
	"bytes"
	"io"
	"os"
)

// Line is one record line read from the spool, without its newline.
type Line struct {
	Offset   int64  // byte offset of the line's first byte
	Number   int64  // 1-based line number in the file
	Data     []byte // the line (a prefix only when Oversize)
	Oversize bool   // longer than the reader's MaxLine; Data holds its start
}

// Position is where reading resumes; it is what gets checkpointed.
type Position struct {
	Offset   int64 `json:"offset"`
	Lines    int64 `json:"lines"`              // complete lines consumed before Offset
	Skipping bool  `json:"skipping,omitempty"` // inside an oversize line, discard through its newline
}

// Reader reads complete lines from a spool file. It reuses one buffer, so
// the lines it returns are valid only until the next call.
type Reader struct {
	MaxLine int // longest line handed out whole
	Chunk   int // bytes read per call
	buf     []byte
}

// Read returns the complete lines after pos and the position after the last
// byte it consumed. A file shorter than pos was truncated behind our back; it
// is read again from the start and truncated reports that.
func (r *Reader) Read(f *os.File, pos Position) (lines []Line, next Position, truncated bool, err error) {
	st, err := f.Stat()
	if err != nil {
		return nil, pos, false, err
	}
	if st.Size() < pos.Offset {
		pos = Position{}
		truncated = true
	}
	avail := st.Size() - pos.Offset
	if avail == 0 {
		return nil, pos, truncated, nil
	}
	chunk := r.Chunk
	if chunk <= 0 {
		chunk = 1 << 20
	}
	if chunk < r.MaxLine+2 {
		chunk = r.MaxLine + 2
	}
	if int64(chunk) > avail {
		chunk = int(avail)
	}
	if cap(r.buf) < chunk {
		r.buf = make([]byte, chunk)
	}
	buf := r.buf[:chunk]
	n, err := f.ReadAt(buf, pos.Offset)
	if err != nil && err != io.EOF {
		return nil, pos, truncated, err
	}
	buf = buf[:n]
	next = pos
	rest := buf
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if next.Skipping {
			if nl < 0 {
				next.Offset += int64(len(rest))
				break
			}
			next.Offset += int64(nl + 1)
			next.Skipping = false
			rest = rest[nl+1:]
			continue
		}
		if nl < 0 {
			if len(rest) > r.MaxLine {
				next.Lines++
				lines = append(lines, Line{Offset: next.Offset, Number: next.Lines, Data: rest[:r.MaxLine], Oversize: true})
				next.Offset += int64(len(rest))
				next.Skipping = true
			}
			break // a partial line waits for its newline
		}
		next.Lines++
		line := Line{Offset: next.Offset, Number: next.Lines, Data: rest[:nl]}
		if nl > r.MaxLine {
			line.Data, line.Oversize = rest[:r.MaxLine], true
		}
		lines = append(lines, line)
		next.Offset += int64(nl + 1)
		rest = rest[nl+1:]
	}
	return lines, next, truncated, nil
}

// Pending reports how many bytes after pos are not yet a complete line.
func Pending(f *os.File, pos Position) int64 {
	st, err := f.Stat()
	if err != nil || st.Size() < pos.Offset {
		return 0
	}
	return st.Size() - pos.Offset
}
