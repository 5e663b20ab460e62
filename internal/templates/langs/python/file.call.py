# region agent log
agent_log("__HYPOTHESIS_ID__", "__MESSAGE__", lambda: __DATA_EXPRESSION__)
# endregion
