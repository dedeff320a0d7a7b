import numpy as np
import requests

BASE_URL = "http://127.0.0.1:8000"


def fetch_prices(symbol):
    response = requests.get(f"{BASE_URL}/api/prices.json", params={"symbol": symbol}, timeout=5)
    data = response.json()
    return data["symbol"], np.array(data["prices"])


def daily_returns(prices):
    changes = np.diff(prices) / prices[:-1]
    return changes


def risk_report(prices):
    returns = daily_returns(prices)
    volatility = float(returns.std())
    p90 = float(np.percentile(prices, 90))
    best_day = int(returns.argmax())
    return {"volatility": round(volatility, 4), "p90": p90, "best_day": best_day}


def main():
    symbol, prices = fetch_prices("ACME")
    report = risk_report(prices)
    print(symbol, len(prices), report)


main()
