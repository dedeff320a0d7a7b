def letter(score):
    if score >= 90:
        return "A"
    if score >= 80:
        return "B"
    if score >= 70:
        return "C"
    return "F"


def average(scores):
    if not scores:
        return 0
    return sum(scores) / len(scores)


def build_report(names, score_lists):
    rows = []
    for name, scores in zip(names, score_lists):
        avg = average(scores)
        rows.append((name, round(avg, 1), letter(avg)))
    rows.sort(key=lambda row: row[1], reverse=True)
    return rows


def main():
    names = ["ana", "ben", "chloe", "dev"]
    score_lists = [[88, 92, 79], [95, 91, 99], [], [65, 72, 70]]
    report = build_report(names, score_lists)
    for rank, (name, avg, grade) in enumerate(report, 1):
        print(f"{rank}: {name:<6} {avg:>5} {grade}")


if __name__ == "__main__":
    main()
