package evidence

import (
	"bytes"
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
	"csrf", "xsrf", "signature", "authheader", "authkey", "accountkey",
}

// keyWords are too short to match inside other words ("author", "spinner",
// "compass", "bypass", "passes"), so they redact a key only when they are the
// whole key or its last word: "pass", "db_pass", "userPw" and "proxyAuth"
// are secret; "pwd_path" (a working directory) and "pass_count" are not.
var keyWords = []string{"pwd", "pw", "pass", "auth", "jwt", "otp", "ssn", "cvv", "bearer"}

// keyEquals redact only a key that is exactly the word: as a last word
// they name ordinary things ("led_pin", "gpio_pin").
var keyEquals = []string{"pin"}

// notSecretWords continue a secret word into another word: "secretary",
// "tokenizer", "tokenise". (Normalised: lower case, no separators.)
var notSecretWords = []string{"secretar", "tokeniz", "tokenis"}

// descriptorWords, as the last word of a key whose secret word stands
// before it, say the key describes the secret instead of holding it:
// "token_type", "tokens_count", "password_length", "secret_name",
// "csrf_enabled", "token_expires_at". "id" is not one ("session_id" and
// "access_key_id" are secrets), nor "hash" or "header".
var descriptorWords = map[string]bool{
	"count": true, "counts": true, "cnt": true, "num": true, "len": true, "length": true, "size": true,
	"type": true, "types": true, "kind": true, "format": true, "alg": true, "algo": true, "algorithm": true,
	"ttl": true, "expiry": true, "expires": true, "expired": true, "expiration": true, "exp": true,
	"at": true, "time": true, "ts": true, "age": true, "name": true, "names": true, "path": true,
	"file": true, "filename": true, "dir": true, "url": true, "uri": true, "endpoint": true,
	"enabled": true, "disabled": true, "valid": true, "present": true, "required": true, "status": true,
	"state": true, "source": true, "version": true, "rate": true, "limit": true, "bucket": true,
	"index": true, "idx": true, "offset": true, "field": true, "fields": true, "mode": true, "policy": true,
	"error": true, "errors": true, "reason": true, "min": true, "max": true, "strength": true,
}

// fileExtensions end a name that is a file, not a key: "token_store.py",
// "secrets.go", "password_reset.js", "api_key.rb". A file name is never a
// secret-looking key, wherever it stands (a location, a message, a data
// name). Extensions that name key material (.key, .pem) are not listed.
var fileExtensions = map[string]bool{
	"c": true, "h": true, "cc": true, "cpp": true, "cxx": true, "hpp": true, "hh": true, "cs": true,
	"java": true, "kt": true, "kts": true, "scala": true, "groovy": true, "go": true, "rs": true,
	"py": true, "pyi": true, "pyx": true, "rb": true, "php": true, "pl": true, "pm": true, "js": true,
	"mjs": true, "cjs": true, "jsx": true, "ts": true, "mts": true, "cts": true, "tsx": true, "vue": true,
	"svelte": true, "swift": true, "m": true, "mm": true, "dart": true, "lua": true, "r": true, "ex": true,
	"exs": true, "erl": true, "hs": true, "ml": true, "fs": true, "clj": true, "zig": true, "nim": true,
	"sh": true, "bash": true, "zsh": true, "ps1": true, "psm1": true, "sql": true, "html": true, "htm": true,
	"css": true, "scss": true, "erb": true, "j2": true, "tmpl": true, "tpl": true, "json": true,
	"yaml": true, "yml": true, "toml": true, "ini": true, "cfg": true, "conf": true, "xml": true,
	"txt": true, "md": true, "log": true, "csv": true, "properties": true, "gradle": true, "tf": true,
	"proto": true, "graphql": true, "lock": true,
}

