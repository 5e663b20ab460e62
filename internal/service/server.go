// Package service is the hidden background service: the one writer of every
// session's evidence, reached over loopback HTTP by instrumented programs
// (ingest) and by the CLI (control API, bearer token).
package service

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Limits of the loopback server.
const (
	MaxBodyBytes        = 8 << 20
	MaxHeaderBytes      = 16 << 10
	MaxConnections      = 128
	MaxConcurrentBodies = 4 // ingest bodies held in memory at once
	ReadHeaderTimeout   = 5 * time.Second
	DefaultIdle         = 30 * time.Minute
)

// Clock tells the time; tests inject a fake one to drive idle shutdown.
type Clock interface{ Now() time.Time }

// readHeaderTimeout is ReadHeaderTimeout; tests shorten it.
var readHeaderTimeout = ReadHeaderTimeout

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Config configures a Server.
type Config struct {
	Root        *safefs.Root
	Clock       Clock
	IdleTimeout time.Duration
	IdleCheck   time.Duration // how often idleness is checked
	SpoolPoll   time.Duration // how often append paths are looked at
	Build       string
	Version     string
	Token       string
	Log         *log.Logger
}

// Server serves ingest and control on one loopback listener.
type Server struct {
	cfg      Config
	store    *store.Store
	port     int
	last     atomic.Int64 // last activity, unix nanoseconds by cfg.Clock
	done     chan struct{}
	stopOnce sync.Once
	http     *http.Server
	signer   *query.Signer
	bodies   chan struct{} // ingest bodies being read or processed
	muxOnce  sync.Once
	mux      *http.ServeMux
}

// New makes a server; call Serve with a loopback listener.
func New(cfg Config) (*Server, error) {
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdle
	}
	if cfg.IdleCheck <= 0 {
		cfg.IdleCheck = min(cfg.IdleTimeout/10, 30*time.Second)
	}
	if cfg.SpoolPoll <= 0 {
		cfg.SpoolPoll = 200 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	s := &Server{cfg: cfg, done: make(chan struct{}), bodies: make(chan struct{}, MaxConcurrentBodies)}
	st, err := store.Open(cfg.Root, cfg.Clock.Now, s.touch)
	if err != nil {
		return nil, err
	}
	s.store = st
	key, err := loadCursorKey(cfg.Root)
	if err != nil {
		return nil, err
	}
	s.signer = query.NewSigner(key)
	s.touch()
	return s, nil
}

// Store exposes the session store (tests).
func (s *Server) Store() *store.Store { return s.store }

func (s *Server) touch() { s.last.Store(s.cfg.Clock.Now().UnixNano()) }

// Stop ends Serve soon; safe to call more than once.
func (s *Server) Stop() { s.stopOnce.Do(func() { close(s.done) }) }

// Done is closed when the server has been asked to stop.
func (s *Server) Done() <-chan struct{} { return s.done }

// Serve answers on ln until Stop, idle shutdown, or a listener error.
func (s *Server) Serve(ln net.Listener) error {
	s.port = ln.Addr().(*net.TCPAddr).Port
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          s.cfg.Log,
	}
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(limitListener(ln, MaxConnections)) }()
	bg := make(chan struct{})
	go func() { defer close(bg); s.background() }()
	select {
	case err := <-errc:
		s.Stop()
		<-bg
		s.store.Close()
		return err
	case <-s.done:
	}
	// Let requests in flight finish (briefly) before the store closes under them.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	if s.http.Shutdown(ctx) != nil {
		s.http.Close()
	}
	cancel()
	<-errc
	<-bg // the poller must be done with the store and root before they close
	s.store.Close()
	return nil
}

// background polls append paths and shuts the server down when idle.
func (s *Server) background() {
	poll := time.NewTicker(s.cfg.SpoolPoll)
	idle := time.NewTicker(s.cfg.IdleCheck)
	defer poll.Stop()
	defer idle.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-poll.C:
			s.store.PollSpools()
		case <-idle.C:
			if s.cfg.Clock.Now().Sub(time.Unix(0, s.last.Load())) >= s.cfg.IdleTimeout {
				s.cfg.Log.Printf("idle for %s; shutting down", s.cfg.IdleTimeout)
				s.Stop()
				return
			}
		}
	}
}

// IngestURL is the URL programs post a session's records to.
func (s *Server) IngestURL(id string) string {
	return "http://127.0.0.1:" + strconv.Itoa(s.port) + "/ingest/" + id
}

