package query

import (
	"strings"

	"github.com/itchyny/gojq"
)

// streamingForm is the -n program that gives what prog gives (or the same
// aggregate) while holding one event at a time, for the refusals to offer.
// It knows the usual shapes of an aggregation (a count, counts per value, a
// maximum, a filtered count); for any other it shows the general form.
func streamingForm(prog string, slurp bool) string {
	generic := `reduce inputs as $e ({}; .[$e.location] += 1)`
	q, err := gojq.Parse(prog)
	if err != nil {
		return generic
	}
	stages := pipeStages(q)
	if !slurp {
		// -n already: a program collecting [inputs | F] keeps every value.
		if len(stages) >= 1 {
			if t := stages[0].Term; t != nil && t.Type == gojq.TermTypeArray && t.SuffixList == nil && t.Array.Query != nil {
				if in := pipeStages(t.Array.Query); len(in) >= 2 && isCall(in[0], "inputs", 0) {
					if f := reduceOver(joinStages(in[1:]), stages[1:]); f != "" {
						return f
					}
				}
			}
		}
		return generic
	}
	if len(stages) == 0 {
		return generic
	}
	first, rest := stages[0], stages[1:]
	switch {
	case isCall(first, "length", 0) && len(rest) == 0:
		return countForm
	case isCall(first, "group_by", 1), isCall(first, "unique_by", 1):
		return `reduce inputs as $e ({}; .[` + applied(first.Term.Func.Args[0]) + ` | tostring] += 1)`
	case isCall(first, "map", 1):
		inner := pipeStages(first.Term.Func.Args[0])
		if len(inner) == 1 && isCall(inner[0], "select", 1) && len(rest) == 1 && isCall(rest[0], "length", 0) {
			return `reduce (inputs | ` + inner[0].String() + `) as $e (0; . + 1)`
		}
		if f := reduceOver(first.Term.Func.Args[0].String(), rest); f != "" {
			return f
		}
		if len(rest) == 0 {
			return `[inputs | ` + first.Term.Func.Args[0].String() + `]`
		}
		return `[inputs | ` + first.Term.Func.Args[0].String() + `] | ` + joinStages(rest)
	case first.Term != nil && first.Term.Type == gojq.TermTypeIdentity && len(first.Term.SuffixList) == 1 && first.Term.SuffixList[0].Iter:
		if len(rest) == 0 {
			return `inputs`
		}
		return `inputs | ` + joinStages(rest)
	}
	return generic
}

// countForm counts the events.
const countForm = `reduce inputs as $e (0; . + 1)`

// reduceOver is the reduce that folds F's values the way rest aggregates
// them (max, min, add, length), or "".
func reduceOver(f string, rest []*gojq.Query) string {
	if len(rest) != 1 {
		return ""
	}
	v := `($e | ` + f + `)`
	if strings.HasPrefix(f, ".") && !strings.ContainsAny(f, " |,()[]") {
		v = `$e` + f // a path: $e.data.ms
	}
	switch {
	case isCall(rest[0], "max", 0):
		return `reduce inputs as $e (null; [., ` + v + `] | max)`
	case isCall(rest[0], "min", 0):
		return `reduce inputs as $e (null; if . == null then ` + v + ` else [., ` + v + `] | min end)`
	case isCall(rest[0], "add", 0):
		return `reduce inputs as $e (null; . + ` + v + `)`
	case isCall(rest[0], "length", 0):
		return countForm
	}
	return ""
}

// applied is f applied to the event $e: $e.data.k for a path, else ($e | f).
func applied(f *gojq.Query) string {
	s := f.String()
	if t := f.Term; t != nil && t.Type == gojq.TermTypeIndex && f.Left == nil && !strings.ContainsAny(s, " |,()[]") {
		return `$e` + s
	}
	return `($e | ` + s + `)`
}

// pipeStages flattens a | b | c into its stages.
func pipeStages(q *gojq.Query) []*gojq.Query {
	if q == nil {
		return nil
	}
	if q.Op == gojq.OpPipe && q.Patterns == nil && q.Term == nil {
		return append(pipeStages(q.Left), pipeStages(q.Right)...)
	}
	return []*gojq.Query{q}
}

func joinStages(qs []*gojq.Query) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = q.String()
	}
	return strings.Join(parts, " | ")
}

func isCall(q *gojq.Query, name string, arity int) bool {
	t := q.Term
	return t != nil && q.Left == nil && t.Type == gojq.TermTypeFunc && t.Func.Name == name && len(t.Func.Args) == arity && t.SuffixList == nil
}
