// Package capture freezes a session's evidence into immutable captures and
// reads them back: every stored event of a cycle, its diagnostics, the user
// evidence, the probe regions found under a source root and the source lines
// around each event location, as they were at capture time.
//
// A capture is one NDJSON file. Its first line is a header; then come the
// cycle's stored event lines exactly as stored (so the same Snapshot, filters,
// pages and cursors work on it), then one line per diagnostic, user note,
// user file, region and source record, each an object with one key naming
// its kind. The capture's identity is the SHA-256 of the file's exact bytes
// (short id c-<first 12 hex digits>): the same evidence gives the same id.
// The file is written once (a temporary file, then a rename that refuses to
// replace), read-only and owner-only, and its hash is checked every time it
// is read, in the same single streaming pass that indexes it: a capture that
// no longer matches is reported as damaged and never used. A small index
// file beside it keeps what is not evidence (label, creation time).
//
// Events read from a capture carry typed links (source, region,
// previous_at_location, next_at_location), each complete, incomplete,
// ambiguous or unavailable, never a guess. Diff compares two evidence sets.
package capture

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Format names the capture file format in its header.
const (
	FormatName    = "debug-mode-capture"
	FormatVersion = 1
)

// Bounds of a capture.
const (
	MaxCaptures        = 100      // per session
	MaxLabelChars      = 200      // characters in a label
	ContextLines       = 8        // source lines kept on each side of an event's line
	MaxSourceLocations = 500      // distinct locations whose source is frozen
	MaxSourceBytes     = 1 << 20  // source text frozen in all
	MaxSourceLineBytes = 400      // one source line; longer ones are cut
	MaxCandidates      = 4        // files frozen for a path that matches several
	MaxRegions         = 5000     // regions frozen
	MaxFileBytes       = 2 << 20  // source files larger than this are not read
	MaxWalkFiles       = 200_000  // files looked at when searching the source root
	maxRecordLine      = 16 << 20 // longest line a capture file may hold
)

// Link states, as the debug-navigation model defines them.
const (
	Complete    = "complete"    // proven; the targets are exact
	Incomplete  = "incomplete"  // the capture cannot answer; Reason says why
	Ambiguous   = "ambiguous"   // more than one target; following returns all of them
	Unavailable = "unavailable" // a complete search found no target
)

// Link relations every event read from a capture carries.
const (
	RelSource   = "source"               // the frozen source lines at the event's location
	RelRegion   = "region"               // the probe region the event came from
	RelPrevious = "previous_at_location" // the event before it, in logs order, at the same location
	RelNext     = "next_at_location"     // the event after it, in logs order, at the same location
)

// Relations lists the relations in the order links are given.
var Relations = []string{RelSource, RelRegion, RelPrevious, RelNext}

// Errors of reading captures.
var (
	ErrNotFound = errors.New("no capture with that id in this session")
	ErrBadID    = errors.New("not a capture id")
	ErrDamaged  = errors.New("the capture is damaged")
	ErrRequest  = errors.New("bad capture request")
	ErrRefused  = errors.New("the link cannot be followed")
	ErrTooMany  = errors.New("too many captures")
)

