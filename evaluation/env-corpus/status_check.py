import urllib.request

BASE_URL = "http://127.0.0.1:8000"


def fetch_status():
    request = urllib.request.Request(BASE_URL + "/status.txt", headers={"Accept": "text/plain"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.read().decode()


def parse_pairs(text):
    pairs = {}
    for line in text.splitlines():
        if "=" not in line:
            continue
        key, value = line.split("=", 1)
        pairs[key.strip()] = value.strip()
    return pairs


def health(pairs):
    uptime_hours = int(pairs.get("uptime", "0")) / 3600
    queue = int(pairs.get("queue", "0"))
    healthy = pairs.get("status") == "ok" and queue < 50
    major = int(pairs["version"].split(".")[0])
    return healthy, uptime_hours, major


def main():
    text = fetch_status()
    pairs = parse_pairs(text)
    healthy, hours, major = health(pairs)
    print(pairs["service"], healthy, hours, major)


main()
