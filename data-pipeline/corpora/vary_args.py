"""Variants of a real function's test arguments: the same literals, mutated a little.

HumanEval and MBPP give each function only a few test calls; the functions are real code,
so more calls of them (new values through the same code) are the cheapest real-code data
there is. Each variant changes one or two values of the call: an int moved by a little, a
character of a string changed, an element of a list dropped, duplicated, swapped or
changed, a dict entry dropped, a bool flipped, recursively into nested containers. Nothing
is run here (ast.literal_eval only); the tracer later decides what each call does, so a
variant that raises or loops is data about raising or looping, cut by the tracer's limits.

stdin: JSON lines {"id", "args"}; stdout: JSON lines {"id", "args"} with up to K variants per
input, ids `ID~vJ`, arguments written back as Python source. Deterministic in --seed.

    /usr/bin/python3 vary_args.py --variants K --seed S < calls.jsonl
"""
import argparse
import ast
import json
import random
import string
import sys

LETTERS = string.ascii_letters + string.digits + " .,!?-_"


def parse_call_args(text):
    """`1, 'a', k=[2]` -> ([1, 'a'], {'k': [2]}); None when an argument is not a literal."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return args, kwargs


def mutate_str(s, rng):
    if not s:
        return rng.choice(["a", " ", "ab", "Hello"])
    i = rng.randrange(len(s))
    choice = rng.randrange(6)
    if choice == 0:
        return s[:i] + rng.choice(LETTERS) + s[i + 1:]
    if choice == 1:
        return s[:i] + s[i + 1:]
    if choice == 2:
        return s[:i] + s[i] + s[i:]
    if choice == 3:
        return s.swapcase() if s.swapcase() != s else s + rng.choice(LETTERS)
    if choice == 4:
        return s[::-1] if s[::-1] != s else s[1:]
    return s + rng.choice(LETTERS)


def mutate_int(n, rng):
    if rng.random() < 0.15:
        return rng.choice([0, 1, -1, n * 2 if abs(n) < 1000 else n // 2])
    span = max(2, min(abs(n) // 2, 20))
    delta = rng.randint(-span, span) or 1
    return n + delta


def mutate_sequence(xs, rng):
    """A list's new value (tuples are turned back by the caller)."""
    xs = list(xs)
    if not xs:
        return [rng.choice([0, 1, 5, "a"])]
    i = rng.randrange(len(xs))
    choice = rng.randrange(6)
    if choice == 0 and len(xs) > 1:
        del xs[i]
    elif choice == 1:
        xs.insert(i, xs[i])
    elif choice == 2 and len(xs) > 1:
        j = rng.randrange(len(xs))
        xs[i], xs[j] = xs[j], xs[i]
    elif choice == 3:
        xs.append(mutate(xs[i], rng))
    else:
        xs[i] = mutate(xs[i], rng)
    return xs


def mutate(value, rng):
    """One small change somewhere inside value; the same type at the top."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return mutate_int(value, rng)
    if isinstance(value, float):
        return round(value * rng.choice([0.5, 1.5, -1.0, 2.0]) + rng.choice([0, 0.5, 1]), 3)
    if isinstance(value, str):
        return mutate_str(value, rng)
    if isinstance(value, bytes):
        return mutate_str(value.decode("latin-1"), rng).encode("latin-1", "replace")
    if isinstance(value, list):
        return mutate_sequence(value, rng)
    if isinstance(value, tuple):
        return tuple(mutate_sequence(value, rng)) if value else value
    if isinstance(value, (set, frozenset)):
        items = sorted(value, key=repr)
        changed = mutate_sequence(items, rng)
        try:
            return type(value)(changed)
        except TypeError:  # an unhashable element came in
            return value
    if isinstance(value, dict):
        if not value:
            return value
        keys = list(value)
        key = rng.choice(keys)
        out = dict(value)
        if rng.random() < 0.3 and len(out) > 1:
            del out[key]
        else:
            out[key] = mutate(out[key], rng)
        return out
    return value


def write_call(args, kwargs):
    return ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])


def variants(text, k, rng):
    parsed = parse_call_args(text)
    if parsed is None:
        return []
    args, kwargs = parsed
    slots = [("arg", i) for i in range(len(args))] + [("kw", name) for name in kwargs]
    if not slots:
        return []
    seen = {text}
    out = []
    for _ in range(k * 4):
        if len(out) == k:
            break
        new_args, new_kwargs = list(args), dict(kwargs)
        for _ in range(rng.choice([1, 1, 2])):
            kind, at = rng.choice(slots)
            if kind == "arg":
                new_args[at] = mutate(new_args[at], rng)
            else:
                new_kwargs[at] = mutate(new_kwargs[at], rng)
        source = write_call(new_args, new_kwargs)
        # Keep variants small: a value that grew past the context is no use.
        if source in seen or len(source) > max(2 * len(text), 200):
            continue
        seen.add(source)
        out.append(source)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    opts = p.parse_args()
    for line in sys.stdin:
        call = json.loads(line)
        rng = random.Random(f"{opts.seed}:{call['id']}")
        for j, args in enumerate(variants(call["args"], opts.variants, rng)):
            print(json.dumps({"id": f"{call['id']}~v{j}", "args": args}))


if __name__ == "__main__":
    main()
