def round_winner(scores):
    best = max(scores)
    winners = [i for i, s in enumerate(scores) if s == best]
    if len(winners) > 1:
        return None
    return winners[0]


def tally(players, rounds):
    totals = {p: 0 for p in players}
    wins = {p: 0 for p in players}
    for scores in rounds:
        for player, score in zip(players, scores):
            totals[player] += score
        w = round_winner(scores)
        if w is not None:
            wins[players[w]] += 1
    return totals, wins


def main():
    players = ["ivy", "jon", "kai"]
    rounds = [(10, 7, 7), (4, 9, 9), (8, 8, 12), (6, 11, 2)]
    totals, wins = tally(players, rounds)
    ranking = sorted(players, key=lambda p: (wins[p], totals[p]), reverse=True)
    for place, player in enumerate(ranking, 1):
        print(place, player, totals[player], wins[player])


main()
