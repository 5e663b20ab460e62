package query

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/agentic-debug-mode/debug-mode/internal/store"
)

// batch is a run of consecutive matching events, decoded by a worker while
// the caller evaluates the batch before it.
type batch struct {
	seqs  []int64
	lines [][]byte
	arena []byte
	evs   []any     // decoded events, kept only when there is no evaluator
	outs  []evalOut // per event, when there is one
	seen  []bool    // program paths some event of this batch has
	err   error
	done  chan struct{}
}

// evalOut is what one event's evaluation produced, bounded.
type evalOut struct {
	values   [][]byte
	more     bool // stopped at the bound: the event has more values
	oversize int
	err      error
}

// evaluator runs the program on one decoded event.
type evaluator func(ev any) evalOut

const batchSize = 256

// stream walks the matching events after the first skip ones and delivers
// them decoded, in order. Decoding runs on every core; call stop when done
// (it is safe to stop early). With eval, each event is evaluated where it is
// decoded, and proj only spares decoding events the program drops; without
// it, proj is exact: the events are decoded to those fields alone.
func stream(ctx context.Context, it *store.Cursor, skip int, paths *pathCheck, eval evaluator, proj *projection) (out <-chan *batch, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	ordered := make(chan *batch, 8)
	jobs := make(chan *batch, 8)
	// Decoded values never point into a batch's lines, so a decoded batch
	// hands its buffers back: the walk allocates a few of them, not one per
	// batch (that garbage was most of what a fast -n reduce allocated).
	free := make(chan *batch, 24)
	var wg sync.WaitGroup
	workers := max(runtime.GOMAXPROCS(0), 1)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dc := newDecoder()
			for b := range jobs {
				b.seen = make([]bool, len(paths.paths))
				if eval == nil {
					b.evs = make([]any, len(b.lines))
				} else {
					b.outs = make([]evalOut, len(b.lines))
				}
				for i, line := range b.lines {
					var ev any
					var err error
					if proj != nil && eval == nil {
						// The program sees nothing but the projected fields.
						if ev, err = dc.decodeShared(line, proj); err != nil {
							b.err = fmt.Errorf("stored event SEQ %d is unreadable: %w", b.seqs[i], err)
							break
						}
						paths.observe(ev, b.seen)
						b.evs[i] = ev
						continue
					}
					if proj != nil {
						// Try the program on the fields it can see; only an event
						// it keeps (or fails on) is decoded whole and run again.
						if ev, err = dc.decodeProjected(line, proj); err == nil {
							paths.observe(ev, b.seen)
							if o := eval(ev); len(o.values) == 0 && !o.more && o.err == nil {
								continue
							}
						}
					}
					if ev, err = dc.decode(line); err != nil {
						b.err = fmt.Errorf("stored event SEQ %d is unreadable: %w", b.seqs[i], err)
						break
					}
					paths.observe(ev, b.seen)
					if eval == nil {
						b.evs[i] = ev
					} else {
						b.outs[i] = eval(ev)
					}
				}
				select {
				case free <- &batch{lines: b.lines[:0], arena: b.arena[:0]}: // seqs stay: the reader uses them
				default:
				}
				b.lines, b.arena = nil, nil
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(ordered)
		defer close(jobs)
		send := func(b *batch) bool {
			select {
			case ordered <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case jobs <- b:
				return true
			case <-ctx.Done():
				close(b.done)
				return false
			}
		}
		for i := 0; i < skip; i++ {
			if _, _, ok, err := it.Next(); err != nil || !ok {
				if err != nil {
					b := &batch{err: err, done: make(chan struct{})}
					close(b.done)
					select {
					case ordered <- b:
					case <-ctx.Done():
					}
				}
				return
			}
		}
		next := func() *batch {
			select {
			case b := <-free:
				b.done = make(chan struct{})
				return b
			default:
				return &batch{done: make(chan struct{})}
			}
		}
		b := next()
		for {
			seq, line, ok, err := it.Next()
			if err == nil && ok && line == nil {
				line, err = it.Line(seq)
			}
			if err != nil {
				b.err = err
				close(b.done)
				select {
				case ordered <- b:
				case <-ctx.Done():
				}
				return
			}
			if !ok {
				if len(b.seqs) > 0 {
					fixLines(b)
					send(b)
				}
				return
			}
			start := len(b.arena)
			b.arena = append(b.arena, line...)
			b.seqs = append(b.seqs, seq)
			b.lines = append(b.lines, b.arena[start:len(b.arena):len(b.arena)])
			if len(b.seqs) == batchSize {
				fixLines(b)
				if !send(b) {
					return
				}
				b = next()
			}
		}
	}()
	return ordered, func() {
		cancel()
		for b := range ordered {
			<-b.done
		}
		wg.Wait()
	}
}

// fixLines re-slices the lines after the arena stopped growing (appends may
// have moved it).
func fixLines(b *batch) {
	off := 0
	for i, l := range b.lines {
		n := len(l)
		b.lines[i] = b.arena[off : off+n : off+n]
		off += n
	}
}
