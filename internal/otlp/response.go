package otlp

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/protobuf/encoding/protowire"
)

// Success is the answer to a request whose records were all stored (an
// ExportLogsServiceResponse or ExportTraceServiceResponse without
// partial_success), in the request's encoding.
func Success(enc Encoding) []byte {
	if enc == JSON {
		return []byte("{}")
	}
	return []byte{}
}

// PartialSuccess is the answer when some records were not stored: the
// response's partial_success with their number and why. Both responses
// number their fields alike (rejected_log_records or rejected_spans = 1,
// error_message = 2); only the JSON name of the count differs.
func PartialSuccess(enc Encoding, sig Signal, rejected int64, message string) []byte {
	if enc == JSON {
		name := `{"partialSuccess":{"rejectedLogRecords":"`
		if sig == Traces {
			name = `{"partialSuccess":{"rejectedSpans":"`
		}
		b := strconv.AppendInt([]byte(name), rejected, 10)
		b = append(b, `","errorMessage":`...)
		b, _ = jsontext.AppendQuote(b, message)
		return append(b, "}}"...)
	}
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(rejected))
	ps = protowire.AppendTag(ps, 2, protowire.BytesType)
	ps = protowire.AppendString(ps, message)
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(b, ps)
}

// gRPC status codes used in Status answers.
const (
	CodeInvalidArgument   = 3
	CodeNotFound          = 5
	CodePermissionDenied  = 7
	CodeResourceExhausted = 8
	CodeInternal          = 13
	CodeUnavailable       = 14
)

// Status is the body of a failed request: a google.rpc.Status with a code
// and a message, in the request's encoding.
func Status(enc Encoding, code int32, message string) []byte {
	if enc == JSON {
		b := strconv.AppendInt([]byte(`{"code":`), int64(code), 10)
		b = append(b, `,"message":`...)
		b, _ = jsontext.AppendQuote(b, message)
		return append(b, '}')
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(uint32(code)))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendString(b, message)
}
