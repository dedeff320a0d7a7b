import time


class TokenBucket:
    def __init__(self, rate, capacity):
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.updated = time.monotonic()

    def refill(self):
        now = time.monotonic()
        elapsed = now - self.updated
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        self.updated = now

    def allow(self):
        self.refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def burst(bucket, requests):
    allowed = 0
    for _ in range(requests):
        if bucket.allow():
            allowed += 1
        time.sleep(0.001)
    return allowed


def main():
    bucket = TokenBucket(rate=5, capacity=3)
    first = burst(bucket, 5)
    time.sleep(0.05)
    second = burst(bucket, 2)
    print(first, second, round(bucket.tokens, 2))


main()
