#!/usr/bin/env python3
"""Random cases for the differential test of the expression walker (test/python-semantics.test.ts).

    PYTHONHASHSEED=0 python3 test/python-semantics/generate.py [--seed N] [--count PER_FAMILY] [--family NAME ...]

prints {"families": {NAME: {"expectRefusal": BOOL, "cases": [CASE, ...]}}} where a case is

    {"op": "evaluate", "expression": TEXT, "locals": {NAME: REPR}, "modules"?: {...}, "names"?: {...},
     "expected": {"kind": "value", "repr", "type"} | {"kind": "raised", "type"}}
    {"op": "execute", "statement": TEXT, ..., "expected": {"kind": "changed", "locals": {NAME: REPR}} | raised}

The ground truth is plain CPython: eval() and exec() of the same text over the values the locals'
reprs stand for (rebuilt here with eval, test code only), with the real modules bound. Reprs are
tracer.py's. The families that cover a whitelist read it from semantics/pure.py and check that
every allowed name has a case generator here: a name added there without one fails the test.
PYTHONHASHSEED must be the walker's (0): a set of strings iterates in hash order.
"""
import argparse
import ast
import builtins
import collections
import datetime
import itertools
import json
import math
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'semantics'))
sys.path.insert(0, os.path.join(ROOT, 'tracer'))
import pure  # noqa: E402
from tracer import Reprs  # noqa: E402

REPRS = Reprs(1000)
MODULES = {name: __import__(name) for name in pure.MODULES}


# ---- values ---------------------------------------------------------------------------------

WORDS = [
    'apple', 'Banana', 'cherry', 'a', '', ' a,b ', 'x y  z', 'Hello World', 'hello world', 'ß', 'straße',
    'İstanbul', '123', '3.5', '-7', 'a\tb\tc', 'line1\nline2\r\nline3', 'abcabc', 'AbC', 'ǅungla', '١٢٣', '½',
    'MiXeD cAsE', 'snake_case', 'kebab-case', 'x=1;y=2', '  padded  ', 'ab,cd,,ef', 'é', '\u00a0nbsp', 'a.b.c',
    '0x1f', 'True', 'title Case words', "it's", 'quote"d', 'ÀÉÎ', 'tab\tend', '::', 'aaa', 'mississippi',
]
CHARS = 'abcABC ,.-_1x\t'


class R(random.Random):
    def word(self):
        if self.random() < 0.7:
            return self.choice(WORDS)
        return ''.join(self.choice(CHARS) for _ in range(self.randint(0, 8)))

    def small(self, lo=-5, hi=12):
        return self.randint(lo, hi)

    def num(self):
        return self.choice([self.small(), self.small(), self.choice([0.0, -0.0, 1.5, 3.14159, -2.5, 1e-5, 1e20, 0.1, 7.0, 2.675]),
                            self.randint(-10**6, 10**6)])

    def ints(self, lo=0, hi=6, a=-5, b=12):
        return [self.small(a, b) for _ in range(self.randint(lo, hi))]

    def words(self, lo=0, hi=5):
        return [self.word() for _ in range(self.randint(lo, hi))]

    def scalar(self):
        return self.choice([self.small(), self.word(), self.choice([None, True, False, 2.5])])

    def mixed(self, lo=0, hi=5):
        return [self.scalar() for _ in range(self.randint(lo, hi))]

    def sub_of(self, s):
        if s and self.random() < 0.6:
            i = self.randint(0, len(s) - 1)
            return s[i:i + self.randint(0, 3)]
        return self.choice(['a', 'b', ',', ' ', 'x', '', 'ab', 'an', 'ss', '\n', 'l'])

    def index(self, n=6):
        return self.randint(-n - 1, n + 1)

    def maybe(self, p=0.5):
        return self.random() < p


def lit(v):
    """Source text for a scalar (inf and nan have no literal)."""
    if isinstance(v, float) and not math.isfinite(v):
        return f"float('{v}')"
    return repr(v)


# ---- the ground truth -----------------------------------------------------------------------

_DEFAULTDICT = re.compile(r"defaultdict\(<class '(\w+)'>, ")
REBUILD_NS = {
    '__builtins__': builtins, 'inf': math.inf, 'nan': math.nan, 'Counter': collections.Counter,
    'OrderedDict': collections.OrderedDict, 'deque': collections.deque, 'defaultdict': collections.defaultdict,
    'datetime': datetime, 're': re,
}


def rebuild(text):
    """The value a repr stands for. Sets as ast.literal_eval builds them (set(items), in the
    repr's order): a set display of constants compiles to another construction, whose strings
    may iterate in another order."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    return _value(ast.parse(_DEFAULTDICT.sub(r'defaultdict(\1, ', text), mode='eval').body)


def _value(node):
    if isinstance(node, ast.Set):
        return set(_value(e) for e in node.elts)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Call):
        return _value(node.func)(*map(_value, node.args), **{k.arg: _value(k.value) for k in node.keywords})
    if isinstance(node, ast.Attribute):
        return getattr(_value(node.value), node.attr)
    if isinstance(node, ast.Name):
        return REBUILD_NS[node.id] if node.id in REBUILD_NS else getattr(builtins, node.id)
    return eval(compile(ast.Expression(node), '<repr>', 'eval'), dict(REBUILD_NS))


def bindings(modules, names):
    out = {alias: MODULES[m] for alias, m in (modules or {}).items()}
    for name, dotted in (names or {}).items():
        module, _, attr = dotted.rpartition('.')
        out[name] = getattr(MODULES[module], attr)
    return out


class Recording(dict):
    """The names a statement binds (STORE_NAME on a dict subclass goes through __setitem__)."""
    def __init__(self, *a):
        super().__init__(*a)
        self.stored = []

    def __setitem__(self, k, v):
        if k not in self.stored:
            self.stored.append(k)
        super().__setitem__(k, v)


def has_address(text):
    return ' at 0x' in text or 'object at' in text


def truth(case):
    """CPython's answer to a case, or None if it is not one to compare (an address in a repr)."""
    values = {k: rebuild(v) for k, v in case['locals'].items()}
    env = bindings(case.get('modules'), case.get('names'))
    if case['op'] == 'evaluate':
        g = {'__builtins__': builtins, **env, **values}
        try:
            value = eval(case['expression'], g)
            if hasattr(value, '__next__') and not isinstance(value, (str, bytes)):
                return None  # an iterator: its repr has an address
            text = REPRS(value)
        except Exception as e:  # noqa: BLE001
            return {'kind': 'raised', 'type': type(e).__name__}
        if has_address(text) or text.startswith('<repr failed'):
            return None
        return {'kind': 'value', 'repr': text, 'type': type(value).__name__}
    before = {k: repr(v) for k, v in values.items()}
    g = Recording({'__builtins__': builtins, **env, **values})
    g.stored.clear()
    try:
        exec(case['statement'], g)
    except Exception as e:  # noqa: BLE001
        return {'kind': 'raised', 'type': type(e).__name__}
    names = [n for n in g.stored if not n.startswith('__')]
    names += [n for n in before if n not in names and repr(g[n]) != before[n]]
    out = {n: REPRS(g[n]) for n in names}
    if any(has_address(t) for t in out.values()):
        return None
    return {'kind': 'changed', 'locals': out}


# ---- families ---------------------------------------------------------------------------------

def check_covers(family, specs, *names):
    wanted = frozenset().union(*names)
    missing, extra = wanted - set(specs), set(specs) - wanted
    if missing or extra:
        raise SystemExit(f'{family}: the generator has no case for {sorted(missing)} of semantics/pure.py'
                         + (f' and cases for {sorted(extra)} it does not list' if extra else ''))


def L(**values):
    """Locals as the tracer writes them."""
    return {k: REPRS(v) for k, v in values.items()}


