package query

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder turns stored lines into the values jq sees. Stored lines were
// validated and written compactly by the service, so a small single-pass
// parser is enough and several times faster than a general decoder; any
// surprise is an error, never a guess. Integers that float64 holds exactly
// become int, larger integers stay exact as json.Number, other numbers are
// float64 (as in jq). Object keys are interned: events repeat them.
type decoder struct {
	b          []byte
	i          int
	keys       map[string]string
	text       []byte         // decodeShared's projected text
	shared     map[string]any // decodeShared's values by projected text
	sharedText int            // bytes of text in shared
}

var errSyntax = errors.New("malformed stored JSON")

func newDecoder() *decoder {
	return &decoder{keys: make(map[string]string, 64), shared: map[string]any{}}
}

func (d *decoder) decode(line []byte) (any, error) {
	d.b, d.i = line, 0
	v, err := d.value(0)
	if err == nil && d.i != len(d.b) {
		err = errSyntax
	}
	return v, err
}

func (d *decoder) value(depth int) (any, error) {
	if d.i >= len(d.b) || depth > 64 {
		return nil, errSyntax
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth, nil)
	case c == '[':
		d.i++
		a := make([]any, 0, 4)
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return a, nil
		}
		for {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			if d.i >= len(d.b) {
				return nil, errSyntax
			}
			if d.b[d.i] == ']' {
				d.i++
				return a, nil
			}
			if d.b[d.i] != ',' {
				return nil, errSyntax
			}
			d.i++
		}
	case c == '"':
		raw, esc, err := d.str()
		if err != nil {
			return nil, err
		}
		if !esc {
			return string(raw), nil
		}
		return unescape(raw)
	case c == 't' && d.lit("true"):
		return true, nil
	case c == 'f' && d.lit("false"):
		return false, nil
	case c == 'n' && d.lit("null"):
		return nil, nil
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		for d.i < len(d.b) && (d.b[d.i] >= '0' && d.b[d.i] <= '9' || d.b[d.i] == '-' || d.b[d.i] == '+' || d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
			d.i++
		}
		return number(string(d.b[start:d.i]))
	}
	return nil, errSyntax
}

// object decodes an object. With a projection it keeps only the projected
// keys and passes over the others without building them.
func (d *decoder) object(depth int, p *projection) (any, error) {
	d.i++ // the opening brace
	size := 8
	if p != nil {
		size = len(p.fields)
	}
	m := make(map[string]any, size)
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		k, err := d.key()
		if err != nil {
			return nil, err
		}
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errSyntax
		}
		d.i++
		switch {
		case p == nil:
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
		case p.fields[k] != nil:
			v, err := d.projected(p.fields[k], depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = v
		default:
			if err := d.skip(); err != nil {
				return nil, err
			}
		}
		if d.i >= len(d.b) {
			return nil, errSyntax
		}
		if d.b[d.i] == '}' {
			d.i++
			return m, nil
		}
		if d.b[d.i] != ',' {
			return nil, errSyntax
		}
		d.i++
	}
}

func (d *decoder) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// str scans a string starting at its opening quote and returns its raw
// content and whether it holds escapes.
func (d *decoder) str() ([]byte, bool, error) {
	d.i++
	start, esc := d.i, false
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case '"':
			raw := d.b[start:d.i]
			d.i++
			return raw, esc, nil
		case '\\':
			esc = true
			d.i++
		}
		d.i++
	}
	return nil, false, errSyntax
}

func (d *decoder) key() (string, error) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", errSyntax
	}
	raw, esc, err := d.str()
	if err != nil {
		return "", err
	}
	if esc {
		v, err := unescape(raw)
		if err != nil {
			return "", err
		}
		return v.(string), nil
	}
	if k, ok := d.keys[string(raw)]; ok {
		return k, nil
	}
	k := string(raw)
	if len(d.keys) < 4096 {
		d.keys[k] = k
	}
	return k, nil
}

// unescape decodes a JSON string body with escapes.
func unescape(raw []byte) (any, error) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			return nil, errSyntax
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n := hex4(raw[i+1:])
			if n < 0 {
				return nil, errSyntax
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, n2 := hex4(raw[min(i+3, len(raw)):]); n2 >= 0 && i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, errSyntax
		}
	}
	return string(out), nil
}

func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, -1
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return 0, -1
	}
	return rune(v), 4
}

func number(raw string) (any, error) {
	if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
		if i >= -(1<<53) && i <= 1<<53 {
			return int(i), nil
		}
		return json.Number(raw), nil
	}
	if isInteger(raw) {
		return json.Number(raw), nil // beyond int64: keep it exact
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return json.Number(raw), nil // valid JSON beyond float64 (1e700): keep the text
		}
		return nil, errSyntax
	}
	return f, nil
}

func isInteger(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; !(c >= '0' && c <= '9' || i == 0 && c == '-') {
			return false
		}
	}
	return raw != "" && raw != "-"
}