// DamagedError says which capture no longer matches and how.
type DamagedError struct {
	ID     string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("capture %s is damaged: %s; it is not used. Take a new capture, or compare against another one (debug-mode captures --session <id>)", e.ID, e.Reason)
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

func damaged(id, format string, a ...any) error {
	return &DamagedError{ID: id, Reason: fmt.Sprintf(format, a...)}
}

var idRE = regexp.MustCompile(`^c-[0-9a-f]{12}$`)

// MinRefDigits is the fewest hex digits that may name a capture, as with
// git's short hashes.
const MinRefDigits = 6

var refRE = regexp.MustCompile(`^(?:[cC]-)?([0-9a-fA-F]*)$`)

// RefError is text that cannot name a capture, and why.
type RefError struct {
	Ref, Reason string
}

func (e *RefError) Error() string { return fmt.Sprintf("%q %s", e.Ref, e.Reason) }

func (e *RefError) Unwrap() error { return ErrBadID }

// ParseRef checks what a caller typed for a capture: its id (c-3f2a9b1c0d4e),
// the same without c-, or a prefix of at least MinRefDigits hex digits of
// either, up to the whole SHA-256. It returns the hex digits, lower case;
// Store.Resolve finds the one capture they name.
func ParseRef(s string) (string, error) {
	m := refRE.FindStringSubmatch(s)
	switch {
	case m == nil || len(m[1]) > 64:
		return "", &RefError{s, "is not a capture id: capture ids look like c-3f2a9b1c0d4e (c- may be left out, and any unique prefix of at least 6 hex digits will do; list them with debug-mode captures --session <id>)"}
	case len(m[1]) < MinRefDigits:
		return "", &RefError{s, fmt.Sprintf("is too short to name a capture: give at least %d hex digits of its id, e.g. c-3f2a9b or 3f2a9b1c0d4e (list them with debug-mode captures --session <id>)", MinRefDigits)}
	}
	return strings.ToLower(m[1]), nil
}

// AmbiguousError is a prefix that more than one capture of the session has.
type AmbiguousError struct {
	Ref        string
	Candidates []string // the ids that have it, sorted
}

func (e *AmbiguousError) Error() string {
	list := e.Candidates
	more := ""
	if len(list) > 10 {
		list, more = list[:10], fmt.Sprintf(" and %d more", len(e.Candidates)-10)
	}
	return fmt.Sprintf("capture %q is ambiguous: %d captures of this session start with it (%s%s); give more digits", e.Ref, len(e.Candidates), strings.Join(list, ", "), more)
}

func (e *AmbiguousError) Unwrap() error { return ErrBadID }

// IDOf is the short id of a content hash (hex).
func IDOf(sha string) string { return "c-" + sha[:12] }

// Header is the capture file's first line. Everything in it is derived from
// the evidence, so the same evidence gives the same bytes.
type Header struct {
	Format             string     `json:"format"`
	Version            int        `json:"version"`
	SessionID          string     `json:"sessionId"`
	Cycle              int64      `json:"cycle"`
	EvidenceVersion    string     `json:"evidenceVersion"` // of the live cycle when frozen
	Events             int64      `json:"events"`
	EventBytes         int64      `json:"eventBytes"`
	RejectedRecords    int64      `json:"rejectedRecords"`
	RedactedEvents     int64      `json:"redactedEvents"`
	Diagnostics        int        `json:"diagnostics"`
	DiagnosticsOmitted int64      `json:"diagnosticsOmitted"` // past the store's bound; only counted
	UserNotes          int        `json:"userNotes"`
	UserFiles          int        `json:"userFiles"`
	SourceRoot         string     `json:"sourceRoot"`
	RegionScan         RegionScan `json:"regionScan"`
	SourceScan         SourceScan `json:"sourceScan"`
}

// RegionScan is how the probe regions under the source root were found.
type RegionScan struct {
	State        string `json:"state"` // complete, or failed (no region could be established)
	Reason       string `json:"reason,omitempty"`
	FilesScanned int    `json:"filesScanned"`
	Regions      int    `json:"regions"`
	Omitted      int    `json:"omitted"` // regions past MaxRegions, not frozen
	Broken       int    `json:"broken"`  // broken markers (no region formed)
	Unreadable   int    `json:"unreadable"`
	Large        int    `json:"large"`
}

// SourceScan is how the source lines were frozen, and which bound stopped it.
type SourceScan struct {
	ContextLines   int    `json:"contextLines"`
	Locations      int    `json:"locations"`        // distinct event locations the CLI was given
	Records        int    `json:"records"`          // source records sent (one per location looked at)
	Omitted        int    `json:"omitted"`          // locations not looked at because a bound was reached
	Bound          string `json:"bound,omitempty"`  // locations, bytes, or "" when none was reached
	Bytes          int64  `json:"bytes"`            // source text frozen
	SearchComplete bool   `json:"searchComplete"`   // the file search under the root saw every file
	CutLines       int    `json:"cutLines"`         // lines shortened to MaxSourceLineBytes
	Redactions     int    `json:"redactions"`       // secret-looking values replaced in frozen lines
	Truncated      bool   `json:"locationsOmitted"` // the service listed only some locations
}

// Source is what was frozen for one event location.
type Source struct {
	Location string       `json:"location"`
	State    string       `json:"state"`
	Reason   string       `json:"reason,omitempty"`
	Files    []SourceFile `json:"files,omitempty"`
	Matches  int          `json:"matches,omitempty"` // ambiguous: files that matched (only the first MaxCandidates are frozen)
}

// SourceFile is the lines around an event's line in one file.
type SourceFile struct {
	File       string   `json:"file"` // relative to the source root, slash-separated
	Line       int      `json:"line"` // the event's line
	StartLine  int      `json:"startLine"`
	Lines      []string `json:"lines"`
	TotalLines int      `json:"totalLines"`
	CutLines   int      `json:"cutLines,omitempty"`
}

// EndLine is the last line frozen.
func (f SourceFile) EndLine() int { return f.StartLine + len(f.Lines) - 1 }

// Request is what the CLI sends to take a capture: what only it can see
// (the user's source tree). The service adds the evidence.
type Request struct {
	Label      string          `json:"label,omitempty"`
	SourceRoot string          `json:"sourceRoot"`
	Regions    []probes.Region `json:"regions"`
	RegionScan RegionScan      `json:"regionScan"`
	Sources    []Source        `json:"sources"`
	SourceScan SourceScan      `json:"sourceScan"`
}

// Index is the small file beside a capture: what is not evidence.
type Index struct {
	ID        string `json:"id"`
	SHA256    string `json:"sha256"`
	Bytes     int64  `json:"bytes"`
	Label     string `json:"label,omitempty"`
	CreatedAt int64  `json:"createdAt"` // epoch ms
	Cycle     int64  `json:"cycle"`
	Events    int64  `json:"events"`
}

// Integrity of a listed capture.
const (
	IntegrityOK      = "ok"
	IntegrityDamaged = "damaged"
)

// Summary is one row of the capture list.
type Summary struct {
	Index
	Integrity string `json:"integrity"`
	Problem   string `json:"problem,omitempty"`
}

// record is one line after the events; exactly one field is set.
type record struct {
	Diagnostic *store.Diagnostic `json:"diagnostic,omitempty"`
	UserNote   *store.UserNote   `json:"userNote,omitempty"`
	UserFile   *store.UserFile   `json:"userFile,omitempty"`
	Region     *probes.Region    `json:"region,omitempty"`
	Source     *Source           `json:"source,omitempty"`
}
