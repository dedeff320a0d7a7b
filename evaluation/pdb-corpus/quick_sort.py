def quick_sort(items):
    if len(items) < 2:
        return items
    pivot = items[len(items) // 2]
    smaller = [x for x in items if x < pivot]
    equal = [x for x in items if x == pivot]
    larger = [x for x in items if x > pivot]
    return quick_sort(smaller) + equal + quick_sort(larger)


def median(items):
    ordered = quick_sort(items)
    n = len(ordered)
    if n % 2:
        return ordered[n // 2]
    return (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def main():
    samples = [[5, 3, 8, 1, 9, 2], [7, 7, 3], [4]]
    medians = []
    for sample in samples:
        medians.append(median(sample))
    print(medians)


if __name__ == "__main__":
    main()