def str_family(r):
    s = r.word()
    t = r.word()
    sub = lambda: lit(r.sub_of(s))  # noqa: E731
    w = lambda: str(r.randint(-2, 24))  # noqa: E731
    fill = lambda: lit(r.choice(['*', '-', ' ', '0', 'ab']))  # noqa: E731
    rng = lambda: ', '.join(str(r.index(len(s))) for _ in range(r.randint(0, 2)))  # noqa: E731
    enc = lambda: lit(r.choice(['utf-8', 'ascii', 'latin-1', 'utf-16-le', 'cp1252']))  # noqa: E731
    specs = {
        'capitalize': lambda: '', 'casefold': lambda: '', 'lower': lambda: '', 'upper': lambda: '',
        'swapcase': lambda: '', 'title': lambda: '', 'isalnum': lambda: '', 'isalpha': lambda: '',
        'isascii': lambda: '', 'isdecimal': lambda: '', 'isdigit': lambda: '', 'isidentifier': lambda: '',
        'islower': lambda: '', 'isnumeric': lambda: '', 'isprintable': lambda: '', 'isspace': lambda: '',
        'istitle': lambda: '', 'isupper': lambda: '',
        'center': lambda: r.choice([w(), f'{w()}, {fill()}']),
        'ljust': lambda: r.choice([w(), f'{w()}, {fill()}']),
        'rjust': lambda: r.choice([w(), f'{w()}, {fill()}']),
        'zfill': w,
        'count': lambda: f'{sub()}' + (f', {rng()}' if r.maybe() and rng() else ''),
        'find': lambda: sub() + (f', {r.index(len(s))}' if r.maybe() else ''),
        'rfind': lambda: sub() + (f', {r.index(len(s))}' if r.maybe() else ''),
        'index': lambda: sub() + (f', {r.index(len(s))}, {r.index(len(s))}' if r.maybe(0.3) else ''),
        'rindex': lambda: sub() + (f', {r.index(len(s))}' if r.maybe(0.3) else ''),
        'encode': lambda: r.choice(['', enc(), f"{enc()}, {lit(r.choice(['ignore', 'replace', 'xmlcharrefreplace', 'backslashreplace', 'strict']))}"]),
        'endswith': lambda: r.choice([sub(), f'({sub()}, {sub()})', f'{sub()}, {r.index(len(s))}']),
        'startswith': lambda: r.choice([sub(), f'({sub()}, {sub()})', f'{sub()}, {r.index(len(s))}, {r.index(len(s))}']),
        'expandtabs': lambda: r.choice(['', str(r.randint(0, 9))]),
        'join': lambda: r.choice([lit(r.words()), 't', lit([1, 2]), 'sorted(t)', f'[s, t, {lit(r.word())}]']),
        'lstrip': lambda: r.choice(['', sub(), 'None', "' a'"]),
        'rstrip': lambda: r.choice(['', sub(), 'None', "' a'"]),
        'strip': lambda: r.choice(['', sub(), 'None', "' ,'"]),
        'partition': lambda: r.choice([sub(), "''"]),
        'rpartition': lambda: r.choice([sub(), "''"]),
        'removeprefix': sub, 'removesuffix': sub,
        'replace': lambda: f'{sub()}, {lit(r.choice(["", "-", "XY"]))}' + (f', {r.randint(-1, 3)}' if r.maybe(0.3) else ''),
        'split': lambda: r.choice(['', sub(), f'{sub()}, {r.randint(-1, 3)}', f'None, {r.randint(0, 2)}', 'maxsplit=1']),
        'rsplit': lambda: r.choice(['', sub(), f'{sub()}, {r.randint(-1, 3)}', f'None, {r.randint(0, 2)}']),
        'splitlines': lambda: r.choice(['', 'True', 'keepends=False']),
        'translate': lambda: r.choice(["str.maketrans('ab', 'xy')", "{97: 'A', 98: None}", "str.maketrans('', '', 'aeiou')", '{}']),
        'maketrans': None,
    }
    check_covers('str', specs, pure.VALUE_ATTRIBUTES[str], pure.CLASS_ATTRIBUTES[str])
    name = r.choice(sorted(specs))
    if name == 'maketrans':
        expr = r.choice(["str.maketrans('abc', 'xyz')", "str.maketrans({'a': 'b', 'c': None})", "str.maketrans('ab', 'c')",
                         "str.maketrans('a', 'b', 'cd')", "s.maketrans('x', 'y')", "str.maketrans({1: 'a'})"])
    else:
        call = f'{name}({specs[name]()})'
        form = r.randint(0, 9)
        if form < 6:
            expr = f's.{call}'
        elif form == 6:
            expr = f'{lit(r.word())}.{call}'
        elif form == 7:
            expr = f's.{call}.{r.choice(["upper()", "split()", "strip()", "count(" + lit(r.sub_of(s)) + ")"])}' if name not in ('encode',) and not name.startswith('is') and name not in ('count', 'find', 'rfind', 'index', 'rindex', 'partition', 'rpartition', 'split', 'rsplit', 'splitlines', 'endswith', 'startswith') else f'len(s.{call})'
        elif form == 8:
            expr = f'str.{name}(s{", " + specs[name]() if specs[name]() else ""})'
        else:
            expr = r.choice([f's[{r.index(len(s))}:{r.index(len(s))}:{r.choice([1, -1, 2])}]', f's * {r.randint(-1, 3)}',
                             's + t', 's in t', "'%s-%r' % (s, t)", 's < t', f's[{r.index(len(s))}]', 'sorted(s)',
                             "''.join(reversed(s))", 'list(s)', f'{lit(r.sub_of(s))} in s', 's == t.lower()', 'str(len(s)) + s'])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(s=s, t=t)}


def list_family(r):
    xs = r.choice([r.ints(), r.ints(), r.words(), r.mixed()])
    ys = r.choice([r.ints(), r.words(1, 3)])
    v = lambda: lit(r.choice(xs) if xs and r.maybe(0.6) else r.scalar())  # noqa: E731
    specs = {
        'append': v, 'clear': lambda: '', 'copy': lambda: '', 'count': v,
        'extend': lambda: r.choice(['ys', lit(r.ints(0, 3)), "'ab'", 'range(3)', '5']),
        'index': lambda: v() + (f', {r.index()}' if r.maybe(0.3) else ''),
        'insert': lambda: f'{r.index(8)}, {v()}',
        'pop': lambda: r.choice(['', str(r.index())]),
        'remove': v, 'reverse': lambda: '',
        'sort': lambda: r.choice(['', 'reverse=True', 'key=abs', 'key=str', 'key=lambda x: -x', 'key=len, reverse=True', 'key=repr']),
    }
    check_covers('list', specs, pure.VALUE_ATTRIBUTES[list])
    name = r.choice(sorted(specs))
    form = r.randint(0, 7)
    if form < 5:
        expr = f'(xs.{name}({specs[name]()}), xs)'
    elif form == 5:
        expr = f'list.{name}(xs{", " + specs[name]() if specs[name]() else ""})'
    else:
        expr = r.choice(['xs + ys', f'xs * {r.randint(-1, 3)}', f'xs[{r.index()}:{r.index()}]', f'xs[{r.index()}]', f'{v()} in xs',
                         'xs == ys', 'xs < ys', 'len(xs)', 'sum(xs)', 'sorted(xs)', 'list(enumerate(xs))', '[x * 2 for x in xs if x]',
                         'max(xs)', 'min(xs + ys)', 'list(zip(xs, ys))', 'xs[::-1]', '[*xs, *ys]', 'any(xs), all(xs)', 'list(reversed(xs))',
                         'xs.copy() is xs', 'sorted(set(xs))' if all(type(x) is int for x in xs) else 'xs[:]'])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(xs=xs, ys=ys)}


def dict_family(r):
    d = {r.choice(['a', 'b', 'c', 'k', 'key', 'z', 'ß']): r.small() for _ in range(r.randint(0, 5))}
    e = {r.choice(['a', 'b', 'q']): r.scalar() for _ in range(r.randint(0, 3))}
    k = lambda: lit(r.choice(list(d) + ['a', 'missing', 1]))  # noqa: E731
    specs = {
        'clear': lambda: '', 'copy': lambda: '', 'items': lambda: '', 'keys': lambda: '', 'values': lambda: '',
        'get': lambda: k() + (f', {lit(r.scalar())}' if r.maybe() else ''),
        'pop': lambda: k() + (f', {lit(r.scalar())}' if r.maybe(0.4) else ''),
        'popitem': lambda: '', 'setdefault': lambda: k() + (f', {lit(r.scalar())}' if r.maybe() else ''),
        'update': lambda: r.choice(['e', "[('x', 1)]", 'a=1, b=2', 'e, z=0', '[1]', "{'a': None}"]),
        'fromkeys': None,
    }
    check_covers('dict', specs, pure.VALUE_ATTRIBUTES[dict], pure.CLASS_ATTRIBUTES[dict])
    name = r.choice(sorted(specs))
    if name == 'fromkeys':
        expr = r.choice(["dict.fromkeys('abc')", 'dict.fromkeys(d, 0)', 'dict.fromkeys(e.values(), [])', 'd.fromkeys(range(3), True)', 'dict.fromkeys(5)'])
    elif name in ('items', 'keys', 'values'):
        expr = r.choice([f'list(d.{name}())', f'len(d.{name}())', f'sorted(d.{name}(), key=repr)', f'{k()} in d.{name}()']
                        + ([f'd.{name}() & e.{name}()', f'd.{name}().isdisjoint(e)', f'sorted(d.{name}() | {{1}}, key=repr)'] if name != 'values' else []))
    else:
        expr = f'(d.{name}({specs[name]()}), d)' if r.maybe(0.8) else f'dict.{name}(d{", " + specs[name]() if specs[name]() else ""})'
    if r.maybe(0.15):
        expr = r.choice([f'd[{k()}]', 'd | e', '{**d, **e}', 'sorted(d)', '{v: k for k, v in d.items()}', 'd == e', 'max(d, key=d.get)' if d else 'd',
                         'dict(zip(d, e))', 'list(d.items())[::-1]', f'{k()} in d'])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(d=d, e=e)}


