def binary_search(items, target):
    lo, hi = 0, len(items) - 1
    steps = 0
    while lo <= hi:
        steps += 1
        mid = (lo + hi) // 2
        if items[mid] == target:
            return mid, steps
        if items[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1, steps


def find_all(items, targets):
    found = {}
    for t in targets:
        index, steps = binary_search(items, t)
        if index >= 0:
            found[t] = index
    return found


def main():
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31]
    found = find_all(primes, [7, 4, 31])
    print(found)


main()
