import numpy as np


def load_matrix(path):
    return np.loadtxt(path, delimiter=",")


def solve_system(matrix, rhs):
    det = np.linalg.det(matrix)
    if abs(det) < 1e-9:
        return None, det
    solution = np.linalg.solve(matrix, rhs)
    return solution, det


def column_report(matrix):
    sums = matrix.sum(axis=0)
    widest = int(np.argmax(sums))
    shape = matrix.shape
    return sums.tolist(), widest, shape


def main():
    matrix = load_matrix("matrix.csv")
    solution, det = solve_system(matrix, np.array([1.0, 2.0, 3.0]))
    sums, widest, shape = column_report(matrix)
    print(np.round(solution, 3), round(det, 3), sums, widest, shape)


main()
