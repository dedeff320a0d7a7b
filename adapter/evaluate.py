#!/usr/bin/env python3
"""A debugger expression (pdb's `p EXPR`, a hover, a watch, a new value for a variable, a
return value for Predict Inputs) evaluated over a predicted state: no line of the program runs,
and nothing else does either.

    python3 adapter/evaluate.py < {"expression": TEXT, "locals": {NAME: REPR, ...}}

The state's locals are reprs the model wrote, not objects. Those that are Python literals
(ast.literal_eval accepts them) become values; the others (`<Foo object at 0x…>`, a repr cut
by `…`) cannot be rebuilt, and an expression that needs one says so.

An expression is often text someone else wrote (a hover is a click on a file), so it is never
given to eval(): `SafeEvaluator` walks its syntax tree and allows only what cannot reach
anything beyond the values themselves — literals, the predicted locals, arithmetic,
comparisons, boolean logic, subscripts and slices, container displays, comprehensions and
f-strings over them, calls of a fixed list of pure builtins (SAFE_BUILTINS), and the public
methods and attributes of the builtin value types (SAFE_TYPES; not str.format / format_map,
whose fields read attributes). No name or attribute that starts with `_`, no other name, no
attribute of anything else (a generator's gi_frame, a function's globals), no lambda, walrus,
await or yield. What it refuses says "not available in a neural session: …".

Every value the walker can produce is a builtin value, a builtin from the list, a method of a
builtin value, or an iterator over such values; a call checks that its callee and every
callable argument (a sort key) are among them. This process's CPU and memory limits (hard
limits) and the caller's 2 s kill stay as a second wall against expressions that only run
long (`sum(x * y for x in range(10**6) for y in range(10**6))`).

Prints one JSON object:

    {"kind": "value", "repr": REPR, "type": NAME}   REPR as the tracer writes it (tracer.py's Reprs)
    {"kind": "error", "message": TEXT}
"""
import ast
import builtins
import json
import math
import operator
import os
import resource
import sys
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tracer'))
from tracer import Reprs  # noqa: E402

MAX_REPR = 1000  # the tracer's default
MAX_MESSAGE = 300
MEMORY_MB = 512
CPU_SECONDS = 5  # a backstop only: the caller kills this process after 2 s of wall time
ELLIPSIS = '…'
MAX_EXPRESSION_CHARS = 20_000
MAX_NODES = 5_000
# Bounds on what one operation may build (a second wall stays: the memory limit).
MAX_ITEMS = 10_000_000
MAX_INT_BITS = 1_000_000

NEURAL = 'not available in a neural session'

SAFE_TYPES = (str, bytes, int, float, complex, bool, list, tuple, dict, set, frozenset, type(None))
SAFE_TYPE_SET = frozenset(SAFE_TYPES)
SAFE_BUILTIN_NAMES = (
    'len', 'sum', 'min', 'max', 'sorted', 'abs', 'any', 'all', 'range', 'list', 'dict', 'set', 'frozenset',
    'tuple', 'str', 'bytes', 'int', 'float', 'complex', 'bool', 'repr', 'ascii', 'enumerate', 'zip', 'reversed',
    'round', 'divmod', 'pow', 'isinstance', 'chr', 'ord', 'hex', 'oct', 'bin', 'hash', 'format', 'callable',
    'map', 'filter', 'next', 'iter', 'slice',
)
SAFE_BUILTINS = {name: getattr(builtins, name) for name in SAFE_BUILTIN_NAMES}
SAFE_CONSTANTS = {'True': True, 'False': False, 'None': None}
# Methods of the value types that read attributes through their format fields ('{0.__class__}').
REFUSED_METHODS = {
    'format': 'str.format (its {…} fields can read attributes); use an f-string or %',
    'format_map': 'str.format_map (its {…} fields can read attributes); use an f-string or %',
}

