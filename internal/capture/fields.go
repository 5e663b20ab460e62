package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Data paths name a field inside an event's data, in jq's spelling: .name,
// .name.sub, ["any key"] for a key that is not an identifier, and [] for
// every element of an array (.items[].id). --fields and --ignore take them,
// and a comparison names what differs with them.

// pathNode is a set of data paths as a tree: what a comparison keeps of a
// data value. A nil node keeps everything.
type pathNode struct {
	keys map[string]*pathNode // members named below this point
	elem *pathNode            // [] : every element of an array
	all  bool                 // members and elements not named are kept whole
	skip bool                 // this value is left out
}

// pathSyntax is the one-line help for a bad path.
const pathSyntax = "a field path is .name, .name.sub, [\"any key\"] or [] for every element of an array (for example .items[].id)"

// parsePath splits a data path into its steps; "[]" is the array step.
func parsePath(p string) ([]string, error) {
	if !strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "[") {
		return nil, fmt.Errorf("%q: %s", p, pathSyntax)
	}
	var steps []string
	for i := 0; i < len(p); {
		switch {
		case strings.HasPrefix(p[i:], "[]"):
			steps = append(steps, "[]")
			i += 2
		case strings.HasPrefix(p[i:], "[\""), strings.HasPrefix(p[i:], ".[\""):
			if p[i] == '.' {
				i++
			}
			end := closingQuote(p, i+1)
			if end < 0 || end+1 >= len(p) || p[end+1] != ']' {
				return nil, fmt.Errorf("%q: %s", p, pathSyntax)
			}
			k, err := strconv.Unquote(p[i+1 : end+1])
			if err != nil {
				return nil, fmt.Errorf("%q: %s", p, pathSyntax)
			}
			steps = append(steps, "."+k)
			i = end + 2
		case p[i] == '.':
			j := i + 1
			for j < len(p) && (p[j] == '_' || p[j] >= 'a' && p[j] <= 'z' || p[j] >= 'A' && p[j] <= 'Z' || j > i+1 && p[j] >= '0' && p[j] <= '9') {
				j++
			}
			if j == i+1 {
				if p == "." {
					return nil, fmt.Errorf("%q is the whole data value: name a field inside it; %s", p, pathSyntax)
				}
				return nil, fmt.Errorf("%q: %s", p, pathSyntax)
			}
			steps = append(steps, "."+p[i+1:j])
			i = j
		default:
			return nil, fmt.Errorf("%q: %s", p, pathSyntax)
		}
	}
	return steps, nil
}

