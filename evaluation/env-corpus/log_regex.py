import re
from collections import Counter

LINE = re.compile(r"^(\S+) (\S+) (\w+) (.*)$")
MILLIS = re.compile(r"(\d+)ms")


def parse_line(line):
    match = LINE.match(line.strip())
    if match is None:
        return None
    date, clock, level, message = match.groups()
    return {"time": f"{date}T{clock}", "level": level, "message": message}


def read_log(path):
    with open(path) as f:
        return [entry for entry in map(parse_line, f) if entry]


def slow_requests(entries, threshold):
    slow = []
    for entry in entries:
        found = MILLIS.search(entry["message"])
        if found and int(found.group(1)) > threshold:
            slow.append(entry["time"])
    return slow


def main():
    entries = read_log("app.log")
    levels = Counter(e["level"] for e in entries)
    slow = slow_requests(entries, 40)
    print(levels.most_common(2), slow)


main()
