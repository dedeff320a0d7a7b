"""What the expression walker (semantics/evaluate.py) may touch, in one place: the builtins it
calls, the attributes of every value type it knows, and the standard-library modules a program
may have imported, each with the attributes it exposes. Everything here is pure: it reads its
arguments and builds new values (or changes a value the walker itself rebuilt), never the
clock, a file, the environment, randomness or Python's internals. What is left out on purpose
is listed too, with the reason the user is told.

The random generator of the differential tests (test/python-semantics/generate.py) reads these
tables: a name added here without a case there fails the tests.
"""
import collections
import datetime
import functools
import itertools
import json
import math
import re
import statistics
import string

# ---- builtins -------------------------------------------------------------------------------

BUILTIN_NAMES = (
    'len', 'sum', 'min', 'max', 'sorted', 'abs', 'any', 'all', 'range', 'list', 'dict', 'set', 'frozenset',
    'tuple', 'str', 'bytes', 'int', 'float', 'complex', 'bool', 'repr', 'ascii', 'enumerate', 'zip', 'reversed',
    'round', 'divmod', 'pow', 'isinstance', 'chr', 'ord', 'hex', 'oct', 'bin', 'hash', 'format', 'callable',
    'map', 'filter', 'next', 'iter', 'slice',
)


def _names(owner, text):
    """The names in `text` that `owner` has (a method may be newer than this Python)."""
    return frozenset(n for n in text.split() if hasattr(owner, n))


# ---- value types ------------------------------------------------------------------------------
# VALUE_ATTRIBUTES[t]: the attributes of a value of exactly type t (not of a subclass) that the
# walker reads, and the methods it calls. The mutating ones (list.append) change the walker's own
# copy of a value: the locals of a request are rebuilt from their reprs for every request.
# CLASS_ATTRIBUTES[t]: those of the type itself (constructors, constants), read on the type or
# on a value as Python allows (dict.fromkeys, d.fromkeys), besides the unbound methods of
# VALUE_ATTRIBUTES[t] (str.upper, Counter.most_common).

_STR = '''capitalize casefold center count encode endswith expandtabs find index isalnum isalpha isascii
    isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust lower lstrip
    partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split splitlines
    startswith strip swapcase title translate upper zfill'''
_BYTES = '''capitalize center count decode endswith expandtabs find hex index isalnum isalpha isascii isdigit
    islower isspace istitle isupper join ljust lower lstrip partition removeprefix removesuffix replace rfind
    rindex rjust rpartition rsplit rstrip split splitlines startswith strip swapcase title translate upper zfill'''
_INT = 'as_integer_ratio bit_count bit_length conjugate denominator imag is_integer numerator real to_bytes'
_DICT = 'clear copy get items keys pop popitem setdefault update values'
_DATE = 'ctime day isocalendar isoformat isoweekday month replace strftime timetuple toordinal weekday year'
_TIME = 'dst fold hour isoformat microsecond minute replace second strftime tzinfo tzname utcoffset'

IsoCalendarDate = type(datetime.date(2000, 1, 1).isocalendar())
KeyWrapper = type(functools.cmp_to_key(lambda a, b: 0))

