# A small order book: parse order lines, price them, apply discounts, summarise.

PRICES = {'apple': 3, 'pear': 4, 'fig': 7, 'kiwi': 2}


def parse_line(line):
    name, _, qty = line.partition(':')
    name = name.strip().lower()
    count = int(qty) if qty.strip() else 1
    return name, count


def price(name, count):
    unit = PRICES.get(name, 0)
    total = unit * count
    if count >= 10:
        total -= total // 10
    return total


def summarise(lines):
    totals = {}
    skipped = []
    for line in lines:
        name, count = parse_line(line)
        if name not in PRICES:
            skipped.append(name)
            continue
        totals[name] = totals.get(name, 0) + price(name, count)
    best = max(totals, key=totals.get) if totals else None
    return {'total': sum(totals.values()), 'best': best, 'skipped': skipped}
