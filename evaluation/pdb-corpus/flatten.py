def flatten(value, depth=0):
    if not isinstance(value, list):
        return [(value, depth)]
    out = []
    for item in value:
        out.extend(flatten(item, depth + 1))
    return out


def deepest(pairs):
    best_value, best_depth = None, -1
    for value, depth in pairs:
        if depth > best_depth:
            best_value, best_depth = value, depth
    return best_value, best_depth


def main():
    nested = [1, [2, [3, 4], 5], [[6]], 7]
    pairs = flatten(nested)
    values = [v for v, _ in pairs]
    value, depth = deepest(pairs)
    print(values, value, depth)


if __name__ == "__main__":
    main()
