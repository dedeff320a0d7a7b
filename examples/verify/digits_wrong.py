def digit_sum(n):
    total = 0
    while n > 9:
        total += n % 10
        n //= 10
    return total
