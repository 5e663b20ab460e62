package service

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/capture"
	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Control API for captures: take, list and show them, read them with logs
// and query (--capture), follow an event's links, and compare two evidence
// sets.

// CaptureList is the answer to GET /v1/sessions/{id}/captures.
type CaptureList struct {
	SessionID string            `json:"sessionId"`
	Captures  []capture.Summary `json:"captures"`
	Damaged   int               `json:"damaged"`
}

// CaptureSource is one frozen source record, as the detail lists it.
type CaptureSource struct {
	Location string           `json:"location"`
	State    string           `json:"state"`
	Reason   string           `json:"reason,omitempty"`
	Targets  []capture.Target `json:"targets,omitempty"`
}

// CaptureDetail is the answer to GET /v1/sessions/{id}/captures/{cid}.
type CaptureDetail struct {
	capture.Summary
	Header      capture.Header     `json:"header"`
	Diagnostics []store.Diagnostic `json:"diagnostics"`
	UserNotes   []store.UserNote   `json:"userNotes"`
	UserFiles   []store.UserFile   `json:"userFiles"`
	Sources     []CaptureSource    `json:"sources"`
}

// FollowRequest is the body of POST /v1/sessions/{id}/follow.
type FollowRequest struct {
	Capture string `json:"capture"`
	Seq     int64  `json:"seq"`
	Rel     string `json:"rel"`
}

// DiffRequest is the body of POST /v1/sessions/{id}/diff; To "" is the
// live cycle.
type DiffRequest struct {
	capture.DiffOptions
}

func (s *Server) captures() *capture.Store { return capture.NewStore(s.cfg.Root, s.cfg.Clock.Now) }

func (s *Server) handleCapture(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req capture.Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, "bad_request", "malformed request: "+err.Error())
		return
	}
	out, err := s.captures().Create(sess, req)
	if err != nil {
		s.failCapture(w, err)
		return
	}
	code := http.StatusCreated
	if out.Existing {
		code = http.StatusOK
	}
	writeJSON(w, code, out)
}

func (s *Server) handleCaptures(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	list, err := s.captures().List(sess.ID())
	if err != nil {
		s.failCapture(w, err)
		return
	}
	out := CaptureList{SessionID: sess.ID(), Captures: list}
	for _, c := range list {
		if c.Integrity != capture.IntegrityOK {
			out.Damaged++
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleCaptureDetail(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	c, err := s.captures().Open(sess.ID(), r.PathValue("cid"), capture.OpenOptions{Details: true})
	if err != nil {
		s.failCapture(w, err)
		return
	}
	defer c.Close()
	out := CaptureDetail{Summary: capture.Summary{Index: c.Index, Integrity: capture.IntegrityOK}, Header: c.Header,
		Diagnostics: nonNil(c.Diagnostics), UserNotes: nonNil(c.Notes), UserFiles: nonNil(c.Files), Sources: []CaptureSource{}}
	for _, src := range c.Sources {
		cs := CaptureSource{Location: src.Location, State: src.State, Reason: src.Reason}
		for _, f := range src.Files {
			cs.Targets = append(cs.Targets, capture.Target{File: f.File, StartLine: f.StartLine, EndLine: f.EndLine(), Line: f.Line})
		}
		out.Sources = append(out.Sources, cs)
	}
	writeJSON(w, http.StatusOK, out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// captureLogs answers a logs request for a capture: the same page as for
// live evidence, each event with its links.
func (s *Server) captureLogs(w http.ResponseWriter, sess *store.Session, req LogsRequest) {
	if req.Cycle != 0 {
		writeErr(w, http.StatusBadRequest, "bad_request", "--cycle pins live evidence; a capture never changes, so leave it out")
		return
	}
	c, err := s.captures().Open(sess.ID(), req.Capture, capture.OpenOptions{})
	if err != nil {
		s.failCapture(w, err)
		return
	}
	defer c.Close()
	page, err := c.LogsPage(req.Filter, req.Offset, req.Limit)
	if err != nil {
		s.failCapture(w, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// captureQuery runs a query page over a capture's events.
func (s *Server) captureQuery(ctx context.Context, sess *store.Session, spec query.Spec, pos query.Position) (query.Page, error) {
	c, err := s.captures().Open(sess.ID(), spec.Capture, capture.OpenOptions{})
	if err != nil {
		return query.Page{}, err
	}
	defer c.Close()
	page, err := query.RunOn(ctx, sess.ID(), func() (*store.Snapshot, error) { return c.Snapshot(), nil }, spec, pos)
	page.Version = c.ID()
	return page, err
}

func (s *Server) handleFollow(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req FollowRequest
	if !decodeBody(w, r, &req) {
		return
	}
	c, err := s.captures().Open(sess.ID(), req.Capture, capture.OpenOptions{})
	if err != nil {
		s.failCapture(w, err)
		return
	}
	defer c.Close()
	out, err := c.Follow(req.Seq, req.Rel)
	if err != nil {
		s.failCapture(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDiff(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req DiffRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.From == "" {
		writeErr(w, http.StatusBadRequest, "bad_request", "--from is required: the capture taken before the fix")
		return
	}
	out, err := s.captures().Diff(sess, req.DiffOptions)
	if err != nil {
		s.failCapture(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// failCapture maps capture errors; the rest go to fail.
func (s *Server) failCapture(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, capture.ErrBadID), errors.Is(err, capture.ErrRequest):
		writeErr(w, http.StatusBadRequest, "bad_request", strings.TrimPrefix(err.Error(), capture.ErrRequest.Error()+": "))
	case errors.Is(err, capture.ErrNotFound):
		writeErr(w, http.StatusNotFound, "capture_not_found", err.Error()+"; list them with debug-mode captures --session <id>")
	case errors.Is(err, capture.ErrDamaged):
		s.cfg.Log.Printf("capture: %v", err)
		writeErr(w, http.StatusUnprocessableEntity, "damaged", err.Error())
	case errors.Is(err, capture.ErrRefused):
		writeErr(w, http.StatusUnprocessableEntity, "refused", err.Error())
	case errors.Is(err, capture.ErrTooMany):
		writeErr(w, http.StatusConflict, "too_many", err.Error())
	default:
		s.fail(w, err)
	}
}
