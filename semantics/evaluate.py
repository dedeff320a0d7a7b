#!/usr/bin/env python3
"""Python's value semantics over a predicted state, decided by CPython itself and never by
running the user's program: a debugger expression (pdb's `p EXPR`, a hover, a watch, a new value
for a variable, a return value for Predict Inputs) and a simple statement of the program (what
a line such as `words = line.strip().split(',')` binds when `line` is known).

    python3 semantics/evaluate.py < {"expression": TEXT, "locals": {NAME: REPR, ...}}   one request
    python3 semantics/evaluate.py --serve                                           one per line, forever

The state's locals are reprs the model wrote, not objects. Those that are Python literals
(ast.literal_eval accepts them), or reprs of a few known pure types (`frozenset({1})`, `inf`,
`Counter({'a': 2})`, `deque([1])`, `defaultdict(<class 'int'>, {})`, `datetime.date(2024, 1, 2)`,
`re.compile('a+')`), become values; the others (`<Foo object at 0x…>`, a repr cut by `…`)
cannot be rebuilt, and an expression that needs one says so.

An expression is often text someone else wrote (a hover is a click on a file), so it is never
given to eval(): `SafeEvaluator` walks its syntax tree and allows only what cannot reach
anything beyond the values themselves — literals, the predicted locals, arithmetic,
comparisons, boolean logic, subscripts and slices, container displays, comprehensions,
f-strings, lambdas (called by the walker itself) and calls of what semantics/pure.py lists: a
fixed list of pure builtins, the public methods and attributes of the value types it knows
(not str.format / format_map, whose fields read attributes), and the whitelisted attributes of
the standard-library modules a request binds (math, re, json, datetime, collections, itertools,
string, statistics, functools.reduce / cmp_to_key), each behind a proxy that exposes nothing
else. No name or attribute that starts with `_`, no other name, no attribute of anything else
(a generator's gi_frame, a lambda's __code__), no import, walrus, await or yield, nothing that
reads the clock, a file or randomness. What it refuses says "not available in a neural
session: …".

Every value the walker can produce is a value of a type pure.py lists, a function or type it
lists, a method of such a value, a walker-made lambda, a module proxy, or an iterator over such
values; a call checks that its callee and every callable argument (a sort key) are among them.

Bounds. The walker counts its steps (MAX_STEPS per request: a long comprehension or a lambda
called a million times by sorted() is an error, not a hang) and its call depth (MAX_CALL_DEPTH:
a recursive `functions` entry); what one operation builds is bounded (MAX_ITEMS, MAX_INT_BITS;
math.factorial, comb, perm, prod and lcm are checked before they run). A request has
REQUEST_SECONDS of wall time (SIGALRM): the interpreter takes the signal between bytecodes and
the regular-expression engine checks for it every few thousand steps, so a catastrophic
backtracking regex (`re.match('(a+)+$', 'a' * 40 + 'b')`) is an error too. What runs long inside
one C call that never looks at signals (`sum(map(sum, map(range, range(10**5))))`) meets the
process's limits: a hard memory limit, CPU_SECONDS of CPU per request (SIGXCPU ends the
process), and the caller's kill after its own timeout (semantics/python-session.ts, 2 s).

Where an answer may differ from the program's own: a set rebuilt from its repr iterates in the
order of a set built from those items one by one, not necessarily the program's (whose table has
its own history); `is` between rebuilt values; a `functions` entry's body sees its parameters,
the other functions and the imports, not the module's other globals (a name it lacks is an
error, never a guess).

One request on stdin (the one-shot mode, kept for callers that run it once) prints one JSON object:

    {"kind": "value", "repr": REPR, "type": NAME}   REPR as the tracer writes it (tracer.py's Reprs)
    {"kind": "error", "message": TEXT}              a Python exception of the expression included

--serve reads one JSON request per line and writes one JSON response per line, flushed (the
shapes in full: semantics/python-session.ts):

    {"id", "op": "evaluate", "expression", "locals", "modules"?, "names"?, "functions"?}
        -> {"id", "kind": "value", "repr", "type"} | {"id", "kind": "raised", "type", "message"}
         | {"id", "kind": "error", "message"}
    {"id", "op": "execute", "statement", "locals", "modules"?, "names"?, "functions"?}
        -> {"id", "kind": "changed", "locals": {NAME: REPR}} | raised | error
    {"id", "op": "batch", "requests": [REQUEST, ...]} -> {"id", "kind": "batch", "results": [RESPONSE, ...]}

"raised": the expression or statement raises that Python exception on the known values (the
program would raise it too); "error": the walker cannot tell (a refusal, an unknown name, a
local that cannot be rebuilt, a budget). A request with `"set_order": "check"` (the symbolic
stepper's) is also answered "error" where its answer hangs on the iteration order of a set
the locals show, which a repr does not tell (relaid), or holds a function (a lambda the walker
made prints another qualified name than the program's).
"""
import ast
import builtins
import collections
import datetime
import functools
import itertools
import json
import math
import operator
import os
import re
import resource
import signal
import sys
import types

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(_HERE, '..', 'tracer'))
import pure  # noqa: E402
from tracer import Reprs  # noqa: E402

import _strptime  # noqa: E402,F401 - datetime.strptime imports it on first use: not inside a request

MAX_REPR = 1000  # the tracer's default
MAX_MESSAGE = 300
MEMORY_MB = 512
CPU_SECONDS = 5  # a backstop per request: the caller kills this process after 2 s of wall time
SERVE_CPU_SECONDS = 3600  # the server's whole life: past it the process ends and the caller starts another
REQUEST_SECONDS = 1.5  # wall time of one request (a batch: of each request in it)
ELLIPSIS = '…'
MAX_EXPRESSION_CHARS = 20_000
MAX_NODES = 5_000
MAX_STEPS = 1_000_000
MAX_CALL_DEPTH = 100
# Bounds on what one operation may build (a second wall stays: the memory limit).
MAX_ITEMS = 10_000_000
MAX_INT_BITS = 1_000_000
# pow(a, b, m): about bits(b) multiplications of numbers of bits(m) bits.
MAX_MODULAR_WORK = 50_000_000
# Nesting. An expression's syntax tree is at most MAX_DEPTH deep (Python's own parser stops at
# 200 nested brackets; a chain of operators has no such stop, and the walker recurses once per
# level). A tuple or an iterator the walker builds is at most MAX_VALUE_DEPTH deep: C code walks
# them recursively without CPython's recursion check (a tuple's hash, next() through a chain of
# map objects, freeing one), so a chain of 100,000 overflowed the C stack (SIGSEGV).
MAX_DEPTH = 200
MAX_VALUE_DEPTH = 1_000

NEURAL = 'not available in a neural session'
TOO_LARGE = 'too large'
TOO_DEEP = 'too deep'

SAFE_BUILTINS = {name: getattr(builtins, name) for name in pure.BUILTIN_NAMES}
SAFE_BUILTIN_NAMES = pure.BUILTIN_NAMES
SAFE_CONSTANTS = {'True': True, 'False': False, 'None': None}
VALUE_ATTRIBUTES = pure.VALUE_ATTRIBUTES
CLASS_ATTRIBUTES = pure.CLASS_ATTRIBUTES

MORE_LOCALS_KEY = '…'  # grammar/truncate.ts: the entry that stands for the locals left out
IN_FUNCTION = ' function'  # a scope key no name can be: the scope is a `functions` entry's body


