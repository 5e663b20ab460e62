// #region agent log
agent_log('__HYPOTHESIS_ID__', '__MESSAGE__', fn () => __DATA_EXPRESSION__);
// #endregion
