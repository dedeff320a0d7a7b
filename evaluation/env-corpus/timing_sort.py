import time


def bubble_sort(items):
    items = list(items)
    n = len(items)
    for i in range(n):
        for j in range(n - i - 1):
            if items[j] > items[j + 1]:
                items[j], items[j + 1] = items[j + 1], items[j]
    return items


def timed(func, data):
    start = time.perf_counter()
    result = func(data)
    elapsed = time.perf_counter() - start
    return result, elapsed


def main():
    data = [9, 4, 7, 1, 8, 2, 6]
    slow, t_slow = timed(bubble_sort, data)
    fast, t_fast = timed(sorted, data)
    same = slow == fast
    ratio = t_slow / t_fast if t_fast > 0 else float("inf")
    print(same, f"{ratio:.1f}x")


main()
