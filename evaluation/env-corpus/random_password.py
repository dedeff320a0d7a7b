import random
import string

ALPHABET = string.ascii_letters + string.digits


def make_password(rng, length):
    chars = [rng.choice(ALPHABET) for _ in range(length)]
    chars[rng.randrange(length)] = rng.choice("!@#$%")
    return "".join(chars)


def strength(password):
    kinds = 0
    if any(c.islower() for c in password):
        kinds += 1
    if any(c.isupper() for c in password):
        kinds += 1
    if any(c.isdigit() for c in password):
        kinds += 1
    if any(c in "!@#$%" for c in password):
        kinds += 1
    return kinds * len(password)


def main():
    rng = random.Random(2024)
    passwords = [make_password(rng, 10) for _ in range(3)]
    scores = [strength(p) for p in passwords]
    token = random.getrandbits(32)
    print(passwords, scores, token > 0)


main()
