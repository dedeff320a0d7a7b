def tokenize(text):
    tokens = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit():
            start = i
            while i < len(text) and text[i].isdigit():
                i += 1
            tokens.append(int(text[start:i]))
        else:
            tokens.append(ch)
            i += 1
    return tokens


def parse_expr(tokens, pos):
    value, pos = parse_term(tokens, pos)
    while pos < len(tokens) and tokens[pos] in "+-":
        op = tokens[pos]
        right, pos = parse_term(tokens, pos + 1)
        value = value + right if op == "+" else value - right
    return value, pos


def parse_term(tokens, pos):
    value = tokens[pos]
    pos += 1
    while pos < len(tokens) and tokens[pos] == "*":
        value *= tokens[pos + 1]
        pos += 2
    return value, pos


def main():
    tokens = tokenize("12 + 3*4 - 5")
    value, _ = parse_expr(tokens, 0)
    print(tokens, "=", value)


main()
