package service

import (
	"errors"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/agentic-debug-mode/debug-mode/internal/safefs"
	"github.com/agentic-debug-mode/debug-mode/internal/statedir"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Refusal is the one-line answer when the state directory refused a path
// (a symbolic link, another user's file, something that is not a regular
// file): which path, why it is refused, and the command that clears it.
// ok is false when err is no such refusal.
func Refusal(err error) (msg string, ok bool) {
	what := safefs.Explain(err)
	if what == "" {
		return "", false
	}
	var pe *fs.PathError
	errors.As(err, &pe)
	p := quotePath(pe.Path)
	var why, fix string
	switch {
	case errors.Is(err, safefs.ErrSymlink):
		why = ", which debug-mode never follows in its state directory (it could redirect the evidence)"
		fix = "remove the link with rm " + p + " (its target is left alone)"
	case strings.Contains(what, " belongs to uid "):
		why = ", and debug-mode uses only your own files in its state directory"
		fix = "give it back (sudo chown -R " + uidOf(what) + " " + p + ") or remove it (sudo rm -r " + p + ")"
	default:
		why = ", and debug-mode keeps only its own regular files and directories in its state directory"
		fix = "move it away (mv " + p + " " + quotePath(pe.Path+".old") + ")"
	}
	if id := sessionOf(pe.Path); id != "" {
		return "session " + id + " is refused: " + what + why + "; delete the session with debug-mode clean --session " + id +
			" (a link is removed, never its target) and create a new one", true
	}
	return what + why + "; " + fix + ", then run the command again", true
}

// refusedIngest answers a record sent to a session whose storage is
// refused. Said without paths (a browser page may read it), with the
// session id the sender used and the command that names the path and its
// fix. The status is 403: the sender cannot fix it and sending again does
// not help, so an OTLP exporter drops the batch instead of retrying.
func refusedIngest(rawID string) (int, string) {
	id := "<id>"
	if p, err := store.ParseID(rawID); err == nil {
		id = p
	}
	return http.StatusForbidden, "session " + id + " is refused: its storage in debug-mode's state directory is a symbolic link, or not a file or directory of yours, and debug-mode never uses such storage; nothing from this request was stored. " +
		"Run debug-mode status --session " + id + ": it names the path and the command that clears it (for the session's own directory, debug-mode clean --session " + id + ", then create a new session)"
}

// sessionOf is the session whose directory holds path, or "".
func sessionOf(path string) string {
	_, rest, ok := strings.Cut(filepath.ToSlash(path), "/"+statedir.SessionsDir+"/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if id, err := store.ParseID(name); err == nil && id == name {
		return id
	}
	return ""
}

// uidOf is "1000" in "… not to you (uid 1000)".
func uidOf(what string) string {
	_, rest, _ := strings.Cut(what, "not to you (uid ")
	uid, _, _ := strings.Cut(rest, ")")
	return uid
}

// quotePath quotes a path for a POSIX shell when it needs it.
func quotePath(p string) string {
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+@%:,=", c)) {
			return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return p
}

// startFailure is what the readiness pipe says when the service cannot
// start: the refusal, or what failed and where the service log is.
func startFailure(root *safefs.Root, what string, err error) string {
	if msg, ok := Refusal(err); ok {
		return msg
	}
	msg := what + ": " + err.Error()
	if root != nil {
		msg += " (the service log is " + filepath.Join(root.Path(), statedir.ServiceLog) + ")"
	}
	return msg
}
