"""A tiny checkout with a bug: the loyalty discount is applied twice for
members, so their totals come out too low. Probes (in agent log regions)
send runtime evidence to debug-mode through the append path."""
import json
import sys
import time

APPEND_PATH = sys.argv[1]


# region agent log
def agent_log(hypothesis, location, message, data):
    record = {"hypothesisId": hypothesis, "location": location, "message": message,
              "data": data, "timestamp": int(time.time() * 1000)}
    try:
        with open(APPEND_PATH, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
    except OSError:
        pass
# endregion


def subtotal(items):
    return sum(price * qty for price, qty in items)


def apply_discount(amount, member):
    rate = 0.10 if member else 0.0
    # region agent log
    agent_log("H1", "examples/quickstart/cart.py:31", "discount rate chosen", {"member": member, "rate": rate})
    # endregion
    return round(amount * (1 - rate), 2)


def checkout(items, member):
    total = apply_discount(subtotal(items), member)
    if member:
        total = apply_discount(total, member)  # the bug: a second discount
    # region agent log
    agent_log("H2", "examples/quickstart/cart.py:41", "total computed", {"member": member, "total": total})
    # endregion
    return total


if __name__ == "__main__":
    for member in (False, True):
        print("member" if member else "guest", checkout([(19.99, 2), (5.00, 1)], member))