// ServeHTTP checks the Host of every request, then routes ingest and control.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.allowedHost(r.Host) {
		http.Error(w, "forbidden host", http.StatusForbidden)
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/ingest/"):
		s.serveIngest(w, r)
	case strings.HasPrefix(r.URL.Path, "/v1/"):
		s.serveControl(w, r)
	default:
		http.NotFound(w, r)
	}
}

// allowedHost refuses DNS-rebinding: only loopback names with our port.
func (s *Server) allowedHost(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(s.port) {
		return false
	}
	switch strings.ToLower(h) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// serveIngest accepts NDJSON records for one session. It answers CORS
// preflights for any origin (browser code under debug posts here) but takes
// only NDJSON or JSON bodies, which a browser cannot send without a preflight.
func (s *Server) serveIngest(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Vary", "Origin")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		h.Set("Access-Control-Max-Age", "600")
		if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
			h.Set("Access-Control-Allow-Private-Network", "true")
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method != http.MethodPost {
		h.Set("Allow", "POST, OPTIONS")
		writeIngest(w, http.StatusMethodNotAllowed, IngestResult{Error: "use POST with an NDJSON body"})
		return
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/x-ndjson" && mt != "application/json") {
		writeIngest(w, http.StatusUnsupportedMediaType, IngestResult{Error: "Content-Type must be application/x-ndjson or application/json"})
		return
	}
	sess, err := s.store.Get(strings.TrimPrefix(r.URL.Path, "/ingest/"))
	if errors.Is(err, safefs.ErrSymlink) {
		writeIngest(w, http.StatusInternalServerError, IngestResult{Error: unsafeSessionMsg})
		return
	}
	if err != nil {
		writeIngest(w, http.StatusNotFound, IngestResult{Error: "unknown session; create one with debug-mode create"})
		return
	}
	s.touch()
	// At most a few bodies are held at once, so 128 connections cannot make
	// the service hold 128 × 8 MiB.
	s.bodies <- struct{}{}
	defer func() { <-s.bodies }()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeIngest(w, http.StatusRequestEntityTooLarge, IngestResult{Error: fmt.Sprintf("body larger than %d bytes; send smaller batches", MaxBodyBytes)})
			return
		}
		writeIngest(w, http.StatusBadRequest, IngestResult{Error: "could not read the body"})
		return
	}
	acc, rej, err := sess.IngestHTTP(body)
	switch {
	case errors.Is(err, store.ErrEmptyBody):
		writeIngest(w, http.StatusBadRequest, IngestResult{Error: err.Error()})
	case errors.Is(err, store.ErrNotFound):
		writeIngest(w, http.StatusNotFound, IngestResult{Error: "unknown session; create one with debug-mode create"})
	case errors.Is(err, store.ErrDiagnosticsLost):
		s.cfg.Log.Printf("ingest %s: %v", sess.ID(), err)
		writeIngest(w, http.StatusOK, IngestResult{Accepted: acc, Rejected: rej, Error: "the records were stored, but the reasons for the rejected ones could not be"})
	case err != nil:
		s.cfg.Log.Printf("ingest %s: %v", sess.ID(), err)
		writeIngest(w, http.StatusInternalServerError, IngestResult{Error: "evidence could not be stored; nothing from this request was accepted"})
	default:
		writeIngest(w, http.StatusOK, IngestResult{Accepted: acc, Rejected: rej})
	}
}

func writeIngest(w http.ResponseWriter, code int, res IngestResult) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(res)
}

// serveControl is the CLI's API: bearer token required, never CORS, and any
// request a browser could have made (it carries Origin or Referer) refused.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != "" || r.Header.Get("Referer") != "" {
		writeErr(w, http.StatusForbidden, "forbidden", "browser requests are not accepted")
		return
	}
	auth := r.Header.Get("Authorization")
	if subtle.ConstantTimeCompare([]byte(auth), []byte("Bearer "+s.cfg.Token)) != 1 {
		writeErr(w, http.StatusUnauthorized, "unauthorized", "missing or wrong token")
		return
	}
	if b := r.Header.Get(BuildHeader); b != "" && b != s.cfg.Build {
		writeErr(w, http.StatusConflict, "build_mismatch", "service is from another build")
		return
	}
	s.touch()
	s.control().ServeHTTP(w, r)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeErr(w http.ResponseWriter, code int, kind, msg string) {
	writeJSON(w, code, APIError{Error: msg, Code: kind})
}

// PID of this process, for health answers.
var pid = os.Getpid()