MORE_LOCALS_KEY = '…'  # grammar/truncate.ts: the entry that stands for the locals left out


def _public_names(t):
    names = set()
    for base in t.__mro__:
        if base is not object:
            names.update(n for n in vars(base) if not n.startswith('_'))
    return frozenset(names - set(REFUSED_METHODS))


PUBLIC_NAMES = {t: _public_names(t) for t in SAFE_TYPES}
# Static methods (str.maketrans) are builtin functions bound to nothing: known by identity.
STATIC_METHODS = tuple(
    v for t in SAFE_TYPES for n in PUBLIC_NAMES[t]
    for v in (getattr(t, n),) if type(v) is types.BuiltinFunctionType and v.__self__ is None
)
METHOD_TYPES = (types.MethodDescriptorType, types.ClassMethodDescriptorType, types.WrapperDescriptorType)


class Refused(Exception):
    """What the walker does not evaluate; the message is the user's."""


def refuse(what):
    raise Refused(f'{NEURAL}: {what}')


def _limit_resources():
    # Hard limits: nothing in this process may raise them again.
    for which, limit in ((resource.RLIMIT_CPU, CPU_SECONDS), (resource.RLIMIT_AS, MEMORY_MB * 1024 * 1024)):
        soft, hard = resource.getrlimit(which)
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(which, (limit, limit))
        elif soft == resource.RLIM_INFINITY or soft > hard:
            resource.setrlimit(which, (hard, hard))


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


def is_safe_callable(f):
    """A builtin from the list, a safe type, or a method of a builtin value (or of its type)."""
    if any(f is b for b in SAFE_BUILTINS.values()) or any(f is m for m in STATIC_METHODS):
        return True
    if type(f) is types.BuiltinMethodType:
        owner = f.__self__
        if type(owner) in SAFE_TYPE_SET or (type(owner) is type and owner in SAFE_TYPE_SET):
            return f.__name__ in PUBLIC_NAMES[type(owner) if type(owner) in SAFE_TYPE_SET else owner]
        return False
    if type(f) in METHOD_TYPES:
        return f.__objclass__ in SAFE_TYPE_SET and f.__name__ in PUBLIC_NAMES[f.__objclass__]
    return False


def _describe_callable(f):
    name = getattr(f, '__qualname__', None) or getattr(f, '__name__', None) or type(f).__name__
    return f'calling {name}' if isinstance(name, str) else 'calling this value'


def _is_seq(v):
    return isinstance(v, (str, bytes, list, tuple))


def _check_size(n):
    if n > MAX_ITEMS:
        refuse(f'a result of {n:,} items (at most {MAX_ITEMS:,})')


def _check_int_bits(bits):
    if bits > MAX_INT_BITS:
        refuse(f'an integer of about {int(bits):,} bits (at most {MAX_INT_BITS:,})')


def _mul(a, b):
    if _is_seq(a) and isinstance(b, int):
        _check_size(len(a) * max(b, 0))
    elif _is_seq(b) and isinstance(a, int):
        _check_size(len(b) * max(a, 0))
    elif type(a) is int and type(b) is int:
        _check_int_bits(a.bit_length() + b.bit_length())
    return a * b


def _pow(a, b, *mod):
    if not mod and isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
        _check_int_bits(b * math.log2(abs(a)))
    return pow(a, b, *mod)


def _lshift(a, b):
    if isinstance(a, int) and isinstance(b, int) and a != 0:
        _check_int_bits(a.bit_length() + max(b, 0))
    return a << b


def _range(*args):
    r = range(*args)
    try:
        n = len(r)
    except OverflowError:
        n = MAX_ITEMS + 1
    if n > MAX_ITEMS:
        refuse(f'a range of more than {MAX_ITEMS:,} numbers')
    return r


def _iter(*args):
    if len(args) != 1:
        refuse('iter with a sentinel (it calls a function until it answers the sentinel)')
    return iter(args[0])


