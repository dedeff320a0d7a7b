import json
import urllib.request

BASE_URL = "http://127.0.0.1:8000"


def get_json(path):
    url = BASE_URL + path
    with urllib.request.urlopen(url, timeout=5) as response:
        status = response.status
        body = response.read()
    data = json.loads(body.decode("utf-8"))
    return status, data


def active_users(payload):
    result = []
    for user in payload["users"]:
        if user["active"]:
            result.append(user["name"])
    return result


def average_score(payload):
    scores = [u["score"] for u in payload["users"]]
    return sum(scores) / len(scores)


def main():
    status, payload = get_json("/api/users.json")
    names = active_users(payload)
    avg = average_score(payload)
    print(status, names, round(avg, 2))


main()
