package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// FuzzCursorDecode: a cursor is either the one that was issued, for the
// session it was issued for, or refused; never a panic, never another scope.
func FuzzCursorDecode(f *testing.F) {
	sg := NewSigner([]byte("0123456789abcdef0123456789abcdef"))
	const sid = "707225a6-8e0f-4db4-b64b-e261bd6a861a"
	good := sg.Encode(sid, 3, Spec{Program: ".data", Args: map[string]string{"a": "b"}, Filter: store.Filter{Hypotheses: []string{"H1"}}}, Position{Event: 7, Skip: 2})
	f.Add(good)
	f.Add(good + "x")
	f.Add("")
	f.Add(".")
	f.Add("e30.AAAA")
	f.Fuzz(func(t *testing.T, c string) {
		spec, pos, cycle, err := sg.Decode(c, sid)
		if err != nil {
			return
		}
		// Accepted: re-encoding the decoded scope must give back a cursor
		// that decodes to the same scope (it was issued by us).
		again := sg.Encode(sid, cycle, spec, pos)
		spec2, pos2, cycle2, err := sg.Decode(again, sid)
		if err != nil || !reflect.DeepEqual(spec, spec2) || pos != pos2 || cycle != cycle2 {
			t.Fatalf("accepted cursor %q does not round-trip", c)
		}
		if _, _, _, err := sg.Decode(c, "00000000-0000-4000-8000-000000000000"); err == nil {
			t.Fatalf("cursor accepted for another session")
		}
	})
}

// FuzzStoredLineDecoder: on any compact JSON (the only form the store
// writes) the fast decoder agrees with encoding/json; on anything else it
// may refuse, but never panics.
func FuzzStoredLineDecoder(f *testing.F) {
	f.Add([]byte(sampleLine))
	f.Add([]byte(`{"a":[1,2.5,-3e2,"x\u00e9\n",true,null,{}],"b":{"c":"\ud83c\udf89"}}`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := newDecoder().decode(b)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		werr := dec.Decode(&want)
		var compact bytes.Buffer
		if werr != nil || dec.More() || !json.Valid(b) || !utf8.Valid(b) || json.Compact(&compact, b) != nil || !bytes.Equal(compact.Bytes(), b) {
			return // not a stored line: the decoder only has to not panic
		}
		if err != nil {
			t.Fatalf("valid JSON %q refused: %v", b, err)
		}
		if !sameJSON(got, want) {
			t.Fatalf("%q: decoded %#v, encoding/json %#v", b, got, want)
		}
	})
}

// sameJSON compares decoded values, numbers by their float64 value.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !sameJSON(v, y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case int:
		n, ok := b.(json.Number)
		f, _ := n.Float64()
		return ok && float64(x) == f
	case float64:
		n, ok := b.(json.Number)
		f, _ := n.Float64()
		return ok && x == f
	case json.Number:
		n, ok := b.(json.Number)
		return ok && x == n
	}
	return a == b
}

// fuzzEvents are stored lines of every shape a field read can meet.
var fuzzEvents = []string{
	`{"id":"e1","sequence":1,"receivedAt":10,"hypothesisId":"H1","location":"a.py:1","message":"m","data":{"k":"a","n":1,"ms":2.5,"user":{"name":"u","tags":["x"]}},"timestamp":5}`,
	`{"id":"e2","sequence":2,"receivedAt":11,"hypothesisId":"H2","location":"a.py:2","message":"m","data":{"k":"b","n":-3,"stale":true,"a\"b":null},"timestamp":4}`,
	`{"id":"e3","sequence":3,"receivedAt":12,"hypothesisId":"H1","location":"a.py:1","message":"x","data":"a string","timestamp":6}`,
	`{"id":"e4","sequence":4,"receivedAt":13,"hypothesisId":"H3","location":"b.py:9","message":"m","data":[1,{"k":"c"},null],"timestamp":6}`,
	`{"id":"e5","sequence":5,"receivedAt":14,"hypothesisId":"H1","location":"a.py:1","message":"m","data":null,"timestamp":7}`,
	`{"id":"e6","sequence":6,"receivedAt":15,"hypothesisId":"H2","location":"a.py:2","message":"m","data":{"k":"a","n":1,"ms":2.5,"user":{"name":"u","tags":["x"]}},"timestamp":5}`,
	`{"id":"e7","sequence":7,"receivedAt":16,"hypothesisId":"H1","location":"c.py:3","message":"é\n","data":{"k":{"deep":[1,2]},"n":12345678901234567890},"timestamp":8}`,
}