// isFileName reports whether key ends in ".<a known extension>".
func isFileName[T ~string | ~[]byte](key T) bool {
	dot := -1
	for i := len(key) - 1; i >= 0 && i >= len(key)-11; i-- {
		if key[i] == '.' {
			dot = i
			break
		}
	}
	if dot <= 0 || dot == len(key)-1 {
		return false
	}
	var ext [10]byte
	n := 0
	for _, c := range []byte(string(key[dot+1:])) {
		if isUpper(c) {
			c += 'a' - 'A'
		}
		ext[n] = c
		n++
	}
	return fileExtensions[string(ext[:n])]
}

// isSecretKey reports whether a data object name marks its value as secret.
func isSecretKey[T ~string | ~[]byte](key T) bool {
	k, _ := keyKind(key)
	return k
}

// keyKind is isSecretKey, and whether the key's last word is the plural of
// a secret word ("tokens", "input_tokens", "passwords"): a number under
// such a key counts things ("input_tokens": 523) and is not secret.
func keyKind[T ~string | ~[]byte](key T) (secret, plural bool) {
	if isFileName(key) {
		return false, false
	}
	var buf [64]byte
	norm := buf[:0]
	last := 0      // where the key's last word starts in norm
	split := false // a separator was seen: the next letter starts a word
	for i := 0; i < len(key); i++ {
		c := key[i]
		if isKeySep(c) {
			split = true
			continue
		}
		if split || i > 0 && camelBoundary(key[i-1], c, i+1 < len(key) && isLower(key[i+1])) {
			last = len(norm)
		}
		split = false
		if isUpper(c) {
			c += 'a' - 'A'
		}
		norm = append(norm, c)
	}
	for _, w := range keyWords {
		if string(norm) == w || string(norm[last:]) == w {
			return true, false
		}
	}
	for _, w := range keyEquals {
		if string(norm) == w {
			return true, false
		}
	}
	describes := last > 0 && descriptorWords[string(norm[last:])]
	for i, c := range norm {
		if c -= 'a'; c < 26 {
			for _, w := range containsByFirst[c] {
				if !hasPrefix(norm[i:], w) || continuesWord(norm[i:]) {
					continue
				}
				end := i + len(w)
				if describes && end <= last {
					continue // "token_type": the secret word is described, not held
				}
				return true, i >= last && end == len(norm)-1 && norm[end] == 's'
			}
		}
	}
	return false, false
}

// continuesWord reports whether a secret word at the start of norm runs on
// into a harmless word ("secretary", "tokenizer").
func continuesWord(norm []byte) bool {
	for _, w := range notSecretWords {
		if hasPrefix(norm, w) {
			return true
		}
	}
	return false
}

// hasKeyWord reports whether s holds a word that makes a key secret, spelled
// as isSecretKey reads keys (any case, separators inside): text without one
// cannot match a rule that needs a secret-looking key.
func hasKeyWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if l := (s[i] | 0x20) - 'a'; l < 26 {
			for _, w := range keyWordsByFirst[l] {
				if matchFolded(s[i:], w) {
					return true
				}
			}
		}
	}
	return false
}

// keyWordsByFirst indexes every key word by first letter.
var keyWordsByFirst = func() (idx [26][]string) {
	for _, w := range append(append(append([]string{}, keyContains...), keyWords...), keyEquals...) {
		idx[w[0]-'a'] = append(idx[w[0]-'a'], w)
	}
	return idx
}()

// containsByFirst indexes keyContains by first letter.
var containsByFirst = func() (idx [26][]string) {
	for _, w := range keyContains {
		idx[w[0]-'a'] = append(idx[w[0]-'a'], w)
	}
	return idx
}()

// mightNeedRules is the parser's prefilter for one string or name. A
// string of name characters only ([A-Za-z0-9_.-]) cannot hold a key=value,
// a key: value, a quoted field or a scheme and its token, so for it a
// secret-looking word is not enough: only a value needle (AKIA, ghp_, eyJ,
// …) can make a rule match. That spares rules for names like "password".
func mightNeedRules[T ~string | ~[]byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return mightContainSecret(s)
		}
	}
	for i := 0; i+1 < len(s); i++ {
		for _, x := range exactNeedles[s[i]] {
			if hasPrefix(s[i:], x) {
				return true
			}
		}
	}
	return false
}

