import numpy as np


def load_readings(path):
    with open(path) as f:
        values = [float(line) for line in f if line.strip()]
    return np.array(values)


def describe(arr):
    mean = float(arr.mean())
    std = float(arr.std())
    low, high = arr.min(), arr.max()
    return mean, std, low, high


def outliers(arr, mean, std):
    z = (arr - mean) / std
    flagged = arr[np.abs(z) > 1.5]
    return flagged.tolist()


def main():
    arr = load_readings("readings.txt")
    mean, std, low, high = describe(arr)
    flagged = outliers(arr, mean, std)
    print(f"mean={mean:.2f} std={std:.2f} range={low}..{high} outliers={flagged}")


main()
