"""Extracts the literal arguments of entry-point calls from test code.

Reads JSON on stdin: a list of {code, tests: [str], entry?, callee?}.
  code    the program; its top-level defs are the possible entry points.
  tests   test source snippets (assert lines or whole check functions).
  entry   the entry point; when absent, the top-level def of `code` that the tests
          call most often (ties: the first one called).
  callee  the name the tests call the entry by (HumanEval's `candidate`); default: entry.
Writes JSON on stdout: per item {entry, args: [str]}, entry null when none was found.
Each args string is a call's arguments as one-line Python source (`[1, 2], 'x', k=3`),
in test order without repeats, kept only when every argument is a literal
(ast.literal_eval accepts it), so the call can be replayed without the test's context.
"""

import ast
import json
import sys
from collections import Counter


def top_level_defs(code):
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def parse_tests(tests):
    """The tests' syntax trees; one that does not parse gives no inputs."""
    trees = []
    for test in tests:
        try:
            trees.append(ast.parse(test))
        except SyntaxError:
            pass
    return trees


def calls_in(trees):
    """Name-called Call nodes in source order (ast.walk alone is breadth-first)."""
    calls = []
    for tree in trees:
        found = [node for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
        calls.extend(sorted(found, key=lambda node: (node.lineno, node.col_offset)))
    return calls


def is_literal(node):
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def literal_args(call):
    """The call's arguments as source, or None when one is not a literal (or is * / **)."""
    parts = []
    for arg in call.args:
        if isinstance(arg, ast.Starred) or not is_literal(arg):
            return None
        parts.append(ast.unparse(arg))
    for keyword in call.keywords:
        if keyword.arg is None or not is_literal(keyword.value):
            return None
        parts.append(f'{keyword.arg}={ast.unparse(keyword.value)}')
    return ', '.join(parts)


def extract(item):
    calls = calls_in(parse_tests(item['tests']))
    entry = item.get('entry')
    if entry is None:
        defs = top_level_defs(item['code'])
        counts = Counter(call.func.id for call in calls if call.func.id in defs)
        if not counts:
            return {'entry': None, 'args': []}
        # most_common keeps first-seen order among equal counts.
        entry = counts.most_common(1)[0][0]
    callee = item.get('callee', entry)
    args = []
    for call in calls:
        if call.func.id == callee:
            text = literal_args(call)
            if text is not None and text not in args:
                args.append(text)
    return {'entry': entry, 'args': args}


def main():
    items = json.load(sys.stdin)
    json.dump([extract(item) for item in items], sys.stdout)


if __name__ == '__main__':
    main()
