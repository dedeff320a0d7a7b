#!/usr/bin/env python3
"""Static reading for `ndb verify`: nothing here runs the solution or the tests. Files are
read with `ast.parse` and `doctest.DocTestParser` (parsing only); values are read with
`ast.literal_eval` (literals only, no names, no calls) and compared as the builtin values
they are.

One JSON request on stdin, one JSON answer on stdout:

    {"op": "cases", "solution": SRC, "tests": SRC | null}
        -> {"ok": true, "functions": [name, ...], "returns": {name: [line, ...]}, "cases": [CASE, ...]}
           With tests, every `assert` in them (at any depth: module level, `def check(candidate)`,
           `def test_x()`); without, the doctest examples in the solution's docstrings.
           returns: each top-level function's own return lines (the breakpoint method).
           CASE: {"source": "tests"|"doctest", "line": N, "text": T,
                  "function": NAME, "args": LITERALS, "check": CHECK, "expected": SRC | null}
              or {"source": ..., "line": N, "text": T, "unknown": REASON}
           CHECK: eq (CALL == EXPECTED), ne (!=), is (is None/True/False), is_not, truthy
           (assert CALL), falsy (assert not CALL), raises (a doctest whose output is a
           traceback; expected is the exception's class name).
    {"op": "compare", "items": [{"value": REPR, "check": CHECK, "expected": SRC | null}, ...]}
        -> {"ok": true, "verdicts": [{"verdict": "pass"|"fail"|"unknown", "reason": R?}, ...]}
    any failure to read a file -> {"ok": false, "error": "TypeName: message"}
"""
import ast
import doctest
import json
import sys

CHECK_OF_OP = {ast.Eq: 'eq', ast.NotEq: 'ne', ast.Is: 'is', ast.IsNot: 'is_not'}


def _error(e):
    text = f'{type(e).__name__}: {e}' if str(e) else type(e).__name__
    return {'ok': False, 'error': text.splitlines()[0][:300]}


def _is_literal(node):
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _short(text, n=80):
    text = ' '.join(text.split())
    return text if len(text) <= n else text[: n - 1] + '…'


