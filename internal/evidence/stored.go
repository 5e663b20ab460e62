package evidence

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// StoredEvent is one canonical evidence record as written to and read from the session's evidence file.
type StoredEvent struct {
	ID           string          `json:"id"`
	Sequence     int64           `json:"sequence"`
	ReceivedAt   int64           `json:"receivedAt"`
	HypothesisID string          `json:"hypothesisId"`
	Location     string          `json:"location"`
	Message      string          `json:"message"`
	Data         json.RawMessage `json:"data"`
	Timestamp    int64           `json:"timestamp"`
}

// AppendStored appends the canonical JSON line (with trailing '\n') for r numbered seq, in exactly that field order.
// It is written by hand rather than marshalled so that the field order is
// fixed and appending costs no reflection. r.Data must be valid compact JSON,
// as Normalize produces; empty Data is stored as null.
func AppendStored(dst []byte, id string, seq, receivedAt int64, r *Record) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendInt(dst, seq, 10)
	dst = append(dst, `,"receivedAt":`...)
	dst = strconv.AppendInt(dst, receivedAt, 10)
	dst = append(dst, `,"hypothesisId":`...)
	dst = appendString(dst, r.HypothesisID)
	dst = append(dst, `,"location":`...)
	dst = appendString(dst, r.Location)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, r.Message)
	dst = append(dst, `,"data":`...)
	if len(r.Data) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, r.Data...)
	}
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, r.Timestamp, 10)
	return append(dst, "}\n"...)
}

// appendString quotes s as a JSON string. Invalid UTF-8 cannot come from
// Normalize; if a caller passes it anyway, jsontext substitutes U+FFFD and the
// line stays valid, so the error carries no information worth returning.
func appendString(dst []byte, s string) []byte {
	dst, _ = jsontext.AppendQuote(dst, s)
	return dst
}

// SplitLines calls fn for each non-blank line of an NDJSON body with its
// 1-based line number in body, without the "\n" and one trailing "\r".
// A final line without "\n" is passed too: callers that must hold back a
// partial line (file tailing) should cut body after its last "\n" first.
// It stops early when fn returns false.
func SplitLines(body []byte, fn func(lineNo int, line []byte) bool) {
	for n := 1; len(body) > 0; n++ {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if k := len(line); k > 0 && line[k-1] == '\r' {
			line = line[:k-1]
		}
		if isBlank(line) {
			continue
		}
		if !fn(n, line) {
			return
		}
	}
}
