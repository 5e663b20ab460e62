fun f(): Int {
    // #region agent log
    agentLog("H1", "Broken.kt:3", "f") { null }
    // #region agent log
    agentLog("H2", "Broken.kt:5", "g") { null }
    // #endregion
    return 1
}
