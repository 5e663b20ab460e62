// Package query runs jq programs (gojq) over a session's evidence, safely:
// no environment, no input/inputs, no modules, a time bound and output
// bounds, and pages that continue through authenticated cursors.
package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/itchyny/gojq"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Bounds of one query page.
const (
	DefaultValues = 100      // values per page unless --limit says otherwise
	MaxValues     = 1000     // most values a page may ask for
	MaxValueBytes = 64 << 10 // one value larger than this is replaced by a marker
	MaxPageBytes  = 1 << 20  // a page stops before passing this many bytes
	MaxSlurp      = 15_000   // events --slurp will load at once
	MaxSlurpBytes = 5 << 20  // stored bytes --slurp will load at once (decoded, they take 3–4 times that)
	Timeout       = 20 * time.Second
)

// useProjection lets tests compare projected and whole-event runs.
var useProjection = true

// ErrCompile is wrapped by every error in the program itself (usage errors).
var ErrCompile = errors.New("the jq program does not compile")

// ErrProgram is wrapped by errors the program raised while running.
var ErrProgram = errors.New("the jq program failed")

// ErrBound is wrapped when the evidence is too large for a slurp query.
var ErrBound = errors.New("too much evidence for --slurp")

// Spec is everything that defines a query; a cursor carries all of it.
type Spec struct {
	Program string            `json:"p"`
	Args    map[string]string `json:"a,omitempty"` // --arg NAME VALUE
	JSON    map[string]string `json:"j,omitempty"` // --argjson NAME JSON (the text)
	Slurp   bool              `json:"s,omitempty"`
	Filter  store.Filter      `json:"f"`
	Limit   int               `json:"l,omitempty"`
	Capture string            `json:"cap,omitempty"` // read this capture instead of the live cycle
}

// Position is where a page stopped: Event events of the walk consumed, plus
// Skip values already returned from the event after them (or, with --slurp,
// Skip values of the single run).
type Position struct {
	Event int `json:"e"`
	Skip  int `json:"k"`
}

// Page is one bounded page of query output.
type Page struct {
	SessionID string            `json:"sessionId"`
	Cycle     int64             `json:"cycle"`
	Version   string            `json:"evidenceVersion"`
	Values    []json.RawMessage `json:"values"`
	Returned  int               `json:"returned"`
	Events    int               `json:"eventsRead"`          // events the program ran on for this page
	Matched   int               `json:"eventsMatched"`       // events selected by the filters (whole walk), -1 if the page stopped early
	Complete  bool              `json:"complete"`            // no more output
	StoppedBy string            `json:"stoppedBy,omitempty"` // values, bytes: the bound that ended the page
	Oversize  int               `json:"oversizeValues"`      // values replaced by a marker
	Warnings  []string          `json:"warnings"`
	Next      *Position         `json:"-"`
}

// Compile parses and compiles a program with the safe options. Compile
// errors name the position in the program.
func Compile(spec Spec) (*gojq.Code, []any, error) {
	q, err := gojq.Parse(spec.Program)
	if err != nil {
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			return nil, nil, fmt.Errorf("%w: %s at position %d: %s", ErrCompile, pe.Error(), pe.Offset, caret(spec.Program, pe.Offset))
		}
		return nil, nil, fmt.Errorf("%w: %v", ErrCompile, err)
	}
	var names []string
	var values []any
	for _, name := range sortedKeys(spec.Args) {
		names, values = append(names, "$"+name), append(values, spec.Args[name])
	}
	for _, name := range sortedKeys(spec.JSON) {
		var v any
		dec := json.NewDecoder(strings.NewReader(spec.JSON[name]))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("%w: --argjson %s: not valid JSON: %v", ErrCompile, name, err)
		}
		names, values = append(names, "$"+name), append(values, v)
	}
	code, err := gojq.Compile(q,
		gojq.WithVariables(names),
		gojq.WithEnvironLoader(func() []string { return nil }),
		gojq.WithInputIter(noInputs{}),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrCompile, err)
	}
	return code, values, nil
}

