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

	"golang.org/x/sync/semaphore"

	"github.com/agentic-debug-mode/debug-mode/internal/query"
	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// RetiredCode is the control error of a service whose state directory was
// replaced; the client starts a new service and sends the request again.
const RetiredCode = "retired"

// Limits of the loopback server.
const (
	MaxBodyBytes        = 8 << 20
	MaxHeaderBytes      = 16 << 10
	MaxConnections      = 128
	MaxConcurrentBodies = 4 // ingest bodies validated and stored at once (after they are read: see body.go)
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
	cfg        Config
	store      *store.Store
	port       int
	last       atomic.Int64 // last activity, unix nanoseconds by cfg.Clock
	done       chan struct{}
	stopOnce   sync.Once
	http       *http.Server
	signer     *query.Signer
	slots      *fairSlots          // ingest bodies being validated and stored, shared fairly by sessions (slots.go)
	bodyBudget *semaphore.Weighted // bytes of larger ingest bodies held (body.go)
	ingesting  atomic.Int64        // ingest requests past their headers, being handled
	muxOnce    sync.Once
	mux        *http.ServeMux
	ln         net.Listener
	retired    atomic.Bool   // the state directory was replaced: see retire
	deliv      deliveries    // HTTP ingest per session, for settling after a reproduction
	decoding   chan struct{} // OTLP requests being decoded and stored
	conns      *connLimiter  // open connections (conns.go)
	// inflateBudget holds the bytes OTLP bodies inflate to (otlp.go).
	inflateBudget *semaphore.Weighted
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
	s := &Server{cfg: cfg, done: make(chan struct{}), slots: newFairSlots(MaxConcurrentBodies), bodyBudget: newBodyBudget(),
		decoding: make(chan struct{}, MaxConcurrentOTLPDecodes), inflateBudget: semaphore.NewWeighted(InflateBudgetBytes)}
	cfg.Root.SetRepairLog(func(r safefs.Repair) {
		logRepair(cfg.Log, r)
		if s.store != nil {
			s.store.NoteRepair(r) // a session's own files: a warning in its status
		}
	})
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
	s.ln = ln
	s.conns = newConnLimiter(ln, maxConnections, evictGrace)
	s.http = &http.Server{
		Handler:           s,
		ConnState:         s.conns.track,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          s.cfg.Log,
	}
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.conns) }()
	bg := make(chan struct{})
	go func() { defer close(bg); s.background() }()
	var err error
	select {
	case err = <-errc: // the listener failed, or retire closed it
		s.Stop()
	case <-s.done:
	}
	// Let requests in flight finish (briefly) before the store closes under them.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	if s.http.Shutdown(ctx) != nil {
		s.http.Close()
	}
	cancel()
	if err == nil {
		<-errc
	}
	<-bg // the poller must be done with the store and root before they close
	s.store.Close()
	if s.retired.Load() {
		return nil
	}
	return err
}

// retire stops a service whose state directory was moved away, deleted or
// replaced while it ran: it would go on serving, and taking evidence into,
// a directory no command reads any more. The listener closes at once, so
// the service the next command starts (on what the path holds now) can bind
// the same port and keep the Ingest URLs.
func (s *Server) retire() {
	if s.retired.Swap(true) {
		return
	}
	s.cfg.Log.Printf("the state directory %s was moved, deleted or replaced; stopping", s.cfg.Root.Path())
	if s.ln != nil {
		s.ln.Close()
	}
	s.Stop()
}

// stateReplaced says (and retires the service) when the state directory is
// no longer the one this service opened: two system calls per request.
func (s *Server) stateReplaced() bool {
	if s.retired.Load() || s.cfg.Root.Replaced() {
		s.retire()
		return true
	}
	return false
}

// retiredMsg answers a request that reached a retired service.
func (s *Server) retiredMsg() string {
	return "debug-mode's state directory " + s.cfg.Root.Path() + " was moved, deleted or replaced while its service ran, so that service stopped; run the command again: it starts a service on the directory there now"
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
			if s.stateReplaced() {
				return
			}
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
	if s.stateReplaced() {
		if strings.HasPrefix(r.URL.Path, "/ingest/") {
			// No path named: a browser page may read this answer.
			writeIngest(w, http.StatusServiceUnavailable, IngestResult{Error: "debug-mode's state directory was replaced and its service stopped; nothing was accepted; any debug-mode command starts it again, then send again"})
			return
		}
		writeErr(w, http.StatusServiceUnavailable, RetiredCode, s.retiredMsg())
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/ingest/"):
		s.serveIngest(w, r)
	case strings.HasPrefix(r.URL.Path, "/otlp/"):
		s.serveOTLP(w, r)
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
	if answerCORS(w, r, "Content-Type") {
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		writeIngest(w, http.StatusMethodNotAllowed, IngestResult{Error: "use POST with an NDJSON body"})
		return
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/x-ndjson" && mt != "application/json") {
		writeIngest(w, http.StatusUnsupportedMediaType, IngestResult{Error: "Content-Type must be application/x-ndjson or application/json"})
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/ingest/")
	sess, err := s.store.Get(id)
	if _, ok := Refusal(err); ok {
		s.cfg.Log.Printf("ingest refused: %v", err)
		code, msg := refusedIngest(id)
		writeIngest(w, code, IngestResult{Error: msg})
		return
	}
	if err != nil {
		writeIngest(w, http.StatusNotFound, IngestResult{Error: "unknown session; create one with debug-mode create"})
		return
	}
	s.touch()
	s.deliv.begin(sess.ID())
	defer s.deliv.end(sess.ID())
	s.ingesting.Add(1)
	defer s.ingesting.Add(-1)
	// The body is read before it takes a processing slot, so a slow sender
	// holds none (body.go says how reading is bounded).
	body, release, berr := s.readBody(w, r)
	defer release()
	if berr != nil {
		writeIngest(w, berr.code, IngestResult{Error: berr.msg})
		return
	}
	// A body read whole was sent: it is stored even if its client has gone
	// (a helper flushing at exit does not wait for the answer, and
	// reproduce's settle counts on it).
	if s.slots.acquire(context.WithoutCancel(r.Context()), sess.ID()) != nil {
		return
	}
	acc, rej, err := sess.IngestHTTP(body)
	s.slots.release(sess.ID())
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
		writeIngest(w, http.StatusInternalServerError, ingestFailure(acc, rej))
	default:
		writeIngest(w, http.StatusOK, IngestResult{Accepted: acc, Rejected: rej})
	}
}

// ingestFailure answers a request whose evidence could not all be stored:
// the parts of the body before the failure were (store.IngestHTTP).
func ingestFailure(acc, rej int) IngestResult {
	if acc == 0 && rej == 0 {
		return IngestResult{Error: "evidence could not be stored; nothing from this request was accepted"}
	}
	return IngestResult{Accepted: acc, Rejected: rej, Error: fmt.Sprintf(
		"evidence could not be stored; the first %d records of this request were taken in (accepted and rejected count them), the rest were not", acc+rej)}
}

// answerCORS lets browser code from any origin post to an ingest endpoint:
// it sets the CORS headers and answers a preflight (including Private
// Network Access), reporting true when the request was one. The endpoints
// still accept only bodies a browser cannot send without a preflight.
func answerCORS(w http.ResponseWriter, r *http.Request, allowHeaders string) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Vary", "Origin")
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", allowHeaders)
	h.Set("Access-Control-Max-Age", "600")
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
	return true
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
