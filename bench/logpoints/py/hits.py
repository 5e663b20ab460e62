def with_data(n):
    for i in range(n):
        x = i  # LOGPOINT-DATA: {"i": i}
    return x


def no_data(n):
    for i in range(n):
        x = i  # LOGPOINT-NODATA
    return x


def plain(n):
    for i in range(n):
        x = i
    return x
