package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drainWait bounds how long the end of input waits for answers still owed
// (a query may run 20 s).
const drainWait = time.Minute

// drain holds the end of the client's input back until every request read
// so far has been answered, so a client that writes its requests and closes
// stdin at once (a pipe, a script) still gets every answer before the
// server ends.
type drain struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever pending shrinks
	pending map[string]bool
}

func newDrain() *drain {
	return &drain{changed: make(chan struct{}), pending: map[string]bool{}}
}

// message is what drain reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

func key(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// messages decodes a line: one message or a batch.
func messages(line []byte) []message {
	var batch []message
	if json.Unmarshal(line, &batch) == nil {
		return batch
	}
	var m message
	if json.Unmarshal(line, &m) == nil {
		return []message{m}
	}
	return nil
}

// read notes the messages from the client.
func (d *drain) read(line []byte) {
	for _, m := range messages(line) {
		d.readOne(m)
	}
}

func (d *drain) readOne(m message) {
	switch {
	case m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0:
		d.done(key(m.Params.RequestID)) // a cancelled request gets no answer
	case m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null":
		d.mu.Lock()
		d.pending[key(m.ID)] = true
		d.mu.Unlock()
	}
}

// wrote notes the messages to the client.
func (d *drain) wrote(line []byte) {
	for _, m := range messages(line) {
		if m.Method == "" && len(m.ID) > 0 {
			d.done(key(m.ID))
		}
	}
}

func (d *drain) done(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pending[id] {
		delete(d.pending, id)
		close(d.changed)
		d.changed = make(chan struct{})
	}
}

// wait returns once nothing is owed, or after drainWait.
func (d *drain) wait() {
	deadline := time.After(drainWait)
	for {
		d.mu.Lock()
		n, changed := len(d.pending), d.changed
		d.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			return
		}
	}
}

// drainReader passes the client's input through, a line at a time. A line
// longer than its buffer passes in pieces and is not read for an id.
type drainReader struct {
	d    *drain
	in   io.ReadCloser
	r    *bufio.Reader
	rest []byte
	long bool // inside a line longer than the buffer
}

func newDrainReader(d *drain, in io.ReadCloser) *drainReader {
	return &drainReader{d: d, in: in, r: bufio.NewReaderSize(in, 1<<20)}
}

func (r *drainReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		chunk, err := r.r.ReadSlice('\n')
		switch {
		case len(chunk) > 0:
			if !r.long && (err == nil || err == io.EOF) {
				r.d.read(chunk)
			}
			r.long = err == bufio.ErrBufferFull
			r.rest = append(r.rest[:0], chunk...)
		case err == io.EOF:
			r.d.wait()
			return 0, err
		case err != nil:
			return 0, err
		}
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

func (r *drainReader) Close() error { return r.in.Close() }

// drainWriter passes the server's output through, noting each answer after
// it is written.
type drainWriter struct {
	d    *drain
	out  io.WriteCloser
	line []byte
}

func (w *drainWriter) Write(p []byte) (int, error) {
	n, err := w.out.Write(p)
	w.line = append(w.line, p[:n]...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			break
		}
		w.d.wrote(w.line[:i])
		w.line = w.line[i+1:]
	}
	return n, err
}

func (w *drainWriter) Close() error { return w.out.Close() }
