// Package probes is the probe ledger: it finds every "agent log" region an
// agent pasted into source code, reports broken ones, joins regions with the
// events a session received, and removes well-formed regions exactly.
//
// A region is a start marker line, the probe code, and an end marker line,
// written in the file's own comment syntax: "// #region agent log" and
// "// #endregion" (C family, JavaScript/TypeScript, Go, Rust, Swift, Java,
// Kotlin, C#, PHP), "# region agent log" and "# endregion" (Python, Ruby,
// PowerShell), "#region agent log" and "#endregion" (C# preprocessor,
// PowerShell), or "/* #region agent log */" and "/* #endregion */".
//
// Regions are flat: the first end marker after a start closes it. Other
// named regions ("#region Helpers" … "#endregion") are tracked only so that
// their end markers are not mistaken for ours.
package probes

// markerKind is what one line is to the ledger.
type markerKind uint8

const (
	notMarker  markerKind = iota
	agentStart            // #region agent log
	otherStart            // #region <anything else>
	regionEnd             // #endregion
)

// classifyLine recognises a whole-line region marker. label is the text
// after "agent log" on a start marker (often the hypothesis), trimmed.
func classifyLine(line []byte) (kind markerKind, label string) {
	s := trimSpace(line)
	block := false
	switch {
	case hasPrefix(s, "//"):
		s = trimLeftByte(s, '/')
	case hasPrefix(s, "/*"):
		s, block = s[2:], true
	}
	s = trimLeftSpace(s)
	if len(s) == 0 || s[0] != '#' {
		return notMarker, ""
	}
	s = trimLeftSpace(s[1:])
	if block {
		if i := lastIndex(s, "*/"); i >= 0 {
			s = trimSpace(s[:i])
		}
	}
	if _, _, ok := keyword(s, "endregion"); ok {
		return regionEnd, ""
	}
	_, rest, ok := keyword(s, "region")
	if !ok {
		return notMarker, ""
	}
	rest = trimLeftSpace(rest)
	if !hasFoldPrefix(rest, "agent log") {
		return otherStart, ""
	}
	after := rest[len("agent log"):]
	if len(after) > 0 && isWordByte(after[0]) {
		return otherStart, "" // "agent logger", "agent logs": someone else's region
	}
	return agentStart, string(trimLabel(after))
}

// keyword matches an ASCII case-insensitive word at the start of s that is
// followed by the end of s or by white space.
func keyword(s []byte, word string) ([]byte, []byte, bool) {
	if !hasFoldPrefix(s, word) {
		return nil, nil, false
	}
	rest := s[len(word):]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return nil, nil, false
	}
	return s[:len(word)], rest, true
}

func hasPrefix(s []byte, p string) bool { return len(s) >= len(p) && string(s[:len(p)]) == p }

func hasFoldPrefix(s []byte, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[i] {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func trimLeftSpace(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func trimSpace(s []byte) []byte {
	s = trimLeftSpace(s)
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func trimLeftByte(s []byte, c byte) []byte {
	for len(s) > 0 && s[0] == c {
		s = s[1:]
	}
	return s
}

func lastIndex(s []byte, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if string(s[i:i+len(sub)]) == sub {
			return i
		}
	}
	return -1
}

// trimLabel drops the separators people put between "agent log" and a label.
func trimLabel(s []byte) []byte {
	s = trimSpace(s)
	for len(s) > 0 && (s[0] == ':' || s[0] == '-' || s[0] == '(' || s[0] == '[') {
		s = trimLeftSpace(s[1:])
	}
	for len(s) > 0 && (s[len(s)-1] == ')' || s[len(s)-1] == ']') {
		s = trimSpace(s[:len(s)-1])
	}
	if len(s) > maxLabel {
		s = s[:maxLabel]
	}
	return s
}

const maxLabel = 80

// isCommentLine says whether a trimmed line is only a comment, so the
// listing can show the first line of real code in a region.
func isCommentLine(s []byte) bool {
	switch {
	case len(s) == 0:
		return true
	case hasPrefix(s, "//"), hasPrefix(s, "/*"), hasPrefix(s, "*/"), hasPrefix(s, "<!--"):
		return true
	case s[0] == '*' && (len(s) == 1 || s[1] == ' '):
		return true
	case s[0] == '#' && (len(s) == 1 || s[1] == ' ' || s[1] == '#'):
		return true // "# note" in Python/Ruby/PowerShell; "#include" is code
	}
	return false
}
