import json
from dateutil import parser


def read_events(path):
    events = []
    with open(path) as f:
        for line in f:
            events.append(json.loads(line))
    return events


def duration_minutes(event):
    start = parser.parse(event["start"])
    end = parser.parse(event["end"])
    delta = end - start
    return delta.total_seconds() / 60


def longest(events):
    best_name = None
    best = 0.0
    for event in events:
        minutes = duration_minutes(event)
        if minutes > best:
            best = minutes
            best_name = event["name"]
    return best_name, best


def main():
    events = read_events("events.jsonl")
    name, minutes = longest(events)
    print(f"longest: {name} ({minutes:.0f} min)")


main()
