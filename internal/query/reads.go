package query

import (
	"strings"

	"github.com/itchyny/gojq"
)

// eventReads finds, from the parsed program, every path it reads of the
// events it is given (through input/inputs with -n, or as the slurped array),
// so that only those fields need decoding. It answers only when the program
// provably cannot tell a projected event from the whole one: an event (or an
// array of events) may be indexed by field name down to a value that is then
// kept whole, passed through, tested for truth, counted, iterated, sorted or
// grouped by a key it reads, and nothing else. Anything else — an event
// compared, printed, turned into a string, its keys listed, a user-defined
// function — and the answer is "not analysable": the program gets whole
// events. Errors are covered too: every operation allowed on an event either
// cannot fail or fails with a message that shows only a value kept whole.
//
// The lattice of what a value may be:
type shape int

const (
	plain   shape = -1 // the same in a projected and a whole run
	numeric shape = -2 // plain, and known to be a number (array subscripts)
	event   shape = 0  // an event: an object holding only the fields read
	// shape n > 0 is an array of values of shape n-1.
	maxShape shape = 3
)

func (s shape) isPlain() bool { return s < 0 }

// join is the shape of a value that may be either: a plain value may stand
// where an event-like one is expected (everything allowed on an event is
// allowed on a plain value), but an event and an array of events may not.
func join(a, b shape) (shape, bool) {
	switch {
	case a == b:
		return a, true
	case a.isPlain() && b.isPlain():
		return plain, true
	case a.isPlain():
		return b, true
	case b.isPlain():
		return a, true
	}
	return 0, false
}

// value is a shape while a term's suffixes are applied: an event indexed by
// field names so far (path) is still a projected object; once the chain ends
// the path is read whole.
type value struct {
	s    shape
	path []string
}

type readsAnalysis struct {
	nullInput bool
	paths     [][]string
	seen      map[string]bool
	ok        bool
	// pathMode is set inside path expressions (the left side of an
	// assignment, path, del, pick): there a value that is not a path of the
	// input is an error that shows the value, so no event may appear.
	pathMode bool
}

type scope struct {
	name   string
	s      shape
	parent *scope
}

func (sc *scope) lookup(name string) shape {
	for ; sc != nil; sc = sc.parent {
		if sc.name == name {
			return sc.s
		}
	}
	return plain // --arg/--argjson values, $__loc__, $ENV
}

// eventReads returns the paths read of each event and true, or false when
// the program must see whole events. With nullInput the program starts on
// null and reads events with input/inputs; otherwise it starts on the array
// of all events (--slurp).
func eventReads(q *gojq.Query, nullInput bool) ([][]string, bool) {
	a := &readsAnalysis{nullInput: nullInput, seen: map[string]bool{}, ok: true}
	start := shape(1)
	if nullInput {
		start = plain
	}
	out := a.query(q, start, nil)
	if !a.ok || !out.isPlain() {
		return nil, false // an event (or events) would reach the output
	}
	return a.paths, true
}

func (a *readsAnalysis) fail() shape {
	a.ok = false
	return plain
}

func (a *readsAnalysis) record(path []string) {
	key := strings.Join(path, "\x00")
	if !a.seen[key] {
		a.seen[key] = true
		a.paths = append(a.paths, append([]string(nil), path...))
	}
}

// end finishes a field chain: the value reached is read whole.
func (a *readsAnalysis) end(v value) shape {
	if v.s == event && len(v.path) > 0 {
		a.record(v.path)
		return plain
	}
	return v.s
}

func (a *readsAnalysis) joined(x, y shape) shape {
	s, ok := join(x, y)
	if !ok {
		return a.fail()
	}
	return s
}

// needPlain analyses q and fails unless its values are plain.
func (a *readsAnalysis) needPlain(q *gojq.Query, dot shape, sc *scope) shape {
	if q == nil {
		return plain
	}
	s := a.query(q, dot, sc)
	if !s.isPlain() {
		return a.fail()
	}
	return s
}

