DATA = """name,age,city
Alice, 34 ,Paris
bob,27,  lyon
Carla,41,Paris
dan,19,Nice"""


def parse_row(header, line):
    values = [v.strip() for v in line.split(",")]
    record = dict(zip(header, values))
    record["age"] = int(record["age"])
    record["name"] = record["name"].capitalize()
    record["city"] = record["city"].upper()
    return record


def load(text):
    lines = text.strip().split("\n")
    header = lines[0].split(",")
    records = []
    for line in lines[1:]:
        records.append(parse_row(header, line))
    return records


def average_age_by_city(records):
    groups = {}
    for r in records:
        groups.setdefault(r["city"], []).append(r["age"])
    return {city: sum(ages) / len(ages) for city, ages in groups.items()}


def main():
    records = load(DATA)
    averages = average_age_by_city(records)
    oldest = max(records, key=lambda r: r["age"])
    print(f"oldest: {oldest['name']} ({oldest['age']})")
    for city in sorted(averages):
        print(f"{city}: {averages[city]:.1f}")


main()
