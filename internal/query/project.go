package query

import (
	"regexp"
	"strings"
)

// projection is the part of each event a program can observe. Most agent
// queries are a select on a few fields plus a few fields out; decoding only
// those fields is several times faster than decoding whole events. It is
// used only for programs built from an allowlist of constructs that cannot
// observe the rest of the event, and any event for which the program
// produces output (or an error) is evaluated again on the whole event, so
// results are always exactly those of the whole-event run.
type projection struct {
	whole  bool
	fields map[string]*projection
}

// projectable is the allowlist: paths from the event, variables, literals,
// operators, object/array construction, and functions that treat an object
// input the same whatever its other keys are (or fail on it either way).
var (
	tokenRE = regexp.MustCompile(`^(?:\s+|\.[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\??|\$[A-Za-z_]\w*|[A-Za-z_]\w*|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|""|==|!=|<=|>=|//|[<>+\-*/%|,()\[\]{}:?])`)
	allowed = map[string]bool{
		"select": true, "not": true, "and": true, "or": true, "if": true, "then": true, "elif": true, "else": true, "end": true,
		"as": true, "empty": true, "type": true, "true": true, "false": true, "null": true,
		"startswith": true, "endswith": true, "test": true, "ltrimstr": true, "rtrimstr": true, "ascii_downcase": true, "ascii_upcase": true,
	}
)

// planProjection returns the projection for a program, or nil when the
// whole event must be decoded.
func planProjection(prog string, paths [][]string) *projection {
	if strings.Contains(prog, `\(`) || strings.Contains(prog, "#") || len(paths) == 0 {
		return nil // interpolation and comments hide what is read
	}
	src := stripStrings(prog)
	var toks []string
	for rest := src; rest != ""; {
		m := tokenRE.FindString(rest)
		if m == "" {
			return nil // a construct outside the allowlist (a bare ., .., .[], @format, …)
		}
		if t := strings.TrimSpace(m); t != "" {
			toks = append(toks, t)
		}
		rest = rest[len(m):]
	}
	for i, t := range toks {
		c := t[0]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' {
			objectKey := i+1 < len(toks) && toks[i+1] == ":"
			if !allowed[t] && !objectKey {
				return nil
			}
		}
	}
	return newProjection(paths)
}

// newProjection is the tree of the given paths, each kept whole; with no
// paths, events decode to empty objects.
func newProjection(paths [][]string) *projection {
	root := &projection{fields: map[string]*projection{}}
	for _, path := range paths {
		node := root
		for _, k := range path {
			if node.whole {
				break
			}
			next := node.fields[k]
			if next == nil {
				next = &projection{fields: map[string]*projection{}}
				node.fields[k] = next
			}
			node = next
		}
		node.whole, node.fields = true, nil // the deepest read keeps its whole value
	}
	return root
}

// decodeProjected decodes only the projected fields of a stored event.
func (d *decoder) decodeProjected(line []byte, p *projection) (any, error) {
	d.b, d.i = line, 0
	v, err := d.projected(p, 0)
	if err == nil && d.i != len(d.b) {
		err = errSyntax
	}
	return v, err
}

func (d *decoder) projected(p *projection, depth int) (any, error) {
	if p.whole || d.i >= len(d.b) || d.b[d.i] != '{' {
		return d.value(depth) // kept whole, or not an object: nothing to leave out
	}
	return d.object(depth, p)
}

// skip passes over one value without building it.
func (d *decoder) skip() error {
	start, depth := d.i, 0
	for d.i < len(d.b) {
		switch c := d.b[d.i]; c {
		case '"':
			if _, _, err := d.str(); err != nil {
				return err
			}
			if depth == 0 {
				return nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				if d.i == start {
					return errSyntax // no value at all
				}
				return nil // the enclosing object ends after a scalar
			}
			depth--
			if depth == 0 {
				d.i++
				return nil
			}
		case ',':
			if depth == 0 {
				if d.i == start {
					return errSyntax
				}
				return nil
			}
		}
		d.i++
	}
	if depth == 0 {
		return nil
	}
	return errSyntax
}

// decodeShared decodes the projected fields of a stored event exactly (for
// -n and --slurp, which see nothing else of an event), sharing one decoded
// value among events whose projected text is the same: a --slurp that reads
// one field of few values holds one small object per value, not per event.
// jq values are immutable (gojq copies on update), so sharing is invisible.
func (d *decoder) decodeShared(line []byte, p *projection) (any, error) {
	text, err := d.projectText(line, p, d.text[:0])
	if err != nil {
		return nil, err
	}
	d.text = text
	if v, ok := d.shared[string(text)]; ok {
		return v, nil
	}
	v, err := d.decode(text)
	if err != nil || len(text) > sharedTextMax {
		return v, err
	}
	if len(d.shared) == sharedValues || d.sharedText+len(text) > sharedTextBytes {
		// Full: start again, so the values that keep coming back are the
		// ones kept, and values that never repeat cost a bounded table.
		clear(d.shared)
		d.sharedText = 0
	}
	d.shared[string(text)] = v
	d.sharedText += len(text)
	return v, nil
}

// Bounds of the table of shared values, per decoding worker: about 2 MiB
// of decoded values at most (a small object is ~700 bytes decoded).
const (
	sharedValues    = 2048
	sharedTextBytes = 64 << 10
	sharedTextMax   = 512
)

// projectText writes the projected part of a stored event as JSON text: the
// kept fields' stored text in stored order. The text decodes to what
// decodeProjected builds, and equal texts decode to equal values.
func (d *decoder) projectText(line []byte, p *projection, out []byte) ([]byte, error) {
	d.b, d.i = line, 0
	out, err := d.projectInto(p, out)
	if err == nil && d.i != len(d.b) {
		err = errSyntax
	}
	return out, err
}

func (d *decoder) projectInto(p *projection, out []byte) ([]byte, error) {
	if p.whole || d.i >= len(d.b) || d.b[d.i] != '{' {
		start := d.i
		if err := d.skip(); err != nil {
			return nil, err
		}
		if d.i == start {
			return nil, errSyntax
		}
		return append(out, d.b[start:d.i]...), nil
	}
	d.i++
	out = append(out, '{')
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return append(out, '}'), nil
	}
	kept := false
	for {
		start := d.i
		k, err := d.key()
		if err != nil {
			return nil, err
		}
		end := d.i
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errSyntax
		}
		d.i++
		if sub := p.fields[k]; sub != nil {
			if kept {
				out = append(out, ',')
			}
			kept = true
			out = append(append(out, d.b[start:end]...), ':')
			if out, err = d.projectInto(sub, out); err != nil {
				return nil, err
			}
		} else if err := d.skip(); err != nil {
			return nil, err
		}
		if d.i >= len(d.b) {
			return nil, errSyntax
		}
		if d.b[d.i] == '}' {
			d.i++
			return append(out, '}'), nil
		}
		if d.b[d.i] != ',' {
			return nil, errSyntax
		}
		d.i++
	}
}
