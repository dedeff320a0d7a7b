from datetime import datetime, timedelta


def greeting(hour):
    if hour < 12:
        return "Good morning"
    if hour < 18:
        return "Good afternoon"
    return "Good evening"


def next_weekday(now):
    day = now + timedelta(days=1)
    while day.weekday() >= 5:
        day = day + timedelta(days=1)
    return day.date()


def banner(name):
    now = datetime.now()
    text = greeting(now.hour)
    stamp = now.strftime("%Y-%m-%d %H:%M")
    following = next_weekday(now)
    return f"{text}, {name}! It is {stamp}; next working day {following.isoformat()}"


def main():
    message = banner("Ada")
    print(message)


main()
