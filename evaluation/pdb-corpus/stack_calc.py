OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


def apply(op, stack):
    if len(stack) < 2:
        raise ValueError(f"not enough operands for {op}")
    b = stack.pop()
    a = stack.pop()
    stack.append(OPERATORS[op](a, b))


def evaluate(expression):
    stack = []
    for token in expression.split():
        if token in OPERATORS:
            apply(token, stack)
        else:
            stack.append(float(token))
    if len(stack) != 1:
        raise ValueError(f"leftover operands: {stack}")
    return stack[0]


def main():
    results = {}
    for expr in ["3 4 + 2 *", "5 1 2 + 4 * + 3 -", "2 +"]:
        try:
            results[expr] = evaluate(expr)
        except ValueError as exc:
            results[expr] = str(exc)
    for expr, value in results.items():
        print(f"{expr!r} -> {value}")


main()
