package main

// The helper is not pasted here: Go needs it in a file of its own
// (agent_debug_log.go), which the driver writes beside this one.

import (
	"fmt"
	"strings"
	"sync"
)

type node struct {
	Value int
	Next  *node
}

var nilNode *node

// selfMap is a map that contains itself.
func selfMap() map[string]any {
	m := map[string]any{}
	m["self"] = m
	return m
}

func main() {
	// #region agent log helper
	defer agentLogFlush() // the last batch is written when main returns
	// #endregion
	// @HELPER@ (nothing is pasted here: lines added above the probes go here)
	// @CALL:nested@
	// @CALL:strings@
	// @CALL:scalars@
	// @CALL:oversize@
	// @CALL:unserializable@
	// @CALL:throws@
	// @CALL:secret@
	var wg sync.WaitGroup
	for t := 0; t < 4; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				// @CALL:thread@
			}
		}(t)
	}
	wg.Wait()
	_ = strings.Repeat // used by the oversize call
	fmt.Println("program done")
}
