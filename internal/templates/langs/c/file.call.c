// #region agent log
agent_debug_log("__HYPOTHESIS_ID__", "__MESSAGE__", __DATA_JSON_EXPRESSION__);
// #endregion
