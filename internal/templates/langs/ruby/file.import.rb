# region agent log helper
begin; require "__HELPER_PATH__"; AgentDebugMode.bind("__APPEND_PATH__", __MAX_PER_LOCATION__); rescue LoadError, StandardError; def agent_log(*, **); end; end # no helper file: probes do nothing
# endregion
