package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strconv"
)

// scanLines calls fn for each complete line of the first size bytes of f.
func scanLines(f *os.File, size int64, fn func(line []byte)) error {
	return scanLinesAt(f, size, func(_ int64, line []byte) { fn(line) })
}

// scanLinesAt is scanLines with each line's byte offset.
func scanLinesAt(f *os.File, size int64, fn func(off int64, line []byte)) error {
	sc := bufio.NewScanner(io.NewSectionReader(f, 0, size))
	sc.Buffer(make([]byte, 256<<10), 4<<20)
	off := int64(0)
	for sc.Scan() {
		fn(off, sc.Bytes())
		off += int64(len(sc.Bytes())) + 1
	}
	return sc.Err()
}

// eventHead is what statistics need from a stored line.
type eventHead struct {
	hypothesisID string
	timestamp    int64
	receivedAt   int64
}

var (
	keyReceived = []byte(`"receivedAt":`)
	keyHyp      = []byte(`"hypothesisId":`)
	keyTS       = []byte(`,"timestamp":`)
)

// scanEventHead reads the fields statistics need without decoding the whole
// line. It relies on the fixed field order AppendStored writes; anything
// unexpected falls back to a full decode.
func scanEventHead(line []byte) (eventHead, bool) {
	var h eventHead
	i := bytes.Index(line, keyReceived)
	j := bytes.Index(line, keyHyp)
	k := bytes.LastIndex(line, keyTS)
	if i < 0 || j < 0 || k < 0 {
		return slowHead(line)
	}
	var ok bool
	if h.receivedAt, ok = leadingInt(line[i+len(keyReceived):]); !ok {
		return slowHead(line)
	}
	if h.timestamp, ok = leadingInt(line[k+len(keyTS):]); !ok {
		return slowHead(line)
	}
	rest := line[j+len(keyHyp):]
	if len(rest) < 2 || rest[0] != '"' {
		return slowHead(line)
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return slowHead(line)
	}
	raw := rest[1 : 1+end]
	if bytes.IndexByte(raw, '\\') >= 0 {
		return slowHead(line)
	}
	h.hypothesisID = string(raw)
	return h, true
}

func leadingInt(b []byte) (int64, bool) {
	n := 0
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || n == 0 && b[n] == '-') {
		n++
	}
	v, err := strconv.ParseInt(string(b[:n]), 10, 64)
	return v, err == nil
}

func slowHead(line []byte) (eventHead, bool) {
	var e struct {
		HypothesisID string `json:"hypothesisId"`
		Timestamp    int64  `json:"timestamp"`
		ReceivedAt   int64  `json:"receivedAt"`
	}
	if json.Unmarshal(line, &e) != nil {
		return eventHead{}, false
	}
	return eventHead{e.HypothesisID, e.Timestamp, e.ReceivedAt}, true
}

// jsonMarshal encodes without HTML escaping, so excerpts read as sent.
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
