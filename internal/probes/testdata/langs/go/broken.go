package main

func other() int {
	// #region agent log
	agentLog("H2", "broken.go:5", "x", nil)
	// #region agent log
	agentLog("H2", "broken.go:7", "y", nil)
	// #endregion
	return 1
}
