package evidence

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
)

// Redaction is defence in depth: probes are told not to send secrets, but
// anything that looks like one is replaced before it reaches disk, and every
// replacement is counted so the agent learns that it happened.

// Key names are compared after lowercasing and dropping these separators, so
// "API_KEY", "api-key" and "apiKey" are the same key.
func isKeySep(c byte) bool { return c == '-' || c == '_' || c == '.' || c == ' ' }

// keyContains redacts any key that contains one of these words.
var keyContains = []string{
	"password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey",
	"privatekey", "credential", "authorization", "cookie", "sessionid", "sessionkey",
	"csrf", "xsrf", "signature",
}

// keyEquals are too short to match inside other words ("author", "spinner"),
// so they only redact a key that is exactly the word.
var keyEquals = []string{"pwd", "auth", "jwt", "pin", "otp", "ssn", "cvv", "bearer"}

// isSecretKey reports whether a data object name marks its value as secret.
func isSecretKey[T ~string | ~[]byte](key T) bool {
	var buf [64]byte
	norm := buf[:0]
	for i := 0; i < len(key); i++ {
		c := key[i]
		if isKeySep(c) {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		norm = append(norm, c)
	}
	for _, w := range keyEquals {
		if string(norm) == w {
			return true
		}
	}
	for _, w := range keyContains {
		for i := 0; i+len(w) <= len(norm); i++ {
			if string(norm[i:i+len(w)]) == w {
				return true
			}
		}
	}
	return false
}

// The prefilter scans text once for anything that could begin a key or value
// match. Most records contain none, and then no key check or regexp runs.
// The scan tests each pair of adjacent bytes against a bitset of needle
// starts, so ordinary text costs one table load per byte; only a matching
// pair is looked at more closely.
var (
	// foldNeedles match case-insensitively and may have key separators
	// inside, exactly as a key is normalised. Indexed by first letter.
	foldNeedles [26][]string
	// exactNeedles are case-sensitive literal starts of secret-shaped values,
	// indexed by first byte.
	exactNeedles [256][]string
	// startPairs[c] has bit n set when the bytes c, n may start a needle.
	startPairs [256][4]uint64
)

func setPair(c, n byte) { startPairs[c][n>>6] |= 1 << (n & 63) }

func init() {
	fold := append(append([]string{"basic"}, keyContains...), keyEquals...)
	for _, n := range fold {
		foldNeedles[n[0]-'a'] = append(foldNeedles[n[0]-'a'], n)
		for _, c := range []byte{n[0], n[0] - 'a' + 'A'} {
			setPair(c, n[1])
			setPair(c, n[1]-'a'+'A')
			for _, sep := range []byte("-_. ") {
				setPair(c, sep)
			}
		}
	}
	exact := []string{`\/`} // an escaped '/' can hide "://"
	for _, r := range valueRules {
		exact = append(exact, r.needles...)
	}
	for _, n := range exact {
		exactNeedles[n[0]] = append(exactNeedles[n[0]], n)
		setPair(n[0], n[1])
	}
	// "\u00XX" escapes can spell any needle, and an '@' after "://" may end
	// a password in a URL.
	setPair('\\', 'u')
	for n := range 256 {
		setPair('@', byte(n))
	}
}

// mightContainSecret reports whether s could hold a secret key or value. It
// may report false positives but never misses something the redactor would
// change. It accepts raw JSON text as well as decoded strings.
func mightContainSecret[T ~string | ~[]byte](s T) bool {
	scheme := false // "://" seen, so a later '@' may close URL credentials
	for i := 0; i+1 < len(s); i++ {
		c, n := s[i], s[i+1]
		if startPairs[c][n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		switch c {
		case '@':
			if scheme {
				return true
			}
			continue
		case '\\':
			if n == '/' || n == 'u' && asciiEscape(s[i+2:]) {
				return true
			}
			continue
		}
		for _, x := range exactNeedles[c] {
			if hasPrefix(s[i:], x) {
				if x != "://" {
					return true
				}
				scheme = true
			}
		}
		if l := (c | 0x20) - 'a'; l < 26 && foldNeedles[l] != nil {
			j := i + 1
			for j < len(s) && isKeySep(s[j]) {
				j++
			}
			if j == len(s) {
				continue
			}
			second := s[j] | 0x20
			for _, x := range foldNeedles[l] {
				if x[1] == second && matchFolded(s[i:], x) {
					return true
				}
			}
		}
	}
	// A final '@' is the only needle that fits in one byte.
	return scheme && s[len(s)-1] == '@'
}

// asciiEscape reports whether the hex digits after "\u" encode an ASCII
// character, the only kind that can spell part of a needle.
func asciiEscape[T ~string | ~[]byte](hex T) bool {
	return len(hex) >= 3 && hex[0] == '0' && hex[1] == '0' && '0' <= hex[2] && hex[2] <= '7'
}

func hasPrefix[T ~string | ~[]byte](s T, prefix string) bool {
	return len(s) >= len(prefix) && string(s[:len(prefix)]) == prefix
}

// matchFolded reports whether s starts with needle, ignoring ASCII case and
// key separators after the first byte.
func matchFolded[T ~string | ~[]byte](s T, needle string) bool {
	k := 0
	for i := 0; i < len(s) && k < len(needle); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == needle[k]:
			k++
		case k == 0 || !isKeySep(c):
			return false
		}
	}
	return k == len(needle)
}

// valueRule finds one shape of secret inside a string.
type valueRule struct {
	kind    string
	needles []string // case-sensitive literals one of which every match contains
	fold    string   // or an ASCII case-insensitive literal every match contains
	match   []string // or literals every match contains that are too common to be prefilter needles
	pattern string   // compiled on first use: most CLI runs never redact
	re      *regexp.Regexp
	// secret picks the part of a match to replace from its submatch indexes;
	// ok=false leaves the match alone.
	secret func(s string, m []int) (start, end int, ok bool)
	repl   string
}

