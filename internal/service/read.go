package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Bounds of a logs page.
const (
	DefaultLogsLimit = 50
	MaxLogsLimit     = 1000
)

// loadCursorKey reads the cursor key, creating it (owner-only) on first use.
func loadCursorKey(root *safefs.Root) ([]byte, error) {
	b, err := root.ReadFile(statedir.CursorKey)
	if err == nil && len(b) >= 32 {
		return b, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	key := []byte(randomToken())
	return key, root.WriteFileAtomic(statedir.CursorKey, key)
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeErr(w, http.StatusBadRequest, "bad_request", "malformed request: "+err.Error())
		return false
	}
	return true
}

func (s *Server) handleLogs(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req LogsRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Offset < 0 || req.Limit < 0 || req.Limit > MaxLogsLimit {
		writeErr(w, http.StatusBadRequest, "bad_request", "--offset must be 0 or more and --limit between 1 and 1000")
		return
	}
	if req.Limit == 0 {
		req.Limit = DefaultLogsLimit
	}
	if req.Capture != "" {
		s.captureLogs(w, sess, req)
		return
	}
	page, err := sess.Logs(req.Filter, req.Offset, req.Limit, req.Cycle)
	if err != nil {
		s.fail(w, err)
		return
	}
	page.UserEvidence = sess.UserEvidenceCount()
	if info := s.info(sess); info.IngestURLChanged {
		page.IngestURLChanged, page.IngestURL, page.PreviousIngestURL = true, info.IngestURL, info.PreviousURL
	}
	writeJSON(w, http.StatusOK, page)
}

func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req QueryRequest
	if !decodeBody(w, r, &req) {
		return
	}
	spec, pos, cycle := req.Spec, query.Position{}, int64(0)
	if req.Cursor != "" {
		var err error
		if spec, pos, cycle, err = s.signer.Decode(req.Cursor, sess.ID()); err != nil {
			s.fail(w, err)
			return
		}
	}
	var page query.Page
	var err error
	if spec.Capture != "" {
		// The cursor names the capture by its whole id, so a prefix that later
		// becomes ambiguous cannot break a page.
		if spec.Capture, err = s.captures().Resolve(sess.ID(), spec.Capture); err != nil {
			s.failCapture(w, err)
			return
		}
		page, err = s.captureQuery(r.Context(), sess, spec, pos)
	} else {
		page, err = query.Run(r.Context(), sess, spec, pos, cycle)
	}
	if err != nil {
		s.failCapture(w, err)
		return
	}
	res := QueryResult{Page: page, Slurp: spec.Slurp, NullInput: spec.NullInput}
	if page.Next != nil {
		res.NextCursor = s.signer.Encode(sess.ID(), page.Cycle, spec, *page.Next)
	}
	writeJSON(w, http.StatusOK, res)
}

// failRead maps reading errors; false when err is not one of them.
func failRead(w http.ResponseWriter, err error) bool {
	var nc *store.NoCycleError
	switch {
	case errors.As(err, &nc):
		writeErr(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("--cycle %d is not a cycle of this session: the current cycle is %d (cycles count up from 1, one per reset, and only the current one can be read); leave --cycle out to read it", nc.Asked, nc.Current))
	case errors.Is(err, store.ErrStale):
		writeErr(w, http.StatusConflict, "stale", err.Error()+"; pages and cursors from an earlier cycle cannot be continued: read again from the start")
	case errors.Is(err, query.ErrCompile):
		writeErr(w, http.StatusBadRequest, "bad_request", err.Error())
	case errors.Is(err, query.ErrCursorInvalid), errors.Is(err, query.ErrCursorSession):
		writeErr(w, http.StatusBadRequest, "bad_cursor", err.Error())
	case errors.Is(err, query.ErrProgram):
		writeErr(w, http.StatusUnprocessableEntity, "query_failed", err.Error())
	case errors.Is(err, query.ErrBound), errors.Is(err, query.ErrMemory):
		writeErr(w, http.StatusUnprocessableEntity, "too_large", err.Error())
	default:
		return false
	}
	return true
}
