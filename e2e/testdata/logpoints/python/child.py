import sys

n = int(sys.argv[1])
for i in range(n):
    print("child", i)  # LP:child {"i": i, "argv": sys.argv[1:]}
