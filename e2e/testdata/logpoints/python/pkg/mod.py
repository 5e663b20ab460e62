import sys


def run(n):
    return sum(range(n))  # LP:pkgmod {"n": n, "name": __name__}


if __name__ == "__main__":
    print("mod", run(4))
    sys.exit(int(sys.argv[1]) if sys.argv[1:] else 0)
