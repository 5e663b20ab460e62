# region agent log
import json, time
def agent_log(h, loc, msg, data=None):
    pass
# endregion


def total(items):
    s = 0
    for it in items:
        #region agent log
        agent_log("H1", "cart.py:12", "item", {"price": it.price})
        #endregion
        s += it.price
    return s