def _bytes(*args, **kwargs):
    if len(args) == 1 and isinstance(args[0], int):
        _check_size(args[0])
    return bytes(*args, **kwargs)


# Calls of these builtins go through a bounded version.
BOUNDED_CALLS = {id(range): _range, id(pow): _pow, id(iter): _iter, id(bytes): _bytes}

BIN_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: _mul, ast.MatMult: operator.matmul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: _pow,
    ast.LShift: _lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
}
UNARY_OPS = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Invert: operator.invert, ast.Not: operator.not_}
COMPARE_OPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
REFUSED_NODES = {
    ast.Lambda: 'lambda (an expression over the state only, no functions)',
    ast.NamedExpr: 'assignment with := (the state is not changed by looking at it)',
    ast.Await: 'await', ast.Yield: 'yield', ast.YieldFrom: 'yield from',
}


class NameUnknown(Exception):
    def __init__(self, name):
        super().__init__(name)
        self.name = name


class SafeEvaluator:
    def __init__(self, values, unusable):
        self.values = values
        self.unusable = unusable

    def evaluate(self, tree):
        return self.eval(tree.body, {})

    # ---- nodes -----------------------------------------------------------------------------

    def eval(self, node, scope):
        method = getattr(self, f'_{type(node).__name__}', None)
        if method is None:
            refuse(REFUSED_NODES.get(type(node), f'{type(node).__name__} expressions'))
        return method(node, scope)

    def _Constant(self, node, scope):
        return node.value

    def _Name(self, node, scope):
        name = node.id
        # The state's own names first: pdb's __return__ is a local like any other.
        if name in scope:
            return scope[name]
        if name in self.values:
            return self.values[name]
        if name in self.unusable:
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
        if type(obj) in SAFE_TYPE_SET:
            owner, what = type(obj), f'{type(obj).__name__} value'
        elif type(obj) is type and obj in SAFE_TYPE_SET:
            owner, what = obj, f'{obj.__name__} type'
        else:
            refuse(f'the attributes of a value of type {type(obj).__name__} (only those of str, bytes, int, float, list, tuple, dict and set values are)')
        if name in REFUSED_METHODS and name in dir(owner):
            refuse(REFUSED_METHODS[name])
        if name not in PUBLIC_NAMES[owner]:
            raise AttributeError(f"a {what} has no attribute '{name}'")
        return getattr(obj, name)

    def _Subscript(self, node, scope):
        obj = self.eval(node.value, scope)
        if isinstance(obj, type):
            refuse(f'subscripting the type {obj.__name__}')
        return obj[self.eval(node.slice, scope)]

    def _Slice(self, node, scope):
        part = lambda n: None if n is None else self.eval(n, scope)  # noqa: E731
        return slice(part(node.lower), part(node.upper), part(node.step))

    def _BinOp(self, node, scope):
        left = self.eval(node.left, scope)
        right = self.eval(node.right, scope)
        # %-formatting ('%(k)s' % d) reads items and str(), never attributes.
        return BIN_OPS[type(node.op)](left, right)

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
        return tuple(self._elements(node.elts, scope))

    def _List(self, node, scope):
        return self._elements(node.elts, scope)

    def _Set(self, node, scope):
        return set(self._elements(node.elts, scope))

    def _Dict(self, node, scope):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(self.eval(v, scope))
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
        return format(value, spec)

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
                    raise TypeError(f'argument after ** must be a dict, not {type(more).__name__}')
                kwargs.update(more)
            else:
                kwargs[kw.arg] = self.eval(kw.value, scope)
        for a in (*args, *kwargs.values()):
            if callable(a) and not is_safe_callable(a):
                refuse(f'passing {_describe_callable(a)[len("calling "):]} to a function')
        return BOUNDED_CALLS.get(id(f), f)(*args, **kwargs)

    # ---- comprehensions ----------------------------------------------------------------------

    def _comprehension(self, generators, scope, emit):
        def run(i, inner):
            if i == len(generators):
                emit(inner)
                return
            g = generators[i]
            if g.is_async:
                refuse('async comprehensions')
            for item in self.eval(g.iter, inner):
                bound = dict(inner)
                self.assign(g.target, item, bound)
                if all(self.eval(cond, bound) for cond in g.ifs):
                    run(i + 1, bound)
        run(0, scope)

    def assign(self, target, value, scope):
        if isinstance(target, ast.Name):
            scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(value)
            starred = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
            if not starred:
                if len(items) != len(target.elts):
                    raise ValueError(f'cannot unpack {len(items)} values into {len(target.elts)} names')
                for t, v in zip(target.elts, items):
                    self.assign(t, v, scope)
                return
            s = starred[0]
            after = len(target.elts) - s - 1
            if len(items) < s + after:
                raise ValueError(f'not enough values to unpack (expected at least {s + after}, got {len(items)})')
            for t, v in zip(target.elts[:s], items[:s]):
                self.assign(t, v, scope)
            self.assign(target.elts[s].value, items[s:len(items) - after], scope)
            for t, v in zip(target.elts[s + 1:], items[len(items) - after:]):
                self.assign(t, v, scope)
        else:
            refuse(f'assigning to a {type(target).__name__} in a comprehension')

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

        def gen():
            def walk(i, inner, it):
                if i == len(gens):
                    yield self.eval(node.elt, inner)
                    return
                g = gens[i]
                if g.is_async:
                    refuse('async comprehensions')
                for item in (it if it is not None else self.eval(g.iter, inner)):
                    bound = dict(inner)
                    self.assign(g.target, item, bound)
                    if all(self.eval(cond, bound) for cond in g.ifs):
                        yield from walk(i + 1, bound, None)
            yield from walk(0, scope, first)
        g = gen()
        g.__name__ = g.__qualname__ = '<genexpr>'
        return g


