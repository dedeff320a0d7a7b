class Polynomial:
    def __init__(self, coeffs):
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs = coeffs[:-1]
        self.coeffs = coeffs

    def __add__(self, other):
        n = max(len(self.coeffs), len(other.coeffs))
        a = self.coeffs + [0] * (n - len(self.coeffs))
        b = other.coeffs + [0] * (n - len(other.coeffs))
        return Polynomial([x + y for x, y in zip(a, b)])

    def __call__(self, x):
        result = 0
        for c in reversed(self.coeffs):
            result = result * x + c
        return result

    def __repr__(self):
        terms = [f"{c}x^{i}" for i, c in enumerate(self.coeffs) if c]
        return " + ".join(terms) or "0"


def main():
    p = Polynomial([1, 2, 3])
    q = Polynomial([0, -2, -3, 0])
    total = p + q
    values = [p(x) for x in range(3)]
    print(p, "|", q, "|", total, "|", values)


main()
