# A long run: a thousand ticks, then the last one divides by zero.
def tick(n):
    clock = 0
    while True:
        clock = clock + 1
        n = n - 1
        rate = clock // n
