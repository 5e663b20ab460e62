// Package query runs jq programs (gojq) over a session's evidence, safely:
// no environment, no modules, a time and a memory bound, output bounds, and
// pages that continue through authenticated cursors. A program runs once per
// event, once over the array of them (--slurp), or once from null reading
// them with input/inputs (-n), in constant memory.
package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
	MaxSlurp      = 15_000   // whole events --slurp will load at once
	MaxSlurpBytes = 5 << 20  // stored bytes of whole events --slurp will load at once (decoded, they take 3–4 times that)
	// MaxSlurpFields is how many events --slurp loads when the program
	// provably reads only some of their fields (eventReads): those alone
	// are decoded, and equal ones shared, so an event costs 16 bytes. What
	// gojq builds over them costs more: a group_by ~140 bytes an event,
	// which puts 150,000 just inside MaxMemory (200,000 is stopped there).
	MaxSlurpFields = 150_000
	Timeout        = 20 * time.Second
)

// useProjection lets tests compare projected and whole-event runs.
var useProjection = true

// timeout is Timeout; tests of large sessions on a loaded machine raise it
// (they bound memory, not time).
var timeout = Timeout

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
	// NullInput (-n) runs the program once on null; input and inputs read
	// the selected events.
	NullInput bool         `json:"n,omitempty"`
	Filter    store.Filter `json:"f"`
	Limit     int          `json:"l,omitempty"`
	Capture   string       `json:"cap,omitempty"` // read this capture instead of the live cycle
}

// Position is where a page stopped: Event events of the walk consumed, plus
// Skip values already returned from the event after them (or, with --slurp
// or -n, Skip values of the single run).
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
	Events    int               `json:"eventsRead"`          // events the program ran on (or read, with -n) for this page
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
	q, err := parse(spec)
	if err != nil {
		return nil, nil, err
	}
	return compile(q, spec, noInputs{})
}

func parse(spec Spec) (*gojq.Query, error) {
	if spec.Slurp && spec.NullInput {
		return nil, fmt.Errorf("%w: --slurp and -n (--null-input) do not go together: with -n the program reads the events itself with input or inputs", ErrCompile)
	}
	q, err := gojq.Parse(spec.Program)
	if err != nil {
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %s at position %d: %s", ErrCompile, pe.Error(), pe.Offset, caret(spec.Program, pe.Offset))
		}
		return nil, fmt.Errorf("%w: %v", ErrCompile, err)
	}
	return q, nil
}

