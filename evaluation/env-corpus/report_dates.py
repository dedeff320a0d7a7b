from datetime import date, timedelta

from dateutil.relativedelta import relativedelta


def month_bounds(today):
    first = today.replace(day=1)
    last = first + relativedelta(months=1) - timedelta(days=1)
    return first, last


def business_days(first, last):
    count = 0
    day = first
    while day <= last:
        if day.weekday() < 5:
            count += 1
        day += timedelta(days=1)
    return count


def quarter_of(day):
    quarter = (day.month - 1) // 3 + 1
    return f"{day.year}-Q{quarter}"


def main():
    today = date.today()
    first, last = month_bounds(today)
    days = business_days(first, last)
    print(quarter_of(today), first, last, days)


main()