def _safe_objects():
    """id -> object: every callable the tables name that is one object for the process's life
    (builtins, module functions and types, unbound methods, static methods)."""
    found = {}

    def add(v):
        if callable(v):
            found[id(v)] = v
    for v in SAFE_BUILTINS.values():
        add(v)
    for module, names in pure.MODULES.items():
        for name in names:
            add(getattr(pure.MODULE_OBJECTS[module], name))
    for t in {**VALUE_ATTRIBUTES, **CLASS_ATTRIBUTES}:
        add(t)
        for name in VALUE_ATTRIBUTES.get(t, frozenset()) | CLASS_ATTRIBUTES.get(t, frozenset()):
            add(getattr(t, name, None))  # an enum's name and value exist on its members only
    return found


SAFE_OBJECTS = _safe_objects()
BOUND_METHOD_TYPES = (types.BuiltinMethodType, types.MethodType)


# ---- what stops the walker (BaseException: no `except Exception` of a library swallows it) -----

class Stop(BaseException):
    pass


class Refused(Stop):
    """What the walker does not evaluate; the message is the user's."""


class NameUnknown(Stop):
    def __init__(self, name):
        super().__init__(name)
        self.name = name


class OutOfSteps(Stop):
    pass


class OutOfTime(Stop):
    pass


def refuse(what):
    raise Refused(f'{NEURAL}: {what}')


def too_large(what):
    raise Refused(f'{TOO_LARGE}: {what}')


def too_deep(what):
    raise Refused(f'{TOO_DEEP}: {what}')


def _cap(text):
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + ELLIPSIS


def _str(e):
    try:
        return str(e)
    except Exception:  # noqa: BLE001 - an exception whose message cannot be made
        return '?'


# ---- walker-made objects ------------------------------------------------------------------------

class WalkerFunction:
    """A lambda of the expression, or a `functions` entry of the request: callable by the walker
    (directly, or by a builtin it passed it to: sorted's key, map's function). Its attributes are
    out of reach like those of anything not in pure.py's tables."""
    __slots__ = ('_walker', '_name', '_params', '_body', '_scope')

    def __init__(self, walker, name, params, body, scope):
        self._walker, self._name, self._params, self._body, self._scope = walker, name, params, body, scope

    def __call__(self, *args, **kwargs):
        return self._walker.call(self, args, kwargs)

    def __repr__(self):
        return f'<function {self._name} at {id(self):#x}>'


class ModuleProxy:
    """A name the program bound to a whitelisted module: only pure.MODULES' attributes."""
    __slots__ = ('_module',)

    def __init__(self, module):
        self._module = module

    def __repr__(self):
        return repr(pure.MODULE_OBJECTS[self._module])


def type_name(value):
    if type(value) is WalkerFunction:
        return 'function'
    if type(value) is ModuleProxy:
        return 'module'
    return type(value).__name__


def is_safe_callable(f):
    """A builtin, function or type of the tables, a method of one of their values (or types), a
    walker-made function, or functools.cmp_to_key's key (made only from a checked callable)."""
    if type(f) is WalkerFunction or type(f) is pure.KeyWrapper:
        return True
    if SAFE_OBJECTS.get(id(f)) is f:
        return True
    if isinstance(f, BOUND_METHOD_TYPES):  # builtin_method (Pattern.search) is a subclass
        owner, name = f.__self__, f.__name__
        if type(owner) in VALUE_ATTRIBUTES:
            allowed = VALUE_ATTRIBUTES[type(owner)] | CLASS_ATTRIBUTES.get(type(owner), frozenset())
        elif isinstance(owner, type) and (owner in VALUE_ATTRIBUTES or owner in CLASS_ATTRIBUTES):
            allowed = VALUE_ATTRIBUTES.get(owner, frozenset()) | CLASS_ATTRIBUTES.get(owner, frozenset())
        else:
            return False
        return name in allowed and getattr(owner, name) == f
    return False


def _describe_callable(f):
    if type(f) in (WalkerFunction, ModuleProxy):
        return f'calling a {type_name(f)}'
    name = getattr(f, '__qualname__', None) or getattr(f, '__name__', None) or type(f).__name__
    return f'calling {name}' if isinstance(name, str) else 'calling this value'


# ---- bounded operations -------------------------------------------------------------------------

def _is_seq(v):
    return isinstance(v, (str, bytes, list, tuple, collections.deque))


def _check_size(n, what='a result', unit='items'):
    if n > MAX_ITEMS:
        too_large(f'{what} of {int(n):,} {unit} (at most {MAX_ITEMS:,})')


def _check_int_bits(bits):
    if bits > MAX_INT_BITS:
        too_large(f'an integer of about {int(bits):,} bits (at most {MAX_INT_BITS:,})')


def _check_mul(a, b):
    if _is_seq(a) and isinstance(b, int):
        _check_size(len(a) * max(b, 0))
    elif _is_seq(b) and isinstance(a, int):
        _check_size(len(b) * max(a, 0))
    elif isinstance(a, int) and isinstance(b, int):
        _check_int_bits(a.bit_length() + b.bit_length())


def _mul(a, b):
    _check_mul(a, b)
    return a * b


def _imul(a, b):
    _check_mul(a, b)
    return operator.imul(a, b)


def _check_pow(a, b, mod):
    modulus = mod[0] if mod else None
    if not (isinstance(a, int) and isinstance(b, int)):
        return
    if modulus is None:
        # pow(a, b, None) is pow(a, b): the whole power is built.
        if b > 0 and abs(a) > 1:
            _check_int_bits(b * math.log2(abs(a)))
    elif isinstance(modulus, int):
        # Square-and-multiply: bits(b) steps on numbers of bits(m) bits (a negative b: an inverse first).
        work = max(abs(b).bit_length(), 1) * max(modulus.bit_length(), 1) ** 1.6
        if work > MAX_MODULAR_WORK:
            too_large(f'pow with a {abs(b).bit_length():,}-bit exponent and a {modulus.bit_length():,}-bit modulus')


def _pow(a, b, *mod):
    _check_pow(a, b, mod)
    return pow(a, b, *mod)


def _ipow(a, b):
    _check_pow(a, b, ())
    return operator.ipow(a, b)


def _check_lshift(a, b):
    if isinstance(a, int) and isinstance(b, int) and a != 0:
        _check_int_bits(a.bit_length() + max(b, 0))


def _lshift(a, b):
    _check_lshift(a, b)
    return a << b


def _ilshift(a, b):
    _check_lshift(a, b)
    return operator.ilshift(a, b)


def _range(*args):
    r = range(*args)
    try:
        n = len(r)
    except OverflowError:
        n = MAX_ITEMS + 1
    if n > MAX_ITEMS:
        too_large(f'a range of more than {MAX_ITEMS:,} numbers')
    return r


def _iter(*args):
    if len(args) != 1:
        refuse('iter with a sentinel (it calls a function until it answers the sentinel)')
    return iter(args[0])


def _bytes(*args, **kwargs):
    if len(args) == 1 and isinstance(args[0], int):
        _check_size(args[0])
    return bytes(*args, **kwargs)


def _bits(n):
    return n.bit_length() if isinstance(n, int) else 0


def _factorial(n):
    if isinstance(n, int) and n > 2:
        _check_int_bits(n * math.log2(n))
    return math.factorial(n)


