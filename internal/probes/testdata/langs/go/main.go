package main

import "fmt"

func main() {
	n := 3
	// #region agent log
	agentLog("H1", "main.go:8", "n", map[string]any{"n": n})
	// #endregion
	fmt.Println(n)
}
