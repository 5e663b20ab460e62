package service

import (
	"errors"
	"net/http"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/logpoints"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Control API for logpoints and the environment that injects them.

// LogpointList is the answer to GET /v1/sessions/{id}/logpoints: every
// logpoint with what became of it in the current cycle.
type LogpointList struct {
	SessionID     string             `json:"sessionId"`
	Cycle         int64              `json:"cycle"`
	Version       string             `json:"evidenceVersion"`
	Events        int64              `json:"events"`
	LogpointsFile string             `json:"logpointsFile"`
	Logpoints     []logpoints.Status `json:"logpoints"`
}

// LogpointRemoveRequest is the body of POST /v1/sessions/{id}/logpoints/remove.
type LogpointRemoveRequest struct {
	IDs []string `json:"ids"`
	All bool     `json:"all"`
}

// LogpointRemoved is its answer.
type LogpointRemoved struct {
	SessionID string               `json:"sessionId"`
	Removed   []logpoints.Logpoint `json:"removed"`
	Remaining int                  `json:"remaining"`
}

// Environment is the answer to GET /v1/sessions/{id}/environment: what a
// program needs to deliver evidence and take the session's logpoints. The
// hooks are installed before it is answered.
type Environment struct {
	SessionID      string          `json:"sessionId"`
	IngestURL      string          `json:"ingestUrl"`
	AppendPath     string          `json:"appendPath"`
	LogpointsFile  string          `json:"logpointsFile"`
	Logpoints      int             `json:"logpoints"`
	Hooks          logpoints.Hooks `json:"hooks"`
	ProjectRoot    string          `json:"projectRoot,omitempty"` // logpoint paths are relative to it
	IngestURLMoved bool            `json:"ingestUrlChanged"`
}

func (s *Server) handleEnvironment(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	// Installed (or found intact) on every ask: a few small reads, and a
	// hooks folder someone deleted comes back before a program needs it.
	h, err := logpoints.Install(s.cfg.Root)
	if err != nil {
		s.fail(w, err)
		return
	}
	f, err := sess.Logpoints()
	if err != nil {
		s.fail(w, err)
		return
	}
	info := s.info(sess)
	writeJSON(w, http.StatusOK, Environment{SessionID: sess.ID(), IngestURL: info.IngestURL, AppendPath: info.AppendPath,
		LogpointsFile: sess.LogpointsPath(), Logpoints: len(f.Logpoints), Hooks: h, ProjectRoot: info.ProjectRoot, IngestURLMoved: info.IngestURLChanged})
}

func (s *Server) handleAddLogpoint(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var lp logpoints.Logpoint
	if !decodeBody(w, r, &lp) {
		return
	}
	lp, err := sess.AddLogpoint(lp)
	if err != nil {
		s.failLogpoint(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, lp)
}

func (s *Server) handleLogpoints(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	list, err := s.logpointList(sess)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// logpointList drains the append path, then gives each logpoint its state
// in the current cycle.
func (s *Server) logpointList(sess *store.Session) (LogpointList, error) {
	f, err := sess.Logpoints()
	if err != nil {
		return LogpointList{}, err
	}
	locs, err := sess.Locations()
	if err != nil {
		return LogpointList{}, err
	}
	return LogpointList{SessionID: sess.ID(), Cycle: locs.Cycle, Version: locs.Version, Events: locs.Events,
		LogpointsFile: sess.LogpointsPath(), Logpoints: logpoints.Summarize(f.Logpoints, sess.LogpointInstalls(), Hits(locs))}, nil
}

// Hits counts a cycle's events by location and label.
func Hits(locs store.Locations) map[logpoints.HitKey]int64 {
	hits := map[logpoints.HitKey]int64{}
	for _, l := range locs.Locations {
		for _, h := range l.Hypotheses {
			hits[logpoints.HitKey{Location: l.Location, HypothesisID: h.ID}] += h.Events
		}
	}
	return hits
}

func (s *Server) handleRemoveLogpoints(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req LogpointRemoveRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.All == (len(req.IDs) > 0) {
		writeErr(w, http.StatusBadRequest, "bad_request", "name the logpoints to remove, or --all")
		return
	}
	for _, id := range req.IDs {
		if !logpoints.ValidID(id) {
			writeErr(w, http.StatusBadRequest, "bad_request", "\""+id+"\" is not a logpoint id; ids look like lp-1 (see debug-mode logpoint list --session "+sess.ID()+")")
			return
		}
	}
	removed, err := sess.RemoveLogpoints(req.IDs, req.All)
	if err != nil {
		s.failLogpoint(w, err)
		return
	}
	f, err := sess.Logpoints()
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, LogpointRemoved{SessionID: sess.ID(), Removed: removed, Remaining: len(f.Logpoints)})
}

// failLogpoint answers a refused logpoint as the caller's mistake.
func (s *Server) failLogpoint(w http.ResponseWriter, err error) {
	if errors.Is(err, store.ErrNoLogpoint) {
		writeErr(w, http.StatusNotFound, "logpoint_not_found", strings.TrimPrefix(err.Error(), store.ErrNoLogpoint.Error()+": "))
		return
	}
	for _, kind := range []error{store.ErrLogpoint, logpoints.ErrInvalid} {
		if errors.Is(err, kind) {
			writeErr(w, http.StatusBadRequest, "bad_request", strings.TrimPrefix(err.Error(), kind.Error()+": "))
			return
		}
	}
	s.fail(w, err)
}