VALUE_ATTRIBUTES = {
    str: _names(str, _STR),
    bytes: _names(bytes, _BYTES),
    int: _names(int, _INT),
    bool: _names(bool, _INT),
    float: _names(float, 'as_integer_ratio conjugate hex imag is_integer real'),
    complex: _names(complex, 'conjugate imag real'),
    type(None): frozenset(),
    list: _names(list, 'append clear copy count extend index insert pop remove reverse sort'),
    tuple: _names(tuple, 'count index'),
    dict: _names(dict, _DICT),
    set: _names(set, '''add clear copy difference difference_update discard intersection intersection_update
        isdisjoint issubset issuperset pop remove symmetric_difference symmetric_difference_update union update'''),
    frozenset: _names(frozenset, 'copy difference intersection isdisjoint issubset issuperset symmetric_difference union'),
    range: _names(range, 'count index start step stop'),
    slice: _names(slice, 'indices start step stop'),
    type({}.keys()): frozenset({'isdisjoint'}),
    type({}.items()): frozenset({'isdisjoint'}),
    type({}.values()): frozenset(),
    # re
    re.Pattern: _names(re.Pattern, 'findall finditer flags fullmatch groupindex groups match pattern search split sub subn'),
    re.Match: _names(re.Match, 'end endpos expand group groupdict groups lastgroup lastindex pos re regs span start string'),
    re.RegexFlag: _names(re.RegexFlag, _INT) | {'name', 'value'},  # an enum's, not on the class
    # collections
    collections.Counter: _names(collections.Counter, _DICT + ' elements most_common subtract total'),
    collections.defaultdict: _names(collections.defaultdict, _DICT + ' default_factory'),
    collections.OrderedDict: _names(collections.OrderedDict, _DICT + ' move_to_end'),
    collections.deque: _names(collections.deque, '''append appendleft clear copy count extend extendleft index
        insert maxlen pop popleft remove reverse rotate'''),
    # datetime (astimezone and timestamp read the machine's time zone for a naive value: left out)
    datetime.date: _names(datetime.date, _DATE),
    datetime.datetime: _names(datetime.datetime, _DATE + ' ' + _TIME + ' date time timetz utctimetuple'),
    datetime.time: _names(datetime.time, _TIME),
    datetime.timedelta: _names(datetime.timedelta, 'days microseconds seconds total_seconds'),
    datetime.timezone: _names(datetime.timezone, 'dst tzname utcoffset'),
    IsoCalendarDate: _names(IsoCalendarDate, 'count index week weekday year'),
}

CLASS_ATTRIBUTES = {
    str: frozenset({'maketrans'}),
    bytes: frozenset({'fromhex', 'maketrans'}),
    int: frozenset({'from_bytes'}),
    bool: frozenset({'from_bytes'}),
    float: frozenset({'fromhex'}),
    dict: frozenset({'fromkeys'}),
    collections.OrderedDict: frozenset({'fromkeys'}),
    collections.defaultdict: frozenset({'fromkeys'}),
    datetime.date: _names(datetime.date, 'fromisocalendar fromisoformat fromordinal max min resolution'),
    datetime.datetime: _names(datetime.datetime, 'combine fromisocalendar fromisoformat fromordinal max min resolution strptime'),
    datetime.time: _names(datetime.time, 'fromisoformat max min resolution'),
    datetime.timedelta: _names(datetime.timedelta, 'max min resolution'),
    datetime.timezone: _names(datetime.timezone, 'max min utc'),
    itertools.chain: frozenset({'from_iterable'}),
}

# Public attributes of these types left out, and why (what the user reads after "not available
# in a neural session: ").
_CLOCK = 'it reads the clock'
_LOCAL_TZ = "for a naive value it depends on the machine's time zone"
REFUSED_ATTRIBUTES = {
    (str, 'format'): 'str.format (its {…} fields can read attributes); use an f-string or %',
    (str, 'format_map'): 'str.format_map (its {…} fields can read attributes); use an f-string or %',
    (datetime.date, 'today'): f'date.today ({_CLOCK})',
    (datetime.date, 'fromtimestamp'): f"date.fromtimestamp ({_LOCAL_TZ.replace('for a naive value ', '')})",
    (datetime.datetime, 'today'): f'datetime.today ({_CLOCK})',
    (datetime.datetime, 'now'): f'datetime.now ({_CLOCK})',
    (datetime.datetime, 'utcnow'): f'datetime.utcnow ({_CLOCK})',
    (datetime.datetime, 'fromtimestamp'): f"datetime.fromtimestamp ({_LOCAL_TZ.replace('for a naive value ', '')} unless given tz)",
    (datetime.datetime, 'utcfromtimestamp'): 'datetime.utcfromtimestamp (not among the datetime methods allowed)',
    (datetime.datetime, 'astimezone'): f'datetime.astimezone ({_LOCAL_TZ})',
    (datetime.datetime, 'timestamp'): f'datetime.timestamp ({_LOCAL_TZ})',
    (collections.Counter, 'fromkeys'): 'Counter.fromkeys (Counter does not implement it)',
    (type({}.keys()), 'mapping'): 'the mapping of a dict view (a read-only proxy of the dict)',
    (type({}.items()), 'mapping'): 'the mapping of a dict view (a read-only proxy of the dict)',
    (type({}.values()), 'mapping'): 'the mapping of a dict view (a read-only proxy of the dict)',
    (datetime.timezone, 'fromutc'): 'timezone.fromutc (meant for datetime.astimezone only)',
    (re.Pattern, 'scanner'): 'Pattern.scanner (undocumented)',
    (re.RegexFlag, 'from_bytes'): 'RegexFlag.from_bytes (not among the RegexFlag attributes allowed)',
}

