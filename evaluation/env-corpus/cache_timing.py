import time


class TTLCache:
    def __init__(self, ttl):
        self.ttl = ttl
        self.store = {}
        self.hits = 0

    def get(self, key):
        entry = self.store.get(key)
        if entry is None:
            return None
        value, stamp = entry
        if time.time() - stamp > self.ttl:
            del self.store[key]
            return None
        self.hits += 1
        return value

    def put(self, key, value):
        self.store[key] = (value, time.time())


def slow_square(n):
    return n * n


def lookup(cache, n):
    cached = cache.get(n)
    if cached is not None:
        return cached
    result = slow_square(n)
    cache.put(n, result)
    return result


def main():
    cache = TTLCache(ttl=60)
    values = [lookup(cache, n) for n in (3, 4, 3, 3)]
    print(values, cache.hits)


main()
