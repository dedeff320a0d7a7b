#!/usr/bin/env python3
"""A debugger expression (pdb's `p EXPR`, a hover, a watch, a new value for a variable)
evaluated over a predicted state: no line of the program runs.

    python3 adapter/evaluate.py < {"expression": TEXT, "locals": {NAME: REPR, ...}}

The state's locals are reprs the model wrote, not objects. Those that are Python literals
(ast.literal_eval accepts them) become values; the others (`<Foo object at 0x…>`, a repr cut
by `…`) cannot be rebuilt, and an expression that needs one says so. Only a few pure builtins
are available: the namespace stands for a state, so nothing may reach the file system or the
process. This is not a sandbox against a hostile user (the user types the expressions); the
caller's timeout and this process's limits keep a runaway expression from hanging ndb.
Prints one JSON object:

    {"kind": "value", "repr": REPR, "type": NAME}   REPR as the tracer writes it (tracer.py's Reprs)
    {"kind": "error", "message": TEXT}
"""
import ast
import builtins
import json
import os
import resource
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tracer'))
from tracer import Reprs  # noqa: E402

MAX_REPR = 1000  # the tracer's default
MAX_MESSAGE = 300
MEMORY_MB = 512
CPU_SECONDS = 5  # a backstop only: the caller kills this process after 2 s of wall time
ELLIPSIS = '…'

SAFE_BUILTINS = {name: getattr(builtins, name) for name in (
    'len', 'sum', 'min', 'max', 'sorted', 'abs', 'any', 'all', 'range', 'list', 'dict', 'set', 'tuple',
    'str', 'int', 'float', 'bool', 'repr', 'enumerate', 'zip', 'reversed', 'round', 'type', 'isinstance',
)}

MORE_LOCALS_KEY = '…'  # grammar/truncate.ts: the entry that stands for the locals left out


def _limit_resources():
    for which, limit in ((resource.RLIMIT_CPU, CPU_SECONDS), (resource.RLIMIT_AS, MEMORY_MB * 1024 * 1024)):
        soft, hard = resource.getrlimit(which)
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(which, (limit, hard))


def _cap(text):
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + ELLIPSIS


def namespace(locals_):
    """The literal locals as values; the others as the reason each cannot be one."""
    values, unusable = {}, {}
    for name, text in locals_.items():
        if not name.isidentifier():  # the "…" entry for the locals left out
            continue
        if text.endswith(ELLIPSIS):
            unusable[name] = f"{name}'s predicted value {text} is truncated, so it cannot be evaluated"
            continue
        try:
            values[name] = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            unusable[name] = f"{name}'s predicted value {text} is not a Python literal, so it cannot be evaluated"
    return values, unusable


def _name_error(e, unusable, locals_):
    name = getattr(e, 'name', None)
    if name in unusable:
        return unusable[name]
    if name is not None and hasattr(builtins, name):
        return f"{name} is not available: over a predicted state only these builtins are: {', '.join(SAFE_BUILTINS)}"
    more = locals_.get(MORE_LOCALS_KEY)
    note = f' (the predicted state leaves out {more.lstrip("+")} locals)' if more else ''
    return f'NameError: {e}{note}'


def evaluate(expression, locals_):
    values, unusable = namespace(locals_)
    try:
        code = compile(expression, '<expression>', 'eval', dont_inherit=True)
    except SyntaxError as e:
        return {'kind': 'error', 'message': _cap(f'SyntaxError: {e.msg}')}
    except (ValueError, RecursionError, MemoryError) as e:
        return {'kind': 'error', 'message': _cap(f'SyntaxError: {e or type(e).__name__}')}
    # Everything in globals: a comprehension's body looks names up there, not in eval's locals.
    scope = {'__builtins__': SAFE_BUILTINS, **values}
    try:
        value = eval(code, scope)
    except NameError as e:
        return {'kind': 'error', 'message': _cap(_name_error(e, unusable, locals_))}
    except MemoryError:
        return {'kind': 'error', 'message': f'MemoryError: the expression needs more than {MEMORY_MB} MiB'}
    except Exception as e:  # noqa: BLE001 - any error of the expression is its result
        return {'kind': 'error', 'message': _cap(f'{type(e).__name__}: {_str(e)}')}
    return {'kind': 'value', 'repr': Reprs(MAX_REPR)(value), 'type': type(value).__name__}


def _str(e):
    try:
        return str(e)
    except Exception:  # noqa: BLE001 - an exception whose message cannot be made
        return '?'


def main():
    _limit_resources()
    request = json.loads(sys.stdin.buffer.read().decode('utf-8'))
    print(json.dumps(evaluate(request['expression'], request['locals'])))


if __name__ == '__main__':
    main()