def set_family(r):
    pool = r.choice([lambda: r.small(0, 8), lambda: r.choice(['a', 'b', 'c', 'xy', 'é'])])
    st = {pool() for _ in range(r.randint(0, 5))}
    fs = frozenset(pool() for _ in range(r.randint(0, 4)))
    other = lambda: r.choice(['fs', 'st', lit(sorted(pool() for _ in range(r.randint(0, 3)))), "'ab'", 'range(4)', '5', 'fs, st'])  # noqa: E731
    v = lambda: lit(pool())  # noqa: E731
    set_specs = {
        'add': v, 'clear': lambda: '', 'copy': lambda: '', 'discard': v, 'remove': v, 'pop': lambda: '',
        'difference': other, 'difference_update': other, 'intersection': other, 'intersection_update': other,
        'isdisjoint': other, 'issubset': other, 'issuperset': other, 'symmetric_difference': other,
        'symmetric_difference_update': other, 'union': other, 'update': other,
    }
    check_covers('set', set_specs, pure.VALUE_ATTRIBUTES[set])
    fs_specs = {n: set_specs[n] for n in ('copy', 'difference', 'intersection', 'isdisjoint', 'issubset', 'issuperset', 'symmetric_difference', 'union')}
    check_covers('frozenset', fs_specs, pure.VALUE_ATTRIBUTES[frozenset])
    form = r.randint(0, 9)
    if form < 5:
        name = r.choice(sorted(set_specs))
        expr = f'(st.{name}({set_specs[name]()}), st)'
    elif form < 8:
        name = r.choice(sorted(fs_specs))
        expr = f'fs.{name}({fs_specs[name]()})' if r.maybe(0.8) else f'frozenset.{name}(fs, {fs_specs[name]()})'
    else:
        expr = r.choice(['st | fs', 'fs | st', 'st & fs', 'fs - st', 'st ^ fs', 'st <= fs', 'fs < st', 'st == fs', 'len(st | fs)',
                         'sorted(st, key=repr)', '{x for x in fs if x}', 'frozenset(st)', 'set(fs)', f'{v()} in fs', 'fs | {1}',
                         'st - {1, 2}', 'hash(fs) == hash(frozenset(fs))', '{*st, *fs}', 'min(fs, default=None)'])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(st=st, fs=fs)}


def tuple_family(r):
    t = tuple(r.choice([r.ints(), r.words(), r.mixed()]))
    u = tuple(r.ints(0, 3))
    v = lambda: lit(r.choice(t) if t and r.maybe(0.6) else r.scalar())  # noqa: E731
    specs = {'count': v, 'index': lambda: v() + (f', {r.index()}' if r.maybe(0.3) else '')}
    check_covers('tuple', specs, pure.VALUE_ATTRIBUTES[tuple])
    if r.maybe(0.6):
        name = r.choice(sorted(specs))
        expr = f't.{name}({specs[name]()})' if r.maybe(0.8) else f'tuple.{name}(t, {specs[name]()})'
    else:
        expr = r.choice(['t + u', f't * {r.randint(-1, 3)}', f't[{r.index()}:{r.index()}]', f't[{r.index()}]', 't < u', 't == u',
                         'len(t)', 'tuple(sorted(u))', '(*t, *u)', 't[::-1]', 'hash(t) == hash(tuple(t))', f'{v()} in t', 'max(u, default=-1)',
                         'tuple(x for x in t if x)', 'dict(enumerate(t))', '(t, u)', 't + (1,)', 'list(zip(t, u))'])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(t=t, u=u)}


def bytes_family(r):
    b = r.word().encode('utf-8')
    c = r.choice([b'ab', b'', b'\x00\xff', b'hello world', b'a,b,c', b'  x  '])
    sub = lambda: lit(r.choice([b[i:i + 2] for i in range(len(b))] + [b'a', b',', b'']))  # noqa: E731
    w = lambda: str(r.randint(-1, 20))  # noqa: E731
    specs = {n: (lambda: '') for n in ('capitalize', 'isalnum', 'isalpha', 'isascii', 'isdigit', 'islower', 'isspace',
                                      'istitle', 'isupper', 'lower', 'swapcase', 'title', 'upper', 'splitlines', 'hex')}
    specs.update({
        'center': lambda: r.choice([w(), f"{w()}, b'*'"]), 'ljust': w, 'rjust': lambda: f"{w()}, b'0'", 'zfill': w,
        'count': sub, 'find': sub, 'rfind': sub, 'index': sub, 'rindex': sub, 'endswith': sub, 'startswith': sub,
        'decode': lambda: r.choice(['', "'ascii'", "'latin-1'", "'utf-8', 'replace'", "'ascii', 'ignore'"]),
        'expandtabs': lambda: str(r.randint(0, 8)), 'join': lambda: r.choice(['[b, c]', "[b'x', b'y']", '[1]']),
        'lstrip': lambda: r.choice(['', sub()]), 'rstrip': lambda: r.choice(['', sub()]), 'strip': lambda: r.choice(['', sub()]),
        'partition': sub, 'rpartition': sub, 'removeprefix': sub, 'removesuffix': sub,
        'replace': lambda: f"{sub()}, b'-'", 'split': lambda: r.choice(['', sub(), f'{sub()}, 1']), 'rsplit': lambda: r.choice(['', sub()]),
        'translate': lambda: r.choice(["bytes.maketrans(b'ab', b'xy')", 'None', "None, b'a'"]),
        'fromhex': None, 'maketrans': None,
    })
    check_covers('bytes', specs, pure.VALUE_ATTRIBUTES[bytes], pure.CLASS_ATTRIBUTES[bytes])
    name = r.choice(sorted(specs))
    if name == 'fromhex':
        expr = r.choice(["bytes.fromhex('de ad be ef')", "bytes.fromhex('zz')", 'bytes.fromhex(b.hex())'])
    elif name == 'maketrans':
        expr = r.choice(["bytes.maketrans(b'ab', b'cd')", "bytes.maketrans(b'a', b'cd')"])
    else:
        expr = f'b.{name}({specs[name]()})'
    if r.maybe(0.15):
        expr = r.choice(['b + c', 'b * 2', 'b[0]', 'b[1:3]', 'list(c)', 'bytes(3)', 'bytes([65, 66])', 'len(b)', 'b < c', "b'%s=%d' % (c, 3)"])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(b=b, c=c)}


def numbers_family(r):
    n = r.choice([r.small(), r.randint(-10**12, 10**12), True, 0])
    x = r.choice([1.5, -0.0, 3.0, 1e300, 0.1, float('inf'), float('nan'), -2.75, 1e-310])
    int_specs = {
        'as_integer_ratio': lambda: '', 'bit_count': lambda: '', 'bit_length': lambda: '', 'conjugate': lambda: '',
        'denominator': None, 'imag': None, 'numerator': None, 'real': None, 'is_integer': lambda: '',
        'to_bytes': lambda: r.choice(['2, "big"', '8, "little", signed=True', '1', '(n.bit_length() + 7) // 8 or 1, "big", signed=n < 0']),
        'from_bytes': None,
    }
    if 'is_integer' not in pure.VALUE_ATTRIBUTES[int]:  # Python 3.12's
        del int_specs['is_integer']
    check_covers('int', int_specs, pure.VALUE_ATTRIBUTES[int], pure.CLASS_ATTRIBUTES[int])
    float_specs = {'as_integer_ratio': lambda: '', 'conjugate': lambda: '', 'hex': lambda: '', 'is_integer': lambda: '',
                   'imag': None, 'real': None, 'fromhex': None}
    check_covers('float', float_specs, pure.VALUE_ATTRIBUTES[float], pure.CLASS_ATTRIBUTES[float])
    form = r.randint(0, 4)
    if form < 2:
        name = r.choice(sorted(int_specs))
        if name == 'from_bytes':
            expr = r.choice(["int.from_bytes(b'\\x01\\x00', 'big')", "int.from_bytes(b'\\xff', 'little', signed=True)", 'int.from_bytes([1, 2], "big")'])
        else:
            expr = f'n.{name}' if int_specs[name] is None else f'n.{name}({int_specs[name]()})'
    elif form < 4:
        name = r.choice(sorted(float_specs))
        if name == 'fromhex':
            expr = r.choice(["float.fromhex('0x1.8p1')", 'float.fromhex(x.hex())', "float.fromhex('nope')"])
        else:
            expr = f'x.{name}' if float_specs[name] is None else f'x.{name}()'
    else:
        expr = r.choice(['n // 3, n % 3', 'divmod(n, -7)', 'n / 0', 'x // 0.5', 'round(x, 1)', 'round(n, -2)', 'int(x)', 'abs(n) ** 3',
                         'n << 3', 'n >> 2', '~n', 'n & 0xff', 'x * n', 'complex(n, 2).conjugate()', '(3+4j).real', 'hex(n)', 'bin(n)',
                         'oct(n)', 'float(n) == n', 'x == x', 'x < n', 'pow(n, 2, 7)', 'pow(2, -1)', 'str(x)', 'int("42") + n', 'int("x1")',
                         'float("1e3")', 'round(2.5), round(3.5)', 'bool(x)', 'n.real + x.imag'])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(n=n, x=x)}


def fstring_family(r):
    n = r.choice([r.small(), r.randint(-10**6, 10**6), 255, 0])
    x = r.choice([3.14159, -0.5, 1e20, 0.0, 2.675, 1234.5678, float('inf')])
    s = r.word()
    w = r.randint(0, 12)
    p = r.randint(0, 6)
    fields = [
        '{n}', '{n!r}', '{n:+05d}', '{n:x}', '{n:#o}', '{n:,}', '{n:_b}', '{n:>{w}}', '{n:c}' if 0 <= n < 0x110000 else '{n:d}',
        '{x}', '{x:.2f}', '{x:.{p}f}', '{x:e}', '{x:.3g}', '{x:%}', '{x:>{w}.{p}}', '{x:08.3f}', '{x:,.2f}', '{x:d}',
        '{s}', '{s!r}', '{s!a}', '{s:^{w}}', '{s:*<8}', '{s!r:>{w}}', '{s:.3}', '{s:d}', '{s=}', '{n = }', '{x=:.1f}',
        '{n * 2:08.3f}', '{"yes" if n else "no"}', "{s.upper()!r}", '{len(s):03}', '{[n, s]}', '{ {n: s} }', '{{literal}}',
        '{n:{w}d}', '{x:{"<" if n else ">"}{w}}', '{s[:2]}{s[-1:]}', '{n:=+8}', '{x:.0%}', '{n:#_x}', '{x:g}', '{n!s:>4}',
    ]
    text = ''.join(r.choice(['', ' ', '|', 'v=', '-']) + r.choice(fields) for _ in range(r.randint(1, 3)))
    quote = "'" if "'" not in text else '"'
    if r.maybe(0.1):
        text = f'{{f"{{n}}-{{s!r}}"}}'
        quote = "'"
    return {'op': 'evaluate', 'expression': f'f{quote}{text}{quote}', 'locals': L(n=n, x=x, s=s, w=w, p=p)}


