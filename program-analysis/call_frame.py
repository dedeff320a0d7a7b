#!/usr/bin/env python3
"""The call state of a debugging session's entry, from the user's input alone: no line of the
program runs.

    python3 program-analysis/call_frame.py --entry=NAME --args='PY LITERALS' < PROGRAM
    python3 program-analysis/call_frame.py --entry=NAME --infer < PROGRAM

With --infer there are no arguments: every parameter's value is left unknown (null), for the
model to propose (the debugger's "infer arguments").

The entry's `def` is found in the program's syntax tree; a stub with the same signature (no
decorators, no annotations, literal defaults evaluated with ast.literal_eval, a body that
returns its parameters' values, naming nothing of the program's or the builtins') is called with the arguments, so binding them to the parameters, the
locals' order and TypeError's message are exactly CPython's; reprs are the tracer's
(tracer.py's Reprs). Prints one JSON object:

    {"kind": "call", "function": NAME, "line": N, "locals": [[name, repr or null], ...]}
        null: a default that is not a literal (its value needs the program to run)
    {"kind": "error", "value": REPR}       the call itself fails (a TypeError from binding)
    {"kind": "unknown", "reason": TEXT}    the first state needs the program to run (a
                                           decorated entry, a generator, a coroutine)
    {"kind": "invalid", "message": TEXT}   bad input: no such function, bad arguments, ...
"""
import argparse
import ast
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tracer'))
from tracer import Reprs, StartError, parse_args  # noqa: E402

MAX_REPR = 1000  # the tracer's default


class _Unknown:
    """Stands for a default whose value is unknown without running the program."""


def _find(tree, dotted):
    body = tree.body
    node = None
    for part in dotted.split('.'):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _defined(tree):
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _is_generator(fn):
    """A yield in the function's own body (not in a nested def, class or lambda)."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _stub(fn, qualname):
    """A function with fn's signature whose call returns its bound arguments."""
    args = fn.args
    namespace = {}

    def literal(node):
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return _Unknown

    def placeholder(node):
        name = f'__ndb_default_{len(namespace)}'
        namespace[name] = literal(node)
        return ast.Name(id=name, ctx=ast.Load())

    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    args.defaults = [placeholder(d) for d in args.defaults]
    args.kw_defaults = [None if d is None else placeholder(d) for d in args.kw_defaults]
    # The bound parameters as a list of (name, value) pairs, built from the parameters
    # themselves: no name is looked up outside the stub's own frame, so a function named
    # `locals` or `dict`, or a parameter named `locals`, binds exactly as any other.
    pairs = [ast.Tuple([ast.Constant(name), ast.Name(name, ast.Load())], ast.Load()) for name in _parameters(fn)]
    body = [ast.Return(ast.List(pairs, ast.Load()))]
    stub = ast.FunctionDef(name=fn.name, args=args, body=body, decorator_list=[], returns=None, type_comment=None)
    module = ast.fix_missing_locations(ast.Module(body=[stub], type_ignores=[]))
    exec(compile(module, '<ndb entry stub>', 'exec'), namespace)
    func = namespace[fn.name]
    func.__qualname__ = qualname  # TypeError messages name it
    return func


def _parameters(fn):
    """The parameter names in the order CPython binds them into locals (co_varnames)."""
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    return names + [p.arg for p in (a.vararg, a.kwarg) if p is not None]


def call_frame(program, entry, args_text, infer=False):
    try:
        tree = ast.parse(program)
    except SyntaxError as e:
        return {'kind': 'invalid', 'message': f'{type(e).__name__} at line {e.lineno}: {e.msg}'}
    try:
        args, kwargs = parse_args('' if infer else args_text)
    except StartError as e:
        return {'kind': 'invalid', 'message': str(e)}
    fn = _find(tree, entry)
    if fn is None or isinstance(fn, ast.ClassDef):
        what = f"no function named '{entry}'" if fn is None else f"'{entry}' is a class"
        return {'kind': 'invalid', 'message': f"{what} in the program; functions defined: {', '.join(_defined(tree)) or 'none'}"}
    if fn.decorator_list:
        return {'kind': 'unknown', 'reason': f"'{entry}' is decorated: what runs first depends on the decorator"}
    if isinstance(fn, ast.AsyncFunctionDef) or _is_generator(fn):
        return {'kind': 'unknown', 'reason': f"calling '{entry}' only creates a {'coroutine' if isinstance(fn, ast.AsyncFunctionDef) else 'generator'}"}
    line = fn.lineno
    if infer:
        return {'kind': 'call', 'function': fn.name, 'line': line, 'locals': [[name, None] for name in _parameters(fn)]}
    stub = _stub(fn, entry)
    reprs = Reprs(MAX_REPR)
    try:
        bound = dict(stub(*args, **kwargs))
    except TypeError as e:
        return {'kind': 'error', 'value': reprs(e)}
    return {
        'kind': 'call',
        'function': fn.name,
        'line': line,
        'locals': [[name, None if value is _Unknown else reprs(value)] for name, value in bound.items()],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--entry', required=True)
    p.add_argument('--args', default='')
    p.add_argument('--infer', action='store_true', help='leave every argument to the model')
    opts = p.parse_args()
    print(json.dumps(call_frame(sys.stdin.read(), opts.entry, opts.args, opts.infer)))


if __name__ == '__main__':
    main()
