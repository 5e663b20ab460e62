package capture

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// event is a stored event line taken apart without decoding it: the three
// strings as they appear in the line (JSON-escaped, without quotes), the
// data as its raw JSON text, and the numbers.
type event struct {
	seq  int64
	ts   int64
	hyp  []byte
	loc  []byte
	msg  []byte
	data []byte
}

var (
	keyID   = []byte(`{"id":`)
	keySeq  = []byte(`,"sequence":`)
	keyRecv = []byte(`,"receivedAt":`)
	keyHyp  = []byte(`,"hypothesisId":`)
	keyLoc  = []byte(`,"location":`)
	keyMsg  = []byte(`,"message":`)
	keyData = []byte(`,"data":`)
	keyTS   = []byte(`,"timestamp":`)
)

// parseEvent reads a stored line in the fixed field order the store writes
// (evidence.AppendStored); any other shape is decoded the slow way.
func parseEvent(line []byte) (event, bool) {
	var e event
	rest, ok := bytes.CutPrefix(line, keyID)
	if !ok {
		return slowEvent(line)
	}
	if _, rest, ok = quoted(rest); !ok {
		return slowEvent(line)
	}
	if e.seq, rest, ok = number(rest, keySeq); !ok {
		return slowEvent(line)
	}
	if _, rest, ok = number(rest, keyRecv); !ok {
		return slowEvent(line)
	}
	for _, f := range []struct {
		key []byte
		dst *[]byte
	}{{keyHyp, &e.hyp}, {keyLoc, &e.loc}, {keyMsg, &e.msg}} {
		if rest, ok = bytes.CutPrefix(rest, f.key); !ok {
			return slowEvent(line)
		}
		if *f.dst, rest, ok = quoted(rest); !ok {
			return slowEvent(line)
		}
	}
	if rest, ok = bytes.CutPrefix(rest, keyData); !ok {
		return slowEvent(line)
	}
	k := bytes.LastIndex(rest, keyTS)
	if k <= 0 || rest[len(rest)-1] != '}' {
		return slowEvent(line)
	}
	e.data = rest[:k]
	ts, err := strconv.ParseInt(string(rest[k+len(keyTS):len(rest)-1]), 10, 64)
	if err != nil {
		return slowEvent(line)
	}
	e.ts = ts
	return e, true
}

// quoted reads a JSON string at the start of b: its raw content and the rest.
func quoted(b []byte) (raw, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[1:i], b[i+1:], true
		}
	}
	return nil, nil, false
}

// number reads key and the integer after it.
func number(b, key []byte) (int64, []byte, bool) {
	b, ok := bytes.CutPrefix(b, key)
	if !ok {
		return 0, nil, false
	}
	n := 0
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || n == 0 && b[n] == '-') {
		n++
	}
	v, err := strconv.ParseInt(string(b[:n]), 10, 64)
	return v, b[n:], err == nil
}

// slowEvent decodes a line of any field order and re-quotes its strings
// the way the store does, so both paths give the same raw forms.
func slowEvent(line []byte) (event, bool) {
	var s struct {
		Sequence     *int64          `json:"sequence"`
		HypothesisID string          `json:"hypothesisId"`
		Location     string          `json:"location"`
		Message      string          `json:"message"`
		Data         json.RawMessage `json:"data"`
		Timestamp    int64           `json:"timestamp"`
	}
	if json.Unmarshal(line, &s) != nil || s.Sequence == nil {
		return event{}, false
	}
	raw := func(v string) []byte {
		q, _ := jsontext.AppendQuote(nil, v)
		return q[1 : len(q)-1]
	}
	data := []byte(s.Data)
	if len(data) == 0 {
		data = []byte("null")
	}
	return event{seq: *s.Sequence, ts: s.Timestamp, hyp: raw(s.HypothesisID), loc: raw(s.Location), msg: raw(s.Message), data: data}, true
}

// unescape turns a raw JSON string content back into text.
func unescape(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return string(raw)
	}
	return s
}

// hashSeed keys data hashes; both sides of a comparison use the same one.
var hashSeed = maphash.MakeSeed()

// dataHash hashes a JSON value so that two values hash alike exactly when
// they are the same value: object members in any order, the same elements in
// the same order, the same scalars written the same way.
func dataHash(b []byte) uint64 {
	h, _ := hashValue(b, skipSpace(b, 0))
	return h
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func mix(a, b uint64) uint64 {
	h := (a ^ 0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	h ^= b + 0x94d049bb133111eb + (h << 6) + (h >> 2)
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// hashValue hashes the value starting at b[i] and returns where it ends.
func hashValue(b []byte, i int) (uint64, int) {
	if i >= len(b) {
		return 0, i
	}
	switch b[i] {
	case '{':
		var sum uint64
		n := uint64(0)
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			kh, j := hashValue(b, i) // the key, a string
			j = skipSpace(b, j)
			if j < len(b) && b[j] == ':' {
				j = skipSpace(b, j+1)
			}
			vh, k := hashValue(b, j)
			sum += mix(kh, vh) // order-free: members add up
			n++
			i = skipSpace(b, k)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return mix(mix(1, n), sum), i + 1
	case '[':
		h := uint64(2)
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			vh, k := hashValue(b, i)
			h = mix(h, vh)
			i = skipSpace(b, k)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return h, i + 1
	case '"':
		j := i + 1
		for j < len(b) {
			if b[j] == '\\' {
				j += 2
				continue
			}
			if b[j] == '"' {
				break
			}
			j++
		}
		j = min(j+1, len(b))
		return maphash.Bytes(hashSeed, b[i:j]), j
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' {
			j++
		}
		if j == i {
			j++ // never stall on a stray byte
		}
		return mix(3, maphash.Bytes(hashSeed, b[i:j])), j
	}
}
