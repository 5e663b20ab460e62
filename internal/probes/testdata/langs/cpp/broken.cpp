int f() {
    /* #region agent log */
    agent_log("H1");
    /* #region agent log */
    agent_log("H2");
    /* #endregion */
    return 0;
}
