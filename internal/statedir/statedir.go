// Package statedir names the private state root and the files in it, so the
// CLI and the service agree on one layout.
package statedir

import (
	"errors"
	"os"
	"path/filepath"
)

// Env overrides the state root (tests, or users who want it elsewhere).
const Env = "AGENT_DEBUG_MODE_HOME"

// Files directly under the state root.
const (
	Discovery   = "service.json"  // how a CLI reaches the running service (0600, holds the token)
	Endpoint    = "endpoint.json" // the port last bound, kept across restarts so ingest URLs stay stable
	ServiceLock = "service.lock"  // held by the service for its whole life
	SpawnLock   = "spawn.lock"    // held by a CLI around probe → start → ready
	ServiceLog  = "service.log"   // the service's own log
	CursorKey   = "cursor.key"    // key that authenticates query cursors
	SessionsDir = "sessions"
	HooksDir    = "hooks" // the logpoint hooks, one folder per content hash
)

// Path returns the state root: $AGENT_DEBUG_MODE_HOME, or ~/.agent-debug-mode.
func Path() (string, error) {
	if p := os.Getenv(Env); p != "" {
		return filepath.Abs(p)
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("cannot find the home directory; set HOME or " + Env)
	}
	return filepath.Join(home, ".agent-debug-mode"), nil
}

// SessionDir is the session's directory relative to the state root.
func SessionDir(id string) string { return SessionsDir + "/" + id }

// Session file names inside a session directory.
const (
	MetaFile        = "meta.json"
	EventsFile      = "events.ndjson"
	DiagnosticsFile = "diagnostics.ndjson"
	IncomingFile    = "incoming.ndjson"
	CheckpointFile  = "spool.json"
	TornFile        = "torn.ndjson"
	HeldBackFile    = "heldback.json" // the cycle's held-back records (what helpers' caps kept back)
	OutputFile      = "output.json"   // the output of the cycle's last reproduction
	// LogpointsFile holds the session's logpoints; hooks read it, a reset
	// leaves it.
	LogpointsFile = "logpoints.json"
	// LogpointReportsFile holds what hooks reported in the current cycle.
	LogpointReportsFile = "logpointreports.json"
)
