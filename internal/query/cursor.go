package query

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Cursor errors, each with the message an agent needs.
var (
	ErrCursorInvalid = errors.New("the cursor is damaged or was not issued by this debug-mode; run the query again without --cursor")
	ErrCursorSession = errors.New("the cursor belongs to another session; use it with the session it came from, or run the query again without --cursor")
)

// cursorState is everything a continuation needs: the whole scope of the
// query, where it stopped, and the cycle it read.
type cursorState struct {
	V       int      `json:"v"`
	Session string   `json:"sid"`
	Cycle   int64    `json:"c"`
	Spec    Spec     `json:"q"`
	Pos     Position `json:"pos"`
}

// Signer issues and checks cursors with a key kept in the state root, so a
// cursor cannot be edited to read another scope.
type Signer struct{ key []byte }

// NewSigner uses key (at least 32 bytes).
func NewSigner(key []byte) *Signer { return &Signer{key: key} }

// Encode makes the opaque cursor text.
func (s *Signer) Encode(session string, cycle int64, spec Spec, pos Position) string {
	payload, _ := json.Marshal(cursorState{V: 1, Session: session, Cycle: cycle, Spec: spec, Pos: pos})
	mac := hmac.New(sha256.New, s.key)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:18])
}

// Decode checks a cursor's authenticity and that it belongs to session. The
// caller checks the cycle against the evidence (a reset makes it stale).
func (s *Signer) Decode(cursor, session string) (spec Spec, pos Position, cycle int64, err error) {
	body, tag, ok := strings.Cut(strings.TrimSpace(cursor), ".")
	if !ok {
		return Spec{}, Position{}, 0, ErrCursorInvalid
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(tag)
	if err1 != nil || err2 != nil {
		return Spec{}, Position{}, 0, ErrCursorInvalid
	}
	mac := hmac.New(sha256.New, s.key)
	mac.Write(payload)
	if !hmac.Equal(got, mac.Sum(nil)[:18]) {
		return Spec{}, Position{}, 0, ErrCursorInvalid
	}
	var st cursorState
	if json.Unmarshal(payload, &st) != nil || st.V != 1 {
		return Spec{}, Position{}, 0, ErrCursorInvalid
	}
	if st.Session != session {
		return Spec{}, Position{}, 0, ErrCursorSession
	}
	return st.Spec, st.Pos, st.Cycle, nil
}
