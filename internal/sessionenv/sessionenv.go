// Package sessionenv names the environment variables through which a
// program under debug learns its session: reproduce sets them for the
// programs it starts, and helpers (templates, logpoints, OTLP set-ups)
// prefer them to values written into the helper. It is a leaf package so
// that any of them can import it.
package sessionenv

import "strconv"

// The variables reproduce exports to the command it runs (and so to every
// process that command starts).
const (
	// Session is the session id.
	Session = "AGENT_DEBUG_MODE_SESSION"
	// IngestURL is where HTTP helpers POST NDJSON.
	IngestURL = "AGENT_DEBUG_MODE_INGEST_URL"
	// AppendPath is the file helpers append NDJSON lines to.
	AppendPath = "AGENT_DEBUG_MODE_APPEND_PATH"
	// MaxPerLocation is the session's cap of events per location per
	// process: past it a helper stops sending events from that location
	// and sends one held-back record instead.
	MaxPerLocation = "AGENT_DEBUG_MODE_MAX_PER_LOCATION"
	// Logpoints is the absolute path of the session's logpoints file,
	// which the start-up hooks read (see package logpoints).
	Logpoints = "AGENT_DEBUG_MODE_LOGPOINTS"
)

// Bounds of the per-location cap.
const (
	DefaultMaxPerLocation = 10_000      // what a session starts with
	MaxMaxPerLocation     = 100_000_000 // the largest value a session accepts
)

// Values is one session's values, as reproduce exports them.
type Values struct {
	SessionID      string
	IngestURL      string
	AppendPath     string
	MaxPerLocation int64
	LogpointsFile  string // set only where logpoint hooks are injected
}

// Environ is v as KEY=VALUE entries, in a fixed order.
func (v Values) Environ() []string {
	n := v.MaxPerLocation
	if n <= 0 {
		n = DefaultMaxPerLocation
	}
	env := []string{
		Session + "=" + v.SessionID,
		IngestURL + "=" + v.IngestURL,
		AppendPath + "=" + v.AppendPath,
		MaxPerLocation + "=" + strconv.FormatInt(n, 10),
	}
	if v.LogpointsFile != "" {
		env = append(env, Logpoints+"="+v.LogpointsFile)
	}
	return env
}

// Names lists every variable, in the order Environ sets them.
var Names = []string{Session, IngestURL, AppendPath, MaxPerLocation, Logpoints}
