import random

SUITS = "SHDC"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def new_deck():
    return [rank + suit for suit in SUITS for rank in RANKS]


def deal(deck, players, cards):
    hands = {p: [] for p in players}
    for _ in range(cards):
        for player in players:
            hands[player].append(deck.pop())
    return hands


def score(hand):
    points = 0
    for card in hand:
        rank = card[:-1]
        if rank in ("J", "Q", "K"):
            points += 10
        elif rank == "A":
            points += 11
        else:
            points += int(rank)
    return points


def main():
    random.seed(42)
    deck = new_deck()
    random.shuffle(deck)
    hands = deal(deck, ["ann", "ben"], 2)
    scores = {p: score(h) for p, h in hands.items()}
    print(hands, scores)


main()