// compile compiles q; inputs is what input and inputs read.
func compile(q *gojq.Query, spec Spec, inputs gojq.Iter) (*gojq.Code, []any, error) {
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
		gojq.WithInputIter(inputs),
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

// Run evaluates one page of the query from pos.
func Run(ctx context.Context, sess *store.Session, spec Spec, pos Position, epoch int64) (Page, error) {
	return RunOn(ctx, sess.ID(), func() (*store.Snapshot, error) { return sess.Snapshot(epoch) }, spec, pos)
}

// RunOn evaluates one page of the query from pos over the view open
// returns (live evidence, or a capture's frozen evidence).
func RunOn(ctx context.Context, sessionID string, open func() (*store.Snapshot, error), spec Spec, pos Position) (Page, error) {
	q, err := parse(spec)
	if err != nil {
		return Page{}, err
	}
	in := &eventInputs{}
	var inputs gojq.Iter = noInputs{}
	if spec.NullInput {
		inputs = in
	}
	code, vars, err := compile(q, spec, inputs)
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, stopGuard := guardMemory(ctx, spec.Slurp || spec.NullInput)
	defer stopGuard()
	p := Page{SessionID: sessionID, Cycle: snap.Epoch, Version: snap.Version(), Values: []json.RawMessage{}, Warnings: []string{}, Matched: -1}
	out := &collector{page: &p, limit: limit}
	it := snap.Iter(spec.Filter)

	// A program run once over the events (-n, --slurp) sees only the fields
	// it provably reads, when that can be shown; then only those are decoded.
	var proj *projection
	var reads [][]string
	fields := false
	if spec.Slurp || spec.NullInput {
		reads, fields = eventReads(q, spec.NullInput)
	}
	paths := newPathCheck(spec.Program)
	switch {
	case fields:
		if useProjection {
			proj = newProjection(reads)
		}
		paths = &pathCheck{paths: reads, seen: make([]bool, len(reads))}
	case spec.NullInput:
		paths = &pathCheck{} // .x in a -n program is mostly the program's own state
	}

	if spec.Slurp || spec.NullInput {
		var events any
		if spec.Slurp {
			// Refused at once, from the index, before anything is decoded.
			most, mostBytes := MaxSlurp, int64(MaxSlurpBytes)
			if fields {
				most, mostBytes = MaxSlurpFields, math.MaxInt64
			}
			n, size, err := snap.Count(spec.Filter, most, mostBytes)
			if err != nil {
				return Page{}, err
			}
			if n > most || size > mostBytes {
				return Page{}, slurpRefusal(spec, fields)
			}
			all := make([]any, 0, n)
			batches, stop := stream(ctx, it, 0, paths, nil, proj)
			for b := range batches {
				<-b.done
				if b.err != nil {
					stop()
					return Page{}, b.err
				}
				paths.merge(b.seen)
				all = append(all, b.evs...)
			}
			stop()
			if err := stopped(ctx, spec); err != nil {
				return Page{}, err
			}
			p.Events, p.Matched = len(all), len(all)
			events = all
		} else {
			// The walk starts when the program first reads an input.
			in.ctx, in.paths = ctx, paths
			in.start = func() <-chan *batch {
				batches, stop := stream(ctx, it, 0, paths, nil, proj)
				in.stop = stop
				return batches
			}
			defer in.close()
		}
		o := evaluate(ctx, code, events, vars, pos.Skip, limit)
		if spec.NullInput {
			// However the program ended (it may catch errors), a walk that
			// could not go on is never a silently short answer.
			if in.err != nil {
				return Page{}, in.err
			}
			p.Events = in.read
			if in.drained {
				p.Matched = in.read
			}
		}
		if err := stopped(ctx, spec); err != nil {
			return Page{}, err // even if the program caught the error it saw
		}
		if o.err != nil {
			return Page{}, o.err
		}
		p.Oversize += o.oversize
		taken, full := out.take(o.values)
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
		eval := func(ev any) evalOut { return evaluate(ctx, code, ev, vars, 0, perEvent) }
		consumed := pos.Event
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
				if errors.Is(o.err, errStopped) {
					stop()
					return Page{}, stopped(ctx, spec)
				}
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
		if err := stopped(ctx, spec); err != nil && p.Next == nil {
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

// errStopped marks an evaluation the context ended; stopped says why.
var errStopped = errors.New("stopped")

// evaluate runs the program on one input, passing over its first skip
// values and keeping at most maxValues values and MaxPageBytes bytes after
// them (a page could not hold more).
func evaluate(ctx context.Context, code *gojq.Code, ev any, vars []any, skip, maxValues int) evalOut {
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
			if ctx.Err() != nil {
				o.err = errStopped
			} else {
				o.err = fmt.Errorf("%w: %v", ErrProgram, err)
			}
			return o
		}
		if skip > 0 {
			skip-- // returned on an earlier page
			continue
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

// filterFlags names the filters every refusal offers.
const filterFlags = "--hypothesis, --location, --message, --seq-from/--seq-to, --since/--until"

// slurpRefusal explains a --slurp over its limit and gives the -n form
// that reads the events one at a time.
func slurpRefusal(spec Spec, fields bool) error {
	form := streamingForm(spec.Program, true)
	instead := fmt.Sprintf("read them one at a time in constant memory with -n instead: -n '%s'", form)
	if form == countForm {
		instead += " (`status` gives the count per label)"
	}
	if fields {
		return fmt.Errorf("%w: more than %s events match, the most --slurp loads at once (even decoding only the fields the program reads); %s, or narrow them with filters (%s)",
			ErrBound, group(MaxSlurpFields), instead, filterFlags)
	}
	return fmt.Errorf("%w: more than %s events or %d MiB of them match, the most --slurp loads at once when the program reads whole events (one that only reads fields by name, such as group_by(.data.k) | map({k: .[0].data.k, n: length}), may slurp %s); %s, or narrow them with filters (%s)",
		ErrBound, group(MaxSlurp), MaxSlurpBytes>>20, group(MaxSlurpFields), instead, filterFlags)
}

// stopped explains why ctx ended the query early, or is nil if it did not.
func stopped(ctx context.Context, spec Spec) error {
	switch {
	case memoryExceeded(ctx):
		var instead string
		switch {
		case spec.Slurp:
			instead = fmt.Sprintf("--slurp holds every event at once: read them one at a time with -n instead, e.g. -n '%s'", streamingForm(spec.Program, true))
		case spec.NullInput:
			instead = fmt.Sprintf("with -n only what the program keeps counts: keep counts or extremes in a reduce state instead of collecting values, e.g. -n '%s'", streamingForm(spec.Program, false))
		default:
			instead = "build smaller values (no large arrays or strings); to aggregate over many events, read them one at a time with -n, e.g. -n 'reduce inputs as $e ({}; .[$e.location] += 1)'"
		}
		return fmt.Errorf("%w: it needed more than %d MiB while it ran, the most a query may use; %s, or filter the events first (%s)",
			ErrMemory, MaxMemory>>20, instead, filterFlags)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: it ran longer than %s; filter the events first (%s) or simplify it", ErrProgram, timeout, filterFlags)
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
