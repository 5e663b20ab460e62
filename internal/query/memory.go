package query

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"time"
)

// MaxMemory bounds how far the service's live heap may grow while a query
// runs: decoding the events, the values a program builds (a large array, a
// long string) and its output together. gojq has no allocation limit of its
// own, so a watchdog measures the heap and cancels the query past it. With
// the service's own few MiB and the index of a 1,000,000-event session, that
// keeps the service under 64 MiB; a --slurp of MaxSlurp events and a program
// that maps them fit.
const MaxMemory = 24 << 20

// ErrMemory is wrapped when a query needed more than MaxMemory.
var ErrMemory = errors.New("the query needs too much memory")

// memoryCheck is how often the watchdog looks at the heap. Reading the two
// runtime metrics costs about a microsecond.
const memoryCheck = time.Millisecond

const (
	heapObjects = "/memory/classes/heap/objects:bytes" // live and not yet collected, now
	heapLive    = "/gc/heap/live:bytes"                // live at the end of the last collection
)

// guardMemory returns a context that is cancelled, with ErrMemory as its
// cause, once the live heap has grown MaxMemory past where it was; call
// stop when the query is done. The heap is the whole service's, so memory
// that something else takes meanwhile counts too: the bound is what the
// service spends on queries and anything running beside them.
//
// The cheap measure (heap objects, garbage included) only raises the
// suspicion; a collection then tells live values from garbage, so a query
// that allocates a lot but keeps little is never stopped for it. What one
// builtin allocates in a single step (the last growth of an array, a
// string repeated by `*`) lands before the program sees the cancellation.
//
// With exact, the start is always measured by a collection: a --slurp or -n
// query reads the whole cycle and may use all of its bound, so garbage left
// by earlier requests must not widen it (a few milliseconds on a
// 1,000,000-event session, small beside such a query).
func guardMemory(ctx context.Context, exact bool) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	samples := []metrics.Sample{{Name: heapObjects}, {Name: heapLive}}
	metrics.Read(samples)
	// The heap as it is now, garbage included, is an upper bound of what is
	// live; when it is far above what the last collection left, a
	// collection now gives the true start (under a millisecond: most of
	// the service's heap is pointer-free index arrays).
	base := samples[0].Value.Uint64()
	if exact || base > samples[1].Value.Uint64()+MaxMemory/4 {
		runtime.GC()
		metrics.Read(samples[1:])
		base = samples[1].Value.Uint64()
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(memoryCheck)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(samples[:1])
			if samples[0].Value.Uint64() < base+MaxMemory {
				continue
			}
			runtime.GC()
			metrics.Read(samples[1:])
			if samples[1].Value.Uint64() >= base+MaxMemory {
				cancel(ErrMemory)
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}

// memoryExceeded reports whether ctx was cancelled for memory.
func memoryExceeded(ctx context.Context) bool { return errors.Is(context.Cause(ctx), ErrMemory) }
