def fib(n, cache):
    if n in cache:
        return cache[n]
    if n < 2:
        result = n
    else:
        result = fib(n - 1, cache) + fib(n - 2, cache)
    cache[n] = result
    return result


def fib_table(limit):
    cache = {}
    table = []
    for n in range(limit):
        table.append(fib(n, cache))
    return table, len(cache)


def main():
    table, cached = fib_table(8)
    evens = [f for f in table if f % 2 == 0]
    print(table, cached, evens)


main()
