def is_match(c, t):
    return c == t


def count(s, t):
    n = 0
    for c in s:
        if is_match(c, t):
            n += 1
    return n
