package output

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape is the one way text that came from outside debug-mode (labels,
// locations, messages, data, file names, source lines, diagnostics, notes,
// capture labels, error messages) reaches pretty output. It keeps the text
// on one line and unable to act on a terminal, so evidence can never forge a
// line or a column of the tool's own output, recolour it, move the cursor or
// reorder what is shown.
//
// Escaped: every C0 control (U+0000–U+001F, tab included: it separates
// table columns), DEL (U+007F), every C1 control (U+0080–U+009F, CSI and
// NEL among them), the Unicode line and paragraph separators (U+2028,
// U+2029), the bidirectional controls (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069), and bytes that are not UTF-8 (a lone 0x9b
// is CSI to some terminals). \n, \r and \t are written as such, other
// characters as \uXXXX (which keeps JSON text valid JSON), bad bytes as \xNN.
// Everything else, backslashes included, is printed as it is.
func Escape(s string) string {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++ // printable ASCII needs no look
	}
	if i == len(s) || strings.IndexFunc(s[i:], mustEscape) < 0 && utf8.ValidString(s[i:]) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case mustEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// mustEscape reports the characters Escape never prints as they are.
func mustEscape(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r < 0x061c:
		return false
	}
	return r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}
