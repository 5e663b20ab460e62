//go:build ignore

// The instrumented program for the Go helper's per-event cost: it calls the
// rendered helper (agent_debug_log.go, written beside this file by
// bench/helpers) n times from g goroutines and prints the wall time. Built on
// its own (go build main.go agent_debug_log.go), never as part of the module.
package main

import (
	"flag"
	"fmt"
	"sync"
	"time"
)

func main() {
	n := flag.Int("n", 100000, "events in all")
	g := flag.Int("g", 1, "goroutines calling the helper at once")
	hyp := flag.String("hypothesis", "bench", "hypothesisId of every event")
	flag.Parse()
	per := *n / *g
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < *g; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				// #region agent log
				agentLog(*hyp, "bench/helpers/go/main.go:30", "cache lookup", func() any {
					return map[string]any{"worker": w, "i": i, "cacheKey": "cart:42", "hit": i%2 == 0}
				})
				// #endregion
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	// hot path = wall time: the file helper writes synchronously.
	fmt.Printf("events=%d hot_ns=%d total_ns=%d\n", per**g, elapsed.Nanoseconds(), elapsed.Nanoseconds())
}
