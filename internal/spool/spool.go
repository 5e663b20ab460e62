// Package spool reads the append path: the file instrumented programs append
// NDJSON records to. It hands out complete lines only; a partial last line
// waits for its newline, and a line that grows past the record bound is
// reported once and skipped, so a runaway writer cannot make the reader
// buffer without limit. Release gives the disk space of lines already taken
// in back to the filesystem, so their bytes (secrets included) do not linger.
package spool

import (
	"bytes"
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
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
	if pos.Skipping {
		// The rest of an oversize line is discarded at full speed, as far
		// as the file goes now, so it holds back the lines after it for one
		// read of its length, not one chunk per poll.
		if pos, err = r.skip(f, pos, st.Size()); err != nil || pos.Skipping {
			return nil, pos, truncated, err
		}
	}
	avail := st.Size() - pos.Offset
	if avail == 0 {
		return nil, pos, truncated, nil
	}
	buf, err := r.readAt(f, pos.Offset, avail)
	if err != nil {
		return nil, pos, truncated, err
	}
	next = pos
	rest := buf
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			if len(rest) > r.MaxLine {
				// Reported now, skipped by the next read: its prefix is
				// handed out in the buffer the skip would overwrite.
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

// chunkSize is the bytes read per call: Chunk, but at least a whole line
// of MaxLine and its "\r\n".
func (r *Reader) chunkSize() int {
	chunk := r.Chunk
	if chunk <= 0 {
		chunk = 1 << 20
	}
	return max(chunk, r.MaxLine+2)
}

// readAt reads up to one chunk (at most avail bytes) at off into the
// reader's buffer.
func (r *Reader) readAt(f *os.File, off, avail int64) ([]byte, error) {
	chunk := int(min(int64(r.chunkSize()), avail))
	if cap(r.buf) < chunk {
		r.buf = make([]byte, chunk)
	}
	n, err := f.ReadAt(r.buf[:chunk], off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return r.buf[:n], nil
}

// skip discards bytes from pos through the next newline, reading chunk
// after chunk up to size. It returns the position after the newline, or
// the position at size, still skipping, when the line has not ended yet.
func (r *Reader) skip(f *os.File, pos Position, size int64) (Position, error) {
	for pos.Offset < size {
		buf, err := r.readAt(f, pos.Offset, size-pos.Offset)
		if err != nil {
			return pos, err
		}
		if len(buf) == 0 {
			break // shrank under us; the next read notices
		}
		if nl := bytes.IndexByte(buf, '\n'); nl >= 0 {
			pos.Offset += int64(nl + 1)
			pos.Skipping = false
			return pos, nil
		}
		pos.Offset += int64(len(buf))
	}
	return pos, nil
}

// Pending reports how many bytes after pos are not yet a complete line.
// The rest of an oversize line being skipped is not pending: that record
// was already refused.
func Pending(f *os.File, pos Position) int64 {
	st, err := f.Stat()
	if err != nil || st.Size() < pos.Offset || pos.Skipping {
		return 0
	}
	return st.Size() - pos.Offset
}

// ErrReleaseUnsupported means the filesystem cannot punch holes, so the
// bytes of lines already taken in stay on disk until the file is reset.
var ErrReleaseUnsupported = errors.New("the filesystem cannot release consumed bytes (no hole punching)")

// Release frees the bytes [from, to) of the spool file: they read back as
// zeros and no longer occupy disk. Punching a hole keeps the file's size,
// so programs still appending with O_APPEND notice nothing, and the kernel
// zeroes the parts of blocks the range only partly covers, so no released
// byte stays readable whatever the alignment. Call it only for lines whose
// outcome is durably stored: they cannot be read again.
func Release(f *os.File, from, to int64) error {
	if to <= from {
		return nil
	}
	for {
		err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, from, to-from)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EOPNOTSUPP || err == unix.ENOSYS:
			return ErrReleaseUnsupported
		case err != nil:
			return &os.PathError{Op: "fallocate", Path: f.Name(), Err: err}
		}
		return nil
	}
}
