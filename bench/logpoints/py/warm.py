def hot(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def elsewhere():
    return 1  # LOGPOINT: a logpoint that the hot loop never reaches
