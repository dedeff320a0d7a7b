class ValidationError(Exception):
    pass


def validate(user):
    name = user.get("name", "").strip()
    if not name:
        raise ValidationError("missing name")
    email = user.get("email", "")
    if "@" not in email:
        raise ValidationError(f"bad email for {name}: {email!r}")
    age = int(user.get("age", "0"))
    if age < 13:
        raise ValidationError(f"{name} is too young ({age})")
    return {"name": name.title(), "email": email.lower(), "age": age}


def validate_all(users):
    good, problems = [], []
    for index, user in enumerate(users):
        try:
            good.append(validate(user))
        except ValidationError as exc:
            problems.append((index, str(exc)))
    return good, problems


def main():
    users = [
        {"name": "  mary shelley ", "email": "Mary@Example.com", "age": "33"},
        {"name": "", "email": "x@y.z"},
        {"name": "tom", "email": "tom.example.com", "age": "40"},
        {"name": "lil", "email": "lil@kids.org", "age": "9"},
    ]
    good, problems = validate_all(users)
    print(good)
    print(problems)


main()
