DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def parse_date(text):
    year, month, day = (int(part) for part in text.strip().split("-"))
    if not 1 <= month <= 12:
        raise ValueError(f"month out of range: {month}")
    limit = DAYS_IN_MONTH[month - 1] + (1 if month == 2 and is_leap(year) else 0)
    if not 1 <= day <= limit:
        raise ValueError(f"day out of range: {day}")
    return year, month, day


def day_of_year(year, month, day):
    days = sum(DAYS_IN_MONTH[: month - 1]) + day
    if month > 2 and is_leap(year):
        days += 1
    return days


def main():
    results = []
    for text in ["2024-03-15", "2023-02-29", "2000-12-31", "2021-1x-05"]:
        try:
            y, m, d = parse_date(text)
            results.append((text, day_of_year(y, m, d)))
        except ValueError as err:
            results.append((text, f"invalid: {err}"))
    for text, outcome in results:
        print(text, outcome)


main()