// FuzzEventReads: whenever the analysis lets a -n or --slurp program see
// only the fields it reads, the program gives exactly what it gives on
// whole events: the same values in the same order, or the same error.
func FuzzEventReads(f *testing.F) {
	for _, p := range []string{
		`reduce inputs as $e ({}; .[$e.data.k | tostring] += 1)`, `[inputs | .data.ms] | max`, `inputs | .data.k`,
		`inputs | try .data.user.name.x catch .`, `[inputs] | length`, `first(inputs | select(.data.stale)) | .id`,
		`group_by(.data.k?) | map({k: .[0].data.k?, n: length})`, `. as $e | [range(1; length) | select($e[.].timestamp < $e[. - 1].timestamp) | $e[.].sequence]`,
		`map(.data.n?) | add`, `sort_by(.timestamp) | map(.id)`, `.[1:3] | map(.data | type)`, `max_by(.receivedAt).location`,
		`foreach inputs as $e (0; . + 1; [., $e.data.n?])`, `[inputs | .data[]?]`, `map(select(.data.k? == "a")) | length`,
	} {
		f.Add(p, true)
		f.Add(p, false)
	}
	f.Fuzz(func(t *testing.T, prog string, nullInput bool) {
		q, err := gojq.Parse(prog)
		if err != nil {
			return
		}
		paths, ok := eventReads(q, nullInput)
		if !ok {
			return
		}
		projected, done1 := runOnFuzzEvents(t, q, nullInput, newProjection(paths))
		whole, done2 := runOnFuzzEvents(t, q, nullInput, nil)
		if done1 && done2 && projected != whole {
			t.Fatalf("%s (null input %v, reads %v):\nprojected: %s\nwhole:     %s", prog, nullInput, paths, projected, whole)
		}
	})
}

