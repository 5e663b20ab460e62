package otlp

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/protobuf/encoding/protowire"
)

// maxDepth and maxJSONDepth bound nesting to about ten levels of maps in a
// value: a log record's attribute value is 5 messages deep (10 JSON levels),
// and each map inside a value adds 3 (4 in JSON). pdata itself stops at 100.
const (
	maxDepth     = 40
	maxJSONDepth = 52
)

// ErrTooDeep means a request nests messages deeper than maxDepth.
var ErrTooDeep = fmt.Errorf("the request nests values more than %d levels deep; flatten attribute and body values", maxDepth)

// checkBudget refuses, before anything is decoded, a request that would cost
// too much memory to decode: more than MaxMessages messages or nesting
// deeper than maxDepth (JSON, and protobuf bodies large enough to hold that
// many). It allocates nothing, so refusing costs no memory.
func checkBudget(body []byte, enc Encoding) error {
	if enc == JSON {
		return checkJSON(body)
	}
	if len(body) <= 2*MaxMessages {
		// A nested message takes at least 2 bytes on the wire (a tag and a
		// length), so a body this small cannot pass the limit: no need to
		// scan it. pdata's own recursion limit bounds its nesting.
		return nil
	}
	s := protoScan{}
	if !s.message(body, 0) {
		if s.err != nil {
			return s.err
		}
		return fmt.Errorf("%w (application/x-protobuf): it is not protobuf wire format", ErrMalformed)
	}
	return s.err
}

// protoScan counts messages without a schema: every length-delimited field
// whose content is itself well-formed wire format counts as a message (a
// string that happens to parse is counted too, which only errs on the safe
// side).
type protoScan struct {
	n   int
	err error // set once a limit is passed; the scan then stops
}

// message reports whether b is well-formed wire format, counting the
// messages nested in it.
func (s *protoScan) message(b []byte, depth int) bool {
	for len(b) > 0 && s.err == nil {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return false
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		s.sub(v, depth+1)
	}
	return true
}

// sub counts v if it is a message (an empty one is, and costs as much).
func (s *protoScan) sub(v []byte, depth int) {
	if depth >= maxDepth {
		if len(v) > 0 && (&protoScan{}).flat(v) {
			s.err = ErrTooDeep
		}
		return
	}
	before := s.n
	if !s.message(v, depth) {
		s.n = before // a string or bytes value, not a message
		return
	}
	s.n++
	if s.n > MaxMessages && s.err == nil {
		s.err = ErrTooLarge
	}
}

// flat reports whether b is well-formed wire format, without looking inside
// its length-delimited fields.
func (s *protoScan) flat(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return false
		}
		b = b[n:]
	}
	return true
}

// checkJSON counts the objects and arrays of a JSON body with a streaming
// tokenizer, and checks its syntax and nesting.
func checkJSON(body []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	n := 0
	for {
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w (application/json): %v", ErrMalformed, err)
		}
		if k := tok.Kind(); k == '{' || k == '[' {
			if n++; n > MaxMessages {
				return ErrTooLarge
			}
			if dec.StackDepth() > maxJSONDepth {
				return ErrTooDeep
			}
		}
	}
}