def _comb(n, k):
    if isinstance(n, int) and isinstance(k, int) and n > 2 and 0 < k < n:
        _check_int_bits(min(n, min(k, n - k) * math.log2(n)))
    return math.comb(n, k)


def _perm(n, k=None):
    if isinstance(n, int) and n > 2 and (k is None or isinstance(k, int)):
        _check_int_bits(min(n if k is None else k, n) * math.log2(n))
    return math.perm(n, k)


def _prod(iterable, *, start=1):
    items = list(iterable)
    _check_int_bits(sum(map(_bits, items)) + _bits(start))
    return math.prod(items, start=start)


def _lcm(*ints):
    _check_int_bits(sum(map(_bits, ints)))
    return math.lcm(*ints)


def _arg(args, kwargs, i, name, default=None):
    return args[i] if len(args) > i else kwargs.get(name, default)


def _text_size(n):
    _check_size(n, 'a string', 'characters')


def _padded(s, args, kwargs):
    """ljust, rjust, center, zfill: the result is as long as the width."""
    width = _arg(args, kwargs, 0, 'width')
    if isinstance(width, int):
        _text_size(width)


def _expanded(s, args, kwargs):
    tabsize = _arg(args, kwargs, 0, 'tabsize', 8)
    if isinstance(tabsize, int):
        _text_size(len(s) + s.count('\t' if isinstance(s, str) else b'\t') * max(tabsize, 0))


def _replaced(s, args, kwargs):
    old, new, count = _arg(args, kwargs, 0, 'old'), _arg(args, kwargs, 1, 'new'), _arg(args, kwargs, 2, 'count', -1)
    if type(old) is type(s) and type(new) is type(s) and isinstance(count, int):
        found = s.count(old) if old else len(s) + 1
        if count >= 0:
            found = min(found, count)
        _text_size(len(s) + found * max(len(new) - len(old), 0))


def _translated(s, args, kwargs):
    table = _arg(args, kwargs, 0, 'table')
    if isinstance(s, str) and isinstance(table, dict):
        longest = max((len(v) for v in table.values() if isinstance(v, str)), default=1)
        _text_size(len(s) * max(longest, 1))


def _to_bytes(n, args, kwargs):
    length = _arg(args, kwargs, 0, 'length', 1)
    if isinstance(length, int):
        _check_size(length, 'a bytes value', 'bytes')


# The methods whose result can be far larger than their value and arguments: checked before
# they run (name -> check(value, args, kwargs)); join is bounded separately (_join).
SIZE_CHECKS = {
    (str, 'ljust'): _padded, (str, 'rjust'): _padded, (str, 'center'): _padded, (str, 'zfill'): _padded,
    (bytes, 'ljust'): _padded, (bytes, 'rjust'): _padded, (bytes, 'center'): _padded, (bytes, 'zfill'): _padded,
    (str, 'expandtabs'): _expanded, (bytes, 'expandtabs'): _expanded,
    (str, 'replace'): _replaced, (bytes, 'replace'): _replaced,
    (str, 'translate'): _translated,
    (int, 'to_bytes'): _to_bytes, (bool, 'to_bytes'): _to_bytes,
}


def _join(sep, iterable):
    """sep.join(iterable), its length checked before it is built."""
    items = list(iterable)
    _check_size(len(items))
    size = sum(len(x) for x in items if isinstance(x, (str, bytes))) + len(sep) * max(len(items) - 1, 0)
    _text_size(size)
    return sep.join(items)


_SPEC_NUMBER = re.compile(r'\d+')
_PERCENT_FIELD = re.compile(r'%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?')


def _check_spec(spec):
    """A format spec's width and precision (format(), an f-string's `:...`): at most MAX_ITEMS."""
    if isinstance(spec, str):
        for m in _SPEC_NUMBER.finditer(spec):
            if len(m[0]) > 8 or int(m[0]) > MAX_ITEMS:
                too_large(f'a format width or precision of {m[0] if len(m[0]) <= 20 else m[0][:20] + ELLIPSIS} (at most {MAX_ITEMS:,})')


def _format(value, spec='', *rest):
    _check_spec(spec)
    return format(value, spec, *rest)


def _check_percent(text, values):
    """'%400000000d' % 1, '%*d' % (10**9, 1): the widths of %-formatting, before it runs."""
    if not isinstance(text, (str, bytes)):
        return
    fmt = text if isinstance(text, str) else text.decode('latin-1')
    star = False
    for m in _PERCENT_FIELD.finditer(fmt):
        for part in (m[1], m[2]):
            if part == '*':
                star = True
            elif part is not None and (len(part) > 8 or int(part) > MAX_ITEMS):
                too_large(f'a %-format width or precision of {part[:20]} (at most {MAX_ITEMS:,})')
    if star:
        for v in values if type(values) is tuple else (values,):
            if type(v) is int and abs(v) > MAX_ITEMS:
                too_large(f'a %-format width or precision of {v:,} (at most {MAX_ITEMS:,})')


def _mod(a, b):
    _check_percent(a, b)
    return a % b


def _imod(a, b):
    _check_percent(a, b)
    return operator.imod(a, b)


# Calls of these go through a bounded version.
BOUNDED_CALLS = {
    id(range): _range, id(pow): _pow, id(iter): _iter, id(bytes): _bytes, id(math.factorial): _factorial,
    id(math.comb): _comb, id(math.perm): _perm, id(math.prod): _prod, id(math.lcm): _lcm,
    id(format): _format, id(str.join): _join, id(bytes.join): _join,
}

BIN_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: _mul, ast.MatMult: operator.matmul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: _mod, ast.Pow: _pow,
    ast.LShift: _lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
}
AUG_OPS = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: _imul, ast.MatMult: operator.imatmul,
    ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv, ast.Mod: _imod, ast.Pow: _ipow,
    ast.LShift: _ilshift, ast.RShift: operator.irshift, ast.BitOr: operator.ior, ast.BitXor: operator.ixor,
    ast.BitAnd: operator.iand,
}
UNARY_OPS = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Invert: operator.invert, ast.Not: operator.not_}
COMPARE_OPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
REFUSED_NODES = {
    ast.NamedExpr: 'assignment with := (the state is not changed by looking at it)',
    ast.Await: 'await', ast.Yield: 'yield', ast.YieldFrom: 'yield from',
}

REFUSED_STATEMENTS = {
    ast.Import: 'import', ast.ImportFrom: 'import', ast.For: 'loops', ast.While: 'loops', ast.AsyncFor: 'loops',
    ast.FunctionDef: 'def', ast.AsyncFunctionDef: 'def', ast.ClassDef: 'class', ast.Global: 'global',
    ast.Nonlocal: 'nonlocal', ast.Return: 'return', ast.Raise: 'raise', ast.Try: 'try', ast.With: 'with',
    ast.AsyncWith: 'with', ast.Match: 'match',
}


# ---- the locals: reprs rebuilt as values --------------------------------------------------------

_REBUILD_CALLS = {
    'set': set, 'frozenset': frozenset, 'range': range,
    'Counter': collections.Counter, 'OrderedDict': collections.OrderedDict, 'deque': collections.deque,
    'datetime.date': datetime.date, 'datetime.datetime': datetime.datetime, 'datetime.time': datetime.time,
    'datetime.timedelta': datetime.timedelta, 'datetime.timezone': datetime.timezone, 're.compile': re.compile,
}
_REBUILD_NAMES = {'inf': math.inf, 'nan': math.nan, 'datetime.timezone.utc': datetime.timezone.utc,
                  **{f're.{f.name}': f for f in re.RegexFlag}}
