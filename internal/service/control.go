package service

import (
	"errors"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/sessionenv"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// control builds the control API routes once per server.
func (s *Server) control() *http.ServeMux {
	s.muxOnce.Do(func() {
		m := http.NewServeMux()
		m.HandleFunc("GET /v1/health", s.handleHealth)
		m.HandleFunc("POST /v1/stop", s.handleStop)
		m.HandleFunc("POST /v1/sessions", s.handleCreate)
		m.HandleFunc("GET /v1/sessions", s.handleList)
		m.HandleFunc("POST /v1/sessions/{id}/reset", s.handleReset)
		m.HandleFunc("GET /v1/sessions/{id}/status", s.handleStatus)
		m.HandleFunc("DELETE /v1/sessions/{id}", s.handleClean)
		m.HandleFunc("POST /v1/sessions/{id}/logs", s.handleLogs)
		m.HandleFunc("POST /v1/sessions/{id}/query", s.handleQuery)
		m.HandleFunc("GET /v1/sessions/{id}/locations", s.handleLocations)
		m.HandleFunc("GET /v1/sessions/{id}/user-evidence", s.handleUserEvidence)
		m.HandleFunc("POST /v1/sessions/{id}/user-evidence/notes", s.handleAddNote)
		m.HandleFunc("POST /v1/sessions/{id}/user-evidence/files", s.handleAddFile)
		m.HandleFunc("POST /v1/sessions/{id}/captures", s.handleCapture)
		m.HandleFunc("GET /v1/sessions/{id}/captures", s.handleCaptures)
		m.HandleFunc("GET /v1/sessions/{id}/captures/{cid}", s.handleCaptureDetail)
		m.HandleFunc("POST /v1/sessions/{id}/follow", s.handleFollow)
		m.HandleFunc("POST /v1/sessions/{id}/diff", s.handleDiff)
		m.HandleFunc("POST /v1/sessions/{id}/reproduce", s.handleReproduce)
		m.HandleFunc("POST /v1/sessions/{id}/reproduce/end", s.handleReproduceEnd)
		m.HandleFunc("GET /v1/sessions/{id}/output", s.handleOutput)
		m.HandleFunc("GET /v1/sessions/{id}/environment", s.handleEnvironment)
		m.HandleFunc("POST /v1/sessions/{id}/logpoints", s.handleAddLogpoint)
		m.HandleFunc("GET /v1/sessions/{id}/logpoints", s.handleLogpoints)
		m.HandleFunc("POST /v1/sessions/{id}/logpoints/remove", s.handleRemoveLogpoints)
		s.mux = m
	})
	return s.mux
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Health{Build: s.cfg.Build, Version: s.cfg.Version, PID: pid, Port: s.port})
}

func (s *Server) handleStop(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]bool{"stopping": true})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	s.cfg.Log.Printf("stop requested")
	go func() { time.Sleep(10 * time.Millisecond); s.Stop() }()
}

func (s *Server) info(sess *store.Session) SessionInfo {
	m := sess.Meta()
	cur := s.IngestURL(m.SessionID)
	return SessionInfo{SessionID: m.SessionID, CreatedAt: m.CreatedAt, Cycle: m.Epoch, IngestURL: cur,
		AppendPath: sess.AppendPath(), OTLPEndpoint: s.OTLPEndpoint(m.SessionID), ProjectRoot: m.ProjectRoot, IngestURLChanged: m.IngestURL != "" && m.IngestURL != cur, PreviousURL: changedFrom(m.IngestURL, cur),
		MaxPerLocation: m.Cap()}
}