def keys_family(r):
    xs = r.ints(0, 6, -9, 9)
    words = r.words(0, 5)
    pairs = [(r.word()[:3], r.small()) for _ in range(r.randint(0, 5))]
    d = {r.choice('abcdef'): r.small() for _ in range(r.randint(0, 5))}
    k = r.randint(1, 4)
    num_keys = ['lambda x: -x', 'abs', 'lambda x: x % k', 'lambda x: (x % 2, -x)', 'lambda v: v * v', 'str', 'lambda x: [x]', 'lambda x: 1 / x']
    word_keys = ['len', 'str.lower', 'lambda w: (len(w), w)', 'lambda w: w[::-1]', 'lambda w: w.count("a")', 'lambda w: w[0]', 'repr']
    pair_keys = ['lambda p: p[1]', 'lambda p: (-p[1], p[0])', 'lambda p: p[0]', 'lambda kv: kv[1] % k']
    choice = r.randint(0, 12)
    rev = r.choice(['', ', reverse=True', ', reverse=False'])
    if choice < 3:
        seq, key = r.choice([('xs', num_keys), ('words', word_keys), ('pairs', pair_keys)])
        expr = f'sorted({seq}, key={r.choice(key)}{rev})'
    elif choice < 6:
        seq, key = r.choice([('xs', num_keys), ('words', word_keys), ('pairs', pair_keys)])
        fn = r.choice(['min', 'max'])
        extra = r.choice(['', ', default=None', ''])
        expr = f'{fn}({seq}, key={r.choice(key)}{extra})'
    elif choice == 6:
        expr = r.choice(['max(d, key=d.get)', 'min(d, key=lambda c: d[c])', 'sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))',
                         'sorted(d, key=d.get, reverse=True)', 'max(d.values(), default=0)', 'min(d.items(), key=lambda kv: kv[1])[0]'])
    elif choice == 7:
        expr = f'list(map({r.choice(["lambda x: x * 2", "lambda x: x * k", "str", "abs", "lambda x: (x, x % k)"])}, xs))'
    elif choice == 8:
        expr = f'list(filter({r.choice(["lambda x: x > 0", "lambda x: x % k", "None", "bool", "lambda x: x in (1, 2)"])}, xs))'
    elif choice == 9:
        expr = r.choice(['(lambda a, b: a + b)(k, 2)', '(lambda: k)()', '(lambda x: x * 2)(words)', '(lambda a, b: a * b)(k)',
                         '(lambda x, y: x - y)(y=1, x=k)', '(lambda s: s.upper())(" ".join(words))', '[f(k) for f in (lambda v: v + 1, abs, str)]',
                         '(lambda f: f(f(k)))(lambda v: v * 3)', 'list(map(lambda a, b: a * b, xs, xs[::-1]))', '(lambda x: x)(1, 2)'])
    elif choice == 10:
        expr = f'(xs.sort(key={r.choice(num_keys)}{rev}), xs)[1]'
    elif choice == 11:
        expr = r.choice(['[(lambda: i)() for i in range(3)]', '[g() for g in [lambda: i for i in range(3)]]', 'sorted(words, key=lambda w: (w.lower(), w))',
                         'max(words, key=len, default="")', 'min(xs, default=0, key=abs)', 'max(1, 2, key=lambda v: -v)', 'min(3, 1, 2)', 'max([])',
                         'sorted(pairs, key=lambda p: p[1], reverse=True)[:2]', 'sorted(map(lambda p: p[1], pairs))'])
    else:
        expr = f'sorted(set(map(lambda x: x % k, xs)){rev})'
    return {'op': 'evaluate', 'expression': expr, 'locals': L(xs=xs, words=words, pairs=pairs, d=d, k=k)}


def _module_case(r, module, expr_of):
    """A case over module `module`, imported as the program might have: plain, aliased, or from-imported."""
    how = r.randint(0, 5)
    if how <= 3:
        alias = module
        modules = {module: module}
    elif how == 4:
        alias = {'math': 'm', 're': 'regex', 'json': 'js', 'datetime': 'dt', 'collections': 'co', 'itertools': 'it', 'string': 'st',
                 'statistics': 'stats', 'functools': 'ft'}[module]
        modules = {alias: module}
    else:
        alias = None
        modules = {}
    names = {}

    def ref(attr):
        if alias is None:
            names[attr] = f'{module}.{attr}'
            return attr
        return f'{alias}.{attr}'
    expr, locals_ = expr_of(ref)
    case = {'op': 'evaluate', 'expression': expr, 'locals': locals_}
    if modules:
        case['modules'] = modules
    if names:
        case['names'] = names
    return case


def math_family(r):
    nums = lambda: r.choice([r.small(-3, 5), r.choice([0.5, -0.5, 1.0, 2.0, 1e-9, 100.0, -1.5, 0.0, 1e308, float('inf')])])  # noqa: E731
    ints = lambda: r.choice([r.small(-3, 20), r.randint(0, 200)])  # noqa: E731
    unary = ('acos acosh asin asinh atan atanh cbrt ceil cos cosh degrees erf erfc exp exp2 expm1 fabs floor gamma lgamma log10 log1p '
             'log2 radians sin sinh sqrt tan tanh trunc isfinite isinf isnan ulp frexp modf').split()
    specs = {name: (lambda: lit(nums())) for name in unary}
    specs.update({
        'atan2': lambda: f'{lit(nums())}, {lit(nums())}', 'copysign': lambda: f'{lit(nums())}, {lit(nums())}',
        'fmod': lambda: f'{lit(nums())}, {lit(nums())}', 'remainder': lambda: f'{lit(nums())}, {lit(nums())}',
        'pow': lambda: f'{lit(nums())}, {lit(nums())}', 'nextafter': lambda: f'{lit(nums())}, {lit(nums())}',
        'ldexp': lambda: f'{lit(nums())}, {r.small(-3, 10)}', 'hypot': lambda: ', '.join(lit(nums()) for _ in range(r.randint(0, 3))),
        'dist': lambda: r.choice(['(0, 0), (3, 4)', 'xs, xs[::-1]', '(1,), (1, 2)']), 'log': lambda: r.choice([lit(nums()), f'{lit(nums())}, {lit(r.choice([2, 10, 0.5, 1]))}']),
        'isclose': lambda: r.choice([f'{lit(nums())}, {lit(nums())}', '0.1 + 0.2, 0.3', '1.0, 1.001, rel_tol=0.01', '0.0, 1e-12, abs_tol=1e-9']),
        'comb': lambda: f'{ints()}, {r.small(-1, 8)}', 'factorial': lambda: r.choice([str(ints()), '5.0', '-1']), 'gcd': lambda: ', '.join(str(ints()) for _ in range(r.randint(0, 3))),
        'lcm': lambda: ', '.join(str(ints()) for _ in range(r.randint(0, 3))), 'isqrt': lambda: str(ints()), 'perm': lambda: r.choice([str(r.small(0, 8)), f'{ints()}, {r.small(0, 5)}']),
        'prod': lambda: r.choice(['xs', 'xs, start=2', '[]', "['a', 2]", '[0.5, 4]']), 'fsum': lambda: r.choice(['[0.1] * 10', 'xs', '[1e100, 1.0, -1e100]', '[]']),
    })
    for const in ('e', 'inf', 'nan', 'pi', 'tau'):
        specs[const] = None
    check_covers('math', specs, pure.MODULES['math'])
    name = r.choice(sorted(specs))
    xs = r.ints(0, 4, 1, 9)

    def expr_of(ref):
        if specs[name] is None:
            return r.choice([f'{ref(name)}', f'{ref(name)} * 2', f'round({ref(name)}, 3)', f'-{ref(name)}']), L(xs=xs)
        e = f'{ref(name)}({specs[name]()})'
        if r.maybe(0.15):
            e = r.choice([f'round({e}, 6)' if name not in ('frexp', 'modf') else e, f'[{ref(name)}(v) for v in xs]' if name in unary else e])
        return e, L(xs=xs)
    return _module_case(r, 'math', expr_of)


PATTERNS = [r'\d+', r'(\w+)@(\w+)', r'(?P<word>[a-z]+)(?P<num>\d*)', r'a|b', r'\s*,\s*', r'^(\w)(\w)?', r'[A-Z]', r'(a)(b)?', r'x*',
            r'(', r'\bis\b', r'(?i)HELLO', r'(\d+)-(\d+)', r'', r'.', r'[aeiou]{2,}', r'(?P<k>\w+)=(?P<v>\w+)']
TEXTS = ['bob@host and amy@site', 'abc123 def45', 'a, b ,c', 'AbCd', '', 'aaa', 'this is it', 'hello HELLO', '10-20 30-4',
         'x=1 y=22', 'queue aeiou', 'ab', 'b']


