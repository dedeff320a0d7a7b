import random
import statistics


def sample_heights(rng, n):
    heights = []
    for _ in range(n):
        h = rng.gauss(170, 8)
        heights.append(round(h, 1))
    return heights


def summarize(heights):
    mean = statistics.mean(heights)
    median = statistics.median(heights)
    spread = statistics.pstdev(heights)
    return round(mean, 2), median, round(spread, 2)


def tallest(heights, k):
    ranked = sorted(heights, reverse=True)
    return ranked[:k]


def main():
    rng = random.Random(7)
    heights = sample_heights(rng, 6)
    mean, median, spread = summarize(heights)
    top = tallest(heights, 2)
    print(mean, median, spread, top)


main()
