STAFF = [
    ("Nora", "eng", 120000),
    ("Omar", "sales", 70000),
    ("Pia", "eng", 135000),
    ("Quinn", "ops", 65000),
    ("Rui", "sales", 82000),
    ("Sam", "eng", 98000),
]


def by_department(staff):
    depts = {}
    for name, dept, salary in staff:
        depts.setdefault(dept, []).append((name, salary))
    return depts


def summarize(depts):
    summary = []
    for dept, people in sorted(depts.items()):
        salaries = [s for _, s in people]
        top = max(people, key=lambda p: p[1])
        summary.append((dept, len(people), sum(salaries) // len(salaries), top[0]))
    return summary


def main():
    depts = by_department(STAFF)
    summary = summarize(depts)
    for dept, count, avg, top in summary:
        print(f"{dept:<6} {count} people, avg {avg}, top earner {top}")
    payroll = sum(salary for _, _, salary in STAFF)
    print("payroll", payroll)


if __name__ == "__main__":
    main()