def re_family(r):
    pat, text = r.choice(PATTERNS), r.choice(TEXTS)
    flags = lambda ref: r.choice(['', f', {ref("I")}', f', {ref("IGNORECASE")} | {ref("M")}', f', flags={ref("S")}', f', {ref("A")}', f', {ref("X")}', f', {ref("U")}',  # noqa: E731
                                  f', {ref("MULTILINE")}', f', {ref("DOTALL")}', f', {ref("VERBOSE")}', f', {ref("ASCII")}', f', {ref("UNICODE")}', f', {ref("NOFLAG")}'])
    repl = lambda: r.choice(["'-'", r"r'<\1>'", r"r'\g<0>\g<0>'", 'lambda m: m.group(0).upper()', "lambda m: str(len(m.group()))", "''"])  # noqa: E731
    module_specs = {
        'compile': lambda ref: f'{ref("compile")}(p{flags(ref)})', 'escape': lambda ref: f'{ref("escape")}(s)',
        'findall': lambda ref: f'{ref("findall")}(p, s{flags(ref)})', 'finditer': lambda ref: f'[m.span() for m in {ref("finditer")}(p, s)]',
        'fullmatch': lambda ref: f'{ref("fullmatch")}(p, s)', 'match': lambda ref: f'{ref("match")}(p, s{flags(ref)})',
        'search': lambda ref: f'{ref("search")}(p, s)', 'split': lambda ref: f'{ref("split")}(p, s' + r.choice(['', ', 1', ', maxsplit=2']) + ')',
        'sub': lambda ref: f'{ref("sub")}(p, {repl()}, s' + r.choice(['', ', 1', ', count=1']) + ')', 'subn': lambda ref: f'{ref("subn")}(p, {repl()}, s)',
    }
    for flag in ('A', 'ASCII', 'I', 'IGNORECASE', 'L', 'LOCALE', 'M', 'MULTILINE', 'NOFLAG', 'S', 'DOTALL', 'U', 'UNICODE', 'X', 'VERBOSE'):
        module_specs[flag] = (lambda f: lambda ref: r.choice([f'{ref(f)}', f'{ref(f)} | {ref("I")}', f'int({ref(f)})', f'{ref(f)}.value']))(flag)
    check_covers('re', module_specs, pure.MODULES['re'])
    pattern_specs = {
        'findall': "findall(s)", 'finditer': None, 'flags': 'flags', 'fullmatch': 'fullmatch(s)', 'groupindex': 'groupindex',
        'groups': 'groups', 'match': 'match(s, 1)', 'pattern': 'pattern', 'search': 'search(s)', 'split': 'split(s)',
        'sub': "sub('#', s)", 'subn': 'subn(lambda m: "<" + m.group() + ">", s)',
    }
    check_covers('re.Pattern', pattern_specs, pure.VALUE_ATTRIBUTES[re.Pattern])
    match_specs = {
        'end': r.choice(['end()', 'end(1)', 'end("word")']), 'endpos': 'endpos', 'expand': r.choice([r"expand(r'[\1]')", r"expand(r'\g<0>!')"]),
        'group': r.choice(['group()', 'group(0)', 'group(1)', 'group(1, 0)', 'group("word")', 'group(5)']), 'groupdict': r.choice(['groupdict()', 'groupdict("?")']),
        'groups': r.choice(['groups()', 'groups("-")']), 'lastgroup': 'lastgroup', 'lastindex': 'lastindex', 'pos': 'pos', 're': 're',
        'regs': 'regs', 'span': r.choice(['span()', 'span(1)']), 'start': r.choice(['start()', 'start(2)']), 'string': 'string',
    }
    check_covers('re.Match', match_specs, pure.VALUE_ATTRIBUTES[re.Match])
    form = r.randint(0, 2)

    def expr_of(ref):
        if form == 0:
            name = r.choice(sorted(module_specs))
            return module_specs[name](ref), L(p=pat, s=text)
        if form == 1:
            name = r.choice(sorted(pattern_specs))
            tail = pattern_specs[name] or '[m.group() for m in rx.finditer(s)]'
            rx = re.compile(r.choice([pt for pt in PATTERNS if pt != '(']), r.choice([0, 0, re.I, re.M | re.S]))
            return (f'rx.{tail}' if pattern_specs[name] else tail), L(rx=rx, s=text)
        name = r.choice(sorted(match_specs))
        m = f'{ref("search")}(p, s)' if r.maybe(0.6) else f'{ref("match")}(p, s)'
        return f'{m}.{match_specs[name]}', L(p=r.choice([pt for pt in PATTERNS if pt != '(']), s=text)

    return _module_case(r, 're', expr_of)


def json_family(r):
    def value(depth=0):
        kind = r.randint(0, 9 if depth < 2 else 5)
        if kind <= 5:
            return r.choice([r.small(), r.word(), None, True, 2.5, -0.0, 1e20, float('inf')])
        if kind <= 7:
            return [value(depth + 1) for _ in range(r.randint(0, 3))]
        return {r.choice(['a', 'b', 'é', '1']): value(depth + 1) for _ in range(r.randint(0, 3))}
    specs = {
        'dumps': lambda ref: f'{ref("dumps")}(v' + r.choice(['', ', indent=2', ', sort_keys=True', ", separators=(',', ':')", ', ensure_ascii=False',
                                                            ', default=str', ', indent="\\t", sort_keys=True', ', allow_nan=False', ', skipkeys=True']) + ')',
        'loads': lambda ref: f'{ref("loads")}(' + r.choice(['text', 'text', "'[1, 2'", "'{\"a\": NaN}'", "'\"\\\\u00e9\"'", 'text, parse_float=str',
                                                            'text, object_pairs_hook=list', "b'[1]'", "'1e400'", "''"]) + ')',
    }
    check_covers('json', specs, pure.MODULES['json'])
    v = value()
    if r.maybe(0.1):
        v = r.choice([{1: 'int key'}, {(1, 2): 'x'}, {'s': {1, 2}}, (1, 2)])
    name = r.choice(sorted(specs))
    text = json.dumps(value())
    return _module_case(r, 'json', lambda ref: (specs[name](ref), L(v=v, text=text)))


