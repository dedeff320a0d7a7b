import json
import urllib.error
import urllib.request

BASE_URL = "http://127.0.0.1:8000"


def try_get(path):
    try:
        with urllib.request.urlopen(BASE_URL + path, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as err:
        return err.code, None


def first_available(paths):
    attempts = []
    for path in paths:
        status, data = try_get(path)
        attempts.append((path, status))
        if status == 200:
            return data, attempts
    return None, attempts


def count_pending(orders):
    pending = [o for o in orders if o["status"] == "pending"]
    return len(pending), sum(o["qty"] for o in pending)


def main():
    data, attempts = first_available(["/api/v2/orders.json", "/api/orders.json"])
    pending, qty = count_pending(data)
    print(attempts, pending, qty)


main()
