def never_loaded():
    return 1  # LP:unused
