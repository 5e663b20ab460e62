package probes

import (
	"bytes"
	"unicode/utf8"
)

// Kinds of broken region.
const (
	BrokenUnclosed = "unclosed" // a start marker with no end marker after it
	BrokenUnopened = "unopened" // an end marker with no start marker before it
	BrokenNested   = "nested"   // a start marker inside another agent log region
	BrokenMisspelt = "misspelt" // a comment mentions "region agent log" but is not a marker
)

// span is one well-formed region of a file.
type span struct {
	start, end int // 1-based line numbers of the start and end markers
	from, to   int // byte range: from the start marker's first byte to just after the end marker's line terminator
	code       string
	label      string
}

// fault is one broken marker of a file.
type fault struct {
	line    int
	kind    string
	related int // for nested: the line of the region it starts inside
}

// maxCode bounds the first code line shown for a region, in runes.
const maxCode = 72

// parse finds the regions and broken markers in a file's content. Lines end
// at "\n"; a "\r" before it belongs to the terminator, so CRLF files work.
func parse(data []byte) ([]span, []fault) {
	// Every marker holds "gion" ("region", "Region", "rEgion") or "GION"
	// ("REGION", "ReGION"): only lines with one are looked at. "g" is rarer
	// in code than the "e" of "egion", so the search skips ahead faster.
	lower, upper := bytes.Index(data, []byte("gion")), bytes.Index(data, []byte("GION"))
	if lower < 0 && upper < 0 {
		return nil, nil
	}
	type frame struct {
		agent    bool
		broken   bool
		line     int
		from     int // byte offset of the marker line
		bodyFrom int // byte offset just after the marker line
		label    string
	}
	var (
		stack  []frame
		spans  []span
		faults []fault
	)
	line, pos := 0, 0 // line number of the line that starts at pos
	for pos < len(data) {
		// Jump to the next line that can be a marker.
		if lower >= 0 && lower < pos {
			lower = nextIndex(data, pos, "gion")
		}
		if upper >= 0 && upper < pos {
			upper = nextIndex(data, pos, "GION")
		}
		ls := lower
		if ls < 0 || upper >= 0 && upper < ls {
			ls = upper
		}
		if ls < 0 {
			break
		}
		if i := bytes.LastIndexByte(data[pos:ls], '\n'); i >= 0 {
			line += bytes.Count(data[pos:pos+i+1], []byte{'\n'})
			ls = pos + i + 1
		} else {
			ls = pos
		}
		le := len(data)
		next := len(data)
		if j := bytes.IndexByte(data[ls:], '\n'); j >= 0 {
			le, next = ls+j, ls+j+1
		}
		n := line + 1
		line, pos = line+1, next
		kind, label := classifyLine(data[ls:le])
		switch kind {
		case agentMention:
			faults = append(faults, fault{line: n, kind: BrokenMisspelt})
		case agentStart:
			if len(stack) > 0 && stack[len(stack)-1].agent {
				faults = append(faults, fault{line: n, kind: BrokenNested, related: stack[len(stack)-1].line})
				for i := range stack {
					if stack[i].agent {
						stack[i].broken = true
					}
				}
				stack = append(stack, frame{agent: true, broken: true, line: n, from: ls, bodyFrom: next})
				continue
			}
			stack = append(stack, frame{agent: true, line: n, from: ls, bodyFrom: next, label: label})
		case otherStart:
			if len(stack) > 0 && stack[len(stack)-1].agent {
				continue // agent log regions are flat: only an end marker matters inside one
			}
			stack = append(stack, frame{line: n})
		case regionEnd:
			if len(stack) == 0 {
				faults = append(faults, fault{line: n, kind: BrokenUnopened})
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.agent && !top.broken {
				spans = append(spans, span{start: top.line, end: n, from: top.from, to: next,
					code: firstCode(data[top.bodyFrom:ls]), label: top.label})
			}
		}
	}
	for _, f := range stack {
		if f.agent && !f.broken { // a broken one was already reported as nested
			faults = append(faults, fault{line: f.line, kind: BrokenUnclosed})
		}
	}
	sortFaults(faults)
	return spans, faults
}

// nextIndex is the offset in data of the first sub at or after from, or -1.
func nextIndex(data []byte, from int, sub string) int {
	if k := bytes.Index(data[from:], []byte(sub)); k >= 0 {
		return from + k
	}
	return -1
}

func sortFaults(f []fault) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && f[j].line < f[j-1].line; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}

// firstCode is the region's first line that is neither blank nor only a
// comment (or, failing that, its first non-blank line), trimmed and cut.
func firstCode(body []byte) string {
	var fallback []byte
	for len(body) > 0 {
		l := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			l, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		t := trimSpace(l)
		if len(t) == 0 {
			continue
		}
		if !isCommentLine(t) {
			return cut(t)
		}
		if fallback == nil {
			fallback = t
		}
	}
	return cut(fallback)
}

func cut(b []byte) string {
	b = bytes.ToValidUTF8(b, []byte("?"))
	if utf8.RuneCount(b) <= maxCode {
		return string(b)
	}
	n := 0
	for i := range string(b) {
		if n == maxCode-1 {
			return string(b[:i]) + "…"
		}
		n++
	}
	return string(b)
}
