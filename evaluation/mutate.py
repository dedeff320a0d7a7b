#!/usr/bin/env python3
"""Candidate pools for `ndb eval verify`: a reference solution and its mutants, and the
mutants' real verdicts on the problem's tests. Only the evaluation uses this script: it is
its ground truth, as rows.py is CruxEval's (`ndb verify` itself never runs code; see
verify_cases.py).

One JSON request on stdin, one JSON answer on stdout:

    {"op": "mutants", "code": C, "entry": NAME}
        -> {"ok": true, "reference": C', "mutants": [{"kind": K, "description": D, "code": M}, ...]}
           C' is C written back by ast.unparse, as every mutant is, so that the reference
           does not stand out by its layout or comments. Each mutant changes one site of
           the entry's body (nested functions included); K is one of
             operator   a swapped operator (+ -, < <=, == !=, in / not in, and / or, ...)
             bound      an off-by-one bound (range's stop or a slice bound, plus or minus 1)
             constant   a wrong constant (an int plus one, a bool flipped)
             statement  a dropped statement (one of a body of two or more; not a docstring)
             return     an early return (the entry's last return, first in a loop's body)
           Mutants identical to the reference or to an earlier mutant are left out.
    {"op": "real", "timeout": S, "items": [{"code": C, "input": I, "output": O}, ...]}
        -> {"ok": true, "verdicts": [{"verdict": "pass"|"fail"|"raises", "error": E?}, ...]}
           f(I) == O in a forked child of rows.py (fresh interpreter state, output to
           /dev/null, memory capped, killed after S seconds: a timeout is `raises` with
           E = "timeout ...").
"""
import ast
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows  # noqa: E402  (rows.py: the forked, limited child that runs a row)

BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}
CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
BOOL_SWAP = {ast.And: ast.Or, ast.Or: ast.And}


def _entry(tree, name):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    raise ValueError(f'no top-level function {name}')


def _text(node):
    return ' '.join(ast.unparse(node).split())[:60]


def _plus(node, delta):
    op = ast.Add() if delta > 0 else ast.Sub()
    return ast.BinOp(left=node, op=op, right=ast.Constant(abs(delta)))


def _is_docstring(stmt, body):
    return stmt is body[0] and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


# The sites of the entry's nodes: (kind, line, node, apply), where apply(node) changes the
# node in place (a statement's parent for `statement`). Called on a fresh copy of the tree
# per mutant; the site is found again by its index in ast.walk order.


def _sites(fn):
    returns = [s for s in fn.body if isinstance(s, ast.Return)]
    last_return = returns[-1] if returns else None
    for node in ast.walk(fn):
        line = getattr(node, 'lineno', fn.lineno)
        if isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAP:
            yield 'operator', line, node, lambda n: setattr(n, 'op', BINOP_SWAP[type(n.op)]())
        elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP_SWAP:
            yield 'operator', line, node, lambda n: setattr(n, 'op', BINOP_SWAP[type(n.op)]())
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in CMP_SWAP:
                    yield 'operator', line, node, (lambda i: lambda n: n.ops.__setitem__(i, CMP_SWAP[type(n.ops[i])]()))(i)
        elif isinstance(node, ast.BoolOp):
            yield 'operator', line, node, lambda n: setattr(n, 'op', BOOL_SWAP[type(n.op)]())
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'range' and node.args and not node.keywords:
            stop = 0 if len(node.args) == 1 else 1
            for delta in (1, -1):
                yield 'bound', line, node, (lambda stop, delta: lambda n: n.args.__setitem__(stop, _plus(n.args[stop], delta)))(stop, delta)
        if isinstance(node, ast.Slice):
            for field in ('lower', 'upper'):
                if getattr(node, field) is not None:
                    for delta in (1, -1):
                        yield 'bound', line, node, (lambda field, delta: lambda n: setattr(n, field, _plus(getattr(n, field), delta)))(field, delta)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            yield 'constant', line, node, lambda n: setattr(n, 'value', n.value + 1)
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            yield 'constant', line, node, lambda n: setattr(n, 'value', not n.value)
        for field in ('body', 'orelse', 'finalbody'):
            body = getattr(node, field, None)
            if isinstance(body, list) and len(body) >= 2 and all(isinstance(s, ast.stmt) for s in body):
                for i, stmt in enumerate(body):
                    if not _is_docstring(stmt, body):
                        yield 'statement', getattr(stmt, 'lineno', line), node, (lambda field, i: lambda n: getattr(n, field).pop(i))(field, i)
        if isinstance(node, (ast.For, ast.While)) and node is not fn:
            value = last_return.value if last_return is not None else None
            yield 'return', line, node, (lambda value: lambda n: n.body.insert(0, ast.Return(value=copy.deepcopy(value))))(value)


def mutants(req):
    tree = ast.parse(req['code'])
    reference = ast.unparse(tree)
    fn = _entry(tree, req['entry'])
    count = sum(1 for _ in _sites(fn))
    seen = {reference}
    out = []
    for index in range(count):
        fresh = ast.parse(req['code'])
        fresh_fn = _entry(fresh, req['entry'])
        # The site found again in the fresh copy: ast.walk's order is the same.
        kind, line, target, apply = next(s for i, s in enumerate(_sites(fresh_fn)) if i == index)
        before = _text(target)
        dropped = apply(target)
        ast.fix_missing_locations(fresh)
        try:
            code = ast.unparse(fresh)
            compile(code, '<mutant>', 'exec')
        except (SyntaxError, ValueError):
            continue
        if code in seen:
            continue
        seen.add(code)
        if kind == 'statement':
            change = f'dropped `{_text(dropped)}`'
        elif kind == 'return':
            change = f'`{_text(target.body[0])}` first in the loop'
        else:
            change = f'`{before}` -> `{_text(target)}`'
        out.append({'kind': kind, 'description': f'{kind}, line {line}: {change}', 'code': code})
    return {'reference': reference, 'mutants': out}


def real(req):
    timeout = float(req.get('timeout', 2))
    verdicts = []
    for item in req['items']:
        answer = rows._in_child(rows._check, item, timeout)
        if answer.get('ok'):
            verdicts.append({'verdict': 'pass' if answer['passed'] else 'fail'})
        else:
            verdicts.append({'verdict': 'raises', 'error': answer['error']})
    return {'verdicts': verdicts}


def main():
    req = json.loads(sys.stdin.read())
    try:
        answer = {'ok': True, **{'mutants': mutants, 'real': real}[req['op']](req)}
    except (SyntaxError, ValueError, KeyError) as e:
        answer = rows._error(e)
    sys.stdout.write(json.dumps(answer) + '\n')


if __name__ == '__main__':
    main()