func changedFrom(prev, cur string) string {
	if prev != "" && prev != cur {
		return prev
	}
	return ""
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	var set CreateRequest
	if !decodeOptional(w, r, &set) {
		return
	}
	if set.ProjectRoot != "" && !filepath.IsAbs(set.ProjectRoot) {
		writeErr(w, http.StatusBadRequest, "bad_request", store.ErrBadRoot.Error())
		return
	}
	if set.MaxPerLocation < 0 || set.MaxPerLocation > sessionenv.MaxMaxPerLocation {
		s.fail(w, store.ErrBadCap)
		return
	}
	sess, err := s.store.Create()
	if err != nil {
		s.fail(w, err)
		return
	}
	if err := sess.SetMaxPerLocation(set.MaxPerLocation); err != nil {
		s.fail(w, err)
		return
	}
	if err := sess.SetProjectRoot(set.ProjectRoot); err != nil {
		s.fail(w, err)
		return
	}
	info := s.info(sess)
	if err := sess.SetIngestURL(info.IngestURL); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, info)
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	var since time.Time
	if v := r.URL.Query().Get("since"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			writeErr(w, http.StatusBadRequest, "bad_request", "since must be epoch milliseconds")
			return
		}
		since = time.UnixMilli(ms)
	}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	all, err := s.store.List(since)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := SessionList{Sessions: all, Total: len(all)}
	if limit > 0 && len(all) > limit {
		out.Sessions, out.Omitted = all[:limit], len(all)-limit
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) *store.Session {
	sess, err := s.store.Get(r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return nil
	}
	return sess
}

func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var set SessionSettings
	if !decodeOptional(w, r, &set) {
		return
	}
	if set.MaxPerLocation < 0 || set.MaxPerLocation > sessionenv.MaxMaxPerLocation {
		s.fail(w, store.ErrBadCap)
		return
	}
	if _, err := sess.Reset(); err != nil {
		s.fail(w, err)
		return
	}
	if err := sess.SetMaxPerLocation(set.MaxPerLocation); err != nil {
		s.fail(w, err)
		return
	}
	info := s.info(sess)
	if err := sess.SetIngestURL(info.IngestURL); err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	st, err := s.statusInfo(sess)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// statusInfo drains the append path and reports the session's health.
func (s *Server) statusInfo(sess *store.Session) (StatusInfo, error) {
	st, err := sess.Status()
	if err != nil {
		return StatusInfo{}, err
	}
	st.UserEvidence = sess.UserEvidenceCount()
	info := s.info(sess)
	return StatusInfo{Status: st, IngestURL: info.IngestURL, AppendPath: info.AppendPath, OTLPEndpoint: info.OTLPEndpoint, ProjectRoot: info.ProjectRoot,
		IngestURLChanged: info.IngestURLChanged, PreviousURL: info.PreviousURL}, nil
}

func (s *Server) handleClean(w http.ResponseWriter, r *http.Request) {
	id, err := store.ParseID(r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	if err := s.store.Clean(id); err != nil {
		var pe *fs.PathError
		if errors.Is(err, fs.ErrPermission) && errors.As(err, &pe) {
			// Only a directory of another user has entries we cannot delete.
			s.cfg.Log.Printf("clean: %v", err)
			writeErr(w, http.StatusInternalServerError, "unsafe", "session "+id+" cannot be deleted: something in "+
				filepath.Join(s.cfg.Root.Path(), statedir.SessionDir(id))+" belongs to another user; remove it as root (sudo rm -r "+
				quotePath(filepath.Join(s.cfg.Root.Path(), statedir.SessionDir(id)))+")")
			return
		}
		s.fail(w, err)
		return
	}
	s.deliv.forget(id)
	writeJSON(w, http.StatusOK, map[string]string{"sessionId": id})
}

// fail maps store errors to API errors; internals go to the log only.
func (s *Server) fail(w http.ResponseWriter, err error) {
	if failRead(w, err) {
		return
	}
	switch {
	case errors.Is(err, store.ErrBadID), errors.Is(err, store.ErrBadCap):
		writeErr(w, http.StatusBadRequest, "bad_request", err.Error())
	case errors.Is(err, store.ErrNotFound):
		writeErr(w, http.StatusNotFound, "not_found", "no session with that id")
	case errors.Is(err, safefs.ErrSymlink), errors.Is(err, safefs.ErrUnsafe):
		s.cfg.Log.Printf("refused: %v", err)
		msg, ok := Refusal(err)
		if !ok {
			msg = "the state directory refused to use a file: " + err.Error()
		}
		writeErr(w, http.StatusInternalServerError, "unsafe", msg)
	default:
		s.cfg.Log.Printf("error: %v", err)
		writeErr(w, http.StatusInternalServerError, "internal", "the evidence store failed; see debug-mode status, or try again")
	}
}
