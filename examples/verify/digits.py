def digit_sum(n):
    """The sum of the decimal digits of n.

    >>> digit_sum(123)
    6
    >>> digit_sum(0)
    0
    """
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total
