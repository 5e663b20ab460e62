package service

import (
	"errors"
	"net/http"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Control API for the probe ledger and user evidence.

// AddNoteRequest is the body of POST /v1/sessions/{id}/user-evidence/notes.
type AddNoteRequest struct {
	Text string `json:"text"`
}

// AddFileRequest is the body of POST /v1/sessions/{id}/user-evidence/files:
// what the CLI saw of the file. The service never opens the user's file.
type AddFileRequest struct {
	store.FileRef
	Note string `json:"note,omitempty"`
}

// AddedUserEvidence is the answer to both adds.
type AddedUserEvidence struct {
	SessionID string                  `json:"sessionId"`
	Note      *store.UserNote         `json:"note,omitempty"`
	File      *store.UserFile         `json:"file,omitempty"`
	Updated   bool                    `json:"updated"` // the file's path was already recorded
	Count     store.UserEvidenceCount `json:"count"`
}

func (s *Server) handleLocations(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	locs, err := sess.Locations()
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, locs)
}

func (s *Server) handleUserEvidence(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	ue, err := sess.UserEvidence()
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ue)
}

func (s *Server) handleAddNote(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req AddNoteRequest
	if !decodeBody(w, r, &req) {
		return
	}
	n, err := sess.AddUserNote(req.Text)
	if err != nil {
		s.failUser(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, AddedUserEvidence{SessionID: sess.ID(), Note: &n, Count: sess.UserEvidenceCount()})
}

func (s *Server) handleAddFile(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var req AddFileRequest
	if !decodeBody(w, r, &req) {
		return
	}
	f, updated, err := sess.AddUserFile(req.FileRef, req.Note)
	if err != nil {
		s.failUser(w, err)
		return
	}
	code := http.StatusCreated
	if updated {
		code = http.StatusOK
	}
	writeJSON(w, code, AddedUserEvidence{SessionID: sess.ID(), File: &f, Updated: updated, Count: sess.UserEvidenceCount()})
}

// failUser answers a refused entry as the caller's mistake, with the reason.
func (s *Server) failUser(w http.ResponseWriter, err error) {
	if errors.Is(err, store.ErrUserEvidence) {
		writeErr(w, http.StatusBadRequest, "bad_request", strings.TrimPrefix(err.Error(), store.ErrUserEvidence.Error()+": "))
		return
	}
	s.fail(w, err)
}