def datetime_family(r):
    y, mo, da = r.choice([2024, 2023, 1999, 1, 9999, 2000]), r.randint(1, 13), r.randint(0, 31)
    d1 = datetime.date(r.randint(1990, 2030), r.randint(1, 12), r.randint(1, 28))
    t1 = datetime.datetime(d1.year, d1.month, d1.day, r.randint(0, 23), r.randint(0, 59), r.choice([0, 30]), r.choice([0, 500]),
                           tzinfo=r.choice([None, None, datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=-5))]))
    td = datetime.timedelta(days=r.randint(-3, 40), seconds=r.randint(0, 90000), microseconds=r.choice([0, 1, 999999]))
    fmt = lit(r.choice(['%Y-%m-%d', '%A %d %B %Y', '%H:%M:%S', '%j %U %W', '%a %b', '%%', '%y%m%d', '%I %p', '%c', '%x', '%X', '%Z|%z', '%f']))
    date_specs = {
        'ctime': '()', 'day': '', 'isocalendar': r.choice(['()', '().week', '().year', '()[1]', '().weekday', '().count(1)', '().index(1)']),
        'isoformat': '()', 'isoweekday': '()', 'month': '', 'replace': r.choice(['(day=1)', '(year=2000)', '(month=2, day=30)']),
        'strftime': f'({fmt})', 'timetuple': r.choice(['()', '()[:3]', '()[7]']), 'toordinal': '()', 'weekday': '()', 'year': '',
    }
    check_covers('date', date_specs, pure.VALUE_ATTRIBUTES[datetime.date])
    time_part = {'dst': '()', 'fold': '', 'hour': '', 'microsecond': '', 'minute': '', 'second': '', 'tzinfo': '', 'tzname': '()', 'utcoffset': '()'}
    datetime_specs = dict(date_specs, **time_part, date='()', time='()', timetz='()', utctimetuple='()',
                          replace=r.choice(['(hour=0)', '(tzinfo=None)', '(minute=61)']), isoformat=r.choice(['()', "(' ')", "(timespec='minutes')"]))
    check_covers('datetime', datetime_specs, pure.VALUE_ATTRIBUTES[datetime.datetime])
    timed_specs = {'days': '', 'microseconds': '', 'seconds': '', 'total_seconds': '()'}
    check_covers('timedelta', timed_specs, pure.VALUE_ATTRIBUTES[datetime.timedelta])
    time_specs = dict(time_part, isoformat='()', replace='(second=5)', strftime=f'({fmt})')
    check_covers('time', time_specs, pure.VALUE_ATTRIBUTES[datetime.time])
    tz_specs = {'dst': '(None)', 'tzname': '(None)', 'utcoffset': '(None)'}
    check_covers('timezone', tz_specs, pure.VALUE_ATTRIBUTES[datetime.timezone])
    check_covers('IsoCalendarDate', {'count', 'index', 'week', 'weekday', 'year'}, pure.VALUE_ATTRIBUTES[pure.IsoCalendarDate])
    module_specs = {
        'date': lambda ref: f'{ref("date")}({y}, {mo}, {da})', 'datetime': lambda ref: f'{ref("datetime")}({y}, {mo}, {max(da, 1)}, {r.randint(0, 24)}, 30)',
        'time': lambda ref: f'{ref("time")}({r.randint(0, 24)}, {r.randint(0, 59)})', 'timedelta': lambda ref: f'{ref("timedelta")}(weeks={r.randint(-2, 3)}, hours={r.randint(0, 50)}, minutes=1.5)',
        'timezone': lambda ref: f'{ref("timezone")}({ref("timedelta")}(hours={r.randint(-24, 24)}))', 'MINYEAR': lambda ref: ref('MINYEAR'),
        'MAXYEAR': lambda ref: ref('MAXYEAR'), 'UTC': lambda ref: f'{ref("UTC")}',
    }
    check_covers('datetime module', module_specs, pure.MODULES['datetime'])
    class_specs = {
        'date': {'fromisocalendar': '(2024, 1, 1)', 'fromisoformat': r.choice(["('2024-02-29')", "('2023-02-29')", "('20240101')"]),
                 'fromordinal': '(738000)', 'max': '', 'min': '', 'resolution': ''},
        'datetime': {'combine': '(d1, t1.time())', 'fromisocalendar': '(2020, 53, 7)', 'fromisoformat': r.choice(["('2024-01-02T03:04:05+01:00')", "('2024-01-02 03:04')"]),
                     'fromordinal': '(1)', 'max': '', 'min': '', 'resolution': '', 'strptime': r.choice(["('2024-03-01 10:00', '%Y-%m-%d %H:%M')", "('x', '%Y')", "('31/12/99', '%d/%m/%y')"])},
        'time': {'fromisoformat': "('10:20:30.5')", 'max': '', 'min': '', 'resolution': ''},
        'timedelta': {'max': '', 'min': '', 'resolution': ''},
        'timezone': {'max': '', 'min': '', 'utc': ''},
    }
    for cls, specs in class_specs.items():
        check_covers(f'{cls} class', specs, pure.CLASS_ATTRIBUTES[getattr(datetime, cls)])
    form = r.randint(0, 6)
    locals_ = L(d1=d1, t1=t1, td=td)

    def expr_of(ref):
        if form == 0:
            name = r.choice(sorted(module_specs))
            return module_specs[name](ref), locals_
        if form == 1:
            cls = r.choice(sorted(class_specs))
            name = r.choice(sorted(class_specs[cls]))
            return f'{ref(cls)}.{name}{class_specs[cls][name]}', locals_
        if form == 2:
            name = r.choice(sorted(date_specs))
            return f'd1.{name}{date_specs[name]}', locals_
        if form == 3:
            name = r.choice(sorted(datetime_specs))
            return f't1.{name}{datetime_specs[name]}', locals_
        if form == 4:
            name = r.choice(sorted(timed_specs) + sorted(time_specs) + sorted(tz_specs))
            if name in timed_specs and r.maybe():
                return f'td.{name}{timed_specs[name]}', locals_
            if name in tz_specs and r.maybe():
                return f'{ref("timezone")}.utc.{name}{tz_specs[name]}', locals_
            return f't1.timetz().{name}{time_specs.get(name, "")}' if name in time_specs else f'td.total_seconds()', locals_
        return r.choice(['d1 + td', 'd1 - td', 't1 + td', 't1 - td', 'td * 2', 'td / 3', 'td // 4', 'td / td if td else 0', '-td', 'abs(td)',
                         f'd1 - {ref("date")}(2000, 1, 1)', 'd1 < t1.date()', 't1.replace(tzinfo=None) - t1.replace(tzinfo=None, hour=0)',
                         f'f"{{d1:%d/%m}} {{td}}"', 'str(t1)', 'str(td)', 'td.days * 24', 'd1.replace(day=1) + td', f'{ref("timedelta")}(hours=1) * 1.5',
                         f'sorted([d1, {ref("date")}(2020, 5, 5)])', 'td % ' + ref('timedelta') + '(days=7)', 'divmod(td, ' + ref('timedelta') + '(hours=5))']), locals_
    return _module_case(r, 'datetime', expr_of)


def collections_family(r):
    words = r.words(0, 6)
    c = collections.Counter(r.choice(['abracadabra', 'mississippi', '', 'aab']) + ''.join(r.choice('abc') for _ in range(r.randint(0, 4))))
    dd = collections.defaultdict(r.choice([int, list, set, str]))
    for w in r.words(0, 3):
        dd[w[:2]]
    od = collections.OrderedDict((k, r.small()) for k in r.sample('abcde', r.randint(0, 4)))
    dq = collections.deque(r.ints(0, 5), maxlen=r.choice([None, None, 3, 6]))
    k = lambda: lit(r.choice(['a', 'b', 'z', '', 'c']))  # noqa: E731
    dict_like = {'clear': '()', 'copy': '()', 'get': f'({k()})', 'items': '()', 'keys': '()', 'values': '()', 'pop': r.choice([f'({k()})', f'({k()}, 0)']),
                 'popitem': '()', 'setdefault': f'({k()}, 5)', 'update': r.choice(["('abc')", "({'a': 2})", "(a=1)", '([("q", 1)])'])}
    counter_specs = dict(dict_like, elements='()', most_common=r.choice(['()', '(2)', '(0)', '(-1)']), subtract=r.choice(["('aaz')", "({'a': 5})"]), total='()')
    check_covers('Counter', counter_specs, pure.VALUE_ATTRIBUTES[collections.Counter])
    dd_specs = dict(dict_like, default_factory='')
    check_covers('defaultdict', dd_specs, pure.VALUE_ATTRIBUTES[collections.defaultdict])
    od_specs = dict(dict_like, move_to_end=r.choice([f'({k()})', f'({k()}, last=False)']), popitem=r.choice(['()', '(last=False)']))
    check_covers('OrderedDict', od_specs, pure.VALUE_ATTRIBUTES[collections.OrderedDict])
    dq_specs = {'append': '(9)', 'appendleft': '(8)', 'clear': '()', 'copy': '()', 'count': '(1)', 'extend': '([1, 2])', 'extendleft': '("ab")',
                'index': r.choice(['(1)', '(0, 1)']), 'insert': r.choice(['(1, 7)', '(-1, 7)']), 'maxlen': '', 'pop': '()', 'popleft': '()', 'remove': '(1)',
                'reverse': '()', 'rotate': r.choice(['()', '(2)', '(-1)'])}
    check_covers('deque', dq_specs, pure.VALUE_ATTRIBUTES[collections.deque])
    check_covers('collections module', {'Counter', 'defaultdict', 'OrderedDict', 'deque'}, pure.MODULES['collections'])
    check_covers('collections classes', {'fromkeys'}, pure.CLASS_ATTRIBUTES[collections.OrderedDict], pure.CLASS_ATTRIBUTES[collections.defaultdict])
    locals_ = L(words=words, c=c, dd=dd, od=od, dq=dq)
    form = r.randint(0, 5)

    def method(obj, specs):
        name = r.choice(sorted(specs))
        call = f'{obj}.{name}{specs[name]}'
        if name in ('items', 'keys', 'values', 'elements'):
            return f'sorted({call}, key=repr)' if obj != 'od' else f'list({call})'
        return f'({call}, {obj})' if specs[name].startswith('(') else call

    def expr_of(ref):
        if form == 0:
            return method('c', counter_specs), locals_
        if form == 1:
            return method('dd', dd_specs), locals_
        if form == 2:
            return method('od', od_specs), locals_
        if form == 3:
            return method('dq', dq_specs), locals_
        if form == 4:
            return r.choice([f'{ref("Counter")}(words).most_common(2)', f'{ref("Counter")}(words) + c', 'c - ' + ref('Counter') + '("aaa")', f'c & {ref("Counter")}("ab")',
                             f'c | {ref("Counter")}("zz")', f'{ref("Counter")}(a=1, b=-2)', f'+{ref("Counter")}(a=1, b=-2)', "c['zzz']", f'{ref("deque")}(range(5), maxlen=2)',
                             f'{ref("defaultdict")}(list)', f'{ref("defaultdict")}(lambda: 0, a=1)["b"]', f'{ref("OrderedDict")}.fromkeys("abc", 0)',
                             f'{ref("defaultdict")}.fromkeys("ab")', f'{ref("OrderedDict")}(a=1) == {{"a": 1}}', 'dq[0] if dq else None', 'dq * 2', 'list(reversed(dq))',
                             f'{ref("deque")}("abc")[-1]', 'len(c), len(dd), len(od)', 'od == dict(od)', f'{ref("Counter")}(words) == {ref("Counter")}(reversed(words))',
                             'dd["new"], dd', f'{ref("Counter")}("abc").most_common()[0][1]', 'c.total() if c else 0', f'{ref("defaultdict")}(int, {{"a": 1}})']), locals_
        return r.choice(['(od.popitem(last=False), od)', 'dq.maxlen', '(dq.rotate(1), dq)[1]', 'list(dd)', 'sorted(c)', 'c == c.copy()',
                         '[dq.popleft() for _ in range(2)]', 'sum(c.values())', 'max(c, key=c.get, default=None)', "dict(dd)"]), locals_
    return _module_case(r, 'collections', expr_of)


