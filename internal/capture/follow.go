package capture

import (
	"encoding/json"
	"fmt"

	"github.com/agentic-debug-mode/debug-mode/internal/probes"
	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// Followed is a link and the page it leads to.
type Followed struct {
	SessionID string     `json:"sessionId"`
	Capture   string     `json:"capture"`
	SHA256    string     `json:"sha256"` // of the capture the page was read from
	Seq       int64      `json:"seq"`
	Location  string     `json:"location"`
	Link      Link       `json:"link"`
	Page      FollowPage `json:"page"`
}

// FollowPage holds the link's targets: source lines, regions, or events.
type FollowPage struct {
	Kind      string            `json:"kind"` // source, region or event
	Sources   []SourceFile      `json:"sources,omitempty"`
	Regions   []probes.Region   `json:"regions,omitempty"`
	Events    []json.RawMessage `json:"events,omitempty"`
	Returned  int               `json:"returned"`
	Omitted   int               `json:"omitted"`   // targets the capture did not keep (a path matching more files than it froze)
	Truncated bool              `json:"truncated"` // some lines were cut to the line bound
}

// RefusedError is a link that cannot be followed, with its reason.
type RefusedError struct {
	Seq  int64
	Link Link
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the %s link of SEQ %d is %s: %s; nothing is followed (see the link states in debug-mode follow --help)", e.Link.Rel, e.Seq, e.Link.State, e.Link.Reason)
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// Follow returns the page one link of an event leads to. A link that is
// incomplete or unavailable is refused with its reason.
func (c *Capture) Follow(seq int64, rel string) (Followed, error) {
	if seq < 1 || seq > c.Header.Events {
		return Followed{}, badRequest("SEQ %d is not in capture %s, which holds events 1 to %d", seq, c.ID(), c.Header.Events)
	}
	l, err := c.link(seq, rel)
	if err != nil {
		return Followed{}, err
	}
	out := Followed{SessionID: c.Header.SessionID, Capture: c.ID(), SHA256: c.Index.SHA256, Seq: seq, Location: c.Location(seq), Link: l}
	if !l.Followable() {
		return out, &RefusedError{Seq: seq, Link: l}
	}
	p := &out.Page
	switch rel {
	case RelSource:
		p.Kind = "source"
		s := c.sources[out.Location]
		p.Sources = s.Files
		for _, f := range s.Files {
			p.Truncated = p.Truncated || f.CutLines > 0
		}
		p.Omitted = max(s.Matches-len(s.Files), 0)
		p.Returned = len(p.Sources)
	case RelRegion:
		p.Kind = "region"
		for _, t := range l.Targets {
			for _, r := range c.regions {
				if r.File == t.File && r.StartLine == t.StartLine && r.EndLine == t.EndLine {
					p.Regions = append(p.Regions, r)
				}
			}
		}
		p.Returned = len(p.Regions)
	default:
		p.Kind = "event"
		it := c.snap.Iter(store.Filter{})
		for _, t := range l.Targets {
			line, err := it.Line(t.Seq)
			if err != nil {
				return Followed{}, err
			}
			p.Events = append(p.Events, json.RawMessage(append([]byte(nil), line...)))
		}
		if p.Events, err = c.withLinks(p.Events); err != nil {
			return Followed{}, err
		}
		p.Returned = len(p.Events)
	}
	return out, nil
}
