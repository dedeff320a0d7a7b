def transpose(m):
    return [list(row) for row in zip(*m)]


def dot(a, b):
    total = 0
    for x, y in zip(a, b):
        total += x * y
    return total


def multiply(a, b):
    cols = transpose(b)
    result = []
    for row in a:
        result.append([dot(row, col) for col in cols])
    return result


def identity(n):
    return [[1 if i == j else 0 for j in range(n)] for i in range(n)]


def main():
    a = [[1, 2], [3, 4], [5, 6]]
    b = [[7, 8, 9], [10, 11, 12]]
    product = multiply(a, b)
    same = multiply(product, identity(3)) == product
    print(product, same)


main()
