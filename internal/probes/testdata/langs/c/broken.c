int f(void) {
    // #region agent log
    agent_debug_log("H1");
    return 0;
}