def _check_tree(tree):
    count = 0
    for node in ast.walk(tree):
        count += 1
        if count > MAX_NODES:
            refuse(f'an expression of more than {MAX_NODES:,} parts')
        if type(node) in REFUSED_NODES:
            refuse(REFUSED_NODES[type(node)])


def _name_error(name, locals_):
    more = locals_.get(MORE_LOCALS_KEY)
    note = f' (the predicted state leaves out {more.lstrip("+")} locals)' if more else ''
    return f"NameError: name '{name}' is not defined{note}"


def evaluate(expression, locals_):
    values, unusable = namespace(locals_)
    if len(expression) > MAX_EXPRESSION_CHARS:
        return {'kind': 'error', 'message': f'{NEURAL}: an expression of more than {MAX_EXPRESSION_CHARS:,} characters'}
    try:
        tree = ast.parse(expression.strip(), '<expression>', mode='eval')
        # compile() checks what the parser lets through ('yield' outside a function, …).
        compile(tree, '<expression>', 'eval', dont_inherit=True)
    except SyntaxError as e:
        return {'kind': 'error', 'message': _cap(f'SyntaxError: {e.msg}')}
    except (ValueError, RecursionError, MemoryError) as e:
        return {'kind': 'error', 'message': _cap(f'SyntaxError: {e or type(e).__name__}')}
    try:
        _check_tree(tree)
        value = SafeEvaluator(values, unusable).evaluate(tree)
        if isinstance(value, types.GeneratorType):
            value.close()
    except Refused as e:
        return {'kind': 'error', 'message': _cap(str(e))}
    except NameUnknown as e:
        return {'kind': 'error', 'message': _cap(_name_error(e.name, locals_))}
    except MemoryError:
        return {'kind': 'error', 'message': f'MemoryError: the expression needs more than {MEMORY_MB} MiB'}
    except RecursionError:
        return {'kind': 'error', 'message': f'{NEURAL}: an expression nested this deeply'}
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