def itertools_family(r):
    xs = r.ints(0, 5, -3, 9)
    ys = r.words(0, 3)
    n = r.randint(0, 4)
    pred = lambda: r.choice(['lambda x: x < 3', 'lambda x: x % 2', 'bool', 'lambda x: x'])  # noqa: E731
    specs = {
        'accumulate': lambda ref: f'list({ref("accumulate")}(xs' + r.choice(['', ', max', ', lambda a, b: a * b', ', initial=100', ', min, initial=0']) + '))',
        'batched': None,
        'chain': lambda ref: r.choice([f'list({ref("chain")}(xs, ys, "ab"))', f'list({ref("chain")}.from_iterable([xs, ys]))', f'list({ref("chain")}())']),
        'combinations': lambda ref: f'list({ref("combinations")}(xs, {n}))', 'combinations_with_replacement': lambda ref: f'list({ref("combinations_with_replacement")}(ys or "ab", {min(n, 3)}))',
        'compress': lambda ref: f'list({ref("compress")}(xs, [1, 0, 1, 1, 0]))', 'count': lambda ref: f'list({ref("islice")}({ref("count")}({r.choice(["", "5", "2, 3", "1.5, 0.5"])}), {n}))',
        'cycle': lambda ref: f'list({ref("islice")}({ref("cycle")}(xs or "ab"), 7))', 'dropwhile': lambda ref: f'list({ref("dropwhile")}({pred()}, xs))',
        'filterfalse': lambda ref: f'list({ref("filterfalse")}({r.choice([pred(), "None"])}, xs))',
        'groupby': lambda ref: r.choice([f'[(k, list(g)) for k, g in {ref("groupby")}(sorted(xs))]', f'[(k, len(list(g))) for k, g in {ref("groupby")}("aaabccd")]',
                                         f'[k for k, _ in {ref("groupby")}(xs, key=lambda x: x > 2)]']),
        'islice': lambda ref: f'list({ref("islice")}(xs, ' + r.choice(['2', '1, 4', '0, None, 2', '-1', 'None']) + '))',
        'pairwise': lambda ref: f'list({ref("pairwise")}(xs))', 'permutations': lambda ref: f'list({ref("permutations")}(xs[:4]' + r.choice(['', f', {n}']) + '))',
        'product': lambda ref: r.choice([f'list({ref("product")}(xs[:3], ys))', f'list({ref("product")}("ab", repeat={min(n, 3)}))', f'len(list({ref("product")}(range(3), repeat=3)))']),
        'repeat': lambda ref: r.choice([f'list({ref("repeat")}("x", {n}))', f'list(map(pow, xs, {ref("repeat")}(2)))', f'list({ref("repeat")}(1, -1))']),
        'starmap': lambda ref: f'list({ref("starmap")}(' + r.choice(['pow, [(2, 3), (3, 2)]', 'lambda a, b: a + b, zip(xs, xs)', 'max, [(1, 2), (5,)]']) + '))',
        'takewhile': lambda ref: f'list({ref("takewhile")}({pred()}, xs))', 'tee': lambda ref: f'[list(t) for t in {ref("tee")}(xs, {n})]',
        'zip_longest': lambda ref: f'list({ref("zip_longest")}(xs, ys' + r.choice(['', ', fillvalue=0', ', "z"']) + '))',
    }
    if 'batched' not in pure.MODULES['itertools']:
        del specs['batched']
    else:
        specs['batched'] = lambda ref: f'list({ref("batched")}(xs, 2))'
    check_covers('itertools', specs, pure.MODULES['itertools'])
    check_covers('chain class', {'from_iterable'}, pure.CLASS_ATTRIBUTES[itertools.chain])
    name = r.choice(sorted(specs))
    return _module_case(r, 'itertools', lambda ref: (specs[name](ref), L(xs=xs, ys=ys)))


def string_family(r):
    s = r.word()
    consts = ('ascii_letters', 'ascii_lowercase', 'ascii_uppercase', 'digits', 'hexdigits', 'octdigits', 'printable', 'punctuation', 'whitespace')
    specs = {c: None for c in consts}
    specs['capwords'] = lambda ref: f'{ref("capwords")}(s' + r.choice(['', ', "-"', ', None', ', ","']) + ')'
    check_covers('string', specs, pure.MODULES['string'])
    name = r.choice(sorted(specs))

    def expr_of(ref):
        if specs[name]:
            return specs[name](ref), L(s=s)
        c = ref(name)
        return r.choice([c, f'len({c})', f'[ch for ch in s if ch in {c}]', f'{c}.find(s[:1]) if s else -1', f'"".join(sorted(set(s) & set({c})))',
                         f's.translate(str.maketrans("", "", {c}))' if name != 'printable' else f's.strip({c})', f'{c}[::7]', f'{c}.upper()']), L(s=s)
    return _module_case(r, 'string', expr_of)


def statistics_family(r):
    data = r.choice([r.ints(0, 6, -5, 20), r.ints(1, 6, 1, 9), [r.choice([0.5, 1.5, 2.0, -1.25, 3.0]) for _ in range(r.randint(1, 5))],
                     r.ints(2, 6, 0, 3), [1, 1, 2, 3], [2.5, 1, 4]])
    other = [v + r.choice([0, 1, -2, 0.5]) * i for i, v in enumerate(data)]
    words = r.words(1, 5)
    specs = {
        'mean': 'data', 'fmean': r.choice(['data', 'data, weights=[1] * len(data)']), 'geometric_mean': 'data', 'harmonic_mean': r.choice(['data', 'data, weights=None']),
        'median': 'data', 'median_low': 'data', 'median_high': 'data', 'median_grouped': r.choice(['data', 'data, interval=2']),
        'mode': r.choice(['data', 'words']), 'multimode': r.choice(['data', 'words', '""']), 'pstdev': 'data', 'pvariance': r.choice(['data', 'data, 1']),
        'stdev': 'data', 'variance': r.choice(['data', 'data, 2.0']), 'quantiles': r.choice(['data', 'data, n=4', "data, method='inclusive'", 'data, n=0']),
        'correlation': 'data, other', 'covariance': 'data, other', 'linear_regression': r.choice(['data, other', 'data, other, proportional=True']),
    }
    check_covers('statistics', specs, pure.MODULES['statistics'])
    name = r.choice(sorted(specs))
    return _module_case(r, 'statistics', lambda ref: (f'{ref(name)}({specs[name]})', L(data=data, other=other, words=words)))


def functools_family(r):
    xs = r.ints(0, 6, -4, 9)
    words = r.words(0, 4)
    specs = {
        'reduce': lambda ref: r.choice([f'{ref("reduce")}(lambda a, b: a + b, xs)', f'{ref("reduce")}(lambda a, b: a * b, xs, 1)', f'{ref("reduce")}(max, xs, -1)',
                                        f'{ref("reduce")}(lambda acc, w: acc + len(w), words, 0)', f'{ref("reduce")}(lambda a, b: b, [])', f'{ref("reduce")}(pow, [2, 3, 2])']),
        'cmp_to_key': lambda ref: r.choice([f'sorted(xs, key={ref("cmp_to_key")}(lambda a, b: b - a))', f'sorted(words, key={ref("cmp_to_key")}(lambda a, b: len(a) - len(b)))',
                                            f'min(xs, key={ref("cmp_to_key")}(lambda a, b: (a > b) - (a < b)), default=None)', f'sorted(xs, key={ref("cmp_to_key")}(lambda a, b: "x"))']),
    }
    check_covers('functools', specs, pure.MODULES['functools'])
    name = r.choice(sorted(specs))
    return _module_case(r, 'functools', lambda ref: (specs[name](ref), L(xs=xs, words=words)))


def execute_family(r):
    n = r.small()
    xs = r.ints(0, 5)
    ys = r.ints(0, 3)
    s = r.word()
    d = {r.choice('abc'): r.small() for _ in range(r.randint(0, 3))}
    st = set(r.ints(0, 4, 0, 6))
    grid = [[r.small(0, 9) for _ in range(2)] for _ in range(2)]
    c = collections.Counter(r.choice(['aab', 'abc', '']))
    dd = collections.defaultdict(list, {'x': [1]})
    line = r.choice([' a,b ', 'x', '1,2,3', '', ',,'])
    k = lit(r.choice(['a', 'b', 'z']))
    i = r.index(5)
    v = lit(r.scalar())
    statements = [
        f'm = n * {r.randint(-2, 3)}', 'words = line.strip().split(",")', 'a, b = n, s', 'first, *rest = xs', '*init, last = xs', '(p, q), r = grid',
        'n, s = s, n', 'x = y = len(xs)', f'n += {r.randint(-3, 3)}', 's *= 2', 'xs += ys', 'xs *= 2', 'st |= {1, 9}', 'd |= {"z": 0}', 'n //= 0',
        'n **= 2', 'n -= len(s)', f'd[{k}] = {v}', f'xs[{i}] = {v}', 'xs[1:3] = [9]', f'd[{k}] += 1', f'c[{k}] += 1', f'dd[{k}].append(n)',
        f'del d[{k}]', f'del xs[{i}]', 'del xs[::2]', f'xs.append({v})', 'xs.extend(ys)', 'xs.sort()', 'xs.sort(key=lambda p: -p)', 'xs.reverse()',
        'd.update(a=1)', f'st.add({r.small(0, 9)})', f'st.discard({r.small(0, 9)})', 'xs.pop()', f'd.setdefault({k}, []).append(n)', f'xs.insert(0, {v})',
        'if n > 0: n = -n', f'if {k} in d: del d[{k}]', 'if not xs: xs.append(0)', 'if s: s = s.upper()', 'ys = xs; ys.append(1)', 'x: int = 5',
        'a = b = []', 'q = xs.copy(); q.append(1)', 'assert n > 0', 'assert xs, "empty"', f'grid[{r.randint(0, 2)}][{r.randint(-1, 1)}] = n',
        's = f"{n}-{s}"', 'n = n', 'xs = xs', 'xs[0], xs[-1] = xs[-1], xs[0]', 'total = sum(xs) / len(xs)', 'st.remove(0)', 'pass',
        'xs.sort(key=str)', 'd = {k: v * 2 for k, v in d.items()}', 'key = max(d, key=d.get) if d else None', 'c.update(s)', 'c.subtract("a")',
        'n = int(s)', 'xs.remove(1)', 'grid[0].append(n)', 'letters = sorted(set(s))', 'a, b = xs', 'n = -n if n < 0 else n', 'xs[:] = ys',
        'del d["zz"]', 's = s.replace("a", "") ; n = len(s)', 'items = list(enumerate(xs))', 'lookup = dict(zip(xs, ys))', 'xs[n] = 0',
        'n %= 3', 'n <<= 2', 'n ^= 1', 'st &= {1, 2, 3}', 'st -= {0}', 'st ^= {5}', 'n = n if n else None', f'd[{k}] = 1',
    ]
    statement = r.choice(statements)
    return {'op': 'execute', 'statement': statement,
            'locals': L(n=n, xs=xs, ys=ys, s=s, d=d, st=st, grid=grid, c=c, dd=dd, line=line)}