// camelBoundary reports whether c starts a word after prev in a camelCase
// or PascalCase name: "userPw", "user2Pw", and "APIAuth" (an upper-case run
// ends where a capitalised word begins; nextLower says the byte after c is
// lower case).
func camelBoundary(prev, c byte, nextLower bool) bool {
	if !isUpper(c) {
		return false
	}
	return isLower(prev) || isDigit(prev) || isUpper(prev) && nextLower
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

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
	fold := append(append(append([]string{"basic"}, keyContains...), keyWords...), keyEquals...)
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
	// locate, instead of a pattern, finds the matches in the form of
	// FindAllStringSubmatchIndex.
	locate func(s string) [][]int
	keyed  bool // matches only under a secret-looking key: skipped in text without a key word
	// secret picks the part of a match to replace from its submatch indexes;
	// ok=false leaves the match alone.
	secret func(s string, m []int) (start, end int, ok bool)
	repl   string
}

// Rules run in order on the output of the previous ones; the broad shapes
// (whole PEM blocks, URLs, JWTs) go first so that narrower rules see their
// "[REDACTED:…]" marker instead of a second copy of the secret.
var valueRules = []*valueRule{
	// PEM (RSA, EC, OPENSSH, ENCRYPTED, …) and PGP private key blocks.
	{kind: "private-key", needles: []string{"-----BEGIN"},
		pattern: `-----BEGIN[A-Z0-9 ]*(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----|$)`},
	{kind: "url-password", needles: []string{"://"},
		pattern: `[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:([^\s/?#]+)@`,
		secret:  group(1, notRedacted)},
	{kind: "jwt", needles: []string{"eyJ"},
		pattern: `\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`},
	// Not inside a longer word, but "_" may join it to a name: KEY_AKIA….
	{kind: "aws-key", needles: []string{"AKIA", "ASIA"},
		pattern: `(?:AKIA|ASIA)[A-Z0-9]{16}`,
		secret:  awsKeyID},
	{kind: "github-token", needles: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`},
	{kind: "slack-token", needles: []string{"xoxa-", "xoxb-", "xoxe-", "xoxp-", "xoxr-", "xoxs-", "xapp-"},
		pattern: `\b(?:xox[abeprs]|xapp)-[A-Za-z0-9-]{10,}`},
	{kind: "gitlab-token", needles: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-", "glimt-", "glagent-", "gloas-"},
		pattern: `\bgl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|agent|oas)-[A-Za-z0-9_-]{20,}`},
	{kind: "npm-token", needles: []string{"npm_"},
		pattern: `\bnpm_[A-Za-z0-9]{36,}`},
	{kind: "pypi-token", needles: []string{"pypi-AgE"},
		pattern: `\bpypi-AgE[A-Za-z0-9_-]{50,}`},
	{kind: "huggingface-token", needles: []string{"hf_"},
		pattern: `\bhf_[A-Za-z0-9]{34,}\b`},
	{kind: "sendgrid-key", needles: []string{"SG."},
		pattern: `\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`},
	{kind: "shopify-token", needles: []string{"shpat_", "shpss_", "shpca_", "shppa_"},
		pattern: `\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`},
	{kind: "digitalocean-token", needles: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		pattern: `\bdo[por]_v1_[a-f0-9]{64}`},
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
	// or a diagnostic excerpt of a raw record: "password":"…", token=…,
	// and password: … (YAML, HTTP headers, log lines).
	{kind: "secret-field", match: []string{`"`}, keyed: true,
		pattern: `"([^"\\]{1,128})"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?[0-9][0-9.eE+-]*))`,
		secret:  secretField},
	// A [name, value] pair, as headers are often listed (Python's
	// list(headers.items()), a JSON array of pairs): ["Cookie", "sid=…"].
	// The name is a header or field name, and a "(" opens a tuple, not a
	// call: agent_log("H1 token", "msg") is not a pair.
	{kind: "secret-field", match: []string{","}, keyed: true,
		pattern: `(?:\[|(?:^|[\[,\s])\()\s*(?:"([A-Za-z][A-Za-z0-9_.-]{0,63})"|'([A-Za-z][A-Za-z0-9_.-]{0,63})')\s*,\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(-?[0-9][0-9.eE+-]*))`,
		secret:  secretPair},
	// A command-line option and its value: --password hunter2 (the form
	// with "=" is a key=value). Only long options: a short one is a letter.
	{kind: "secret-field", match: []string{"--"}, keyed: true,
		pattern: `(?:^|[\s'"])--([A-Za-z][A-Za-z0-9_.-]{0,63})[ \t]+([^\s'"-][^\s'"]*)`,
		secret:  secretOption},
	// XML elements: <password>…</password>.
	{kind: "secret-field", match: []string{"</"}, keyed: true,
		pattern: `<([A-Za-z][A-Za-z0-9_.:-]{0,63})>([^<]*)</`,
		secret:  secretElement},
	// key=value and key: value are found by scanning for the separator
	// (a regexp without a literal to start from is slow) and match only up
	// to it; the value is read in code, so a value cannot hide a secret key
	// inside it ("data": "password: …").
	{kind: "secret-field", match: []string{"="}, keyed: true, locate: keysBefore('='), secret: secretAssignment},
	{kind: "secret-field", match: []string{":"}, keyed: true, locate: keysBefore(':'), secret: secretColonField},
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

