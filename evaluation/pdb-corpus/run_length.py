def encode(text):
    if not text:
        return []
    runs = []
    current, count = text[0], 1
    for ch in text[1:]:
        if ch == current:
            count += 1
        else:
            runs.append((current, count))
            current, count = ch, 1
    runs.append((current, count))
    return runs


def to_string(runs):
    return "".join(f"{n}{ch}" if n > 1 else ch for ch, n in runs)


def decode(runs):
    return "".join(ch * n for ch, n in runs)


def main():
    for text in ["aaabccdddd", "abc", ""]:
        runs = encode(text)
        packed = to_string(runs)
        assert decode(runs) == text
        print(repr(text), "->", packed)


if __name__ == "__main__":
    main()
