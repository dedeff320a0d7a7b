READINGS = ["23.5C", " 74f", "18C", "bad", "0c", "98.6F "]


def to_celsius(reading):
    text = reading.strip().upper()
    unit = text[-1]
    value = float(text[:-1])
    if unit == "F":
        return round((value - 32) * 5 / 9, 1)
    return value


def clean(readings):
    values = []
    rejected = []
    for r in readings:
        try:
            values.append(to_celsius(r))
        except ValueError:
            rejected.append(r)
    return values, rejected


def stats(values):
    low, high = min(values), max(values)
    mean = sum(values) / len(values)
    return {"low": low, "high": high, "mean": round(mean, 2)}


def main():
    values, rejected = clean(READINGS)
    summary = stats(values)
    print(summary, "rejected:", rejected)


if __name__ == "__main__":
    main()