// Rules run in order on the output of the previous ones; the broad shapes
// (whole PEM blocks, URLs, JWTs) go first so that narrower rules see their
// "[REDACTED:…]" marker instead of a second copy of the secret.
var valueRules = []*valueRule{
	{kind: "private-key", needles: []string{"-----BEGIN"},
		pattern: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)`},
	{kind: "url-password", needles: []string{"://"},
		pattern: `[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:([^\s/?#]+)@`,
		secret:  group(1, notRedacted)},
	{kind: "jwt", needles: []string{"eyJ"},
		pattern: `\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`},
	{kind: "aws-key", needles: []string{"AKIA", "ASIA"},
		pattern: `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`},
	{kind: "github-token", needles: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`},
	{kind: "slack-token", needles: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"},
		pattern: `\bxox[abprs]-[A-Za-z0-9-]{10,}`},
	{kind: "stripe-key", needles: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"},
		pattern: `\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`},
	{kind: "google-api-key", needles: []string{"AIza"},
		pattern: `\bAIza[0-9A-Za-z_-]{35}`},
	// A digit is required so that words like "sk-learn-compatibility" survive.
	{kind: "openai-key", needles: []string{"sk-"},
		pattern: `\bsk-[A-Za-z0-9_-]{20,}`,
		secret:  group(0, hasDigit)},
	{kind: "bearer", fold: "bearer",
		pattern: `\b[Bb][Ee][Aa][Rr][Ee][Rr]\s+([A-Za-z0-9._~+/-]+=*)`,
		secret:  group(1, tokenLike)},
	{kind: "basic-auth", fold: "basic",
		pattern: `\b[Bb][Aa][Ss][Ii][Cc]\s+([A-Za-z0-9+/]{4,}={0,2})`,
		secret:  group(1, basicCredentials)},
	// Secret-looking keys inside text, as in a JSON body logged as a string
	// or a diagnostic excerpt of a raw record: "password":"…" and token=….
	{kind: "secret-field", match: []string{`"`},
		pattern: `"([^"\\]{1,128})"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?[0-9][0-9.eE+-]*))`,
		secret:  secretField},
	{kind: "secret-field", match: []string{"="},
		pattern: `([A-Za-z][A-Za-z0-9_.-]{0,63})=([^\s&"'<>;,]+)`,
		secret:  secretField},
}

func init() {
	for _, r := range valueRules {
		r.repl = "[REDACTED:" + r.kind + "]"
		if r.secret == nil {
			r.secret = group(0, nil)
		}
	}
}

// group replaces submatch n when valid (if set) accepts it.
func group(n int, valid func(string) bool) func(string, []int) (int, int, bool) {
	return func(s string, m []int) (int, int, bool) {
		a, z := m[2*n], m[2*n+1]
		if a < 0 || valid != nil && !valid(s[a:z]) {
			return 0, 0, false
		}
		return a, z, true
	}
}

// secretField replaces the value (group 2, else 3) when the key (group 1) is
// secret-looking.
func secretField(s string, m []int) (int, int, bool) {
	if !isSecretKey(s[m[2]:m[3]]) {
		return 0, 0, false
	}
	for g := 2; 2*g+1 < len(m); g++ {
		if a, z := m[2*g], m[2*g+1]; a >= 0 && z > a {
			return a, z, notRedacted(s[a:z])
		}
	}
	return 0, 0, false
}

func notRedacted(v string) bool { return !strings.HasPrefix(v, "[REDACTED") }

func hasDigit(v string) bool { return strings.ContainsAny(v, "0123456789") }

// tokenLike keeps prose such as "Bearer authentication" while catching real
// tokens, which are long or mix in digits.
func tokenLike(v string) bool { return len(v) >= 8 && (hasDigit(v) || len(v) >= 20) }

// basicCredentials accepts only base64 that decodes to "user:password".
func basicCredentials(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	}
	return err == nil && strings.IndexByte(string(b), ':') > 0
}

// RedactText replaces secret-shaped parts of s with "[REDACTED:<kind>]" and
// reports how many it replaced. It returns s itself when nothing matched.
func RedactText(s string) (string, int) {
	if !mightContainSecret(s) {
		return s, 0
	}
	return redactAll(s)
}

var compileRules sync.Once

// redactAll is RedactText without the prefilter.
func redactAll(s string) (string, int) {
	compileRules.Do(func() {
		for _, r := range valueRules {
			r.re = regexp.MustCompile(r.pattern)
		}
	})
	total := 0
	for _, r := range valueRules {
		switch {
		case r.needles != nil && !containsAny(s, r.needles),
			r.match != nil && !containsAny(s, r.match),
			r.fold != "" && !containsFold(s, r.fold):
			continue
		}
		var n int
		s, n = r.apply(s)
		total += n
	}
	return s, total
}

func containsAny(s string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lowercase ASCII word w in any
// ASCII case. (strings.EqualFold would also fold 'ſ' and 'K', which the
// prefilter and the rules deliberately do not.)
func containsFold(s, w string) bool {
next:
	for i := 0; i+len(w) <= len(s); i++ {
		for j := 0; j < len(w); j++ {
			if c := s[i+j]; c != w[j] && c+('a'-'A') != w[j] {
				continue next
			}
		}
		return true
	}
	return false
}

func (r *valueRule) apply(s string) (string, int) {
	matches := r.re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s, 0
	}
	var b strings.Builder
	last, n := 0, 0
	for _, m := range matches {
		a, z, ok := r.secret(s, m)
		if !ok {
			continue
		}
		b.WriteString(s[last:a])
		b.WriteString(r.repl)
		last = z
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}
