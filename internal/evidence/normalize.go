// Package evidence validates, bounds, redacts and stores the probe events
// that instrumented programs send to the service.
package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Limits bound what one record may contain.
// A zero field means "use the DefaultLimits value", so a partially filled
// Limits never silently rejects everything.
type Limits struct {
	MaxRecordBytes   int // the whole line, after a trailing "\r" is removed
	MaxDepth         int // nesting of objects and arrays; the record object itself is level 1
	MaxStringBytes   int // any string or name, measured as encoded in the line
	MaxLabelBytes    int // hypothesisId, decoded
	MaxLocationBytes int // location, decoded
	MaxMessageBytes  int // message, decoded
}

// DefaultLimits keep one record small enough to store, show and query cheaply.
var DefaultLimits = Limits{
	MaxRecordBytes:   64 << 10,
	MaxDepth:         32,
	MaxStringBytes:   16 << 10,
	MaxLabelBytes:    128,
	MaxLocationBytes: 1024,
	MaxMessageBytes:  2048,
}

func (l Limits) withDefaults() Limits {
	fill := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	fill(&l.MaxRecordBytes, DefaultLimits.MaxRecordBytes)
	fill(&l.MaxDepth, DefaultLimits.MaxDepth)
	fill(&l.MaxStringBytes, DefaultLimits.MaxStringBytes)
	fill(&l.MaxLabelBytes, DefaultLimits.MaxLabelBytes)
	fill(&l.MaxLocationBytes, DefaultLimits.MaxLocationBytes)
	fill(&l.MaxMessageBytes, DefaultLimits.MaxMessageBytes)
	return l
}

// Record is one validated, redacted probe event, ready to be numbered and stored.
// HypothesisID, Location and Message share one allocation; clone a field
// (strings.Clone) before keeping it long after the rest of the record.
type Record struct {
	HypothesisID, Location, Message string
	Data                            []byte   // compact JSON value, redacted
	Timestamp                       int64    // epoch milliseconds
	Redactions                      int      // how many values were replaced
	Dropped                         []string // top-level field names that were present but are not stored (sessionId, runId, schemaVersion, any unknown field)
}

// Rejection says why a line was not accepted. Reason is one short sentence an
// agent can act on; Excerpt shows the start of the line with secrets redacted.
type Rejection struct {
	Reason  string
	Excerpt string
}

// Timestamps outside this window are almost always the wrong unit, which
// would silently scramble the evidence order, so they are rejected.
const (
	minTimestampMillis = 100_000_000_000     // 1973; smaller values look like seconds
	maxTimestampMillis = 100_000_000_000_000 // year 5138; larger values look like µs or ns
)

// Normalize validates one NDJSON line and turns it into a Record.
// The line must not include its "\n"; a trailing "\r" is removed here.
// The result never aliases line, so the caller may reuse its buffer.
func Normalize(line []byte, lim Limits) (Record, *Rejection) {
	return normalize(line, lim, false, false)
}

// Refused is the rejection NormalizeBrief returns: it carries no reason.
var Refused = &Rejection{}

// NormalizeBrief is Normalize for a caller that will only count a refused
// line: it accepts exactly what Normalize accepts, but a refusal is the
// shared Refused, so it costs neither a reason nor an excerpt. Call
// Normalize on the line again when its reason is wanted after all.
func NormalizeBrief(line []byte, lim Limits) (Record, *Rejection) {
	return normalize(line, lim, false, true)
}

// normalize is Normalize; force skips the prefilter so tests can check that
// it never hides something the redactor would change, and brief refuses
// with Refused.
func normalize(line []byte, lim Limits, force, brief bool) (Record, *Rejection) {
	lim = lim.withDefaults()
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	switch {
	case len(line) > lim.MaxRecordBytes, isBlank(line), !jsontext.Value(line).IsValid():
		// jsontext checks syntax, UTF-8, escapes and duplicate names in one
		// allocation-free pass; the walk below can then trust the grammar.
		if brief {
			return Record{}, Refused
		}
		return Record{}, reject(line, refusalReason(line, lim))
	}
	p := parser{src: line, lim: lim, force: force, brief: brief, redact: force || mightContainSecret(line)}
	if p.redact {
		p.aws = hasAWSKeyID(line) || bytes.Contains(line, []byte(`\u00`)) && hasAWSKeyID(unescapeASCII(line))
	}
	rec, ok := p.record()
	switch {
	case ok:
		return rec, nil
	case brief:
		return Record{}, Refused
	}
	return Record{}, reject(line, p.reason)
}

