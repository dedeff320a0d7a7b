import csv
import json


def read_users(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return [dict(zip(header, row)) for row in reader]


def clean(user):
    return {
        "id": int(user["id"]),
        "first": user["name"].split()[0],
        "domain": user["email"].split("@")[1],
        "active": user["active"] == "yes",
    }


def export(users, path):
    cleaned = [clean(u) for u in users]
    with open(path, "w") as f:
        json.dump(cleaned, f, indent=2)
    return len(cleaned)


def main():
    users = read_users("users.csv")
    written = export(users, "users.json")
    with open("users.json") as f:
        back = json.load(f)
    print(written, back[0], sum(u["active"] for u in back))


main()
