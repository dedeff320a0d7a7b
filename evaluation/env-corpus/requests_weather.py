import requests

BASE_URL = "http://127.0.0.1:8000"


def fetch_weather():
    response = requests.get(BASE_URL + "/api/weather.json", timeout=5)
    response.raise_for_status()
    return response.json()


def to_fahrenheit(celsius):
    return celsius * 9 / 5 + 32


def daily_summary(report):
    temps = []
    for reading in report["readings"]:
        temp_f = to_fahrenheit(reading["temp_c"])
        temps.append(round(temp_f, 1))
    windy = [r["hour"] for r in report["readings"] if r["wind"] > 4]
    return {"city": report["city"], "high": max(temps), "low": min(temps), "windy_hours": windy}


def main():
    report = fetch_weather()
    summary = daily_summary(report)
    print(summary)


main()