// caret shows the program with a marker where parsing stopped.
func caret(prog string, off int) string {
	off = min(max(off, 0), len(prog))
	return prog[:off] + " <-- here"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// noInputs makes input and inputs fail clearly: each event is its own input.
type noInputs struct{}

func (noInputs) Next() (any, bool) {
	return errors.New("input and inputs are not available: the program runs once per event (or once over all events with --slurp)"), true
}

// Run evaluates one page of the query from pos.
func Run(ctx context.Context, sess *store.Session, spec Spec, pos Position, epoch int64) (Page, error) {
	return RunOn(ctx, sess.ID(), func() (*store.Snapshot, error) { return sess.Snapshot(epoch) }, spec, pos)
}

// RunOn evaluates one page of the query from pos over the view open
// returns (live evidence, or a capture's frozen evidence).
func RunOn(ctx context.Context, sessionID string, open func() (*store.Snapshot, error), spec Spec, pos Position) (Page, error) {
	code, vars, err := Compile(spec)
	if err != nil {
		return Page{}, err
	}
	limit := spec.Limit
	if limit <= 0 {
		limit = DefaultValues
	}
	limit = min(limit, MaxValues)
	snap, err := open()
	if err != nil {
		return Page{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ctx, stopGuard := guardMemory(ctx)
	defer stopGuard()
	p := Page{SessionID: sessionID, Cycle: snap.Epoch, Version: snap.Version(), Values: []json.RawMessage{}, Warnings: []string{}, Matched: -1}
	out := &collector{page: &p, limit: limit}
	paths := newPathCheck(spec.Program)
	it := snap.Iter(spec.Filter)

	if spec.Slurp {
		// Refused at once, from the index, before anything is decoded.
		n, size, err := snap.Count(spec.Filter, MaxSlurp, MaxSlurpBytes)
		if err != nil {
			return Page{}, err
		}
		if n > MaxSlurp || size > MaxSlurpBytes {
			return Page{}, fmt.Errorf("%w: more than %s events or %d MiB of them match, the most --slurp loads at once; narrow them with filters (--hypothesis, --location, --message, --seq-from/--seq-to, --since/--until) or write a streaming program without --slurp (it runs once per event, on any number of them)",
				ErrBound, group(MaxSlurp), MaxSlurpBytes>>20)
		}
		events := make([]any, 0, n)
		batches, stop := stream(ctx, it, 0, paths, nil, nil)
		for b := range batches {
			<-b.done
			if b.err != nil {
				stop()
				return Page{}, b.err
			}
			paths.merge(b.seen)
			events = append(events, b.evs...)
		}
		stop()
		if err := stopped(ctx); err != nil {
			return Page{}, err
		}
		p.Events, p.Matched = len(events), len(events)
		o := evaluate(ctx, code, events, vars, pos.Skip+limit)
		if o.err != nil {
			return Page{}, o.err
		}
		p.Oversize += o.oversize
		taken, full := out.take(o.values[min(pos.Skip, len(o.values)):])
		if full || o.more {
			if !full {
				out.full("values")
			}
			p.Next = &Position{Skip: pos.Skip + taken}
		}
	} else {
		// Workers decode and evaluate in parallel; here the values are
		// taken in logs order until the page is full.
		perEvent := limit + pos.Skip
		eval := func(ev any) evalOut { return evaluate(ctx, code, ev, vars, perEvent) }
		consumed := pos.Event
		var proj *projection
		if useProjection {
			proj = planProjection(spec.Program, paths.paths)
		}
		batches, stop := stream(ctx, it, pos.Event, paths, eval, proj)
		first := true
	walk:
		for b := range batches {
			<-b.done
			if b.err != nil {
				stop()
				return Page{}, b.err
			}
			paths.merge(b.seen)
			for i, o := range b.outs {
				if o.err != nil {
					stop()
					return Page{}, fmt.Errorf("%w (on event SEQ %d)", o.err, b.seqs[i])
				}
				p.Events++
				skip := 0
				if first {
					skip, first = pos.Skip, false
				}
				vals := o.values[min(skip, len(o.values)):]
				taken, full := out.take(vals)
				p.Oversize += o.oversize
				if full || (o.more && taken == len(vals)) {
					if !full {
						out.full("values")
					}
					p.Next = &Position{Event: consumed, Skip: skip + taken}
					break walk
				}
				consumed++
			}
		}
		stop()
		if err := stopped(ctx); err != nil && p.Next == nil {
			// The walk may have ended because the query was stopped, not
			// because the events did: never a silently short page.
			return Page{}, err
		}
		if p.Next == nil {
			p.Matched = consumed
		}
	}
	p.Returned = len(p.Values)
	p.Complete = p.Next == nil
	if p.Complete {
		p.Warnings = append(p.Warnings, paths.warnings()...)
	}
	return p, snap.Check()
}

// evaluate runs the program on one event, keeping at most maxValues values
// and MaxPageBytes bytes (a page could not hold more).
func evaluate(ctx context.Context, code *gojq.Code, ev any, vars []any, maxValues int) evalOut {
	var o evalOut
	size := 0
	iter := code.RunWithContext(ctx, ev, vars...)
	for {
		v, ok := iter.Next()
		if !ok {
			return o
		}
		if err, isErr := v.(error); isErr {
			var he *gojq.HaltError
			if errors.As(err, &he) && he.Value() == nil {
				return o
			}
			if serr := stopped(ctx); serr != nil {
				o.err = serr
			} else {
				o.err = fmt.Errorf("%w: %v", ErrProgram, err)
			}
			return o
		}
		if len(o.values) >= maxValues || size > MaxPageBytes {
			o.more = true
			return o
		}
		b, err := gojq.Marshal(v)
		if err != nil {
			o.err = fmt.Errorf("%w: %v", ErrProgram, err)
			return o
		}
		if len(b) > MaxValueBytes {
			o.oversize++
			b = []byte(fmt.Sprintf(`{"omitted":"value of %d bytes exceeds the %d-byte bound; select a smaller part of it"}`, len(b), MaxValueBytes))
		}
		size += len(b)
		o.values = append(o.values, b)
	}
}

// stopped explains why ctx ended the query early, or is nil if it did not.
func stopped(ctx context.Context) error {
	switch {
	case memoryExceeded(ctx):
		return fmt.Errorf("%w: it needed more than %d MiB while it ran, the most a query may use; filter the events first (--hypothesis, --location, --message, --seq-from/--seq-to, --since/--until), build smaller values (no large arrays or strings), or drop --slurp so the program runs once per event",
			ErrMemory, MaxMemory>>20)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: it ran longer than %s; filter the events first (--hypothesis, --location, --message, --seq-from/--seq-to) or simplify it", ErrProgram, Timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return nil
}

// group writes n with thousands separators, as the messages show limits.
func group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// take adds values to the page until it is full; it reports how many it
// took and whether the page filled before all were taken.
func (c *collector) take(vals [][]byte) (int, bool) {
	for i, b := range vals {
		if len(c.page.Values) >= c.limit {
			c.full("values")
			return i, true
		}
		if c.bytes+len(b) > MaxPageBytes && len(c.page.Values) > 0 {
			c.full("bytes")
			return i, true
		}
		c.bytes += len(b)
		c.page.Values = append(c.page.Values, b)
	}
	return len(vals), false
}

func (c *collector) full(by string) {
	if c.page.StoppedBy == "" {
		c.page.StoppedBy = by
	}
}

// collector gathers values until a bound is reached.
type collector struct {
	page  *Page
	limit int
	bytes int
}

// pathCheck notices programs that read event fields no event has — the
// classic select that silently matches nothing.
type pathCheck struct {
	paths [][]string
	seen  []bool
	done  atomic.Bool
}

var pathRE = regexp.MustCompile(`(?:^|[^\w\].?"$])\.(hypothesisId|location|message|data|timestamp|sequence|receivedAt|id|[A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)*)`)

var eventFields = map[string]bool{"hypothesisId": true, "location": true, "message": true, "data": true, "timestamp": true, "sequence": true, "receivedAt": true, "id": true}

func newPathCheck(prog string) *pathCheck {
	pc := &pathCheck{}
	if strings.Contains(prog, ".[]") || strings.Contains(prog, "map(") {
		return pc // paths inside iterations are relative to elements; too easy to misread
	}
	seen := map[string]bool{}
	for _, m := range pathRE.FindAllStringSubmatch(stripStrings(prog), -1) {
		path := append([]string{m[1]}, strings.Split(strings.TrimPrefix(m[2], "."), ".")...)
		if m[2] == "" {
			path = path[:1]
		}
		key := strings.Join(path, ".")
		if !seen[key] {
			seen[key] = true
			pc.paths = append(pc.paths, path)
		}
	}
	pc.seen = make([]bool, len(pc.paths))
	return pc
}

// stripStrings blanks string literals so their text is not taken for paths.
var stringLiteralRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

func stripStrings(prog string) string {
	return stringLiteralRE.ReplaceAllString(prog, `""`)
}

// observe marks in seen the paths ev has. Workers each fill their own
// slice; merge folds them in.
func (pc *pathCheck) observe(ev any, seen []bool) {
	for i, path := range pc.paths {
		if seen[i] || pc.done.Load() {
			continue
		}
		var cur any = ev
		found := true
		for _, k := range path {
			m, ok := cur.(map[string]any)
			if !ok {
				found = false
				break
			}
			if cur, ok = m[k]; !ok {
				found = false
				break
			}
		}
		seen[i] = found
	}
}

func (pc *pathCheck) merge(seen []bool) {
	all := true
	for i := range pc.seen {
		pc.seen[i] = pc.seen[i] || seen[i]
		all = all && pc.seen[i]
	}
	if all {
		pc.done.Store(true) // every path seen: workers can stop looking
	}
}

func (pc *pathCheck) warnings() []string {
	var out []string
	for i, path := range pc.paths {
		if pc.seen[i] {
			continue
		}
		p := "." + strings.Join(path, ".")
		if !eventFields[path[0]] {
			out = append(out, fmt.Sprintf("no event has %s: events have .id, .sequence, .receivedAt, .hypothesisId, .location, .message, .data, .timestamp", p))
		} else {
			out = append(out, fmt.Sprintf("no event read has %s, so anything selecting on it matched nothing", p))
		}
	}
	return out
}
