import random


def roll(dice, sides=6):
    return [random.randint(1, sides) for _ in range(dice)]


def play_rounds(rounds):
    totals = []
    for _ in range(rounds):
        faces = roll(2)
        total = sum(faces)
        if faces[0] == faces[1]:
            total *= 2
        totals.append(total)
    return totals


def stats(totals):
    best = max(totals)
    mean = sum(totals) / len(totals)
    lucky = random.choice(totals)
    return best, mean, lucky


def main():
    totals = play_rounds(4)
    best, mean, lucky = stats(totals)
    print(totals, best, mean, lucky)


main()
