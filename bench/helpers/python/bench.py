# Appended below the Python helper's import region by bench/helpers: n calls from 1
# or more threads; prints events, time inside the calls and wall time.
import sys
import threading
import time


def _bench_main():
    n, threads, hyp = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    per = n // threads
    hot = [0] * threads

    def work(t):
        spent = 0
        for i in range(per):
            t0 = time.perf_counter_ns()
            agent_log(hyp, "cache lookup", lambda: {"worker": t, "i": i, "cacheKey": "cart:%d" % i, "hit": i % 3 == 0})
            spent += time.perf_counter_ns() - t0
        hot[t] = spent

    start = time.perf_counter_ns()
    ths = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    total = time.perf_counter_ns() - start
    print("events=%d hot_ns=%d total_ns=%d" % (per * threads, sum(hot) // threads, total))


_bench_main()
