// Package otlp turns OTLP/HTTP export requests (logs and traces, binary
// protobuf or the OTLP JSON mapping) into debug-mode event records, and
// writes the answers OTLP specifies.
//
// Decoding is the OpenTelemetry Collector's own data library (pdata), so both
// encodings, with the JSON mapping's deviations (hex trace and span ids,
// enums as integers, 64-bit integers as strings), are read exactly as the
// Collector reads them. An export request is the same message as LogsData or
// TracesData on the wire and in JSON, which is what pdata decodes; its gRPC
// service types are not used, so the binary carries no gRPC.
package otlp

import (
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
)

// Encoding is one of the two OTLP/HTTP body encodings.
type Encoding int

const (
	Protobuf Encoding = iota // application/x-protobuf
	JSON                     // application/json
)

// ContentType is the media type of the encoding; an answer uses the
// request's.
func (e Encoding) ContentType() string {
	if e == JSON {
		return "application/json"
	}
	return "application/x-protobuf"
}

// ParseContentType maps a request's media type to its encoding.
func ParseContentType(mediaType string) (Encoding, bool) {
	switch mediaType {
	case "application/x-protobuf", "application/protobuf":
		return Protobuf, true
	case "application/json":
		return JSON, true
	}
	return 0, false
}

// Signal is what a request carries.
type Signal int

const (
	Logs Signal = iota
	Traces
)

func (s Signal) String() string {
	if s == Traces {
		return "traces"
	}
	return "logs"
}

// Unit names one record of the signal in positions and messages.
func (s Signal) Unit() string {
	if s == Traces {
		return "span"
	}
	return "log record"
}

// MaxMessages bounds the protobuf messages (or JSON objects and arrays) in
// one request. Decoding allocates up to about 250 bytes per message however
// small it is on the wire (an empty span is 2 bytes), so this, not the body
// size, is what bounds the memory a hostile request can cost: about 16 MiB.
// Real batches stay well below it: 512 log records with eight attributes
// each are about 9,000 messages; a Collector sending batches of at most
// 1,024 records (send_batch_max_size) stays below it with up to 30
// attributes a record.
const MaxMessages = 1 << 16

// ErrTooLarge means a request holds more than MaxMessages messages.
var ErrTooLarge = fmt.Errorf("the request holds more than %d OTLP messages; send smaller batches (in a Collector, the batch processor's send_batch_max_size: 1024)", MaxMessages)

// ErrMalformed wraps every decoding failure.
var ErrMalformed = errors.New("the body is not a valid OTLP export request")

// DecodeLogs decodes a logs export request after checking its size.
func DecodeLogs(body []byte, enc Encoding) (plog.Logs, error) {
	if err := checkBudget(body, enc); err != nil {
		return plog.Logs{}, err
	}
	var (
		ld  plog.Logs
		err error
	)
	if enc == JSON {
		ld, err = (&plog.JSONUnmarshaler{}).UnmarshalLogs(body)
	} else {
		ld, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(body)
	}
	if err != nil {
		return plog.Logs{}, malformed(enc, err)
	}
	return ld, nil
}

// DecodeTraces decodes a traces export request after checking its size.
func DecodeTraces(body []byte, enc Encoding) (ptrace.Traces, error) {
	if err := checkBudget(body, enc); err != nil {
		return ptrace.Traces{}, err
	}
	var (
		td  ptrace.Traces
		err error
	)
	if enc == JSON {
		td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(body)
	} else {
		td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
	}
	if err != nil {
		return ptrace.Traces{}, malformed(enc, err)
	}
	return td, nil
}

// malformed wraps a decoder's error. The JSON decoder quotes the input
// around the error; that context is cut, and what remains is redacted like
// any excerpt, since it goes into a diagnostic and the answer.
func malformed(enc Encoding, err error) error {
	detail := err.Error()
	if i := strings.Index(detail, ", error found in"); i >= 0 {
		detail = detail[:i]
	}
	detail = evidence.Excerpt([]byte(detail))
	return fmt.Errorf("%w (%s): %s", ErrMalformed, enc.ContentType(), detail)
}
