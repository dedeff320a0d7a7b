SYMBOLS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
           (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(n):
    parts = []
    for value, symbol in SYMBOLS:
        while n >= value:
            parts.append(symbol)
            n -= value
    return "".join(parts)


def from_roman(text):
    total = 0
    prev = 0
    for ch in reversed(text.upper()):
        value = VALUES[ch]
        if value < prev:
            total -= value
        else:
            total += value
            prev = value
    return total


def main():
    checks = []
    for n in [14, 1994, 2024]:
        r = to_roman(n)
        checks.append((n, r, from_roman(r) == n))
    print(checks)


main()
