package otlp

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// object appends one JSON object's members; the caller writes the braces.
type object struct {
	b []byte
	n int
}

func (o *object) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = appendString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *object) str(k, v string) {
	o.key(k)
	o.b = appendString(o.b, v)
}

func (o *object) strIf(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *object) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *object) hexID(k string, id []byte) {
	for _, c := range id {
		if c != 0 { // all zeroes is "no id"
			o.key(k)
			o.b = append(o.b, '"')
			o.b = hex.AppendEncode(o.b, id)
			o.b = append(o.b, '"')
			return
		}
	}
}

// appendString quotes s; invalid UTF-8, which protobuf input may carry,
// becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s)
	return b
}

// appendValue appends an attribute or body value as JSON: maps become
// objects (the first of duplicate keys wins, as pdata's Get does), bytes
// become base64 strings, and non-finite doubles become strings.
func appendValue(b []byte, v pcommon.Value) []byte {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return appendString(b, v.Str())
	case pcommon.ValueTypeInt:
		return strconv.AppendInt(b, v.Int(), 10)
	case pcommon.ValueTypeDouble:
		return appendFloat(b, v.Double())
	case pcommon.ValueTypeBool:
		return strconv.AppendBool(b, v.Bool())
	case pcommon.ValueTypeBytes:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes().AsRaw())
		return append(b, '"')
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		b = append(b, '[')
		for i := range s.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, s.At(i))
		}
		return append(b, ']')
	case pcommon.ValueTypeMap:
		return appendMap(b, v.Map(), nil)
	}
	return append(b, "null"...)
}

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendMap appends m as a JSON object, leaving out the keys skip names.
func appendMap(b []byte, m pcommon.Map, skip []string) []byte {
	b = append(b, '{')
	var (
		few  [16]string // keys written so far, while there are few
		keys = few[:0]
		many map[string]struct{}
	)
	first := true
	m.Range(func(k string, v pcommon.Value) bool {
		if contains(skip, k) {
			return true
		}
		if many != nil {
			if _, dup := many[k]; dup {
				return true
			}
			many[k] = struct{}{}
		} else {
			if contains(keys, k) {
				return true
			}
			if len(keys) == cap(few) {
				many = make(map[string]struct{}, 2*len(keys))
				for _, k := range keys {
					many[k] = struct{}{}
				}
				many[k] = struct{}{}
			} else {
				keys = append(keys, k)
			}
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
		b = appendValue(b, v)
		return true
	})
	return append(b, '}')
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// visible reports whether m has a key that skip does not name.
func visible(m pcommon.Map, skip []string) bool {
	found := false
	m.Range(func(k string, _ pcommon.Value) bool {
		found = !contains(skip, k)
		return !found
	})
	return found
}