// secretField replaces the value (the first alternative that matched after
// group 1) when the key (group 1) is secret-looking. Booleans and null stay,
// as under secret-looking keys in data.
func secretField(s string, m []int) (int, int, bool) {
	secret, plural := keyKind(s[m[2]:m[3]])
	if !secret {
		return 0, 0, false
	}
	for g := 2; 2*g+1 < len(m); g++ {
		if a, z := m[2*g], m[2*g+1]; a >= 0 && z > a {
			return a, z, secretUnder(s[a:z], plural)
		}
	}
	return 0, 0, false
}

// secretPair is secretField for a [name, value] pair, whose name is
// group 1 or 2 (double or single quotes).
func secretPair(s string, m []int) (int, int, bool) {
	k := 1
	if m[2] < 0 {
		k = 2
	}
	return secretField(s, []int{m[0], m[1], m[2*k], m[2*k+1], m[6], m[7], m[8], m[9], m[10], m[11]})
}

// secretOption replaces the value after a secret-looking long option.
func secretOption(s string, m []int) (int, int, bool) {
	secret, plural := keyKind(s[m[2]:m[3]])
	a, z := m[4], m[5]
	return a, z, secret && secretUnder(s[a:z], plural)
}

// RedactArgs redacts a command line, one argument at a time, and the
// argument after a secret-looking long option ("--password", "hunter2")
// as a whole.
func RedactArgs(args []string) ([]string, int) {
	out, total := make([]string, len(args)), 0
	for i, a := range args {
		if i > 0 && strings.HasPrefix(args[i-1], "--") && !strings.Contains(args[i-1], "=") && a != "" && a[0] != '-' {
			if secret, plural := keyKind(args[i-1][2:]); secret && secretUnder(a, plural) {
				out[i] = "[REDACTED:secret-field]"
				total++
				continue
			}
		}
		var n int
		out[i], n = RedactText(a)
		total += n
	}
	return out, total
}

// secretElement replaces the text of an XML element whose name looks secret.
func secretElement(s string, m []int) (int, int, bool) {
	secret, plural := keyKind(s[m[2]:m[3]])
	a, z := m[4], m[5]
	return a, z, secret && z > a && secretUnder(s[a:z], plural)
}

