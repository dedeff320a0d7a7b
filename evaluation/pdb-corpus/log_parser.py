LOG = [
    "INFO [db] connected to primary",
    "WARN [api] slow response 1200ms",
    "ERROR [db] connection lost",
    "INFO [api] request /users",
    "ERROR [auth] token expired for user 42",
    "garbage line",
]


def parse_entry(line):
    parts = line.split(" ", 2)
    if len(parts) < 3 or not parts[1].startswith("["):
        return None
    level, module, message = parts
    return {"level": level, "module": module.strip("[]"), "message": message}


def summarize(lines):
    counts = {}
    errors = []
    skipped = 0
    for line in lines:
        entry = parse_entry(line)
        if entry is None:
            skipped += 1
            continue
        counts[entry["level"]] = counts.get(entry["level"], 0) + 1
        if entry["level"] == "ERROR":
            errors.append(f"{entry['module']}: {entry['message']}")
    return counts, errors, skipped


def main():
    counts, errors, skipped = summarize(LOG)
    print(counts)
    print("\n".join(errors))
    print("skipped", skipped)


if __name__ == "__main__":
    main()