_DEFAULTDICT = re.compile(r"defaultdict\(<class '(int|float|str|bytes|bool|list|tuple|dict|set|frozenset)'>, (.*)\)", re.S)


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return base and f'{base}.{node.attr}'
    return None


def _build(node):
    """A value from the syntax tree of a repr: literals, and calls of a few known pure types."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_build(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items if isinstance(node, ast.List) else set(items)
    if isinstance(node, ast.Dict):
        if None in node.keys:
            raise ValueError('a ** in a dict display')
        return {_build(k): _build(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _build(node.operand)
        if type(value) not in (int, float, complex):
            raise ValueError('a sign before a non-number')
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.BitOr)):
        left, right = _build(node.left), _build(node.right)
        if isinstance(node.op, ast.BitOr) and type(left) is type(right) is re.RegexFlag:
            return left | right
        if type(left) in (int, float) and type(right) is complex:  # 1+2j
            return left + right if isinstance(node.op, ast.Add) else left - right
        raise ValueError('an operator')
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _dotted(node)
        if name in _REBUILD_NAMES:
            return _REBUILD_NAMES[name]
        raise ValueError(f'the name {name}')
    if isinstance(node, ast.Call) and _dotted(node.func) in _REBUILD_CALLS:
        args = [_build(a) for a in node.args]
        kwargs = {k.arg: _build(k.value) for k in node.keywords if k.arg is not None}
        if len(kwargs) != len(node.keywords):
            raise ValueError('** in a call')
        return _REBUILD_CALLS[_dotted(node.func)](*args, **kwargs)
    raise ValueError(type(node).__name__)


def rebuild(text):
    """The value a repr stands for; ValueError (or SyntaxError…) if it is not one we can rebuild."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError):
        pass
    m = _DEFAULTDICT.fullmatch(text)
    if m:
        items = rebuild(m[2])
        if type(items) is not dict:
            raise ValueError('defaultdict')
        return collections.defaultdict(getattr(builtins, m[1]), items)
    return _build(ast.parse(text.strip(), mode='eval').body)


def namespace(locals_):
    """The rebuildable locals as values; the others as the reason each cannot be one."""
    values, unusable = {}, {}
    for name, text in locals_.items():
        if not name.isidentifier():  # the "…" entry for the locals left out
            continue
        if text.endswith(ELLIPSIS):
            unusable[name] = f"{name}'s predicted value {text} is truncated, so it cannot be evaluated"
            continue
        try:
            values[name] = rebuild(text)
        except Exception:  # noqa: BLE001 - a repr that is not a value we know (anything it raised)
            unusable[name] = f"{name}'s predicted value {text} is not a Python literal, so it cannot be evaluated"
    return values, unusable


def _bindings(modules, names):
    """The program's imports: name -> a module proxy or an allowed attribute; name -> why not."""
    bound, refused = {}, {}
    for name, module in modules.items():
        if module in pure.MODULES:
            bound[name] = ModuleProxy(module)
        else:
            refused[name] = f'the module {module} (only {", ".join(sorted(pure.MODULES))} are)'
    for name, dotted in names.items():
        module, _, attr = dotted.rpartition('.')
        if dotted in pure.MODULES:
            bound[name] = ModuleProxy(dotted)
        elif module in pure.MODULES and attr in pure.MODULES[module]:
            bound[name] = pure.module_attribute(module, attr)
        elif (module, attr) in pure.REFUSED_MODULE_ATTRIBUTES:
            refused[name] = pure.REFUSED_MODULE_ATTRIBUTES[(module, attr)]
        elif module in pure.MODULES:
            refused[name] = f'{dotted} (not among the {module} attributes a neural session evaluates)'
        else:
            refused[name] = f'{dotted} (the module {module or dotted} is not among {", ".join(sorted(pure.MODULES))})'
    return bound, refused


# ---- nesting ------------------------------------------------------------------------------------

_SCALAR_TYPES = frozenset({int, float, str, bytes, bool, complex, type(None)})
_NESTING_TYPES = {}  # type -> whether its values are tuples or iterators (a cache: hasattr is slow)


def _nests_type(t):
    known = _NESTING_TYPES.get(t)
    if known is None:
        known = _NESTING_TYPES[t] = t is tuple or hasattr(t, '__next__')
    return known


def _is_iterator(v):
    t = type(v)
    return t is not tuple and _nests_type(t)


def _nests(v):
    """Values whose nesting C code follows without a recursion check: tuples (hash) and iterators (next, free)."""
    return _nests_type(type(v))


_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))


def _builds_nesting(f):
    """A builtin that wraps its argument in a tuple or an iterator (zip, map, iter, tuple, itertools'…):
    folded over its own results in C (functools.reduce(zip, …)) it would nest without the walker seeing."""
    if f is iter or f is tuple:
        return True
    if isinstance(f, type):
        return _is_iterator_type(f)
    owner = getattr(f, '__self__', None)
    return isinstance(owner, type) and _is_iterator_type(owner)


def _is_iterator_type(t):
    return hasattr(t, '__next__') or t is tuple


# ---- the walker ---------------------------------------------------------------------------------

