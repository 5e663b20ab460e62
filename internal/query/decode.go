package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// decoder turns stored lines into the values jq sees, faster than
// encoding/json into any. Integers that float64 holds exactly become int,
// larger integers stay exact as json.Number, other numbers are float64 (as
// in jq).
type decoder struct {
	r bytes.Reader
	d *jsontext.Decoder
}

func newDecoder() *decoder {
	dc := &decoder{}
	dc.d = jsontext.NewDecoder(&dc.r)
	return dc
}

func (dc *decoder) decode(line []byte) (any, error) {
	dc.r.Reset(line)
	dc.d.Reset(&dc.r)
	return dc.value()
}

func (dc *decoder) value() (any, error) {
	tok, err := dc.d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := make(map[string]any, 8)
		for dc.d.PeekKind() != '}' {
			tok, err := dc.d.ReadToken()
			if err != nil {
				return nil, err
			}
			k := tok.String() // read before the next token voids it
			v, err := dc.value()
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		_, err := dc.d.ReadToken()
		return m, err
	case '[':
		a := make([]any, 0, 4)
		for dc.d.PeekKind() != ']' {
			v, err := dc.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dc.d.ReadToken()
		return a, err
	case '"':
		return tok.String(), nil
	case '0':
		return number(tok.String()), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok.Kind())
}

func number(raw string) any {
	if i, err := strconv.ParseInt(raw, 10, 64); err == nil && i >= -(1<<53) && i <= 1<<53 {
		return int(i)
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil && !isBigInteger(raw) {
		return f
	}
	return json.Number(raw) // an integer float64 would round: keep it exact
}

func isBigInteger(raw string) bool {
	return !bytes.ContainsAny([]byte(raw), ".eE")
}
