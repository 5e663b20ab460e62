fun main() {
    val n = 3
    // #region agent log
    agentLog("H1", "Main.kt:4", "n") { mapOf("n" to n) }
    // #endregion
    println(n)
}