class SafeEvaluator:
    def __init__(self, values, unusable, bindings=None, refused_bindings=None, functions=None, max_steps=MAX_STEPS):
        self.values = values
        self.unusable = unusable
        self.bindings = bindings or {}
        self.refused_bindings = refused_bindings or {}
        self.functions = {}
        self.steps = 0
        self.max_steps = max_steps
        self.depth = 0
        self.bound = {}  # names a statement bound, in order
        # id -> (value, depth) of the tuples and iterators the walker made that nest 2 or more
        # deep (MAX_VALUE_DEPTH); the entry keeps the value alive, so its id stays its own.
        self.nested = {}
        self.prune_at = 100_000
        for name, (params, body) in (functions or {}).items():
            self.functions[name] = WalkerFunction(self, name, params, body, {IN_FUNCTION: True})

    def evaluate(self, tree):
        return self.eval(tree.body, {})

    # ---- nesting -----------------------------------------------------------------------------

    def value_depth(self, v):
        """How deep a tuple or iterator nests (as far as the walker made it), else how deep the
        deepest such item of a container does (its first level); 0 for anything else."""
        entry = self.nested.get(id(v))
        if entry is not None and entry[0] is v:
            return entry[1]
        t = type(v)
        if t in (list, tuple, set, frozenset, collections.deque) or t in _DICT_VIEWS[:2]:
            # A container the table does not know may hold iterators or tuples: one level, at least.
            inner = self._items_depth(v) if self.nested and v else 0
            return max(inner, 1) if v or t is tuple else 0
        if isinstance(v, dict):
            inner = max(self._items_depth(v.keys()), self._items_depth(v.values())) if self.nested and v else 0
            return max(inner, 1) if v else 0
        return 1 if _is_iterator(v) else 0

    def _items_depth(self, items):
        # At C speed while none of the items is a value the table knows (the usual case).
        if self.nested.keys().isdisjoint(map(id, items)):
            return 1
        return max(map(self._known_depth, items), default=0)

    def _known_depth(self, v):
        entry = self.nested.get(id(v))
        return entry[1] if entry is not None and entry[0] is v else 1 if _nests(v) else 0

    def made(self, value, inputs, wrap=True):
        """`value`, a result the walker made from `inputs`: a tuple or an iterator one level deeper
        than the deepest of them (`wrap`), or as deep; refused past MAX_VALUE_DEPTH."""
        if not _nests_type(type(value)):
            return value
        depth = 0
        for x in inputs:
            if x is value:
                return value
            if type(x) not in _SCALAR_TYPES:
                d = self.value_depth(x)
                if d > depth:
                    depth = d
        if wrap:
            depth += 1
        if depth > MAX_VALUE_DEPTH:
            too_deep(f'a value nested more than {MAX_VALUE_DEPTH:,} levels deep (tuples or iterators, each over the one before)')
        if depth >= 2:
            self.nested[id(value)] = (value, depth)
            if len(self.nested) > self.prune_at:
                self._prune()
        return value

    def _prune(self):
        """Forgets the values nothing but this table holds any more (amortised: the table doubles first)."""
        gone = [key for key, entry in self.nested.items() if sys.getrefcount(entry[0]) <= 3]
        for key in gone:
            del self.nested[key]
        self.prune_at = max(100_000, 2 * len(self.nested))

    def tick(self):
        self.steps += 1
        if self.steps > self.max_steps:
            raise OutOfSteps()

    # ---- nodes -----------------------------------------------------------------------------

    def eval(self, node, scope):
        self.steps += 1
        if self.steps > self.max_steps:
            raise OutOfSteps()
        method = getattr(self, f'_{type(node).__name__}', None)
        if method is None:
            refuse(REFUSED_NODES.get(type(node), f'{type(node).__name__} expressions'))
        return method(node, scope)

    def _Constant(self, node, scope):
        return node.value

    def _Name(self, node, scope):
        return self.lookup(node.id, scope)

    def lookup(self, name, scope):
        # The state's own names first: pdb's __return__ is a local like any other. A local
        # that cannot be rebuilt does not hide the program's function or import of that name
        # (a module-level frame lists `re` as `<module 're' …>`).
        if name in scope:
            return scope[name]
        in_function = IN_FUNCTION in scope
        if not in_function and name in self.values:
            return self.values[name]
        if name in self.functions:
            return self.functions[name]
        if name in self.bindings:
            return self.bindings[name]
        if name in self.refused_bindings:
            refuse(self.refused_bindings[name])
        if not in_function and name in self.unusable:
            raise Refused(self.unusable[name])
        if name.startswith('__'):
            refuse(f"the name {name} (names starting with __ reach Python's internals)")
        if name in SAFE_CONSTANTS:
            return SAFE_CONSTANTS[name]
        if name in SAFE_BUILTINS:
            return SAFE_BUILTINS[name]
        if hasattr(builtins, name):
            refuse(f"{name} (over a predicted state only its locals and these builtins are: {', '.join(SAFE_BUILTIN_NAMES)})")
        raise NameUnknown(name)

    def _Attribute(self, node, scope):
        obj = self.eval(node.value, scope)
        return self.attribute(obj, node.attr)

    def attribute(self, obj, name):
        if name.startswith('_'):
            refuse(f"the attribute {name} (attributes starting with _ reach Python's internals)")
        if type(obj) is ModuleProxy:
            module = obj._module
            if name in pure.MODULES[module]:
                return pure.module_attribute(module, name)
            if (module, name) in pure.REFUSED_MODULE_ATTRIBUTES:
                refuse(pure.REFUSED_MODULE_ATTRIBUTES[(module, name)])
            if hasattr(pure.MODULE_OBJECTS[module], name):
                refuse(f'{module}.{name} (not among the {module} attributes a neural session evaluates)')
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        if type(obj) in VALUE_ATTRIBUTES:
            owner, what = type(obj), f'{type(obj).__name__} value'
            allowed = VALUE_ATTRIBUTES[owner] | CLASS_ATTRIBUTES.get(owner, frozenset())
        elif isinstance(obj, type) and (obj in VALUE_ATTRIBUTES or obj in CLASS_ATTRIBUTES):
            owner, what = obj, f'{obj.__name__} type'
            allowed = VALUE_ATTRIBUTES.get(obj, frozenset()) | CLASS_ATTRIBUTES.get(obj, frozenset())
        else:
            refuse(f'the attributes of a value of type {type_name(obj)} (only those of the value types and modules a neural session knows are)')
        if name in allowed:
            return getattr(obj, name)
        for base in owner.__mro__:
            if (base, name) in pure.REFUSED_ATTRIBUTES:
                refuse(pure.REFUSED_ATTRIBUTES[(base, name)])
        if hasattr(owner, name):
            refuse(f'the attribute {name} of a {what} (not among those a neural session evaluates)')
        raise AttributeError(f"a {what} has no attribute '{name}'")

    def _Subscript(self, node, scope):
        obj = self.eval(node.value, scope)
        if isinstance(obj, type):
            refuse(f'subscripting the type {obj.__name__}')
        item = obj[self.eval(node.slice, scope)]
        return item if type(item) in _SCALAR_TYPES else self.made(item, (obj,), wrap=False)

    def _Slice(self, node, scope):
        part = lambda n: None if n is None else self.eval(n, scope)  # noqa: E731
        return slice(part(node.lower), part(node.upper), part(node.step))

    def _BinOp(self, node, scope):
        left = self.eval(node.left, scope)
        right = self.eval(node.right, scope)
        # %-formatting ('%(k)s' % d) reads items and str(), never attributes.
        result = BIN_OPS[type(node.op)](left, right)
        return result if type(result) in _SCALAR_TYPES else self.made(result, (left, right), wrap=False)

    def _UnaryOp(self, node, scope):
        return UNARY_OPS[type(node.op)](self.eval(node.operand, scope))

    def _BoolOp(self, node, scope):
        value = None
        for v in node.values:
            value = self.eval(v, scope)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def _Compare(self, node, scope):
        left = self.eval(node.left, scope)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator, scope)
            if not COMPARE_OPS[type(op)](left, right):
                return False
            left = right
        return True

    def _IfExp(self, node, scope):
        return self.eval(node.body if self.eval(node.test, scope) else node.orelse, scope)

    def _elements(self, nodes, scope):
        out = []
        for n in nodes:
            if isinstance(n, ast.Starred):
                out.extend(self.eval(n.value, scope))
            else:
                out.append(self.eval(n, scope))
            _check_size(len(out))
        return out

    def _Tuple(self, node, scope):
        items = self._elements(node.elts, scope)
        return self.made(tuple(items), items)

    def _List(self, node, scope):
        return self._elements(node.elts, scope)

    def _Set(self, node, scope):
        # Built as CPython's bytecode builds it, so that a set of strings iterates in the same
        # order: more than two constants are one frozenset constant merged into an empty set;
        # otherwise items are added one by one and *iterables merged (a merge presizes the table).
        if len(node.elts) > 2 and all(isinstance(e, ast.Constant) for e in node.elts):
            out = set()
            out.update(frozenset(self.eval(e, scope) for e in node.elts))
            return out
        out = set()
        for n in node.elts:
            if isinstance(n, ast.Starred):
                out.update(self.eval(n.value, scope))
            else:
                out.add(self.eval(n, scope))
            _check_size(len(out))
        return out

    def _Dict(self, node, scope):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                more = self.eval(v, scope)
                if not hasattr(type(more), 'keys'):
                    raise TypeError(f"'{type_name(more)}' object is not a mapping")
                out.update(more)
            else:
                key = self.eval(k, scope)
                out[key] = self.eval(v, scope)
        return out

    def _Starred(self, node, scope):
        refuse('a starred expression outside a call or a display')

    def _JoinedStr(self, node, scope):
        return ''.join(self.eval(v, scope) for v in node.values)

    def _FormattedValue(self, node, scope):
        value = self.eval(node.value, scope)
        if node.conversion == ord('r'):
            value = repr(value)
        elif node.conversion == ord('s'):
            value = str(value)
        elif node.conversion == ord('a'):
            value = ascii(value)
        spec = '' if node.format_spec is None else self.eval(node.format_spec, scope)
        _check_spec(spec)
        return format(value, spec)

    def _Lambda(self, node, scope):
        a = node.args
        if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults:
            refuse('a lambda with defaults, *args, keyword-only or ** parameters (plain positional names only)')
        return WalkerFunction(self, '<lambda>', tuple(p.arg for p in a.args), node.body, scope)

    def call(self, fn, args, kwargs):
        """A walker-made function called: by the walker, or by a builtin it was passed to."""
        name, params = fn._name, fn._params
        if len(args) > len(params):
            raise TypeError(f'{name}() takes {len(params)} positional argument{"" if len(params) == 1 else "s"} but {len(args)} {"was" if len(args) == 1 else "were"} given')
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            if k in bound:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
            bound[k] = v
        missing = [p for p in params if p not in bound]
        if missing:
            raise TypeError(f'{name}() missing {len(missing)} required positional argument{"" if len(missing) == 1 else "s"}: {", ".join(map(repr, missing))}')
        if self.depth >= MAX_CALL_DEPTH:
            refuse(f'calls nested more than {MAX_CALL_DEPTH} deep (a recursion this deep is not followed)')
        self.depth += 1
        try:
            inner = dict(fn._scope)
            inner.update(bound)
            return self.eval(fn._body, inner)
        finally:
            self.depth -= 1

    def _Call(self, node, scope):
        f = self.eval(node.func, scope)
        if not is_safe_callable(f):
            refuse(_describe_callable(f))
        args = self._elements(node.args, scope)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                more = self.eval(kw.value, scope)
                if not isinstance(more, dict):
                    raise TypeError(f'argument after ** must be a mapping, not {type_name(more)}')
                items = more.items()
            else:
                items = ((kw.arg, self.eval(kw.value, scope)),)
            for k, v in items:
                if k in kwargs:
                    raise TypeError(f"got multiple values for keyword argument '{k}'")
                kwargs[k] = v
        for a in (*args, *kwargs.values()):
            if callable(a) and not is_safe_callable(a):
                refuse(f'passing {_describe_callable(a)[len("calling "):]} to a function')
        if f is functools.reduce or f is itertools.accumulate:
            for a in (*args, *kwargs.values()):
                if callable(a) and _builds_nesting(a):
                    refuse(f'folding with {_describe_callable(a)[len("calling "):]} (each result nested in the next, out of the walker\'s sight)')
        bounded = BOUNDED_CALLS.get(id(f))
        if bounded is None and isinstance(f, BOUND_METHOD_TYPES):
            owner, name = f.__self__, f.__name__
            if name == 'join' and type(owner) in (str, bytes) and len(args) == 1 and not kwargs:
                return _join(owner, args[0])
            check = SIZE_CHECKS.get((type(owner), name))
            if check:
                check(owner, args, kwargs)
        elif bounded is None and type(f) is types.MethodDescriptorType and args:
            check = SIZE_CHECKS.get((f.__objclass__, f.__name__))
            if check and isinstance(args[0], f.__objclass__):
                check(args[0], args[1:], kwargs)
        result = (bounded or f)(*args, **kwargs)
        return result if type(result) in _SCALAR_TYPES else self.made(result, (*args, *kwargs.values()))

    # ---- comprehensions ----------------------------------------------------------------------
    # One scope for the whole comprehension, as CPython's one frame: a lambda made in it sees
    # the loop variable's last value, as in CPython.

    def _comprehension(self, generators, scope, emit):
        first = self.eval(generators[0].iter, scope)
        inner = dict(scope)

        def run(i, iterable):
            g = generators[i]
            if g.is_async:
                refuse('async comprehensions')
            for item in iterable:
                self.tick()
                self.bind(g.target, item, inner)
                if all(self.eval(cond, inner) for cond in g.ifs):
                    if i + 1 == len(generators):
                        emit(inner)
                    else:
                        run(i + 1, self.eval(generators[i + 1].iter, inner))
        run(0, first)

    def bind(self, target, value, scope=None):
        """Assigns `value` to a target: in a comprehension's scope, or (scope None) to the
        program's locals, where a subscript target changes the value it subscripts."""
        if isinstance(target, ast.Name):
            if scope is None:
                self.values[target.id] = value
                self.unusable.pop(target.id, None)
                self.bound[target.id] = None
            else:
                scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
            n = len(target.elts)
            if not starred:
                # As CPython: at most one item past the targets is read (an endless iterator).
                items = list(itertools.islice(value, n + 1))
                if len(items) > n:
                    raise ValueError(f'too many values to unpack (expected {n})')
                if len(items) < n:
                    raise ValueError(f'not enough values to unpack (expected {n}, got {len(items)})')
                for t, v in zip(target.elts, items):
                    self.bind(t, v, scope)
                return
            items = list(value)
            s = starred[0]
            after = n - s - 1
            if len(items) < s + after:
                raise ValueError(f'not enough values to unpack (expected at least {s + after}, got {len(items)})')
            for t, v in zip(target.elts[:s], items[:s]):
                self.bind(t, v, scope)
            self.bind(target.elts[s].value, items[s:len(items) - after], scope)
            for t, v in zip(target.elts[s + 1:], items[len(items) - after:]):
                self.bind(t, v, scope)
        elif isinstance(target, ast.Subscript) and scope is None:
            obj = self.eval(target.value, {})
            if isinstance(obj, type):
                refuse(f'subscripting the type {obj.__name__}')
            obj[self.eval(target.slice, {})] = value
        elif isinstance(target, ast.Attribute):
            refuse('assigning to an attribute')
        else:
            refuse(f'assigning to a {type(target).__name__}{" in a comprehension" if scope is not None else ""}')

    def _ListComp(self, node, scope):
        out = []

        def emit(inner):
            out.append(self.eval(node.elt, inner))
            _check_size(len(out))
        self._comprehension(node.generators, scope, emit)
        return out

    def _SetComp(self, node, scope):
        out = set()

        def emit(inner):
            out.add(self.eval(node.elt, inner))
            _check_size(len(out))
        self._comprehension(node.generators, scope, emit)
        return out

    def _DictComp(self, node, scope):
        out = {}

        def emit(inner):
            out[self.eval(node.key, inner)] = self.eval(node.value, inner)
            _check_size(len(out))
        self._comprehension(node.generators, scope, emit)
        return out

    def _GeneratorExp(self, node, scope):
        # Lazy, as Python's (any() stops early); consumed only by the builtins above, and its
        # frame is out of reach: a generator has no attributes here.
        first = iter(self.eval(node.generators[0].iter, scope))
        gens = node.generators
        inner = dict(scope)

        def gen():
            def walk(i, it):
                g = gens[i]
                if g.is_async:
                    refuse('async comprehensions')
                for item in it:
                    self.tick()
                    self.bind(g.target, item, inner)
                    if all(self.eval(cond, inner) for cond in g.ifs):
                        if i + 1 == len(gens):
                            yield self.eval(node.elt, inner)
                        else:
                            yield from walk(i + 1, self.eval(gens[i + 1].iter, inner))
            yield from walk(0, first)
        g = gen()
        g.__name__ = g.__qualname__ = '<genexpr>'
        return self.made(g, (first,))

    # ---- statements --------------------------------------------------------------------------

    def execute(self, node):
        self.tick()
        if isinstance(node, ast.Assign):
            value = self.eval(node.value, {})
            for target in node.targets:
                self.bind(target, value)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.bind(node.target, self.eval(node.value, {}))
        elif isinstance(node, ast.AugAssign):
            op = AUG_OPS[type(node.op)]
            target = node.target
            if isinstance(target, ast.Name):
                current = self.lookup(target.id, {})
                self.bind(target, op(current, self.eval(node.value, {})))
            elif isinstance(target, ast.Subscript):
                obj = self.eval(target.value, {})
                if isinstance(obj, type):
                    refuse(f'subscripting the type {obj.__name__}')
                key = self.eval(target.slice, {})
                current = obj[key]
                obj[key] = op(current, self.eval(node.value, {}))
            else:
                refuse('assigning to an attribute')
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if not isinstance(target, ast.Subscript):
                    refuse(f'del of a {"name" if isinstance(target, ast.Name) else type(target).__name__} (only del NAME[KEY] is)')
                obj = self.eval(target.value, {})
                if isinstance(obj, type):
                    refuse(f'subscripting the type {obj.__name__}')
                del obj[self.eval(target.slice, {})]
        elif isinstance(node, ast.Expr):
            value = self.eval(node.value, {})
            if isinstance(value, types.GeneratorType):
                value.close()
        elif isinstance(node, ast.If):
            for stmt in (node.body if self.eval(node.test, {}) else node.orelse):
                self.execute(stmt)
        elif isinstance(node, ast.Assert):
            if not self.eval(node.test, {}):
                raise AssertionError(*(() if node.msg is None else (self.eval(node.msg, {}),)))
        elif isinstance(node, ast.Pass):
            pass
        else:
            what = REFUSED_STATEMENTS.get(type(node), f'{type(node).__name__} statements')
            refuse(f'{what} (of statements only assignments, del NAME[KEY], expression statements and one-line ifs are)')