// runOnFuzzEvents runs q on fuzzEvents, projected by proj (nil: whole), and
// returns its first 50 values or its error as text, and whether it ended in
// time.
func runOnFuzzEvents(t *testing.T, q *gojq.Query, nullInput bool, proj *projection) (string, bool) {
	dc := newDecoder()
	evs := make([]any, len(fuzzEvents))
	for i, line := range fuzzEvents {
		var err error
		if proj != nil {
			evs[i], err = dc.decodeShared([]byte(line), proj)
		} else {
			evs[i], err = dc.decode([]byte(line))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var in gojq.Iter = noInputs{} // as in a --slurp run
	if nullInput {
		in = &sliceInputs{evs: evs}
	}
	code, err := gojq.Compile(q, gojq.WithInputIter(in), gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return "compile: " + err.Error(), true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var input any = evs
	if nullInput {
		input = nil
	}
	var out strings.Builder
	iter := code.RunWithContext(ctx, input)
	for range 50 {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			fmt.Fprintf(&out, "error: %v\n", err)
			break
		}
		b, _ := gojq.Marshal(v)
		out.Write(append(b, '\n'))
	}
	return out.String(), ctx.Err() == nil
}

type sliceInputs struct {
	evs []any
	i   int
}

func (s *sliceInputs) Next() (any, bool) {
	if s.i == len(s.evs) {
		return nil, false
	}
	s.i++
	return s.evs[s.i-1], true
}

// TestEventReadsRandomPrograms: thousands of programs built at random from
// the constructs the analysis reasons about (paths, variables, input/inputs,
// builtins, reduce, assignments, path expressions); every one it projects
// gives exactly what it gives on whole events.
func TestEventReadsRandomPrograms(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	leaves := []string{`.`, `.data`, `.data.k`, `.data.n`, `.id`, `.sequence`, `$e`, `$e.data.k`, `$e.data`, `$e.data.user.name`, `1`, `0`,
		`"a"`, `null`, `inputs`, `input`, `.[0]`, `.[]`, `.[1:]`, `.[-1]`, `length`, `keys`, `type`, `tostring`, `empty`, `$__loc__`,
		`.data?`, `.data[]?`, `..`, `.data["k"]`, `first`, `add`, `max`, `to_entries`, `tojson`, `not`, `.[.data.n]`, `$e[0]`}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 || rng.IntN(4) == 0 {
			return leaves[rng.IntN(len(leaves))]
		}
		x := func() string { return gen(depth - 1) }
		switch rng.IntN(32) {
		case 0:
			return "[" + x() + "]"
		case 1:
			return "{a: " + x() + ", b: " + x() + "}"
		case 2:
			return "(" + x() + ")?"
		case 3:
			return "try (" + x() + ") catch ."
		case 4:
			return "first(" + x() + ")"
		case 5:
			return "select(" + x() + ")"
		case 6:
			return "map(" + x() + ")"
		case 7:
			return "group_by(" + x() + ")"
		case 8:
			return "sort_by(" + x() + ")"
		case 9:
			return "min_by(" + x() + ")"
		case 10:
			return "limit(2; " + x() + ")"
		case 11:
			return "any(" + x() + ")"
		case 12:
			return "path(" + x() + ")"
		case 13:
			return "del(" + x() + ")"
		case 14:
			return `"\(` + x() + `)"`
		case 15:
			return x() + " as $e | " + x()
		case 16, 17, 18:
			return x() + " | " + x()
		case 19:
			return x() + ", " + x()
		case 20:
			return x() + " + " + x()
		case 21:
			return x() + " == " + x()
		case 22:
			return x() + " // " + x()
		case 23:
			return ".[" + x() + "]"
		case 24:
			return "(" + x() + ")[" + x() + "]"
		case 25:
			return "reduce " + x() + " as $e (" + x() + "; " + x() + ")"
		case 26:
			return "foreach " + x() + " as $e (" + x() + "; " + x() + "; " + x() + ")"
		case 27:
			return "if " + x() + " then " + x() + " else " + x() + " end"
		case 28:
			return "(" + x() + ") |= " + x()
		case 29:
			return ".[" + x() + " | tostring] += 1"
		case 30:
			return "(" + x() + ") = " + x()
		default:
			return "[" + x() + "] | length"
		}
	}
	// Programs shaped like real ones, so $e is mostly bound to an event.
	nullForms := []string{"reduce inputs as $e (%[1]s; %[2]s)", "inputs as $e | %[1]s", "[inputs | %[1]s]", "first(inputs | %[1]s)",
		"foreach inputs as $e (%[1]s; %[2]s; %[3]s)", "[inputs] as $all | $all[0] as $e | %[1]s", "%[1]s"}
	slurpForms := []string{".[] as $e | %[1]s", "map(%[1]s)", "group_by(%[1]s) | map(%[2]s)", ". as $all | .[1] as $e | %[1]s",
		"reduce .[] as $e (%[1]s; %[2]s)", "%[1]s"}
	projected, compared := 0, 0
	for i := 0; i < n; i++ {
		for _, nullInput := range []bool{true, false} {
			forms := slurpForms
			if nullInput {
				forms = nullForms
			}
			prog := fmt.Sprintf(forms[rng.IntN(len(forms))], gen(3), gen(3), gen(3))
			q, err := gojq.Parse(prog)
			if err != nil {
				continue
			}
			if _, err := gojq.Compile(q); err != nil {
				continue // an unbound variable
			}
			paths, ok := eventReads(q, nullInput)
			if !ok {
				continue
			}
			projected++
			a, done1 := runOnFuzzEvents(t, q, nullInput, newProjection(paths))
			b, done2 := runOnFuzzEvents(t, q, nullInput, nil)
			if !done1 || !done2 {
				continue
			}
			compared++
			if a != b {
				t.Fatalf("%s (null input %v, reads %v):\nprojected: %s\nwhole:     %s", prog, nullInput, paths, a, b)
			}
		}
	}
	t.Logf("%d programs × 2 modes: %d projected, %d compared", n, projected, compared)
	if compared < n/10 {
		t.Fatalf("only %d of %d programs were projected and compared; the generator no longer exercises the analysis", compared, n)
	}
}
