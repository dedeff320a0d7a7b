INVOICE_LINES = """
INV-001 | Globex  | 1200.00
INV-002 | Initech | 310.50
INV-003 | Globex  | 99.99
INV-004 | Umbrella| 4500
INV-005 | Initech | 12.25
"""


def parse_invoice(line):
    number, customer, amount = [part.strip() for part in line.split("|")]
    return {"number": number, "customer": customer, "amount": float(amount)}


def totals_by_customer(invoices):
    totals = {}
    for inv in invoices:
        totals[inv["customer"]] = totals.get(inv["customer"], 0) + inv["amount"]
    return totals


def main():
    invoices = [parse_invoice(l) for l in INVOICE_LINES.strip().splitlines()]
    totals = totals_by_customer(invoices)
    ranking = sorted(totals.items(), key=lambda item: item[1], reverse=True)
    for customer, total in ranking:
        print(f"{customer.upper():<10}{total:>10.2f}")
    big = [inv["number"] for inv in invoices if inv["amount"] > 1000]
    print("large:", ", ".join(big))


main()