def expressions_family(r):
    """Operators, comparisons, boolean logic, displays, comprehensions and calls with unpacking."""
    xs = r.ints(0, 5, -3, 6)
    ys = r.choice([r.ints(0, 4), r.words(0, 3)])
    pairs = [(r.small(0, 3), r.word()[:2]) for _ in range(r.randint(0, 4))]
    d = {r.choice('abc'): r.small() for _ in range(r.randint(0, 3))}
    n = r.small()
    s = r.word()
    atoms = ['n', 's', 'xs', 'ys', 'd', 'pairs', 'None', 'True', '0', '1.5', "''", '[]', '()', 'xs[0]', 'len(s)', "'ab'", '-n', '(n, s)']
    a, b, c = (r.choice(atoms) for _ in range(3))
    op = r.choice(['+', '-', '*', '/', '//', '%', '**', '<<', '>>', '&', '|', '^', '@'])
    cmp = r.choice(['<', '<=', '==', '!=', '>', '>=', 'in', 'not in', 'is', 'is not'])
    expr = r.choice([
        f'{a} {op} {b}', f'{a} {cmp} {b}', f'{a} {cmp} {b} {r.choice(["<", "=="])} {c}', f'{a} and {b}', f'{a} or {b} or {c}',
        f'not {a}', f'{a} if {b} else {c}', f'-{a}', f'~{a}', f'+{a}', f'({a}, {b})[{r.index(2)}]',
        '[x * y for x in xs for y in xs if x < y]', '[[y for y in range(x)] for x in xs if x > 0]', '{x % 3: x for x in xs}',
        '{x % 3 for x in xs}', 'sum(x for x in xs if x % 2)', '[a + b for a, b in zip(xs, xs[1:])]', '[k * v for k, (v, _) in enumerate(pairs)]',
        '[(i, w) for i, w in pairs if w]', 'list(x for x in range(n) if x)' if n < 50 else 'n', '[*xs, *ys][::2]', '(*xs,)', '{**d, "z": n}',
        '{**d, **{k: v * 2 for k, v in d.items()}}', 'max(*xs, key=abs)' if len(xs) > 1 else 'max(xs or [0])', 'list(zip(*pairs))',
        'dict(pairs)', 'sorted(pairs)[::-1]', 'min(pairs, default=(0, ""))', 'xs[n:n + 2]', 's[::n or 1]', '[x for x in xs if x if x > 1]',
        'any(x > n for x in xs), all(x < 5 for x in xs)', '[y for x in [[1, 2], [3]] for y in x]', 'next(iter(xs), None)',
        'next((x for x in xs if x > 10), "none")', 'list(map(str, xs)) + ys', '[str(x) for x in xs] == ys', 'sum([[x] for x in xs], [])',
        'xs * 0', 'dict(zip("abc", range(3)))', '{n, s}', 'isinstance(n, (int, str))',
        'divmod(n, 3), pow(n, 2)', "'%s:%r:%5.1f' % (s, n, 2.5)", "'%(a)s' % d", 'len({*xs})', '{1, 2} < {*xs}', 'xs and xs[-1]',
        "'{}' if n else s", '[i for i in range(3)][n]', 'slice(1, n)', 'xs[slice(1, None, 2)]',
        'list(reversed(xs))', 'hash((1, 2)) == hash((1, 2))', 'repr(s) + ascii(s)', 'chr(ord("a") + n % 26)',
        'int(n > 0) + bool(s)', 'complex(n, 1) * 2', '[x for x in xs][1:-1]', 'callable(len), callable(n)', 'format(n, "08b")', 'round(n / 7, 3)',
    ])
    return {'op': 'evaluate', 'expression': expr, 'locals': L(xs=xs, ys=ys, pairs=pairs, d=d, n=n, s=s)}


def refused_family(r):
    """Whitelisted modules' and types' attributes left out on purpose: refused, never evaluated."""
    cases = [
        ('datetime.datetime.now()', {'datetime': 'datetime'}), ('datetime.date.today()', {'datetime': 'datetime'}),
        ('dt.datetime.utcnow()', {'dt': 'datetime'}), ('dt.datetime.today()', {'dt': 'datetime'}), ('dt.date.fromtimestamp(0)', {'dt': 'datetime'}),
        ('dt.datetime.fromtimestamp(0, dt.timezone.utc)', {'dt': 'datetime'}), ('dt.datetime.utcfromtimestamp(0)', {'dt': 'datetime'}),
        ('dt.datetime(2020, 1, 1).timestamp()', {'dt': 'datetime'}), ('dt.datetime(2020, 1, 1).astimezone()', {'dt': 'datetime'}),
        ("collections.namedtuple('P', 'x y')", {'collections': 'collections'}), ('collections.ChainMap()', {'collections': 'collections'}),
        ("'{0}'.format(1)", {}), ("'{x}'.format_map({'x': 1})", {}), ("str.format('{}', 1)", {}), ('json.load', {'json': 'json'}),
        ('json.dump', {'json': 'json'}), ('re.purge()', {'re': 're'}), ("string.Template('$a')", {'string': 'string'}),
        ('string.Formatter()', {'string': 'string'}), ('functools.partial(max, 1)', {'functools': 'functools'}), ("{}.keys().mapping", {}),
        ("re.compile('a').scanner('a')", {'re': 're'}), ('collections.Counter.fromkeys("ab")', {'collections': 'collections'}),
        ('dt.timezone.utc.fromutc(dt.datetime(2020, 1, 1))', {'dt': 'datetime'}), ('os.getcwd()', {'os': 'os'}), ('random.random()', {'random': 'random'}),
        ('time.time()', {'time': 'time'}), ('statistics.NormalDist()', {'statistics': 'statistics'}), ('math.__loader__', {'math': 'math'}),
        ('itertools.__spec__', {'itertools': 'itertools'}), ('re.copyreg', {'re': 're'}), ('re.enum', {'re': 're'}), ('json.decoder', {'json': 'json'}),
    ]
    expr, modules = r.choice(cases)
    case = {'op': 'evaluate', 'expression': expr, 'locals': {}, 'expected': {'kind': 'error'}}
    if modules:
        case['modules'] = modules
    return case


FAMILIES = {
    'str methods': str_family, 'list methods': list_family, 'dict methods': dict_family, 'set and frozenset methods': set_family,
    'tuple methods': tuple_family, 'bytes methods': bytes_family, 'int and float': numbers_family, 'f-strings': fstring_family,
    'operators, displays and comprehensions': expressions_family,
    'sorted, min, max, map, filter with key lambdas': keys_family, 'math': math_family, 're': re_family, 'json': json_family,
    'datetime': datetime_family, 'collections': collections_family, 'itertools': itertools_family, 'string': string_family,
    'statistics': statistics_family, 'functools': functools_family, 'execute statements': execute_family, 'refused on purpose': refused_family,
}
EXPECT_REFUSAL = {'refused on purpose'}


def generate(family, count, seed):
    r = R(f'{seed}:{family}')
    make = FAMILIES[family]
    cases = []
    tries = 0
    while len(cases) < count:
        tries += 1
        if tries > count * 20:
            raise SystemExit(f'{family}: too few comparable cases ({len(cases)} of {count})')
        case = make(r)
        if 'expected' not in case:
            expected = truth(case)
            if expected is None:
                continue
            case['expected'] = expected
        cases.append(case)
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--count', type=int, default=320)
    parser.add_argument('--family', action='append')
    args = parser.parse_args()
    if os.environ.get('PYTHONHASHSEED') != '0':
        raise SystemExit('run with PYTHONHASHSEED=0 (the walker\'s): a set of strings iterates in hash order')
    families = args.family or list(FAMILIES)
    out = {}
    for family in families:
        count = args.count if family not in EXPECT_REFUSAL else max(1, args.count // 6)
        out[family] = {'expectRefusal': family in EXPECT_REFUSAL, 'cases': generate(family, count, args.seed)}
    json.dump({'families': out}, sys.stdout)


if __name__ == '__main__':
    main()
