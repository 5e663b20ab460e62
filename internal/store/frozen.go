package store

import (
	"io"
	"os"
)

// Frozen evidence is a cycle's stored lines copied, byte for byte, into a
// file that never changes again (a capture). FrozenIndex indexes such lines
// so a reader gets the same Snapshot, filters, pages and logs order as for
// live evidence.

// FrozenIndex indexes stored event lines of a read-only file, added in
// sequence order. The caller checks each line before adding it.
type FrozenIndex struct {
	ix     index
	labels map[string]string // interned hypothesis labels
}

// NewFrozenIndex prepares an index for about hint events.
func NewFrozenIndex(hint int) *FrozenIndex {
	b := &FrozenIndex{labels: map[string]string{}}
	b.ix.reset(int64(hint))
	return b
}

// Add indexes the next sequence: its line starts at byte off of the file,
// with this hypothesis label and timestamp.
func (b *FrozenIndex) Add(off int64, label []byte, ts int64) {
	l, ok := b.labels[string(label)]
	if !ok {
		l = string(label)
		b.labels[l] = l
	}
	b.ix.add(off, ts, l)
}

// Len is the number of events added.
func (b *FrozenIndex) Len() int { return b.ix.len() }

// Snapshot is a view of the indexed events, read from f, whose last line
// ends (newline included) at byte end. A frozen view never goes stale.
func (b *FrozenIndex) Snapshot(f *os.File, end, epoch, rejected, redacted int64) *Snapshot {
	v := b.ix.view()
	return &Snapshot{Epoch: epoch, N: v.n, size: end, indexView: v, file: f, Rejected: rejected, RedactedEvents: redacted}
}

// Frozen says whether the view reads frozen evidence.
func (v *Snapshot) Frozen() bool { return v.s == nil }

// Bytes is the size of the view's stored lines.
func (v *Snapshot) Bytes() int64 { return v.size }

// WriteEvents copies the view's stored lines, exactly as stored, to w, then
// checks the cycle was not reset meanwhile.
func (v *Snapshot) WriteEvents(w io.Writer) error {
	if _, err := io.Copy(w, io.NewSectionReader(v.file, 0, v.size)); err != nil {
		if cerr := v.Check(); cerr != nil {
			return cerr
		}
		return err
	}
	return v.Check()
}
