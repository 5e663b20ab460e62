// #region agent log
agent_debug_mode::log("__HYPOTHESIS_ID__", "__MESSAGE__", [&]() -> std::string { return __DATA_JSON_EXPRESSION__; });
// #endregion
