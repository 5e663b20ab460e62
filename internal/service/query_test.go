package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// postQuery sends one query request and returns the status and error answer.
func (ts *testServer) postQuery(t *testing.T, id string, spec query.Spec) (int, APIError) {
	t.Helper()
	b, _ := json.Marshal(QueryRequest{Spec: spec})
	req := ts.controlReq(t, http.MethodPost, "/v1/sessions/"+id+"/query")
	req.Body = io.NopCloser(bytes.NewReader(b))
	resp, body := secDo(t, req)
	var e APIError
	json.Unmarshal(body, &e)
	return resp.StatusCode, e
}

// TestQueryLimitsOverHTTP: the service answers a --slurp over the limit and
// a program over the memory limit with 422 too_large and the message that
// names the limit (a memory stop was an internal error before there was a
// limit to name).
func TestQueryLimitsOverHTTP(t *testing.T) {
	ts := startServer(t, Config{})
	sess := ts.create(t)
	var body strings.Builder
	for i := range query.MaxSlurp + 1 {
		fmt.Fprintf(&body, `{"hypothesisId":"H1","location":"a.py:%d","message":"m","data":%d,"timestamp":1784313728231}`+"\n", i%9, i)
	}
	if code, res := ingest(t, sess.IngestURL, "application/x-ndjson", []byte(body.String())); code != http.StatusOK || res.Accepted != query.MaxSlurp+1 {
		t.Fatalf("ingest: %d %+v", code, res)
	}
	for _, c := range []struct {
		spec query.Spec
		want string
	}{
		{query.Spec{Program: "map(tojson) | length", Slurp: true}, "more than 15,000 events"},
		{query.Spec{Program: "[range(5000000)] | length", Filter: filterSeqTo(1)}, "needed more than 24 MiB"},
	} {
		code, e := ts.postQuery(t, sess.SessionID, c.spec)
		if code != http.StatusUnprocessableEntity || e.Code != "too_large" || !strings.Contains(e.Error, c.want) {
			t.Errorf("%q: %d %+v, want 422 too_large saying %q", c.spec.Program, code, e, c.want)
		}
	}
	// Narrowed under the limit, the same slurp works.
	spec := query.Spec{Program: "map(tojson) | length", Slurp: true, Filter: filterSeqTo(query.MaxSlurp)}
	if code, e := ts.postQuery(t, sess.SessionID, spec); code != http.StatusOK {
		t.Fatalf("slurp of %d events: %d %+v", query.MaxSlurp, code, e)
	}
	// Programs reading fields by name slurp more; -n reads any number.
	for _, spec := range []query.Spec{{Program: "length", Slurp: true}, {Program: "reduce inputs as $e (0; . + 1)", NullInput: true}} {
		if code, e := ts.postQuery(t, sess.SessionID, spec); code != http.StatusOK {
			t.Fatalf("%q over %d events: %d %+v", spec.Program, query.MaxSlurp+1, code, e)
		}
	}
}

func filterSeqTo(n int64) (f store.Filter) {
	f.SeqTo = n
	return f
}