# ---- modules ----------------------------------------------------------------------------------
# A request says which names the program bound to which modules (`import datetime as dt`) and
# which to what (`from math import sqrt`); a module's name is bound to a proxy that exposes only
# these attributes. Every attribute is a function, a type above, or an immutable constant.

MODULES = {
    'math': frozenset(n for n in dir(math) if not n.startswith('_')),
    're': _names(re, '''compile escape findall finditer fullmatch match search split sub subn
        A ASCII I IGNORECASE L LOCALE M MULTILINE NOFLAG S DOTALL U UNICODE X VERBOSE'''),
    'json': frozenset({'dumps', 'loads'}),
    'datetime': _names(datetime, 'date datetime time timedelta timezone MINYEAR MAXYEAR UTC'),
    'collections': frozenset({'Counter', 'defaultdict', 'OrderedDict', 'deque'}),
    'itertools': _names(itertools, '''accumulate batched chain combinations combinations_with_replacement compress
        count cycle dropwhile filterfalse groupby islice pairwise permutations product repeat starmap takewhile
        tee zip_longest'''),
    'string': frozenset({
        'ascii_letters', 'ascii_lowercase', 'ascii_uppercase', 'digits', 'hexdigits', 'octdigits', 'printable',
        'punctuation', 'whitespace', 'capwords'}),
    'statistics': _names(statistics, '''correlation covariance fmean geometric_mean harmonic_mean linear_regression
        mean median median_grouped median_high median_low mode multimode pstdev pvariance quantiles stdev variance'''),
    'functools': frozenset({'reduce', 'cmp_to_key'}),
}

REFUSED_MODULE_ATTRIBUTES = {
    ('collections', 'namedtuple'): 'collections.namedtuple (it builds a class with exec)',
    ('json', 'dump'): 'json.dump (it writes a file)',
    ('json', 'load'): 'json.load (it reads a file)',
    ('re', 'purge'): "re.purge (it changes the module's state)",
    ('string', 'Formatter'): 'string.Formatter (its {…} fields can read attributes)',
    ('string', 'Template'): 'string.Template (not among the string attributes allowed)',
    ('functools', 'partial'): 'functools.partial (not among the functools attributes allowed)',
}

MODULE_OBJECTS = {
    'math': math, 're': re, 'json': json, 'datetime': datetime, 'collections': collections, 'itertools': itertools,
    'string': string, 'statistics': statistics, 'functools': functools,
}
assert MODULE_OBJECTS.keys() == MODULES.keys()

# Types whose values the walker may hold and whose attributes it reads: the value types above.
# The modules' own functions (math.sqrt, re.match, statistics.mean, the itertools types...):
# callable by the walker, as are the types of VALUE_ATTRIBUTES (str(x), Counter(xs)).


def module_attribute(module, name):
    """The object `module.name` is bound to, if the table allows it; None if not."""
    if name in MODULES.get(module, ()):
        return getattr(MODULE_OBJECTS[module], name)
    return None


def _check():
    """Every module attribute is a function, a type, or an immutable constant (a request cannot
    change it for the next one)."""
    immutable = (int, float, str, bytes, tuple, frozenset, re.RegexFlag, datetime.timezone)
    for module, names in MODULES.items():
        for name in names:
            value = getattr(MODULE_OBJECTS[module], name)
            assert callable(value) or isinstance(value, immutable), f'{module}.{name}'


_check()


def unlisted_public_names():
    """Public attributes of the value types that are neither allowed nor refused with a reason
    (for the tests: a new Python's new method shows up here)."""
    out = {}
    for t, allowed in VALUE_ATTRIBUTES.items():
        # Constants of the type itself (re.I on RegexFlag) are not attributes a value is asked for.
        public = {n for n in dir(t) if not n.startswith('_') and not isinstance(getattr(t, n), t)}
        rest = public - allowed - CLASS_ATTRIBUTES.get(t, frozenset()) - {n for (o, n) in REFUSED_ATTRIBUTES if o is t}
        if rest:
            out[f'{t.__module__}.{t.__qualname__}'] = sorted(rest)
    return out


if __name__ == '__main__':
    import pprint
    pprint.pprint(unlisted_public_names())
