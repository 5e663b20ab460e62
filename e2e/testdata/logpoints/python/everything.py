"""A program with something of every kind a logpoint can go into."""
import asyncio
import os
import subprocess
import sys
import threading
import traceback

import changed  # noqa: F401 (a logpoint is in it)
import helper

TOP = 7  # LP:top {"name": __name__, "top": 7}


def outer(k):
    def inner(v):
        return v + k  # LP:closure {"v": v, "k": k}
    return inner


class Account:
    """An account."""
    rate = 2
    doubled = rate * 2  # LP:classbody {"rate": rate}

    def __init__(self, balance):
        self.balance = balance

    def deposit(self, amount):
        self.balance += amount  # LP:method {"before": self.balance, "amount": amount}
        return self.balance


async def coro(n):
    await asyncio.sleep(0)
    doubled = n * 2  # LP:async {"n": n}
    return doubled


async def both():
    return await asyncio.gather(coro(1), coro(2))


def worker(name, out):
    for i in range(100):
        out.append(i)  # LP:thread {"thread": name, "i": i}


def loop(items, limit):
    total = 0
    for x in items:
        total += x  # LP:loop {"x": x, "over": [q for q in items if q > limit]}
    return total


def throws(v):
    return v + 1  # LP:throws {"boom": 1 / 0, "v": v}


def never_called():
    return 42  # LP:neverhit


def main(argv):
    print("doc", Account.__doc__, helper.compute.__doc__, outer.__code__.co_firstlineno)
    print("top", TOP, __name__, os.path.basename(__file__))
    print("closure", outer(3)(4))
    print("method", Account(10).deposit(5))
    print("async", asyncio.run(both()))
    out = []
    threads = [threading.Thread(target=worker, args=("t%d" % i, out)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("threads", len(out), threading.active_count())
    print("loop", loop([1, 5, 9], 4))
    print("throws", throws(1))
    print("helper", helper.compute(2))
    try:
        helper.fail()
    except ValueError as e:
        frame = traceback.extract_tb(e.__traceback__)[-1]
        print("caught at", os.path.basename(frame.filename), frame.lineno, frame.line)
    print("path", [p for p in sys.path if "hooks" in p])
    child = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "child.py"), "3"],
                           capture_output=True, text=True)
    print("child", child.returncode, child.stdout.strip())
    pid = os.fork()
    if pid == 0:
        helper.compute(100)
        os._exit(0)
    os.waitpid(pid, 0)
    sys.stdout.flush()
    if argv[1:] == ["raise"]:
        helper.fail()
    if argv[1:] == ["exit3"]:
        sys.exit(3)
    if argv[1:] == ["sigint"]:
        raise KeyboardInterrupt
    if argv[1:] == ["message"]:
        sys.exit("bye: " + str(TOP))


if __name__ == "__main__":
    main(sys.argv)
