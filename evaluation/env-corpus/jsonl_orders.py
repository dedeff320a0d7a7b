import json


def load_events(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return [json.loads(line) for line in lines if line]


def by_customer(events):
    totals = {}
    for event in events:
        customer = event["customer"]
        totals.setdefault(customer, []).append(event["amount"])
    return totals


def invoice_lines(totals):
    lines = []
    for customer, amounts in sorted(totals.items()):
        subtotal = sum(amounts)
        tax = round(subtotal * 0.2, 2)
        lines.append((customer, len(amounts), subtotal + tax))
    return lines


def main():
    events = load_events("events.jsonl")
    totals = by_customer(events)
    lines = invoice_lines(totals)
    for line in lines:
        print(*line)


main()