func (a *readsAnalysis) query(q *gojq.Query, dot shape, sc *scope) shape {
	if !a.ok {
		return plain
	}
	if q == nil {
		return dot
	}
	if len(q.FuncDefs) > 0 || len(q.Imports) > 0 || q.Meta != nil {
		return a.fail() // user functions pass closures around; not followed
	}
	if len(q.Patterns) > 0 {
		src := a.query(q.Left, dot, sc)
		return a.query(q.Right, dot, a.bind(q.Patterns, src, dot, sc))
	}
	if q.Term != nil {
		return a.term(q.Term, dot, sc)
	}
	switch q.Op {
	case gojq.OpPipe:
		return a.query(q.Right, a.query(q.Left, dot, sc), sc)
	case gojq.OpComma, gojq.OpAlt:
		// A value's truth is the same projected or not (events are objects).
		return a.joined(a.query(q.Left, dot, sc), a.query(q.Right, dot, sc))
	case gojq.OpAnd, gojq.OpOr:
		a.query(q.Left, dot, sc)
		a.query(q.Right, dot, sc)
		return plain
	case gojq.OpAdd, gojq.OpSub, gojq.OpMul, gojq.OpDiv, gojq.OpMod:
		l, r := a.needPlain(q.Left, dot, sc), a.needPlain(q.Right, dot, sc)
		if l == numeric && r == numeric {
			return numeric
		}
		return plain
	case gojq.OpEq, gojq.OpNe, gojq.OpGt, gojq.OpLt, gojq.OpGe, gojq.OpLe:
		a.needPlain(q.Left, dot, sc)
		a.needPlain(q.Right, dot, sc)
		return plain
	case gojq.OpAssign, gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateSub, gojq.OpUpdateMul,
		gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		// Updating a plain value (a reduce state) with plain values.
		if !dot.isPlain() {
			return a.fail()
		}
		a.inPath(func() { a.needPlain(q.Left, dot, sc) })
		a.needPlain(q.Right, dot, sc)
		return plain
	}
	return a.fail()
}

// inPath runs f in path mode; outOfPath runs f as a value (a subscript).
func (a *readsAnalysis) inPath(f func()) {
	saved := a.pathMode
	a.pathMode = true
	f()
	a.pathMode = saved
}

func (a *readsAnalysis) outOfPath(f func()) {
	saved := a.pathMode
	a.pathMode = false
	f()
	a.pathMode = saved
}

// bind binds the variables of `src as $x` (or reduce/foreach patterns).
// Only a plain value may be destructured.
func (a *readsAnalysis) bind(patterns []*gojq.Pattern, src, dot shape, sc *scope) *scope {
	if len(patterns) == 1 && patterns[0].Name != "" {
		return &scope{name: patterns[0].Name, s: src, parent: sc}
	}
	if !src.isPlain() {
		a.fail()
		return sc
	}
	var walk func(p *gojq.Pattern)
	walk = func(p *gojq.Pattern) {
		if p.Name != "" {
			sc = &scope{name: p.Name, s: plain, parent: sc}
		}
		for _, e := range p.Array {
			walk(e)
		}
		for _, o := range p.Object {
			if o.KeyString != nil {
				a.str(o.KeyString, dot, sc)
			}
			if o.KeyQuery != nil {
				a.needPlain(o.KeyQuery, dot, sc)
			}
			if strings.HasPrefix(o.Key, "$") {
				sc = &scope{name: o.Key, s: plain, parent: sc}
			}
			if o.Val != nil {
				walk(o.Val)
			}
		}
	}
	for _, p := range patterns {
		walk(p)
	}
	return sc
}

// str analyses a string's interpolations, which are turned into text.
func (a *readsAnalysis) str(s *gojq.String, dot shape, sc *scope) {
	for _, q := range s.Queries {
		a.needPlain(q, dot, sc)
	}
}