// refusalReason explains why a line failed the checks before the walk.
func refusalReason(line []byte, lim Limits) string {
	if len(line) > lim.MaxRecordBytes {
		return fmt.Sprintf("record is %d bytes; the limit is %d bytes, so send a smaller \"data\" value", len(line), lim.MaxRecordBytes)
	}
	if isBlank(line) {
		return "record is empty; send one JSON object per line"
	}
	return syntaxReason(line)
}

// reject explains a refused line. The reason may quote names from the line
// (a duplicate field), so it is redacted like the excerpt.
func reject(line []byte, reason string) *Rejection {
	reason, _ = RedactText(reason)
	return &Rejection{Reason: reason, Excerpt: Excerpt(line)}
}

// unescapeASCII decodes the "\u00XX" escapes of ASCII characters in raw
// JSON text, which can spell an access key id the raw text hides.
func unescapeASCII(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+5 < len(b) && b[i+1] == 'u' && asciiEscape(b[i+2:]) {
			if v, err := strconv.ParseUint(string(b[i+4:i+6]), 16, 8); err == nil {
				out = append(out, byte(v))
				i += 5
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

const (
	excerptBytes = 200
	// excerptWindow is redacted before the excerpt is cut, so a secret that
	// straddles the cut is still recognised as a whole.
	excerptWindow = 4096
)

// Excerpt returns the start of line as valid UTF-8 with secrets redacted;
// diagnostics quote refused lines only through it.
func Excerpt(line []byte) string {
	w := line[:min(len(line), excerptWindow)]
	s := strings.ToValidUTF8(string(w), "\uFFFD")
	s, _ = RedactText(s)
	if len(s) <= excerptBytes {
		return s
	}
	cut := excerptBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// syntaxReason explains why jsontext refused the line. It runs only on the
// rejection path, so it may allocate freely.
func syntaxReason(line []byte) string {
	if !utf8.Valid(line) {
		off := 0
		for off < len(line) {
			r, size := utf8.DecodeRune(line[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return fmt.Sprintf("record is not valid UTF-8 (bad byte at offset %d); send UTF-8 text", off)
	}
	if bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
		return "record starts with a byte order mark; write UTF-8 without a BOM"
	}
	if c := firstByte(line); c != '{' && c != '[' && c != '"' {
		// Numbers, literals and garbage would otherwise get an opaque message.
		// The text itself is not echoed: only the redacted excerpt shows it.
		return "record must be one JSON object per line, like {\"hypothesisId\":\"H1\",...}; this line does not start with '{'"
	}
	dec := jsontext.NewDecoder(bytes.NewReader(line))
	if _, err := dec.ReadValue(); err != nil {
		var se *jsontext.SyntacticError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return "record ends before its JSON object is complete (truncated line?); send each record whole on one line"
		case errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &se):
			if se.JSONPointer.Parent() == "" {
				return fmt.Sprintf("field %q appears more than once; send each field once", se.JSONPointer.LastToken())
			}
			return fmt.Sprintf("name %q appears more than once in the same object at %q; names in data objects must be unique",
				se.JSONPointer.LastToken(), string(se.JSONPointer.Parent()))
		case errors.As(err, &se) && se.Err != nil:
			return fmt.Sprintf("record is not valid JSON: %v at byte offset %d; build each line with a JSON serializer", se.Err, se.ByteOffset)
		}
		return "record is not valid JSON; build each line with a JSON serializer"
	}
	if c := firstByte(line); c != '{' {
		return "record must be one JSON object per line, not " + kindName(c)
	}
	return fmt.Sprintf("record has extra text after its JSON object at byte offset %d; send exactly one JSON object per line",
		dec.InputOffset())
}

func firstByte(b []byte) byte {
	if i := skipSpace(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// parser walks a line that jsontext has already validated, so it only has to
// enforce the schema and limits, copy data compactly and redact.
type parser struct {
	src    []byte
	pos    int
	lim    Limits
	redact bool   // the prefilter saw a needle: check keys and string values
	aws    bool   // the record holds an AWS access key id: look for secret keys too
	force  bool   // redact without any prefilter or rule gate (tests)
	brief  bool   // a refusal needs no reason
	field  string // top-level field being read, for messages
	out    []byte // compact, redacted copy of data
	n      int    // redactions so far
	reason string // set when the record is rejected
}

// span is a string's content in src, without its quotes.
type span struct {
	start, end int
	escaped    bool // contains a backslash escape, so must be decoded to be read
}

func (p *parser) fail(format string, args ...any) bool {
	if !p.brief {
		p.reason = fmt.Sprintf(format, args...)
	}
	return false
}

func (p *parser) ws() {
	if p.pos < len(p.src) && p.src[p.pos] > ' ' {
		return // the common case: no whitespace at all
	}
	p.pos = skipSpace(p.src, p.pos)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// record reads the top-level object.
func (p *parser) record() (Record, bool) {
	p.ws()
	if c := p.src[p.pos]; c != '{' {
		return Record{}, p.fail("record must be one JSON object per line, like {\"hypothesisId\":\"H1\",...}, not %s", kindName(c))
	}
	p.pos++
	var (
		hyp, loc, msg      span
		haveHyp, haveLoc   bool
		haveMsg, haveData  bool
		haveTS             bool
		rec                Record
		hypLen, locLen, ml int
	)
	p.ws()
	for p.src[p.pos] != '}' {
		p.field = "" // a name is not inside any field
		key, ok := p.str()
		if !ok {
			return Record{}, false
		}
		p.ws()
		p.pos++ // ':'
		p.ws()
		name := p.src[key.start:key.end]
		if key.escaped {
			name = unquote(p.src[key.start-1 : key.end+1])
		}
		switch string(name) {
		case "hypothesisId":
			p.field, haveHyp = "hypothesisId", true
			hyp, hypLen, ok = p.text(`a short label such as "H1"`, p.lim.MaxLabelBytes)
		case "location":
			p.field, haveLoc = "location", true
			loc, locLen, ok = p.text(`the source location such as "src/cache.ts:84"`, p.lim.MaxLocationBytes)
		case "message":
			p.field, haveMsg = "message", true
			msg, ml, ok = p.text("a short constant description of the observation", p.lim.MaxMessageBytes)
		case "data":
			p.field, haveData = "data", true
			// The remaining input bounds data's size, so one allocation suffices
			// unless redaction grows it.
			p.out = make([]byte, 0, len(p.src)-p.pos)
			ok = p.value(2, true)
		case "timestamp":
			p.field, haveTS = "timestamp", true
			rec.Timestamp, ok = p.timestamp()
		default:
			p.field = p.droppedName(name)
			rec.Dropped = append(rec.Dropped, p.field)
			ok = p.value(2, false)
		}
		if !ok {
			return Record{}, false
		}
		p.ws()
		if p.src[p.pos] == ',' {
			p.pos++
			p.ws()
		}
	}
	switch {
	case !haveHyp:
		return Record{}, p.missing("hypothesisId", `send the hypothesis label as a non-empty string, e.g. "H1"`, rec.Dropped)
	case !haveLoc:
		return Record{}, p.missing("location", `send the probe's source location as a string, e.g. "src/cache.ts:84"`, rec.Dropped)
	case !haveMsg:
		return Record{}, p.missing("message", "send a short constant description as a string", rec.Dropped)
	case !haveData:
		return Record{}, p.missing("data", "send any JSON value, or null when there is nothing to record", rec.Dropped)
	case !haveTS:
		return Record{}, p.missing("timestamp", "send the observation time as integer epoch milliseconds, e.g. 1784313728231", rec.Dropped)
	}

	// One allocation holds all three strings; the fields slice it.
	var b strings.Builder
	b.Grow(hypLen + locLen + ml)
	p.appendText(&b, hyp)
	p.appendText(&b, loc)
	p.appendText(&b, msg)
	all := b.String()
	rec.HypothesisID = all[:hypLen]
	rec.Location = all[hypLen : hypLen+locLen]
	rec.Message = all[hypLen+locLen:]
	if p.redact {
		// Every stored string gets value redaction, not just data; the
		// label only that of secret-shaped values (RedactLabel), the
		// location all but its line number (RedactLocation), so a file
		// named token_store.py keeps its line.
		rec.HypothesisID = p.redactName(rec.HypothesisID, keysNone)
		rec.Location = p.redactName(rec.Location, keysNoLines)
		rec.Message = p.redactText(rec.Message)
	}
	rec.Data = p.out
	if cap(rec.Data)-len(rec.Data) > 1024 {
		// Data came early in a long line; don't keep the unused capacity.
		rec.Data = bytes.Clone(rec.Data)
	}
	rec.Redactions = p.n
	return rec, true
}

// missing explains an absent required field, pointing at a near miss such as
// "hypothesisID" because field names are case-sensitive.
func (p *parser) missing(field, hint string, dropped []string) bool {
	if p.brief {
		return false // the cheapest refusal to send: spare the arguments' allocations
	}
	for _, d := range dropped {
		if strings.EqualFold(d, field) {
			return p.fail("missing field %q (found %q; field names are case-sensitive); %s", field, d, hint)
		}
	}
	return p.fail("missing field %q; %s", field, hint)
}

// droppedName keeps the common reserved names allocation-free and bounds
// unknown ones, since they are echoed back to the agent. A name can itself
// be a secret; it is redacted before it is cut, so the cut cannot hide it.
func droppedName(name []byte) string {
	return boundName(name, RedactText)
}

// droppedName is the package's droppedName with the record's redaction
// context (an AWS key id elsewhere in the record, the tests' force).
func (p *parser) droppedName(name []byte) string {
	if !p.redact {
		return boundName(name, nil)
	}
	return boundName(name, p.clean)
}

func boundName(name []byte, redact func(string) (string, int)) string {
	switch string(name) {
	case "sessionId":
		return "sessionId"
	case "runId":
		return "runId"
	case "schemaVersion":
		return "schemaVersion"
	}
	if redact != nil {
		if red, n := redact(string(name)); n > 0 {
			name = []byte(red)
		}
	}
	const maxName = 64
	if len(name) > maxName {
		cut := maxName
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		return string(name[:cut]) + "…"
	}
	return string(name)
}

// text reads one of the three required string fields and returns its decoded length.
func (p *parser) text(example string, max int) (span, int, bool) {
	if c := p.src[p.pos]; c != '"' {
		return span{}, 0, p.fail("field %q must be a non-empty string (%s), not %s", p.field, example, kindName(c))
	}
	s := p.scan() // the field's own limit applies instead of MaxStringBytes
	n := s.end - s.start
	decoded := p.src[s.start:s.end]
	if s.escaped {
		decoded = unquote(p.src[s.start-1 : s.end+1])
		n = len(decoded)
	}
	switch {
	case len(bytes.TrimSpace(decoded)) == 0:
		return s, 0, p.fail("field %q must not be empty; send %s", p.field, example)
	case n > max:
		return s, 0, p.fail("field %q is %d bytes; the limit is %d bytes, so shorten it", p.field, n, max)
	}
	return s, n, true
}

func (p *parser) appendText(b *strings.Builder, s span) {
	if s.escaped {
		b.Write(unquote(p.src[s.start-1 : s.end+1]))
		return
	}
	b.Write(p.src[s.start:s.end])
}

// timestamp reads the epoch-milliseconds field. Only plain integers are
// accepted: floats and exponents usually mean the sender used the wrong unit
// or clock API, and int64 storage must not round.
func (p *parser) timestamp() (int64, bool) {
	const want = "must be an integer number of epoch milliseconds"
	c := p.src[p.pos]
	if c != '-' && (c < '0' || c > '9') {
		return 0, p.fail("field \"timestamp\" %s, e.g. 1784313728231, not %s", want, kindName(c))
	}
	start := p.pos
	p.scalar()
	num := p.src[start:p.pos]
	shown := num
	if len(shown) > 32 {
		shown = shown[:32]
	}
	var v int64
	for _, d := range num {
		switch {
		case d == '.' || d == 'e' || d == 'E':
			return 0, p.fail("field \"timestamp\" %s without a fraction or exponent; got %s", want, shown)
		case d < '0' || d > '9': // the leading '-'
		case v > maxTimestampMillis: // keep counting digits but never overflow
		default:
			v = v*10 + int64(d-'0')
		}
	}
	if num[0] == '-' {
		return 0, p.fail("field \"timestamp\" %s and must not be negative; got %s", want, shown)
	}
	switch {
	case v < minTimestampMillis:
		return 0, p.fail("field \"timestamp\" %s; %d looks like seconds", want, v)
	case v > maxTimestampMillis:
		return 0, p.fail("field \"timestamp\" %s; %s looks like microseconds or nanoseconds", want, shown)
	}
	return v, true
}

// str reads the string at p.pos and enforces MaxStringBytes.
func (p *parser) str() (span, bool) {
	s := p.scan()
	if n := s.end - s.start; n > p.lim.MaxStringBytes {
		where := "the record"
		if p.field != "" {
			where = fmt.Sprintf("field %q", p.field)
		}
		return s, p.fail("a string in %s is %d bytes; the limit is %d bytes, so send a shorter value", where, n, p.lim.MaxStringBytes)
	}
	return s, true
}

// scan reads the string at p.pos.
func (p *parser) scan() span {
	s := span{start: p.pos + 1}
	i := s.start
	// Most strings are short, where a byte loop beats IndexByte's call.
	for limit := min(len(p.src), i+32); i < limit; i++ {
		switch p.src[i] {
		case '"':
			s.end = i
			p.pos = i + 1
			return s
		case '\\':
			s.escaped = true
			i++
		}
	}
	for {
		// Jump quote to quote; a backslash before the quote means it may be escaped.
		q := i + bytes.IndexByte(p.src[i:], '"')
		bs := bytes.IndexByte(p.src[i:q], '\\')
		if bs < 0 {
			s.end = q
			break
		}
		s.escaped = true
		i += bs + 2
	}
	p.pos = s.end + 1
	return s
}

// scalar skips a number or literal.
func (p *parser) scalar() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return
		}
		p.pos++
	}
}

// value walks the value at p.pos, which sits at nesting level depth. When
// emit is set it appends the value compactly to p.out, redacting as it goes.
func (p *parser) value(depth int, emit bool) bool {
	switch c := p.src[p.pos]; c {
	case '"':
		s, ok := p.str()
		if ok && emit {
			p.emitString(s)
		}
		return ok
	case '{', '[':
		if depth > p.lim.MaxDepth {
			return p.fail("field %q nests deeper than %d levels (counting the record itself); flatten it", p.field, p.lim.MaxDepth)
		}
		return p.container(c, depth, emit)
	default:
		start := p.pos
		p.scalar()
		if emit {
			p.out = append(p.out, p.src[start:p.pos]...)
		}
		return true
	}
}

func (p *parser) container(open byte, depth int, emit bool) bool {
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	p.pos++
	if emit {
		p.out = append(p.out, open)
	}
	p.ws()
	var redactedKeys map[string]bool // names changed by redaction, kept unique
	// In an array, names alternating with values (a [name, value] pair,
	// Node's rawHeaders) hide the value after a secret-looking name, as an
	// object's name does: ["Cookie", "sid=…"].
	names, after := open == '[' && emit && p.redact, pairNone
	for i := 0; p.src[p.pos] != close; i++ {
		emitValue := emit
		if names && i%2 == 1 && after != pairNone && !isBoolOrNull(p.src[p.pos]) && !(after == pairCount && isNumberStart(p.src[p.pos])) {
			p.out = append(p.out, `"[REDACTED]"`...)
			p.n++
			emitValue = false
		}
		if names && i%2 == 0 {
			after, names = p.pairName()
		}
		if open == '{' {
			key, ok := p.str()
			if !ok {
				return false
			}
			p.ws()
			p.pos++ // ':'
			p.ws()
			if emit {
				// A name is text like any value: {"ghp_…": 1} hides the
				// token, and a name that was a secret hides its value too
				// (the value belongs to the secret).
				red, secretName := p.redactedSpan(key)
				if secretName {
					if redactedKeys == nil {
						redactedKeys = map[string]bool{}
					}
					red = uniqueName(red, redactedKeys)
					p.out, _ = jsontext.AppendQuote(p.out, red)
				} else {
					p.out = append(p.out, p.src[key.start-1:key.end+1]...)
				}
				p.out = append(p.out, ':')
				if p.redact && (secretName || p.secretKey(key, p.src[p.pos])) && !isBoolOrNull(p.src[p.pos]) {
					// The walk below still checks limits on the hidden value.
					p.out = append(p.out, `"[REDACTED]"`...)
					p.n++
					emitValue = false
				}
			}
		}
		if !p.value(depth+1, emitValue) {
			return false
		}
		p.ws()
		if p.src[p.pos] == ',' {
			p.pos++
			p.ws()
			if emit {
				p.out = append(p.out, ',')
			}
		}
	}
	p.pos++
	if emit {
		p.out = append(p.out, close)
	}
	return true
}

// What an array element that may be a name says of the element after it.
const (
	pairNone   = iota // not a secret-looking name
	pairSecret        // a secret-looking name: hide the next element
	pairCount         // a plural one ("tokens"): hide the next unless it is a number
)

// pairName reads the array element at p.pos, at an even position, as the
// name of a [name, value] pair. more is false once an even element is not
// a short name, so an ordinary list of strings is never read as pairs.
func (p *parser) pairName() (kind int, more bool) {
	if p.src[p.pos] != '"' {
		return pairNone, false
	}
	s := p.scan()
	p.pos = s.start - 1 // value() reads the string again
	if s.end-s.start > 64 {
		return pairNone, false
	}
	name := p.src[s.start:s.end]
	if s.escaped {
		name = unquote(p.src[s.start-1 : s.end+1])
	}
	for _, c := range name {
		if !isNameByte(c) && c != ' ' {
			return pairNone, false
		}
	}
	switch secret, plural := keyKind(name); {
	case plural:
		return pairCount, true
	case secret:
		return pairSecret, true
	}
	return pairNone, true
}

func isNumberStart(c byte) bool { return c == '-' || isDigit(c) }

// uniqueName numbers a redacted name that an earlier one in the same object
// already became ("[REDACTED:github-token] (2)"), so names stay unique.
func uniqueName(name string, seen map[string]bool) string {
	unique := name
	for n := 2; seen[unique]; n++ {
		unique = name + " (" + strconv.Itoa(n) + ")"
	}
	seen[unique] = true
	return unique
}

// isBoolOrNull values stay visible under secret-looking keys: they cannot
// carry a secret, and flags like "tokenExpired": true are what a hypothesis
// is often about.
func isBoolOrNull(c byte) bool { return c == 't' || c == 'f' || c == 'n' }

// secretKey reports whether name k hides a value that starts with first:
// a secret-looking name does, but not over a number when the name is a
// plural ("input_tokens": 523 counts tokens).
func (p *parser) secretKey(k span, first byte) bool {
	name := p.src[k.start:k.end]
	if k.escaped {
		name = unquote(p.src[k.start-1 : k.end+1])
	}
	secret, plural := keyKind(name)
	return secret && !(plural && isNumberStart(first))
}

// clean redacts decoded text with the record's context, without counting.
// The prefilter (and, in a record with an AWS key id, the secret-key shape)
// decides whether the rules run at all; force runs them always.
func (p *parser) clean(s string) (string, int) {
	if !p.force && !mightNeedRules(s) && !(p.aws && hasAWSSecretRun(s)) {
		return s, 0
	}
	return redactWith(s, p.aws, !p.force, keysAll)
}

func (p *parser) redactText(s string) string {
	s, n := p.clean(s)
	p.n += n
	return s
}

// redactName is redactText for a label or a location (RedactLabel,
// RedactLocation).
func (p *parser) redactName(s string, keys keyMode) string {
	if !p.force && !mightNeedRules(s) && !(p.aws && hasAWSSecretRun(s)) {
		return s
	}
	s, n := redactWith(s, p.aws, !p.force, keys)
	p.n += n
	return s
}

// redactedSpan returns the redacted text of a string or name, and whether
// redaction changed it.
func (p *parser) redactedSpan(s span) (string, bool) {
	content := p.src[s.start:s.end]
	if !p.force && !(p.redact && (mightNeedRules(content) || p.aws && (s.escaped || hasAWSSecretRun(content)))) {
		return "", false
	}
	var text string
	if s.escaped {
		text = string(unquote(p.src[s.start-1 : s.end+1]))
	} else {
		text = string(content)
	}
	red := p.redactText(text)
	return red, red != text
}

// emitString copies a string value, replacing secret-shaped parts. Strings
// are re-quoted only when redaction changed them, so output matches input
// byte for byte otherwise.
func (p *parser) emitString(s span) {
	if red, ok := p.redactedSpan(s); ok {
		p.out, _ = jsontext.AppendQuote(p.out, red)
		return
	}
	p.out = append(p.out, p.src[s.start-1:s.end+1]...)
}

// unquote decodes a quoted JSON string that jsontext has already validated.
func unquote(quoted []byte) []byte {
	b, _ := jsontext.AppendUnquote(nil, quoted)
	return b
}

func kindName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
