package store

import (
	"fmt"

	"github.com/agentic-debug-mode/debug-mode/internal/evidence"
)

// SourceOTLP names OTLP/HTTP ingest in diagnostics.
const SourceOTLP = "otlp"

// Mapped is one record of another format (an OTLP log record or span)
// already turned into an event record line, or refused by that mapping.
type Mapped struct {
	Line    []byte // a JSON object with the event fields
	Index   int    // 1-based position in its request
	Refused string // why the mapping could not make an event; Line is quoted, redacted
}

// MappedResult counts what IngestMapped did with a batch.
type MappedResult struct {
	Accepted, Rejected int
	FirstRejection     string // position and reason of the first refused record
}

// IngestMapped validates, redacts, numbers and stores mapped records
// exactly as IngestHTTP does NDJSON lines: the same limits, the same
// redaction, one write, a diagnostic for each refused record. unit names a
// record in positions ("log record", "span"). The records are on disk
// before it returns.
func (s *Session) IngestMapped(source, unit string, recs []Mapped) (MappedResult, error) {
	items := make([]item, len(recs))
	for i, r := range recs {
		items[i] = item{data: r.Line, line: int64(r.Index), unit: unit}
	}
	checked := check(items)
	var res MappedResult
	for i, r := range recs {
		if r.Refused != "" {
			checked[i] = checkedItem{rej: &evidence.Rejection{Reason: r.Refused, Excerpt: evidence.Excerpt(r.Line)}}
		}
		if rej := checked[i].rej; rej != nil && res.FirstRejection == "" {
			res.FirstRejection = position(source, items[i]) + ": " + rej.Reason
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return MappedResult{}, ErrNotFound
	}
	var err error
	res.Accepted, res.Rejected, err = s.ingest(source, items, checked)
	if res.Accepted > 0 || res.Rejected > 0 {
		s.st.activity()
	}
	return res, err
}

// RefuseRequest records a diagnostic for a request refused as a whole (it
// could not be decoded, or it was too large), so status shows why evidence
// is missing.
func (s *Session) RefuseRequest(source, position, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrNotFound
	}
	s.addDiag(Diagnostic{Source: source, Level: "rejected", Reason: reason, Position: position, ReceivedAt: s.st.now().UnixMilli()})
	s.st.activity()
	return s.flushDiags()
}

// mappedPosition is where a mapped record was, for diagnostics.
func mappedPosition(it item) string {
	return fmt.Sprintf("%s %d of an OTLP request", it.unit, it.line)
}
