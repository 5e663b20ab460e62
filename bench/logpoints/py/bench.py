"""One benchmark in one process: prints {"seconds": best of repeat runs}."""
import json
import os
import sys
import time


HOOK = sys.modules.get("_agent_debug_mode_logpoints")


def settle():
    # Between timed runs, let the hook's writer empty its queue, so no run
    # is timed while hits are being held back for a full queue.
    while HOOK is not None and HOOK._queue:
        time.sleep(0.01)


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        settle()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    what, n, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if what == "cold":
        import cold
        s = best(lambda: cold.hot(n), repeat)
    elif what == "warm":
        import warm
        s = best(lambda: warm.hot(n), repeat)
    elif what in ("with_data", "no_data", "plain"):
        import hits
        fn = getattr(hits, what)
        s = best(lambda: fn(n), repeat)
    elif what == "open":
        path = os.path.abspath(__file__)

        def opens():
            for _ in range(n):
                open(path, "rb").close()
        s = best(opens, repeat)
    else:
        raise SystemExit("unknown benchmark " + what)
    held = sum(lp.held for lp in HOOK._s.table) if HOOK is not None and HOOK._s.table else 0
    print(json.dumps({"seconds": s, "held": held}))


main()  # LOGPOINT-MAIN: the main script is instrumented, so its audit hook is installed
