def f(x):
    # region agent log
    agent_log("H1", "broken.py:3", "x", {"x": x})
    # region agent log
    agent_log("H2", "broken.py:5", "x", {"x": x})
    # endregion
    # endregion
    return x
