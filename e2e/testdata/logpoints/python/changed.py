X = 1

Y = 2  # the logpoint was added at line 3 when it held code
