PAIRS = {")": "(", "]": "[", "}": "{"}


def check(text):
    stack = []
    for pos, ch in enumerate(text):
        if ch in "([{":
            stack.append((ch, pos))
        elif ch in PAIRS:
            if not stack:
                return f"unexpected {ch} at {pos}"
            opener, where = stack.pop()
            if opener != PAIRS[ch]:
                return f"{opener} at {where} closed by {ch} at {pos}"
    if stack:
        opener, where = stack[-1]
        return f"unclosed {opener} at {where}"
    return "ok"


def main():
    samples = ["f(a[1], {b: 2})", "(]", "((x)", "x)"]
    verdicts = {s: check(s) for s in samples}
    for sample, verdict in verdicts.items():
        print(f"{sample:<16} {verdict}")


main()
