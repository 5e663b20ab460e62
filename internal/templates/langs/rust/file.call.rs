// #region agent log
crate::agent_debug_mode::log!("__HYPOTHESIS_ID__", "__MESSAGE__", || __DATA_JSON_EXPRESSION__);
// #endregion
