package otlp

import (
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/protobuf/encoding/protowire"
)

func jsonValid(b []byte) bool { return jsontext.Value(b).IsValid() }

// fields decodes one level of wire format into field number → values
// (varints as uint64, length-delimited fields as []byte).
func fields(t *testing.T, b []byte) map[protowire.Number][]any {
	t.Helper()
	out := map[protowire.Number][]any{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag in % x", b)
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			out[num] = append(out[num], v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			out[num] = append(out[num], v)
			b = b[n:]
		default:
			t.Fatalf("unexpected wire type %d", typ)
		}
	}
	return out
}

// The answers follow the OTLP definitions: Export{Logs,Trace}ServiceResponse
// { partial_success = 1 { rejected_log_records | rejected_spans = 1;
// error_message = 2 } } and google.rpc.Status { code = 1; message = 2 },
// with the JSON mapping's names and 64-bit integers as strings. (The SDK and
// Collector end-to-end tests decode them with the official types.)
func TestResponsesFollowTheOTLPDefinitions(t *testing.T) {
	const msg = `2 of 5 log records were not stored (first: "quoted" ✓)`
	ps := fields(t, fields(t, PartialSuccess(Protobuf, Logs, 2, msg))[1][0].([]byte))
	if ps[1][0].(uint64) != 2 || string(ps[2][0].([]byte)) != msg {
		t.Errorf("protobuf partial success: %v", ps)
	}
	if len(Success(Protobuf)) != 0 {
		t.Error("a full success is an empty response")
	}
	st := fields(t, Status(Protobuf, CodeInvalidArgument, msg))
	if st[1][0].(uint64) != CodeInvalidArgument || string(st[2][0].([]byte)) != msg {
		t.Errorf("protobuf status: %v", st)
	}

	for sig, name := range map[Signal]string{Logs: "rejectedLogRecords", Traces: "rejectedSpans"} {
		b := PartialSuccess(JSON, sig, 3, msg)
		var got struct {
			PartialSuccess map[string]string `json:"partialSuccess"`
		}
		if !jsonValid(b) || json.Unmarshal(b, &got) != nil || got.PartialSuccess[name] != "3" || got.PartialSuccess["errorMessage"] != msg {
			t.Errorf("JSON partial success: %s", b)
		}
	}
	var status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if b := Status(JSON, CodeUnavailable, msg); json.Unmarshal(b, &status) != nil || status.Code != CodeUnavailable || status.Message != msg {
		t.Errorf("JSON status: %s", b)
	}
	if string(Success(JSON)) != "{}" {
		t.Error("JSON success")
	}
}
