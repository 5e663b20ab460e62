def compute(x):
    """Doubles and adds one."""
    y = x * 2  # LP:helper {"x": x}
    return y + 1


def fail():
    raise ValueError("failing on purpose")  # LP:fail