func closingQuote(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// CheckPaths checks --fields or --ignore paths; the error names the first
// bad one and the syntax.
func CheckPaths(paths []string) error {
	for _, p := range paths {
		if _, err := parsePath(p); err != nil {
			return err
		}
	}
	return nil
}

// newFilter builds the tree of what a comparison keeps: only the fields
// paths when there are any (everything otherwise), without the ignore
// paths. It is nil when both are empty.
func newFilter(fields, ignore []string) (*pathNode, error) {
	if len(fields) == 0 && len(ignore) == 0 {
		return nil, nil
	}
	root := &pathNode{all: len(fields) == 0}
	walk := func(p string, leaf func(n *pathNode)) error {
		steps, err := parsePath(p)
		if err != nil {
			return err
		}
		n := root
		for _, s := range steps {
			next := n.child(s)
			if next == nil {
				next = &pathNode{all: n.all}
				if s == "[]" {
					n.elem = next
				} else {
					if n.keys == nil {
						n.keys = map[string]*pathNode{}
					}
					n.keys[s[1:]] = next
				}
			}
			n = next
		}
		leaf(n)
		return nil
	}
	for _, p := range fields {
		if err := walk(p, func(n *pathNode) { n.all = true }); err != nil {
			return nil, err
		}
	}
	for _, p := range ignore {
		if err := walk(p, func(n *pathNode) { n.skip = true }); err != nil {
			return nil, err
		}
	}
	return root, nil
}

func (n *pathNode) child(step string) *pathNode {
	if step == "[]" {
		return n.elem
	}
	return n.keys[step[1:]]
}

// whole says that everything below n is kept as it is.
func (n *pathNode) whole() bool {
	return n == nil || n.all && n.keys == nil && n.elem == nil && !n.skip
}

// member is what n keeps of the member key: its node, or false when the
// member is left out.
func (n *pathNode) member(key string) (*pathNode, bool) {
	if n == nil {
		return nil, true
	}
	if c := n.keys[key]; c != nil {
		return c, !c.skip
	}
	return nil, n.all
}

// memberBytes is member for a key as bytes, without copying it.
func (n *pathNode) memberBytes(key []byte) (*pathNode, bool) {
	if n == nil {
		return nil, true
	}
	if c := n.keys[string(key)]; c != nil {
		return c, !c.skip
	}
	return nil, n.all
}

// element is what n keeps of an array's elements.
func (n *pathNode) element() (*pathNode, bool) {
	if n == nil {
		return nil, true
	}
	if n.elem != nil {
		return n.elem, !n.elem.skip
	}
	return nil, n.all
}

// filteredHash is dataHash for what the filter keeps: values two events
// share in the kept paths hash alike whatever the rest holds.
func filteredHash(b []byte, n *pathNode) uint64 {
	if n.whole() {
		return dataHash(b)
	}
	h, _ := hashKept(b, skipSpace(b, 0), n)
	return h
}

// hashKept hashes the value at b[i] as the node keeps it.
func hashKept(b []byte, i int, n *pathNode) (uint64, int) {
	if n.whole() {
		return hashValue(b, i)
	}
	if i >= len(b) {
		return 0, i
	}
	switch b[i] {
	case '{':
		var sum uint64
		kept := uint64(0)
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			kh, j := hashValue(b, i)
			key := unescape(b[min(i+1, j):max(i+1, j-1)])
			j = skipSpace(b, j)
			if j < len(b) && b[j] == ':' {
				j = skipSpace(b, j+1)
			}
			var vh uint64
			var k int
			if c, ok := n.member(key); ok {
				vh, k = hashKept(b, j, c)
				sum += mix(kh, vh)
				kept++
			} else {
				_, k = hashValue(b, j)
			}
			i = skipSpace(b, k)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return mix(mix(1, kept), sum), i + 1
	case '[':
		h := uint64(2)
		c, ok := n.element()
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			var k int
			if ok {
				var vh uint64
				vh, k = hashKept(b, i, c)
				h = mix(h, vh)
			} else {
				_, k = hashValue(b, i)
			}
			i = skipSpace(b, k)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return h, i + 1
	default:
		h, k := hashValue(b, i)
		if n.all {
			return h, k
		}
		return 4, k // a scalar where only fields below it are kept: nothing of it is
	}
}

// keyStep is the path step for an object key.
func keyStep(k string) string {
	if isIdent(k) {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// Bounds of the changed fields named per pair of events.
const (
	maxFieldChanges = 8  // paths listed per changed value
	valueWindow     = 64 // characters of a value shown; longer ones are cut around the difference
	windowContext   = 20 // characters shown before the first difference
)

// FieldChange is one data path whose value differs between two events,
// with both values as JSON text. A long pair is cut to the same window of
// both texts around the first character that differs, so the difference
// always shows.
type FieldChange struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Absent string `json:"absent,omitempty"` // before or after: the path is missing on that side
	Cut    bool   `json:"cut,omitempty"`    // both texts are a window, marked … where cut
	From   int    `json:"from,omitempty"`   // cut: the character both windows start at
}

// fieldChanges lists the paths at which two data values differ, as the
// filter keeps them (at most maxFieldChanges), and how many differ in all.
func fieldChanges(a, b []byte, n *pathNode) ([]FieldChange, int) {
	va, errA := decodeNumber(a)
	vb, errB := decodeNumber(b)
	if errA != nil || errB != nil {
		return []FieldChange{window(".", string(a), string(b))}, 1
	}
	w := &fieldWalk{out: []FieldChange{}}
	w.walk(va, vb, "", n)
	return w.out, w.total
}

type fieldWalk struct {
	out   []FieldChange
	total int
}

func (w *fieldWalk) add(path string, a, b any, inA, inB bool) {
	w.total++
	if len(w.out) >= maxFieldChanges {
		return
	}
	if path == "" {
		path = "."
	}
	switch {
	case !inA:
		w.out = append(w.out, FieldChange{Path: path, After: clipValue(jsonText(b)), Absent: "before"})
	case !inB:
		w.out = append(w.out, FieldChange{Path: path, Before: clipValue(jsonText(a)), Absent: "after"})
	default:
		w.out = append(w.out, window(path, jsonText(a), jsonText(b)))
	}
}

func (w *fieldWalk) walk(a, b any, path string, n *pathNode) {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		keys := make([]string, 0, len(ma)+len(mb))
		for k := range ma {
			keys = append(keys, k)
		}
		for k := range mb {
			if _, ok := ma[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, keep := n.member(k)
			if !keep {
				continue
			}
			p := path + keyStep(k)
			va, inA := ma[k]
			vb, inB := mb[k]
			if !inA || !inB {
				w.add(p, va, vb, inA, inB)
				continue
			}
			w.walk(va, vb, p, c)
		}
		return
	}
	sa, okA := a.([]any)
	sb, okB := b.([]any)
	if okA && okB {
		c, keep := n.element()
		if !keep {
			return
		}
		for i := 0; i < max(len(sa), len(sb)); i++ {
			p := path + "[" + strconv.Itoa(i) + "]"
			if i >= len(sa) || i >= len(sb) {
				var va, vb any
				if i < len(sa) {
					va = sa[i]
				}
				if i < len(sb) {
					vb = sb[i]
				}
				w.add(p, va, vb, i < len(sa), i < len(sb))
				continue
			}
			w.walk(sa[i], sb[i], p, c)
		}
		return
	}
	if n != nil && !n.all {
		return // only fields below this point are compared, and it has none
	}
	if !reflect.DeepEqual(a, b) {
		w.add(path, a, b, true, true)
	}
}

// jsonText is a decoded value as compact JSON (object keys sorted).
func jsonText(v any) string {
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// clipValue keeps a value alone (the other side has none) to the window.
func clipValue(s string) string {
	if utf8.RuneCountInString(s) <= valueWindow {
		return s
	}
	return string([]rune(s)[:valueWindow-1]) + "…"
}

// window is a field change whose two texts fit, or the same window of both
// around the first character where they differ.
func window(path, a, b string) FieldChange {
	wa, wb, from, cut := Window(a, b, valueWindow)
	return FieldChange{Path: path, Before: wa, After: wb, Cut: cut, From: from}
}

// Window fits two texts to width characters each: whole when both fit,
// otherwise the same window of both, starting a little before the first
// character where they differ, marked … where cut. So a difference is never
// cut away, and both sides line up.
func Window(a, b string, width int) (wa, wb string, from int, cut bool) {
	ra, rb := []rune(a), []rune(b)
	if len(ra) <= width && len(rb) <= width {
		return a, b, 0, false
	}
	d := 0
	for d < len(ra) && d < len(rb) && ra[d] == rb[d] {
		d++
	}
	from = max(0, d-min(windowContext, width/3))
	part := func(r []rune) string {
		if from >= len(r) {
			return "…"
		}
		end := min(len(r), from+width)
		s := string(r[from:end])
		if from > 0 {
			s = "…" + s
		}
		if end < len(r) {
			s += "…"
		}
		return s
	}
	return part(ra), part(rb), from, true
}

// decodeNumber decodes JSON keeping numbers as written.
func decodeNumber(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
