import requests

BASE_URL = "http://127.0.0.1:8000"
STOCK = {"widget": 10, "gadget": 2, "gizmo": 4}


def open_orders(session):
    response = session.get(BASE_URL + "/api/orders.json", timeout=5)
    orders = response.json()
    return [o for o in orders if o["status"] != "cancelled"]


def reserve(stock, orders):
    remaining = dict(stock)
    short = []
    for order in orders:
        left = remaining[order["sku"]] - order["qty"]
        if left < 0:
            short.append(order["order"])
        remaining[order["sku"]] = max(left, 0)
    return remaining, short


def main():
    session = requests.Session()
    orders = open_orders(session)
    remaining, short = reserve(STOCK, orders)
    print(remaining, short, session.headers["User-Agent"].split("/")[0])


main()
