def wrap(text, width):
    lines = []
    current = []
    length = 0
    for word in text.split():
        extra = len(word) + (1 if current else 0)
        if length + extra > width:
            lines.append(" ".join(current))
            current, length = [word], len(word)
        else:
            current.append(word)
            length += extra
    if current:
        lines.append(" ".join(current))
    return lines


def justify(line, width):
    words = line.split()
    if len(words) == 1:
        return line.ljust(width)
    gaps = len(words) - 1
    spaces = width - sum(len(w) for w in words)
    base, extra = divmod(spaces, gaps)
    out = ""
    for i, word in enumerate(words[:-1]):
        out += word + " " * (base + (1 if i < extra else 0))
    return out + words[-1]


def main():
    text = "Debugging is twice as hard as writing the code in the first place."
    lines = wrap(text, 20)
    boxed = [justify(line, 20) for line in lines[:-1]] + [lines[-1]]
    for line in boxed:
        print(f"|{line:<20}|")


main()