# ---- requests -----------------------------------------------------------------------------------

def _check_tree(tree):
    count = 0
    for node in ast.walk(tree):
        count += 1
        if count > MAX_NODES:
            too_large(f'an expression of more than {MAX_NODES:,} parts')
        if type(node) in REFUSED_NODES:
            refuse(REFUSED_NODES[type(node)])


def _name_error(name, locals_):
    more = locals_.get(MORE_LOCALS_KEY)
    note = f' (the predicted state leaves out {more.lstrip("+")} locals)' if more else ''
    return f"NameError: name '{name}' is not defined{note}"


class BadRequest(Exception):
    pass


# What Python's parser says of an expression nested past its own limits.
_PARSER_DEPTH = ('too many nested parentheses', 'too complex', 'nested too deeply', 'maximum recursion depth')


def _tree_depth(tree):
    """How deep a syntax tree nests, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _parse(text, mode, what):
    """A syntax tree, or a BadRequest whose message is the user's (a SyntaxError, or too deep)."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise BadRequest(f'{TOO_LARGE}: an {what} of more than {MAX_EXPRESSION_CHARS:,} characters')
    deep = f'{TOO_DEEP}: an {what} nested more than {MAX_DEPTH} levels deep'
    try:
        tree = ast.parse(text.strip(), f'<{what}>', mode=mode)
        # Before compile(), whose C code recurses once per level.
        if _tree_depth(tree) > MAX_DEPTH:
            raise BadRequest(deep)
        # compile() checks what the parser lets through ('yield' outside a function, …).
        compile(tree, f'<{what}>', mode, dont_inherit=True)
    except SyntaxError as e:
        if any(p in str(e.msg) for p in _PARSER_DEPTH):
            raise BadRequest(deep)
        raise BadRequest(f'SyntaxError: {e.msg}')
    except (RecursionError, MemoryError):
        raise BadRequest(deep)
    except ValueError as e:
        raise BadRequest(f'SyntaxError: {e or type(e).__name__}')
    return tree


