import csv
from collections import defaultdict


def read_sales(path):
    rows = []
    with open(path, newline="") as f:
        for record in csv.DictReader(f):
            record["units"] = int(record["units"])
            record["price"] = float(record["price"])
            rows.append(record)
    return rows


def revenue_by_region(rows):
    totals = defaultdict(float)
    for row in rows:
        amount = row["units"] * row["price"]
        totals[row["region"]] += amount
    return dict(totals)


def best_region(totals):
    name = max(totals, key=totals.get)
    return name, round(totals[name], 2)


def main():
    rows = read_sales("sales.csv")
    totals = revenue_by_region(rows)
    region, amount = best_region(totals)
    print(f"best region: {region} with {amount}")


if __name__ == "__main__":
    main()
