def area(shape):
    kind, size = shape
    if kind == 'square':
        return size * size
    if kind == 'rect':
        w, h = size
        return w * h
    raise ValueError(f'unknown shape {kind!r}')


def total_area(shapes):
    total = 0
    areas = [area(s) for s in shapes]
    for a in areas:
        total += a
    return total