def _string_map(request, key):
    value = request.get(key) or {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise BadRequest(f'bad request: {key} must be an object of strings')
    return value


def _functions(request):
    value = request.get('functions') or {}
    out = {}
    if not isinstance(value, dict):
        raise BadRequest('bad request: functions must be an object')
    for name, f in value.items():
        params = f.get('params') if isinstance(f, dict) else None
        body = f.get('body') if isinstance(f, dict) else None
        if not (name.isidentifier() and isinstance(params, list) and all(isinstance(p, str) and p.isidentifier() for p in params)
                and len(set(params)) == len(params) and isinstance(body, str)):
            raise BadRequest(f'bad request: functions.{name} must be {{"params": [NAME, ...], "body": EXPRESSION}}')
        try:
            tree = _parse(body, 'eval', 'function')
        except BadRequest as e:
            raise BadRequest(f'in the function {name}: {e}')
        _check_tree(tree)
        out[name] = (tuple(params), tree.body)
    return out


def _has_sets(value, depth=0):
    """Whether a value holds a set or frozenset of two or more elements, at any depth."""
    t = type(value)
    if t in (set, frozenset):
        return len(value) > 1 or any(_has_sets(v, depth + 1) for v in value)
    if depth > 50:
        return False
    if t in (list, tuple):
        return any(_has_sets(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_has_sets(k, depth + 1) or _has_sets(v, depth + 1) for k, v in value.items())
    return False


# Dummies that grow a set's table before its elements go in (removed after): no repr's value is one.
_GROW = tuple(object() for _ in range(40))


# The other layouts a set the locals show is tried in: its elements in another order, into a
# fresh table or a grown one (relaid).
LAYOUTS = ('reversed, grown', 'rotated', 'reversed')


def relaid(value, layout, depth=0):
    """The same value with every set and frozenset of two or more elements laid out anew (a
    LAYOUTS entry). A repr shows a set's elements, not the history (insertions, removals, the
    table's size) that made its iteration order, so a rebuilt set may iterate otherwise than the
    program's: what depends on that order is not known (answer's `set_order` check)."""
    t = type(value)
    if depth > 50:
        return value
    if t in (set, frozenset) and len(value) > 1:
        items = [relaid(v, layout, depth + 1) for v in value]
        items = items[1:] + items[:1] if layout == 'rotated' else items[::-1]
        laid = set(_GROW) if 'grown' in layout else set()
        laid.update(items)
        laid.difference_update(_GROW)
        return laid if t is set else frozenset(laid)
    if t is list:
        return [relaid(v, layout, depth + 1) for v in value]
    if t is tuple:
        return tuple(relaid(v, layout, depth + 1) for v in value)
    if t is dict:
        return {relaid(k, layout, depth + 1): relaid(v, layout, depth + 1) for k, v in value.items()}
    return value


def _prepare(request, text_key, mode, relayout=None):
    """The request's syntax tree and a walker over its locals, imports and functions (`relayout`:
    their sets laid out anew, a LAYOUTS entry)."""
    text = request.get(text_key)
    if not isinstance(text, str):
        raise BadRequest(f'bad request: {text_key} must be a string')
    locals_ = _string_map(request, 'locals')
    modules, names = _string_map(request, 'modules'), _string_map(request, 'names')
    tree = _parse(text, mode, 'expression' if mode == 'eval' else 'statement')
    _check_tree(tree)
    functions = _functions(request)
    values, unusable = namespace(locals_)
    if relayout:
        values = {name: relaid(v, relayout) for name, v in values.items()}
    bound, refused = _bindings(modules, names)
    return tree, SafeEvaluator(values, unusable, bound, refused, functions), locals_


def _rebuilt(text):
    """A result's value back from its repr (None where it is not one namespace rebuilds)."""
    values, _ = namespace({'v': text})
    return values.get('v')


def _sets_shown(request):
    """Whether a local of the request holds a set of two or more elements (namespace's reading)."""
    locals_ = request.get('locals') if isinstance(request.get('locals'), dict) else {}
    values, _ = namespace({k: v for k, v in locals_.items() if isinstance(v, str)})
    return any(_has_sets(v) for v in values.values())


def _evaluate(request, relayout=None):
    tree, walker, locals_ = _prepare(request, 'expression', 'eval', relayout)
    value = walker.evaluate(tree)
    if isinstance(value, types.GeneratorType):
        value.close()

    def finish():
        return {'kind': 'value', 'repr': Reprs(MAX_REPR)(value), 'type': type_name(value)}
    return finish, locals_


def _execute(request, relayout=None):
    tree, walker, locals_ = _prepare(request, 'statement', 'exec', relayout)
    before = {name: repr(v) for name, v in walker.values.items()}
    for stmt in tree.body:
        walker.execute(stmt)

    def finish():
        names = list(walker.bound)
        names += [n for n, text in before.items() if n not in walker.bound and repr(walker.values[n]) != text]
        reprs = Reprs(MAX_REPR)
        return {'kind': 'changed', 'locals': {n: reprs(walker.values[n]) for n in names}}
    return finish, locals_


# A request's wall time: SIGALRM raises OutOfTime in whatever runs, while armed.
_armed = False


def _on_alarm(signum, frame):
    if _armed:
        raise OutOfTime()


def _arm(serving):
    global _armed
    if serving:
        # CPU_SECONDS more than this process has used so far (a soft limit: SIGXCPU ends it).
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        limit = int(usage.ru_utime + usage.ru_stime) + 1 + CPU_SECONDS
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    _armed = True
    signal.setitimer(signal.ITIMER_REAL, REQUEST_SECONDS)


def _disarm():
    global _armed
    _armed = False
    signal.setitimer(signal.ITIMER_REAL, 0)


def answer(request, serving=False):
    """One evaluate or execute request's response (without its id)."""
    op = request.get('op', 'evaluate')
    run = {'evaluate': _evaluate, 'execute': _execute}.get(op)
    if run is None:
        return {'kind': 'error', 'message': f'bad request: unknown op {op!r}' if op != 'batch' else 'bad request: a batch inside a batch'}
    what = 'expression' if op == 'evaluate' else 'statement'
    locals_ = request.get('locals') if isinstance(request.get('locals'), dict) else {}
    try:
        try:
            _arm(serving)
            finish, locals_ = run(request)
            result = finish()
            # `"set_order": "check"` (the symbolic stepper's): an answer must not hang on the
            # iteration order of a set the locals show, which their reprs do not tell: not where
            # it holds such a set itself (built from it, its order is the rebuilt one's), nor
            # where another layout of the shown sets (relaid) answers otherwise.
            shown = [result['repr']] if result['kind'] == 'value' else list(result.get('locals', {}).values())
            # A function the walker made (a lambda) prints its own qualified name, not the program's.
            if request.get('set_order') == 'check' and any('<function ' in text or '<built-in ' in text for text in shown):
                return {'kind': 'error', 'message': f'the {what} holds a function, whose repr is the program\'s own'}
            if request.get('set_order') == 'check' and result['kind'] in ('value', 'changed') and _sets_shown(request):
                unordered = any(_has_sets(_rebuilt(text)) for text in shown)
                for layout in LAYOUTS:
                    if unordered:
                        break
                    again, _ = run(request, relayout=layout)
                    unordered = again() != result
                if unordered:
                    return {'kind': 'error', 'message': f'the {what} depends on the order of a set, which its repr does not tell'}
        finally:
            _disarm()
        return result
    except BadRequest as e:
        return {'kind': 'error', 'message': _cap(str(e))}
    except Refused as e:
        return {'kind': 'error', 'message': _cap(str(e))}
    except NameUnknown as e:
        return {'kind': 'error', 'message': _cap(_name_error(e.name, locals_))}
    except OutOfSteps:
        return {'kind': 'error', 'message': f'the {what} took more than {MAX_STEPS:,} steps and was stopped'}
    except OutOfTime:
        return {'kind': 'error', 'message': f'the {what} took longer than {REQUEST_SECONDS:g} s and was stopped'}
    except MemoryError:
        return {'kind': 'error', 'message': f'{TOO_LARGE}: the {what} needs more than {MEMORY_MB} MiB'}
    except RecursionError:
        return {'kind': 'error', 'message': f'{TOO_DEEP}: the {what} recurses deeper than Python allows'}
    except Exception as e:  # noqa: BLE001 - an exception of the expression on known values
        return {'kind': 'raised', 'type': type(e).__name__, 'message': _cap(_str(e))}


def respond(request, serving=True):
    """A served request's response, its id echoed (a batch: every request's, in order)."""
    if isinstance(request, dict) and request.get('op') == 'batch':
        requests = request.get('requests')
        if not isinstance(requests, list):
            return {'id': request.get('id'), 'kind': 'error', 'message': 'bad request: a batch needs a list of requests'}
        return {'id': request.get('id'), 'kind': 'batch', 'results': [respond_one(r, serving) for r in requests]}
    return respond_one(request, serving)


def respond_one(request, serving=True):
    if not isinstance(request, dict):
        return {'id': None, 'kind': 'error', 'message': 'bad request: not a JSON object'}
    return {'id': request.get('id'), **answer(request, serving)}


def _limit_resources(serving):
    # Hard limits: nothing in this process may raise them again.
    cpu = SERVE_CPU_SECONDS if serving else CPU_SECONDS
    for which, limit in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, MEMORY_MB * 1024 * 1024)):
        soft, hard = resource.getrlimit(which)
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(which, (limit, limit))
        elif soft == resource.RLIM_INFINITY or soft > hard:
            resource.setrlimit(which, (hard, hard))
    signal.signal(signal.SIGALRM, _on_alarm)


def serve():
    _limit_resources(serving=True)
    stdin, stdout = sys.stdin.buffer, sys.stdout
    while True:
        line = stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            request = json.loads(line.decode('utf-8'))
        except (ValueError, UnicodeDecodeError) as e:
            response = {'id': None, 'kind': 'error', 'message': _cap(f'bad request: {e}')}
        else:
            response = respond(request)
        stdout.write(json.dumps(response) + '\n')
        stdout.flush()


def main():
    if sys.argv[1:] == ['--serve']:
        serve()
        return
    _limit_resources(serving=False)
    request = json.loads(sys.stdin.buffer.read().decode('utf-8'))
    result = answer({'op': 'evaluate', 'expression': request['expression'], 'locals': request['locals']})
    if result['kind'] == 'raised':
        result = {'kind': 'error', 'message': _cap(f"{result['type']}: {result['message']}")}
    print(json.dumps(result))


if __name__ == '__main__':
    main()