func (a *readsAnalysis) term(t *gojq.Term, dot shape, sc *scope) shape {
	var v value
	switch t.Type {
	case gojq.TermTypeIdentity:
		v = value{s: dot}
	case gojq.TermTypeRecurse:
		if !dot.isPlain() {
			return a.fail()
		}
		v = value{s: plain}
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeBreak:
		v = value{s: plain}
	case gojq.TermTypeNumber:
		v = value{s: numeric}
	case gojq.TermTypeString:
		a.str(t.Str, dot, sc)
		v = value{s: plain}
	case gojq.TermTypeFormat:
		if t.Str != nil {
			a.str(t.Str, dot, sc)
		} else if !dot.isPlain() {
			return a.fail() // @json, @csv … of an event
		}
		v = value{s: plain}
	case gojq.TermTypeIndex:
		v = a.index(value{s: dot}, t.Index, dot, sc)
	case gojq.TermTypeFunc:
		if strings.HasPrefix(t.Func.Name, "$") {
			v = value{s: sc.lookup(t.Func.Name)}
		} else {
			v = value{s: a.call(t.Func, dot, sc)}
		}
	case gojq.TermTypeObject:
		a.object(t.Object, dot, sc)
		v = value{s: plain}
	case gojq.TermTypeArray:
		if t.Array.Query == nil {
			v = value{s: plain}
			break
		}
		s := a.query(t.Array.Query, dot, sc)
		if s.isPlain() {
			v = value{s: plain}
		} else if s+1 > maxShape {
			return a.fail()
		} else {
			v = value{s: s + 1}
		}
	case gojq.TermTypeUnary:
		s := a.term(t.Unary.Term, dot, sc)
		if !s.isPlain() {
			return a.fail()
		}
		v = value{s: s}
	case gojq.TermTypeIf:
		v = value{s: a.ifThen(t.If, dot, sc)}
	case gojq.TermTypeTry:
		s := a.query(t.Try.Body, dot, sc)
		if t.Try.Catch != nil {
			// What is caught is an error message, or a value given to
			// error, which must be plain: so it is plain.
			s = a.joined(s, a.query(t.Try.Catch, plain, sc))
		}
		v = value{s: s}
	case gojq.TermTypeReduce:
		r := t.Reduce
		inner := a.bind(r.Patterns, a.query(r.Query, dot, sc), dot, sc)
		v = value{s: a.fold(a.query(r.Start, dot, sc), r.Update, nil, inner)}
	case gojq.TermTypeForeach:
		f := t.Foreach
		inner := a.bind(f.Patterns, a.query(f.Query, dot, sc), dot, sc)
		v = value{s: a.fold(a.query(f.Start, dot, sc), f.Update, f.Extract, inner)}
	case gojq.TermTypeLabel:
		v = value{s: a.query(t.Label.Body, dot, sc)}
	case gojq.TermTypeQuery:
		v = value{s: a.query(t.Query, dot, sc)}
	default:
		return a.fail()
	}
	if a.pathMode && !v.s.isPlain() {
		return a.fail() // an event where a path is expected
	}
	for _, suf := range t.SuffixList {
		if !a.ok {
			return plain
		}
		switch {
		case suf.Optional:
			// Errors are the same projected or not, so suppressing them is too.
		case suf.Iter:
			s := a.end(v)
			switch {
			case s.isPlain():
				v = value{s: plain}
			case s > event:
				v = value{s: s - 1}
			default:
				return a.fail() // the values of every field of an event
			}
		case suf.Index != nil:
			v = a.index(v, suf.Index, dot, sc)
		default:
			return a.fail()
		}
	}
	return a.end(v)
}

// index applies .name, ."name", .[expr] or .[from:to] to v; expressions in
// the brackets see the term's own input, dot.
func (a *readsAnalysis) index(v value, ix *gojq.Index, dot shape, sc *scope) value {
	if name, ok := constantKey(ix); ok {
		if v.s == event {
			return value{s: event, path: append(v.path[:len(v.path):len(v.path)], name)}
		}
		if s := a.end(v); s.isPlain() {
			return value{s: plain}
		}
		a.fail() // a field of an array: an error that shows the array
		return value{s: plain}
	}
	// key is numeric when every subscript is known to be a number (a
	// slice bound left out counts as one).
	key := numeric
	a.outOfPath(func() {
		if ix.Str != nil {
			a.str(ix.Str, dot, sc)
			key = plain
		}
		for _, q := range []*gojq.Query{ix.Start, ix.End} {
			if q != nil && a.needPlain(q, dot, sc) != numeric {
				key = plain
			}
		}
	})
	s := a.end(v)
	switch {
	case s.isPlain():
		return value{s: plain}
	case s > event && key == numeric:
		if ix.IsSlice {
			return value{s: s} // a slice of the array
		}
		return value{s: s - 1} // an element, or null past the end
	}
	a.fail() // a computed key of an event, or a non-numeric subscript of events
	return value{s: plain}
}

// constantKey is the field name of .name, ."name" and .["name"].
func constantKey(ix *gojq.Index) (string, bool) {
	switch {
	case ix.IsSlice:
		return "", false
	case ix.Name != "":
		return ix.Name, true
	case ix.Str != nil && ix.Str.Queries == nil:
		return ix.Str.Str, true
	case ix.Start != nil && ix.End == nil:
		if t := ix.Start.Term; t != nil && t.Type == gojq.TermTypeString && t.Str.Queries == nil && t.SuffixList == nil &&
			ix.Start.Left == nil && ix.Start.Patterns == nil && ix.Start.FuncDefs == nil {
			return t.Str.Str, true
		}
	}
	return "", false
}