// secretValue reports whether v may be a secret: not a marker already, and
// not a literal that cannot carry one (true, false, null, and their
// spellings in Python, Ruby, Go and JavaScript).
func secretValue(v string) bool {
	switch v {
	case "true", "false", "null", "True", "False", "None", "nil", "undefined", "NULL":
		return false
	}
	return notRedacted(v)
}

// fieldValueAt finds the value that starts at i, after "key=" or "key:"
// in text: the inside of "…", '…' or \"…\" (a JSON text inside a JSON
// string, as in a refused line's excerpt), else one bare token. A quote
// left open (an excerpt's cut) runs to the end of the line.
func fieldValueAt(s string, i int) (a, z int, bare bool) {
	switch {
	case i < len(s) && (s[i] == '"' || s[i] == '\''):
		a, z = i+1, i+1
		for z < len(s) && s[z] != s[i] && !isTokenEnd(s[z]) {
			z++
		}
		return a, z, false
	case strings.HasPrefix(s[i:], `\"`):
		a, z = i+2, i+2
		for z < len(s) && !strings.HasPrefix(s[z:], `\"`) && s[z] != '"' && s[z] != '\n' {
			z++
		}
		return a, z, false
	}
	a, z = i, i
	for z < len(s) && !isBareEnd(s[z]) {
		z++
	}
	return a, z, true
}

// isBareEnd ends an unquoted value: space, a quote, or punctuation that
// separates fields in query strings, cookies, JSON and XML.
func isBareEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '<', '>', ';', ',', '&', '{', '}', '[', ']', '\\':
		return true
	}
	return false
}

// keysBefore finds each name followed by sep: a letter, then up to 63
// letters, digits or "_.-", before sep, with spaces and a closing quote
// (', ", or \" in JSON text) between them: "password: x", "token = x",
// {'password': 'x'} (a Python dict), {"password" => "x"} (Ruby). The
// value may start after ":=" (Go) or "=>" (Ruby, PHP); "==" is a
// comparison, not a match. A name right after '/' or '\' is part of a
// path ("auth/token:12"). Each match runs from the name to the start of
// the value, with the name as group 1; only names that look secret are
// returned.
func keysBefore(sep byte) func(string) [][]int {
	return func(s string) [][]int {
		var out [][]int
		last := 0 // matches do not overlap
		for i := 0; i < len(s); i++ {
			if s[i] != sep {
				continue
			}
			v := i + 1
			if v < len(s) && (sep == ':' && s[v] == '=' || sep == '=' && s[v] == '>') {
				v++
			} else if sep == '=' && (v < len(s) && s[v] == '=' || i > 0 && s[i-1] == '=') {
				continue // "==": a comparison
			}
			end := i
			for end > last && (s[end-1] == ' ' || s[end-1] == '\t') {
				end--
			}
			if end > last && (s[end-1] == '"' || s[end-1] == '\'') {
				end--
				if end > last && s[end-1] == '\\' {
					end--
				}
			}
			start := end
			for start > last && end-start < 64 && isNameByte(s[start-1]) {
				start--
			}
			if start > 0 && s[start-1] == '\\' && start+1 < end && (s[start] == 'n' || s[start] == 'r' || s[start] == 't') {
				start++ // "\npw: x" in JSON text: the escape is not part of the name
			}
			for start < end && !isUpper(s[start]) && !isLower(s[start]) {
				start++
			}
			if start == end || start > 0 && (s[start-1] == '/' || s[start-1] == '\\') || !isSecretKey(s[start:end]) {
				continue // only secret-looking names are of interest
			}
			for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
				v++
			}
			out = append(out, []int{start, v, start, end})
			last = v
		}
		return out
	}
}

func isNameByte(c byte) bool {
	return isUpper(c) || isLower(c) || isDigit(c) || c == '_' || c == '.' || c == '-'
}

