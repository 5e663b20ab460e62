package output

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ShellQuote quotes an argument for a copy-pasteable command line. An
// argument with a character Escape would change (a label with a newline, say)
// is written in ANSI-C quotes ($'H1\n'), so the command stays on one line and
// a shell still reads back the very same bytes.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == "" {
		return s
	}
	if Escape(s) != s {
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == '\\' || r == '\'':
				b.WriteByte('\\')
				b.WriteByte(s[i])
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == utf8.RuneError && size == 1, mustEscape(r):
				for _, c := range []byte(s[i : i+size]) {
					fmt.Fprintf(&b, `\x%02x`, c) // bytes, so any shell locale reads them back
				}
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
		}
		return b.String() + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CommandLine renders a full debug-mode command.
func CommandLine(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return "debug-mode " + strings.Join(q, " ")
}

// SplitCommandLine splits a continuation command the CLI printed (the
// inverse of its quoting) into words (spaces, POSIX single quotes, ANSI-C
// $'…' quotes, backslash escapes outside them); ok is false for an
// unterminated quote.
func SplitCommandLine(line string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '$' && i+1 < len(line) && line[i+1] == '\'':
			n, ok := unquoteANSIC(line[i+2:], &cur)
			if !ok {
				return nil, false
			}
			i += 1 + n
			inWord = true
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, false
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// unquoteANSIC decodes the body of a $'…' word up to its closing quote
// (the escapes ShellQuote writes, and the other common ones) and returns how
// many bytes it read, the quote included.
func unquoteANSIC(s string, out *strings.Builder) (int, bool) {
	simple := map[byte]byte{'n': '\n', 'r': '\r', 't': '\t', 'a': '\a', 'b': '\b', 'e': 0x1b, 'f': '\f', 'v': '\v', '\\': '\\', '\'': '\'', '"': '"', '?': '?'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			return i + 1, true
		}
		if c != '\\' || i+1 == len(s) {
			out.WriteByte(c)
			continue
		}
		i++
		if b, ok := simple[s[i]]; ok {
			out.WriteByte(b)
			continue
		}
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
		if digits == 0 {
			out.WriteByte('\\')
			out.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && j < i+1+digits && isHex(s[j]) {
			j++
		}
		v, err := strconv.ParseUint(s[i+1:j], 16, 32)
		switch {
		case err != nil:
			out.WriteByte('\\')
			out.WriteByte(s[i])
		case s[i] == 'x':
			out.WriteByte(byte(v))
		default:
			out.WriteRune(rune(v))
		}
		i = j - 1
	}
	return 0, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
