"""Pool workers, forked and spawned, run a function of the main script."""
import multiprocessing
import sys


def square(n):
    return n * n  # LP:worker {"n": n}


if __name__ == "__main__":
    for method in sys.argv[1:]:
        # The with block ends the workers with SIGTERM (Pool.terminate).
        with multiprocessing.get_context(method).Pool(2) as pool:
            print(method, sum(pool.map(square, range(5))))