// secretAssignment replaces the value after "key=" (the match) when the
// key (group 1) is secret-looking.
func secretAssignment(s string, m []int) (int, int, bool) {
	secret, plural := keyKind(s[m[2]:m[3]])
	if !secret {
		return 0, 0, false
	}
	a, z, _ := fieldValueAt(s, m[1])
	return a, z, z > a && secretUnder(s[a:z], plural)
}

// secretColonField is secretAssignment for "key: value". A bare value
// that is an HTTP authentication scheme ("Authorization: Bearer …") hides
// the token after it instead; a key at the start of a line (YAML, HTTP
// headers) owns the rest of the line, so "password: correct horse
// battery" is replaced whole, and so does a cookie anywhere (its value is
// a list of cookies). Elsewhere in a line only the first token is.
func secretColonField(s string, m []int) (int, int, bool) {
	key := s[m[2]:m[3]]
	secret, plural := keyKind(key)
	if !secret {
		return 0, 0, false
	}
	a, z, bare := fieldValueAt(s, m[1])
	if !bare {
		return a, z, z > a && secretUnder(s[a:z], plural)
	}
	if isAuthScheme(s[a:z]) {
		a = z
		for a < len(s) && (s[a] == ' ' || s[a] == '\t') {
			a++
		}
		if a == z {
			return 0, 0, false // the scheme alone
		}
		z = a
		for z < len(s) && !isTokenEnd(s[z]) && s[z] != ' ' && s[z] != '\t' {
			z++
		}
	}
	if !secretUnder(s[a:z], plural) || isCodeLine(key, s[a:z]) {
		return 0, 0, false
	}
	if atLineStart(s, m[2]) || containsFold(key, "cookie") {
		for z < len(s) && !isTokenEnd(s[z]) {
			z++
		}
		for z > a && (s[z-1] == ' ' || s[z-1] == '\t') {
			z--
		}
	}
	return a, z, z > a && secretValue(s[a:z])
}

// isCodeLine reports whether key: v is a place in code, a dotted name and
// a line number ("TokenStore.refresh:42", "auth.tokens:7"), because the
// name's last part is not secret by itself. "db.password: 1234" is secret.
func isCodeLine(key, v string) bool {
	dot := strings.LastIndexByte(key, '.')
	if dot < 0 || v == "" || len(v) > 7 || isSecretKey(key[dot+1:]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return true
}

// secretUnder is secretValue, less a number under a plural key: a count.
func secretUnder(v string, plural bool) bool {
	return secretValue(v) && !(plural && isNumber(v))
}

// isNumber reports whether v is a decimal number such as 523 or 1.5,
// perhaps followed by punctuation that ends it in prose ("523)", "523`").
func isNumber(v string) bool {
	v = strings.TrimRight(v, ")]`.,;:!?")
	digits := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			digits++
		case c == '.' || c == '-' && i == 0:
		default:
			return false
		}
	}
	return digits > 0
}

// isTokenEnd ends a value in text: the end of a line (also as a "\n"
// escape in raw JSON text), or of the string that holds it.
func isTokenEnd(c byte) bool { return c == '\n' || c == '\r' || c == '"' || c == '\\' }

// atLineStart reports whether only indentation or a YAML list dash stands
// between the start of a line and i.
func atLineStart(s string, i int) bool {
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '-') {
		i--
	}
	return i == 0 || s[i-1] == '\n' || s[i-1] == '\r' || i >= 2 && s[i-1] == 'n' && s[i-2] == '\\'
}

// isAuthScheme names the HTTP authentication schemes that precede a
// credential in an Authorization header.
func isAuthScheme(v string) bool {
	for _, w := range []string{"bearer", "basic", "digest", "negotiate", "ntlm", "token", "hoba", "mutual", "aws4-hmac-sha256"} {
		if len(v) == len(w) && containsFold(v, w) {
			return true
		}
	}
	return false
}