func (a *readsAnalysis) object(o *gojq.Object, dot shape, sc *scope) {
	for _, kv := range o.KeyVals {
		if kv.KeyString != nil {
			a.str(kv.KeyString, dot, sc)
		}
		if kv.KeyQuery != nil {
			a.needPlain(kv.KeyQuery, dot, sc)
		}
		switch {
		case kv.Val != nil:
			a.needPlain(kv.Val, dot, sc)
		case strings.HasPrefix(kv.Key, "$"):
			if !sc.lookup(kv.Key).isPlain() {
				a.fail() // {$e}: the event itself in a value
			}
		case kv.Key != "":
			a.end(a.index(value{s: dot}, &gojq.Index{Name: kv.Key}, dot, sc)) // {k} is {k: .k}
		case kv.KeyString != nil && kv.KeyString.Queries == nil:
			a.end(a.index(value{s: dot}, &gojq.Index{Name: kv.KeyString.Str}, dot, sc))
		default:
			a.fail()
		}
	}
}

func (a *readsAnalysis) ifThen(e *gojq.If, dot shape, sc *scope) shape {
	a.query(e.Cond, dot, sc) // only its truth matters
	s := a.query(e.Then, dot, sc)
	for _, el := range e.Elif {
		a.query(el.Cond, dot, sc)
		s = a.joined(s, a.query(el.Then, dot, sc))
	}
	if e.Else == nil {
		return a.joined(s, dot)
	}
	return a.joined(s, a.query(e.Else, dot, sc))
}

// fold finds the shape of a reduce/foreach state: the start, joined with
// what the update makes of it, until it no longer changes.
func (a *readsAnalysis) fold(state shape, update, extract *gojq.Query, sc *scope) shape {
	for range 4 {
		next := a.joined(state, a.query(update, state, sc))
		if next == state || !a.ok {
			break
		}
		state = next
	}
	if extract != nil {
		return a.query(extract, state, sc)
	}
	return state
}

// call is the shape of a builtin's output. Builtins known to treat events
// only in the allowed ways are listed; any other must get plain values only
// (its input and what its arguments produce), and then gives plain values.
func (a *readsAnalysis) call(f *gojq.Func, dot shape, sc *scope) shape {
	arg := func(i int, d shape) shape { return a.query(f.Args[i], d, sc) }
	elem := func() shape { // the element shape of an array input
		switch {
		case dot.isPlain():
			return plain
		case dot > event:
			return dot - 1
		}
		return a.fail()
	}
	switch name := f.Name + "/" + string(rune('0'+len(f.Args))); name {
	case "input/0", "inputs/0":
		if a.nullInput {
			return event
		}
		return plain // refused at run time, the same way whatever the events
	case "empty/0", "not/0", "type/0", "input_line_number/0", "halt/0", "env/0", "builtins/0", "now/0":
		return plain
	case "select/1":
		arg(0, dot)
		return dot
	case "length/0":
		if dot > event {
			return numeric
		}
		if !dot.isPlain() {
			return a.fail() // the numeric of an event's fields
		}
		return plain
	case "first/0", "last/0":
		return elem()
	case "reverse/0":
		if dot == event {
			return a.fail()
		}
		return dot
	case "keys/0", "keys_unsorted/0":
		if dot == event {
			return a.fail()
		}
		return plain // the indices of an array
	case "first/1", "last/1":
		return arg(0, dot)
	case "limit/2", "nth/2":
		a.needPlain(f.Args[0], dot, sc)
		return arg(1, dot)
	case "isempty/1":
		arg(0, dot)
		return plain
	case "range/1", "range/2", "range/3":
		for i := range f.Args {
			a.needPlain(f.Args[i], dot, sc)
		}
		return numeric
	case "map/1":
		e := elem()
		s := arg(0, e)
		if s.isPlain() {
			return plain
		}
		if s+1 > maxShape {
			return a.fail()
		}
		return s + 1
	case "group_by/1", "sort_by/1", "unique_by/1", "min_by/1", "max_by/1":
		e := elem()
		a.needPlain(f.Args[0], e, sc) // the key each element is compared by
		switch {
		case dot.isPlain():
			return plain
		case f.Name == "group_by":
			if dot+1 > maxShape {
				return a.fail()
			}
			return dot + 1
		case f.Name == "min_by" || f.Name == "max_by":
			return dot - 1
		}
		return dot
	case "any/0", "all/0":
		elem()
		return plain
	case "any/1", "all/1":
		arg(0, elem())
		return plain
	case "any/2", "all/2":
		arg(1, arg(0, dot))
		return plain
	case "error/0":
		if !dot.isPlain() {
			return a.fail()
		}
		return plain
	}
	if !dot.isPlain() {
		return a.fail()
	}
	switch f.Name {
	case "path", "del", "pick", "paths":
		a.inPath(func() {
			for i := range f.Args {
				a.needPlain(f.Args[i], plain, sc)
			}
		})
		return plain
	}
	for i := range f.Args {
		a.needPlain(f.Args[i], plain, sc)
	}
	return plain
}