class _Reader:
    def __init__(self, functions, aliases):
        self.functions = functions  # top-level functions of the solution
        self.aliases = aliases  # names standing for one of them (HumanEval's `candidate`)

    def call(self, node, src):
        """(function, args) of NAME(LITERALS), or a reason it is not one."""
        if not isinstance(node, ast.Call):
            return None, f'not a call: {_short(ast.get_source_segment(src, node) or ast.dump(node))}'
        if not isinstance(node.func, ast.Name):
            return None, f'the call is not NAME(ARGS): {_short(ast.get_source_segment(src, node.func) or "?")}'
        name = self.aliases.get(node.func.id, node.func.id)
        if name not in self.functions:
            return None, f'{node.func.id} is not a top-level function of the solution (it defines: {", ".join(self.functions) or "none"})'
        parts = []
        for arg in node.args:
            if isinstance(arg, ast.Starred) or not _is_literal(arg):
                return None, f'argument is not a Python literal: {_short(ast.get_source_segment(src, arg) or "?")}'
            parts.append(ast.get_source_segment(src, arg))
        for kw in node.keywords:
            if kw.arg is None or not _is_literal(kw.value):
                return None, f'argument is not a Python literal: {_short(ast.get_source_segment(src, kw) or "?")}'
            parts.append(f'{kw.arg}={ast.get_source_segment(src, kw.value)}')
        return (name, ', '.join(parts)), None

    def assertion(self, test, src):
        """A case's call, check and expected source from an assert's test, or a reason."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in CHECK_OF_OP:
            check = CHECK_OF_OP[type(test.ops[0])]
            left, right = test.left, test.comparators[0]
            # The call on either side; the expected value on the other.
            call, expected = (left, right) if isinstance(left, ast.Call) or not isinstance(right, ast.Call) else (right, left)
            got, why = self.call(call, src)
            if why:
                return None, why
            if not _is_literal(expected):
                return None, f'expected value is not a Python literal: {_short(ast.get_source_segment(src, expected) or "?")}'
            if check in ('is', 'is_not') and not (isinstance(expected, ast.Constant) and expected.value in (None, True, False)):
                return None, 'an `is` check against anything but None, True or False'
            return {'function': got[0], 'args': got[1], 'check': check, 'expected': ast.get_source_segment(src, expected)}, None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            got, why = self.call(test.operand, src)
            if why:
                return None, f'assert not CALL: {why}'
            return {'function': got[0], 'args': got[1], 'check': 'falsy', 'expected': None}, None
        if isinstance(test, ast.Call):
            got, why = self.call(test, src)
            if why:
                return None, why
            return {'function': got[0], 'args': got[1], 'check': 'truthy', 'expected': None}, None
        return None, 'not `assert CALL == EXPECTED`, `assert CALL` or `assert not CALL`'


def _functions(tree):
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _aliases(tests_tree, functions):
    """HumanEval: `def check(candidate): assert candidate(...) == ...` then `check(NAME)`."""
    checkers = {n.name: n for n in ast.walk(tests_tree) if isinstance(n, ast.FunctionDef) and n.args.args}
    aliases = {}
    for node in ast.walk(tests_tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in checkers:
            fn = checkers[node.func.id]
            for param, arg in zip(fn.args.args, node.args):
                if isinstance(arg, ast.Name) and arg.id in functions:
                    aliases[param.arg] = arg.id
    if 'candidate' not in aliases and len(functions) == 1:
        aliases['candidate'] = functions[0]
    return aliases


def _test_cases(tests, functions):
    tree = ast.parse(tests, '<tests>')
    reader = _Reader(functions, _aliases(tree, functions))
    cases = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        text = _short(ast.get_source_segment(tests, node) or 'assert ...', 160)
        case, why = reader.assertion(node.test, tests)
        base = {'source': 'tests', 'line': node.lineno, 'text': text}
        cases.append({**base, **case} if case else {**base, 'unknown': why})
    return sorted(cases, key=lambda c: c['line'])


def _docstring_nodes(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                yield first


def _doctest_cases(solution, tree, functions):
    reader = _Reader(functions, {})
    parser = doctest.DocTestParser()
    cases = []
    for node in _docstring_nodes(tree):
        try:
            examples = parser.get_examples(node.value.value)
        except ValueError as e:
            cases.append({'source': 'doctest', 'line': node.lineno, 'text': 'docstring', 'unknown': f'doctest cannot read it: {_short(str(e))}'})
            continue
        for ex in examples:
            text = _short('>>> ' + ex.source.strip(), 160)
            base = {'source': 'doctest', 'line': node.lineno + ex.lineno, 'text': text}
            try:
                expr = ast.parse(ex.source.strip(), mode='eval').body
            except SyntaxError:
                cases.append({**base, 'unknown': 'not an expression (a statement in the example)'})
                continue
            got, why = reader.call(expr, ex.source.strip())
            if why:
                cases.append({**base, 'unknown': why})
                continue
            want = ex.want.strip()
            if ex.exc_msg is not None:
                name = want.splitlines()[-1].split(':')[0].strip().split('.')[-1]
                cases.append({**base, 'function': got[0], 'args': got[1], 'check': 'raises', 'expected': name})
            elif want == '':
                cases.append({**base, 'function': got[0], 'args': got[1], 'check': 'is', 'expected': 'None'})
            else:
                try:
                    ast.literal_eval(want)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    cases.append({**base, 'unknown': f'expected output is not a Python literal: {_short(want)}'})
                    continue
                cases.append({**base, 'function': got[0], 'args': got[1], 'check': 'eq', 'expected': want})
    return sorted(cases, key=lambda c: c['line'])


def _return_lines(fn):
    """The lines of fn's own return statements (not those of nested functions, lambdas or classes)."""
    lines, stack = set(), list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            lines.add(node.lineno)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return sorted(lines)


def cases(req):
    solution = ast.parse(req['solution'], '<solution>')
    functions = _functions(solution)
    if req.get('tests') is not None:
        found = _test_cases(req['tests'], functions)
    else:
        found = _doctest_cases(req['solution'], solution, functions)
    returns = {n.name: _return_lines(n) for n in solution.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return {'functions': functions, 'returns': returns, 'cases': found}


def _verdict(item):
    try:
        value = ast.literal_eval(item['value'])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return {'verdict': 'unknown', 'reason': f'the predicted value is not a Python literal: {_short(item["value"])}'}
    check = item['check']
    if check in ('truthy', 'falsy'):
        ok = bool(value) if check == 'truthy' else not value
    elif check == 'raises':
        ok = False
    else:
        expected = ast.literal_eval(item['expected'])
        ok = {'eq': lambda: value == expected, 'ne': lambda: value != expected, 'is': lambda: value is expected, 'is_not': lambda: value is not expected}[check]()
    return {'verdict': 'pass' if ok else 'fail'}


def compare(req):
    return {'verdicts': [_verdict(item) for item in req['items']]}


def main():
    req = json.loads(sys.stdin.read())
    try:
        answer = {'ok': True, **{'cases': cases, 'compare': compare}[req['op']](req)}
    except (SyntaxError, ValueError, KeyError, RecursionError) as e:
        answer = _error(e)
    sys.stdout.write(json.dumps(answer) + '\n')


if __name__ == '__main__':
    main()
