PRICES = {"apple": 0.5, "banana": 0.25, "cherry": 3.0}


def line_cost(item, qty):
    unit = PRICES[item]
    return unit * qty


def receipt(order):
    lines = []
    total = 0
    for item, qty in order:
        cost = line_cost(item, qty)
        total += cost
        lines.append(f"{item:<8}{qty:>3} {cost:>6.2f}")
    lines.append(f"{'total':<12}{total:>6.2f}")
    return "\n".join(lines)


def main():
    first = [("apple", 4), ("cherry", 1)]
    print(receipt(first))
    second = [("banana", 6), ("durian", 1), ("apple", 2)]
    print(receipt(second))


main()
