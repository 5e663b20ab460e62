// Package probes is the probe ledger: it finds every "agent log" region an
// agent pasted into source code, reports broken ones, joins regions with the
// events a session received, and removes well-formed regions exactly.
//
// A region is a start marker line, the probe code, and an end marker line.
// A marker is a line of its own: an optional comment opener ("//", "/*",
// "#", "--", "<!--", "<#"), an optional "#" (or "#pragma"), then "region
// agent log" or "endregion" (or "end region"), in any of lower, title or
// upper case, with any white space between the words, and the block
// comment's closer, if any, at the end. So "// #region agent log",
// "//region agent log", "# region agent log", "# #region agent log",
// "#region agent log" (C#, PowerShell), "#pragma region agent log" (C, C++),
// "/* #region agent log */" and "<!-- #region agent log -->" (Vue, Svelte,
// PHP templates) all start a region, and "#endregion", "// endregion",
// "# #endregion agent log" … all end one.
//
// Regions are flat: the first end marker after a start closes it. Other
// named regions ("#region Helpers" … "#endregion") are tracked only so that
// their end markers are not mistaken for ours. A line that mentions "region
// agent log" in a comment without being a marker is reported as broken, so
// a misspelt marker is never invisible.
package probes

// markerKind is what one line is to the ledger.
type markerKind uint8

const (
	notMarker    markerKind = iota
	agentStart              // #region agent log
	otherStart              // #region <anything else>
	regionEnd               // #endregion
	agentMention            // a comment that mentions "region agent log" but is no marker
)

// classifyLine recognises a whole-line region marker. label is the text
// after "agent log" on a start marker (often the hypothesis), trimmed.
func classifyLine(line []byte) (kind markerKind, label string) {
	kind, lb := classifyMarker(trimSpace(line))
	if (kind == notMarker || kind == otherStart) && mentionsAgentLog(line) {
		return agentMention, ""
	}
	return kind, string(lb)
}

// classifyMarker reads a trimmed line as a marker.
func classifyMarker(s []byte) (markerKind, []byte) {
	closer := ""
	switch {
	case hasPrefix(s, "//"):
		s = trimLeftByte(s, '/')
	case hasPrefix(s, "/*"):
		s, closer = trimLeftByte(s[2:], '*'), "*/"
	case hasPrefix(s, "<!--"):
		s, closer = s[4:], "-->"
	case hasPrefix(s, "<#"):
		s, closer = s[2:], "#>"
	case hasPrefix(s, "--"):
		s = trimLeftByte(s, '-')
	case hasPrefix(s, "#"):
		s = trimLeftByte(s, '#') // "#region", "# region", "## region"
	default:
		return notMarker, nil
	}
	if closer != "" {
		if i := lastIndex(s, closer); i >= 0 {
			s = s[:i]
		}
	}
	s = trimSpace(s)
	if len(s) > 0 && s[0] == '#' { // "// #region", "# #region", "/* #region"
		s = trimLeftSpace(s[1:])
	}
	if _, rest, ok := keyword(s, "pragma"); ok { // "#pragma region" (C, C++)
		s = trimLeftSpace(rest)
	}
	if _, _, ok := keyword(s, "endregion"); ok {
		return regionEnd, nil
	}
	if _, rest, ok := keyword(s, "end"); ok {
		if _, _, ok := keyword(trimLeftSpace(rest), "region"); ok {
			return regionEnd, nil
		}
	}
	_, rest, ok := keyword(s, "region")
	if !ok {
		return notMarker, nil
	}
	after, ok := agentLogWords(trimLeftSpace(rest), false)
	if !ok || len(after) > 0 && isWordByte(after[0]) {
		return otherStart, nil // "agent logger", "agent logs": someone else's region
	}
	return agentStart, trimLabel(after)
}

// agentLogWords matches "agent" and "log" at the start of s, in any case,
// separated by white space (or "_" or "-"; with loose, by any run of
// non-word bytes, none included) and returns what follows.
func agentLogWords(s []byte, loose bool) ([]byte, bool) {
	if !hasFoldPrefix(s, "agent") {
		return nil, false
	}
	s = s[5:]
	n := 0
	for n < len(s) && (loose && !isWordByte(s[n]) || isSpace(s[n]) || s[n] == '_' || s[n] == '-') {
		n++
	}
	if n == 0 && !loose || !hasFoldPrefix(s[n:], "log") {
		return nil, false
	}
	return s[n+3:], true
}

// mentionsAgentLog says whether a line has "region agent log" (in any case,
// with anything but letters and digits between the words, and "log" ending
// a word) after a comment opener: a marker someone meant to write.
func mentionsAgentLog(line []byte) bool {
	for i := 0; i+len("region") <= len(line); i++ {
		j := indexFold(line[i:], "region")
		if j < 0 {
			return false
		}
		i += j
		k := i + len("region")
		for k < len(line) && !isWordByte(line[k]) {
			k++
		}
		if after, ok := agentLogWords(line[k:], true); ok && (len(after) == 0 || !isWordByte(after[0])) && commentBefore(line[:i]) {
			return true
		}
	}
	return false
}

// commentBefore says whether s holds a comment opener (or is the inside of
// a block comment: a line that starts with "*").
func commentBefore(s []byte) bool {
	t := trimLeftSpace(s)
	if len(t) > 0 && t[0] == '*' {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '#':
			return true
		case '/':
			if i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*') {
				return true
			}
		case '-':
			if i+1 < len(s) && s[i+1] == '-' {
				return true
			}
		case '<':
			if i+3 < len(s) && string(s[i:i+4]) == "<!--" {
				return true
			}
		}
	}
	return false
}

// indexFold is the index of the first ASCII case-insensitive match of the
// lower-case word in s, or -1.
func indexFold(s []byte, word string) int {
	for i := 0; i+len(word) <= len(s); i++ {
		if c := s[i] | 0x20; c == word[0] && hasFoldPrefix(s[i:], word) {
			return i
		}
	}
	return -1
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
