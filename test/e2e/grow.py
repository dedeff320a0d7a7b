def grow(k):
    total = 0
    for i in range(k):
        total = total + i
        step = i * 2
    try:
        raise ValueError(total)
    except ValueError:
        total = -1
    return total
