package service

import (
	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Wire types of the control API, shared by the service and the CLI client.

// BuildHeader carries the caller's build identity on every control request;
// a service of another build answers 409 so the caller replaces it.
const BuildHeader = "X-Debug-Mode-Build"

// Health is the answer to GET /v1/health.
type Health struct {
	Build   string `json:"build"`
	Version string `json:"version"`
	PID     int    `json:"pid"`
	Port    int    `json:"port"`
}

// CreateRequest is the optional body of POST /v1/sessions.
type CreateRequest struct {
	SessionSettings
	// ProjectRoot is the absolute folder event locations are made relative
	// to (the CLI sends the git top-level of its working directory).
	ProjectRoot string `json:"projectRoot,omitempty"`
}

// SessionInfo is what create and reset return.
type SessionInfo struct {
	SessionID        string `json:"sessionId"`
	CreatedAt        int64  `json:"createdAt"`
	Cycle            int64  `json:"cycle"`
	IngestURL        string `json:"ingestUrl"`
	AppendPath       string `json:"appendPath"`
	OTLPEndpoint     string `json:"otlpEndpoint"` // OTEL_EXPORTER_OTLP_ENDPOINT for OpenTelemetry exporters
	ProjectRoot      string `json:"projectRoot,omitempty"`
	IngestURLChanged bool   `json:"ingestUrlChanged"`
	PreviousURL      string `json:"previousIngestUrl,omitempty"`
	MaxPerLocation   int64  `json:"maxPerLocation"` // helpers' cap of events per location per process
}

// StatusInfo is the answer to GET /v1/sessions/{id}/status.
type StatusInfo struct {
	store.Status
	IngestURL        string `json:"ingestUrl"`
	AppendPath       string `json:"appendPath"`
	OTLPEndpoint     string `json:"otlpEndpoint"`
	ProjectRoot      string `json:"projectRoot,omitempty"`
	IngestURLChanged bool   `json:"ingestUrlChanged"`
	PreviousURL      string `json:"previousIngestUrl,omitempty"`
}

// SessionList is the answer to GET /v1/sessions.
type SessionList struct {
	Sessions []store.Summary `json:"sessions"`
	Total    int             `json:"total"`
	Omitted  int             `json:"omitted"`
}

// IngestResult is the answer to POST /ingest/{id}.
type IngestResult struct {
	Accepted int    `json:"accepted"`
	Rejected int    `json:"rejected"`
	Error    string `json:"error,omitempty"`
}

// APIError is the body of every control error.
type APIError struct {
	Error string `json:"error"`
	Code  string `json:"code"` // not_found, bad_request, build_mismatch, unauthorized, forbidden, internal
}

// LogsRequest is the body of POST /v1/sessions/{id}/logs.
type LogsRequest struct {
	Filter  store.Filter `json:"filter"`
	Offset  int          `json:"offset"`
	Limit   int          `json:"limit"`
	Cycle   int64        `json:"cycle,omitempty"`   // pin to a cycle; a reset since then is an error
	Capture string       `json:"capture,omitempty"` // read this capture instead of the live cycle
}

// QueryRequest is the body of POST /v1/sessions/{id}/query: a new query, or
// a cursor that continues one.
type QueryRequest struct {
	Spec   query.Spec `json:"spec"`
	Cursor string     `json:"cursor,omitempty"`
}

// QueryResult is one page of query output.
type QueryResult struct {
	query.Page
	Slurp      bool   `json:"slurp"`
	NullInput  bool   `json:"nullInput"`
	NextCursor string `json:"nextCursor,omitempty"`
}