// awsKeyID replaces an access key id that is not part of a longer run of
// letters and digits.
func awsKeyID(s string, m []int) (int, int, bool) {
	a, z := m[0], m[1]
	alnum := func(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }
	if a > 0 && alnum(s[a-1]) || z < len(s) && alnum(s[z]) {
		return 0, 0, false
	}
	return a, z, true
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
func RedactText(s string) (string, int) { return redactIn(s, keysAll) }

// RedactLabel is RedactText for a hypothesis label: a name written in the
// code, not a runtime value, and the key evidence is grouped and filtered
// by. Only secret-shaped values (tokens, keys, credentials in URLs) are
// replaced; "H1 token: stale" is never read as a key and its value.
func RedactLabel(s string) (string, int) { return redactIn(s, keysNone) }

// RedactLocation is RedactText for a location: a line number is never a
// secret, so a word in a file name ("token:12", "auth/token_store.py:12")
// never costs the agent its probe's line; anything else after a
// secret-looking key is replaced as in text.
func RedactLocation(s string) (string, int) { return redactIn(s, keysNoLines) }

// RedactCode is RedactText for a line of source code, shown as the context
// of a probe: a secret-looking name hides only a quoted literal after it
// (password = "hunter2"), not code (token = self.refresh(), token: str).
func RedactCode(s string) (string, int) { return redactIn(s, keysQuoted) }

// keyMode says which values the rules that read a key before a value hide.
type keyMode int

const (
	keysAll     keyMode = iota // every value: text, messages, data
	keysNone                   // none: labels and locations
	keysQuoted                 // quoted literals only: source code
	keysNoLines                // every value but a line number (123 or 123:45): locations
)

// redactIn is RedactText with keys saying what key rules may hide.
func redactIn(s string, keys keyMode) (string, int) {
	if !mightContainSecret(s) {
		return s, 0
	}
	return redactWith(s, hasAWSKeyID(s), true, keys)
}

var compileRules sync.Once

// redactAll is RedactText without the prefilter and without the gates in
// front of each rule, so tests can check that they never change a result.
func redactAll(s string) (string, int) { return redactWith(s, hasAWSKeyID(s), false, keysAll) }

// redactWith applies every rule to s; aws says an AWS access key id is in
// the same text or record, so that AWS secret keys are looked for too.
// gated skips the rules whose literals (or key words) s does not hold;
// keys says what the rules that read a key before a value may hide.
func redactWith(s string, aws, gated bool, keys keyMode) (string, int) {
	compileRules.Do(func() {
		for _, r := range valueRules {
			if r.locate == nil {
				r.re = regexp.MustCompile(r.pattern)
			}
		}
	})
	total := 0
	keyWord := -1 // whether s holds a key word; looked for once, when needed
	for _, r := range valueRules {
		switch {
		case r.keyed && keys == keysNone:
			continue
		case !gated:
		case r.needles != nil && !containsAny(s, r.needles),
			r.match != nil && !containsAny(s, r.match),
			r.fold != "" && !containsFold(s, r.fold):
			continue
		}
		if r.keyed && gated {
			if keyWord < 0 {
				keyWord = 0
				if hasKeyWord(s) {
					keyWord = 1
				}
			}
			if keyWord == 0 {
				continue
			}
		}
		var n int
		var keep func(s string, a, z int) bool
		switch {
		case r.keyed && keys == keysQuoted:
			keep = unquoted
		case r.keyed && keys == keysNoLines:
			keep = lineNumber
		}
		s, n = r.apply(s, keep)
		total += n
	}
	if aws {
		var n int
		s, n = redactAWSSecrets(s)
		total += n
	}
	return s, total
}

// AWS secret access keys are 40 characters of base64 with no prefix of
// their own, shaped like a 30-byte base64 payload. They are looked for only
// where an access key id (AKIA…, ASIA…) is in the same text or record — the
// two travel together — and then as a run of exactly 40 [A-Za-z0-9/+] with
// both cases (which no hex digest has) and no "=" padding after it (which a
// base64 payload has). A lone secret key under a name that is not
// secret-looking is not recognised: nothing tells it from data.
const awsSecretLen = 40

func isAWSSecretByte(c byte) bool {
	return isUpper(c) || isLower(c) || isDigit(c) || c == '/' || c == '+'
}

// hasAWSKeyID reports whether s holds an access key id.
func hasAWSKeyID[T ~string | ~[]byte](s T) bool {
	for _, prefix := range []string{"AKIA", "ASIA"} {
		for from := 0; ; {
			i := indexOf(s[from:], prefix)
			if i < 0 {
				break
			}
			i += from
			j := i + 4
			for j < len(s) && j < i+20 && (isUpper(s[j]) || isDigit(s[j])) {
				j++
			}
			if j == i+20 {
				return true
			}
			from = i + 4
		}
	}
	return false
}

// indexOf is strings.Index or bytes.Index, whichever s is.
func indexOf[T ~string | ~[]byte](s T, sub string) int {
	if b, ok := any(s).([]byte); ok {
		return bytes.Index(b, []byte(sub))
	}
	return strings.Index(string(s), sub)
}

// awsSecretRuns calls f with the start and end of each run in s shaped like
// an AWS secret key; an escaped "\/" (raw JSON text) counts as one '/'. It
// stops when f returns false.
func awsSecretRuns[T ~string | ~[]byte](s T, f func(a, z int) bool) {
	for i := 0; i < len(s); {
		if !isAWSSecretByte(s[i]) && (s[i] != '\\' || i+1 == len(s) || s[i+1] != '/') {
			i++
			continue
		}
		j, n, upper, lower := i, 0, false, false
		for j < len(s) {
			if c := s[j]; isAWSSecretByte(c) {
				upper, lower = upper || isUpper(c), lower || isLower(c)
				j++
			} else if c == '\\' && j+1 < len(s) && s[j+1] == '/' {
				j += 2
			} else {
				break
			}
			n++
		}
		if n == awsSecretLen && upper && lower && (j == len(s) || s[j] != '=') && !f(i, j) {
			return
		}
		i = j
	}
}

// hasAWSSecretRun reports whether s holds a run shaped like an AWS secret key.
func hasAWSSecretRun[T ~string | ~[]byte](s T) bool {
	found := false
	awsSecretRuns(s, func(int, int) bool { found = true; return false })
	return found
}

func redactAWSSecrets(s string) (string, int) {
	var b strings.Builder
	last, n := 0, 0
	awsSecretRuns(s, func(a, z int) bool {
		b.WriteString(s[last:a])
		b.WriteString("[REDACTED:aws-secret-key]")
		last = z
		n++
		return true
	})
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
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

// unquoted reports whether s[a:z] stands outside quotes.
func unquoted(s string, a, z int) bool { return a == 0 || s[a-1] != '"' && s[a-1] != '\'' }

// lineNumber reports whether s[a:z] is a line number, with or without a
// column (12, 12:5).
func lineNumber(s string, a, z int) bool {
	v := s[a:z]
	line, col, _ := strings.Cut(v, ":")
	digits := func(x string) bool { return x != "" && strings.Trim(x, "0123456789") == "" }
	return digits(line) && (col == "" && !strings.Contains(v, ":") || digits(col))
}

// apply replaces the rule's matches in s, less those keep (when set)
// says to leave.
func (r *valueRule) apply(s string, keep func(s string, a, z int) bool) (string, int) {
	var matches [][]int
	if r.locate != nil {
		matches = r.locate(s)
	} else {
		matches = r.re.FindAllStringSubmatchIndex(s, -1)
	}
	if matches == nil {
		return s, 0
	}
	var b strings.Builder
	last, n := 0, 0
	for _, m := range matches {
		a, z, ok := r.secret(s, m)
		if ok && keep != nil && keep(s, a, z) {
			continue
		}
		if !ok || a < last {
			continue // or inside what a rule that reaches past its match replaced
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
