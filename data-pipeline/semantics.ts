/**
 * The semantics curriculum: short programs (one to a handful of operations) on values like
 * real ones, so that the model learns what each builtin operation returns before it learns
 * long programs. Coverage follows Python's semantics, not any benchmark: the public methods
 * of str, list, dict, set, tuple and bytes, int/float arithmetic, slicing with steps and
 * negatives, unpacking, comprehensions, enumerate/zip/sorted(key=)/reversed/min/max/sum/
 * any/all/map/filter, f-strings and format, in-place mutation and aliasing, and the
 * exceptions builtins raise (IndexError, KeyError, ValueError, ZeroDivisionError).
 *
 * A program is a function of one to three parameters whose body is built from a table of
 * operations, each typed by what it takes and what it gives, over a scope of typed
 * variables. Nothing needs to be right by construction: the real tracer decides what
 * happens, so an operation that raises (pop from an empty list, a missing key) is a program
 * that ends in an exception, which the model must learn too. Types only keep most programs
 * from ending in a TypeError.
 */
import type { ProgramSpec } from './program.js';
import { Rng } from '../util/rng.js';

type Ty = 'int' | 'float' | 'bool' | 'str' | 'ints' | 'strs' | 'dict' | 'set' | 'pair' | 'pairs' | 'bytes' | 'grid';

/** Literal makers: values like real ones (words, sentences, mixed case, digits, unicode, empty). */
const WORDS = ['apple', 'Banana', 'cherry', 'date', 'fig', 'grape', 'kiwi', 'lemon', 'mango', 'Ann', 'bob',
  'Carol', 'dave', 'x', 'id', 'the', 'a', 'an', 'of', 'is', 'zoë', 'café', 'naïve', '日本', 'über', 'key',
  'value', 'item', 'north', 'SOUTH', 'East', 'west', 'red', 'green', 'blue', 'ok', 'error', 'warn', 'v2',
  'abc123', '42', '007', '3.14', '-5', 'HTTP', 'json', 'user_id', 'camelCase', 'snake_case', 'Hello', 'hello'];
const SENTENCES = ['The quick brown fox jumps over the lazy dog.', 'hello world', 'Hello, World!',
  '  leading and trailing  ', 'one,two,,three', 'a-b-c-d', 'key=value; other=42', 'Name: Alice, Age: 30',
  'line one\nline two\nline three', 'tab\tseparated\tvalues', 'MiXeD CaSe TeXt', 'ALL CAPS HERE',
  'no-spaces-at-all', '2024-01-15', '192.168.0.1', 'user@example.com', '/usr/local/bin/python3',
  'C:\\Users\\bob', "it's a test", 'say "cheese"', 'résumé café naïve', '1 2 3 4 5', '10,20,30',
  'a1b2c3d4', 'racecar', 'Was it a car or a cat I saw', '   ', '', 'x', 'aaa bbb aaa ccc',
  'price: $9.99', '#hashtag and @mention', '(nested (parens))', '[1, 2, 3]', 'CSV,Data,Row\n1,2,3',
  'Mississippi', 'banana split', 'The End', 'ends with space ', '!!!', '3 apples and 4 pears'];
const SUBS = ['a', 'e', 'o', 's', 'an', 'the', ' ', ',', '-', '.', ':', '=', 'l', 'll', 'ss', '1', '0',
  'x', 'A', 'The', 'ing', '\n', 'é', '', 'na', 'is'];
const SEPS = [',', ' ', '-', ';', ':', '=', '\n', ', ', '/', '.', '|'];
const JOINERS = ['', ' ', ',', ', ', '-', '_', '|', '\n', ' / ', '.'];
const CHARS = ['a', 'z', 'A', 'Z', '0', '9', ' ', '-', '_', '.', 'é', '*', '#'];
const FILLS = ['*', '-', '0', ' ', '.', '='];
const STRIP = [' ', '.', '-', 'x', ' .!', 'ab', '0', '\n'];
const KEYS = ['a', 'b', 'c', 'x', 'y', 'id', 'name', 'age', 'score', 'total', 'red', 'blue', 'apple', 'bob',
  'count', 'key', 'zeta', 'alpha', 'beta', 'n'];

const pyStr = (s: string): string => {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').split(quote).join(`\\${quote}`);
  return quote + body + quote;
};

function intLit(rng: Rng): number {
  const r = rng.next();
  if (r < 0.55) return rng.int(0, 12);
  if (r < 0.75) return rng.int(-10, 100);
  if (r < 0.9) return rng.int(-1000, 10000);
  return rng.pick([0, 1, -1, 2, 10, 100, 255, 1024, 65536, 10 ** 6, 2 ** 31 - 1, -(10 ** 9)]);
}

const FLOATS = ['0.5', '1.25', '-2.5', '3.14159', '0.1', '2.0', '100.0', '-0.75', '1e-3', '2.5e3', '7.777', '0.0', '99.99'];

function strVal(rng: Rng): string {
  const r = rng.next();
  if (r < 0.45) return rng.pick(WORDS);
  if (r < 0.9) return rng.pick(SENTENCES);
  return Array.from({ length: rng.int(0, 6) }, () => rng.pick(CHARS)).join('');
}

const list = (rng: Rng, lo: number, hi: number, item: () => string): string =>
  `[${Array.from({ length: rng.int(lo, hi) }, item).join(', ')}]`;

/** A Python literal of type `ty`. */
function literal(rng: Rng, ty: Ty): string {
  switch (ty) {
    case 'int': return String(intLit(rng));
    case 'float': return rng.pick(FLOATS);
    case 'bool': return rng.chance(0.5) ? 'True' : 'False';
    case 'str': return pyStr(strVal(rng));
    case 'ints': {
      const small = rng.chance(0.6);
      return list(rng, rng.chance(0.08) ? 0 : 1, 8, () => String(small ? rng.int(-5, 20) : intLit(rng)));
    }
    case 'strs': return list(rng, rng.chance(0.08) ? 0 : 1, 6, () => pyStr(rng.chance(0.8) ? rng.pick(WORDS) : strVal(rng)));
    case 'dict': {
      const keys = rng.shuffle([...KEYS]).slice(0, rng.int(0, 5));
      return `{${keys.map((k) => `${pyStr(k)}: ${rng.int(-3, 50)}`).join(', ')}}`;
    }
    case 'set': {
      const n = rng.int(0, 6);
      return n === 0 ? 'set()' : `{${[...new Set(Array.from({ length: n }, () => rng.int(-3, 15)))].join(', ')}}`;
    }
    case 'pair': return `(${pyStr(rng.pick(KEYS))}, ${rng.int(-5, 99)})`;
    case 'pairs': return list(rng, 0, 5, () => `(${pyStr(rng.pick(KEYS))}, ${rng.int(-5, 99)})`);
    case 'bytes': return `b${pyStr(rng.pick(['abc', 'hello', 'A-Z', '', '0123', 'data\n', 'x y z']))}`;
    case 'grid': return list(rng, 0, 4, () => list(rng, 0, 4, () => String(rng.int(-3, 9))));
  }
}

/** Placeholders in templates: `$0` `$1` are the operation's variables; the rest are fresh literals. */
const FILLERS: Record<string, (rng: Rng) => string> = {
  SUB: (rng) => pyStr(rng.pick(SUBS.filter((s) => s !== ''))),
  SUB0: (rng) => pyStr(rng.pick(SUBS)),
  SEP: (rng) => pyStr(rng.pick(SEPS)),
  JOIN: (rng) => pyStr(rng.pick(JOINERS)),
  CH: (rng) => pyStr(rng.pick(CHARS)),
  FILL: (rng) => pyStr(rng.pick(FILLS)),
  STRIP: (rng) => pyStr(rng.pick(STRIP)),
  KEY: (rng) => pyStr(rng.pick(KEYS)),
  WORD: (rng) => pyStr(rng.pick(WORDS)),
  STR: (rng) => pyStr(strVal(rng)),
  N: (rng) => String(rng.int(0, 5)),
  W: (rng) => String(rng.int(0, 14)),
  I: (rng) => String(rng.int(-4, 6)),
  K: (rng) => String(rng.pick([2, 3, -1, -2, 2, 3])),
  INT: (rng) => String(intLit(rng)),
  D: (rng) => String(rng.pick([2, 3, 4, 5, 7, 10, 0, -3])),
  FLOAT: (rng) => rng.pick(FLOATS),
  FMT: (rng) => rng.pick(['>8', '<6', '^9', '08.3f', '.2f', ',', 'x', 'b', '05d', '+d', '.1%', '*^7', 'e']),
};

interface Op {
  /** The types of `$0`, `$1`, ... */
  takes: readonly Ty[];
  /** What the expression gives; null for a statement that only mutates `$0`. */
  gives: Ty | null;
  tpl: string;
}

const e = (takes: readonly Ty[], gives: Ty | null, ...tpls: string[]): Op[] => tpls.map((tpl) => ({ takes, gives, tpl }));

/** Every operation the curriculum knows. Several may raise on some inputs: that is intended. */
const OPS: readonly Op[] = [
  // str -> str
  ...e(['str'], 'str', '$0.upper()', '$0.lower()', '$0.strip()', '$0.strip(STRIP)', '$0.lstrip()', '$0.rstrip(STRIP)',
    '$0.title()', '$0.capitalize()', '$0.swapcase()', '$0.casefold()', '$0.replace(SUB, SUB0)', '$0.replace(SUB, SUB0, 1)',
    '$0.center(W, FILL)', '$0.ljust(W, FILL)', '$0.rjust(W)', '$0.zfill(W)', '$0[::-1]', '$0[I:I]', '$0[I:]', '$0[:I]',
    '$0[::K]', '$0[I]', '$0[-1]', '$0[0]', '$0 * N', '$0.removeprefix(SUB)', '$0.removesuffix(SUB)', '$0.expandtabs(4)',
    "''.join(sorted($0))", "''.join(reversed($0))", "' '.join($0.split())", '$0.translate(str.maketrans(SUB, CH))',
    "f'<{$0}>'", "f'{$0!r}'", "f'{$0:FMT}'", "'{} and {}'.format($0, SUB)", "$0 + SUB", "$0.partition(SEP)[2]",
    "$0.split(SEP)[0]", "$0.split()[-1]", "max($0.split(), key=len)", "min($0)", "max($0)"),
  ...e(['str', 'str'], 'str', '$0 + $1', '$0 + SEP + $1', "f'{$0}-{$1}'", '$0.replace($1, SUB0)', "min($0, $1)", "max($0, $1, key=len)"),
  // str -> other
  ...e(['str'], 'strs', '$0.split()', '$0.split(SEP)', '$0.split(SEP, 1)', '$0.rsplit(SEP, 1)', '$0.splitlines()',
    'list($0)', 'sorted($0)', 'sorted(set($0))', '[w.capitalize() for w in $0.split()]', '[c for c in $0 if c.isalpha()]',
    '[c for c in $0 if c.isdigit()]', 'sorted($0.split(), key=len)', 'sorted($0.split(), key=str.lower)', '[p.strip() for p in $0.split(SEP)]',
    'list($0.partition(SEP))', '$0.lower().split()[:N]'),
  ...e(['str'], 'int', 'len($0)', '$0.find(SUB)', '$0.rfind(SUB)', '$0.count(SUB)', '$0.index(SUB)', 'ord($0[0])', 'int($0)',
    'len($0.split())', 'sum(c.isupper() for c in $0)', 'sum(1 for c in $0 if c in SUB)', 'len(set($0))', '$0.count(SUB0)'),
  ...e(['str'], 'bool', '$0.startswith(SUB)', '$0.endswith(SUB)', '$0.isdigit()', '$0.isalpha()', '$0.isalnum()', '$0.isspace()',
    '$0.isupper()', '$0.islower()', '$0.istitle()', '$0.isidentifier()', '$0.isdecimal()', 'SUB in $0', '$0 == $0[::-1]', 'not $0',
    '$0.startswith((SUB, SUB))', "any(c.isdigit() for c in $0)", "all(c.isalpha() for c in $0)", '$0 < SUB'),
  ...e(['str'], 'dict', '{c: $0.count(c) for c in $0}', "{w: len(w) for w in $0.split()}", 'dict.fromkeys($0.split(), 0)'),
  ...e(['str'], 'bytes', '$0.encode()', "$0.encode('utf-8')"),
  ...e(['str'], 'float', 'float($0)', 'len($0) / N'),
  ...e(['str'], 'pair', '($0[:1], len($0))'),
  // int / float
  ...e(['int'], 'int', '$0 + INT', '$0 - INT', '$0 * D', '$0 // D', '$0 % D', '-$0', 'abs($0)', '$0 ** 2', '$0 ** N',
    '$0 << N', '$0 >> N', '$0 & INT', '$0 | INT', '$0 ^ INT', '~$0', '$0.bit_length()', 'max($0, INT)', 'min($0, INT)',
    'pow($0, 2, D)', 'round($0, -1)', 'int(str($0)[::-1])', 'sum(int(d) for d in str(abs($0)))', 'len(str($0))',
    '$0 if $0 > 0 else -$0', '($0 + 1) * ($0 - 1)'),
  ...e(['int', 'int'], 'int', '$0 + $1', '$0 - $1', '$0 * $1', '$0 // $1', '$0 % $1', 'max($0, $1)', 'min($0, $1)', 'abs($0 - $1)',
    '$0 if $0 > $1 else $1', 'divmod($0, $1)[0]'),
  ...e(['int'], 'str', 'str($0)', 'bin($0)', 'hex($0)', 'oct($0)', "f'{$0:FMT}'", "f'{$0:,}'", "'{:>6}'.format($0)", 'chr(97 + $0 % 26)',
    "str($0).zfill(5)", "f'n={$0}'", 'repr($0)', "format($0, 'b')"),
  ...e(['int'], 'float', '$0 / D', '$0 / 2', 'float($0)', '$0 * FLOAT', '$0 ** 0.5', '$0 / 3'),
  ...e(['int'], 'bool', '$0 > INT', '$0 % 2 == 0', '$0 == 0', 'bool($0)', '$0 in range(N, 10)', '0 <= $0 < 10', 'not $0'),
  ...e(['int'], 'ints', 'list(range($0 % 8))', 'list(range(0, $0 % 20, 3))', 'list(range(N, -1, -1))', '[int(d) for d in str(abs($0))]',
    'list(divmod($0, D))', '[$0] * N', '[i * i for i in range($0 % 6)]'),
  ...e(['float'], 'float', '$0 * 2', '$0 + FLOAT', '$0 - FLOAT', '$0 / FLOAT', '$0 ** 2', 'abs($0)', 'round($0, 2)', 'round($0, N)',
    '-$0', 'max($0, FLOAT)', '$0 // 1', '$0 % 1'),
  ...e(['float'], 'int', 'int($0)', 'round($0)', 'int($0 * 100)'),
  ...e(['float'], 'str', 'str($0)', "f'{$0:.2f}'", "f'{$0:FMT}'", "'%.3f' % $0", 'repr($0)', "format($0, '.1e')"),
  ...e(['float'], 'bool', '$0.is_integer()', '$0 > 0', '$0 == int($0)'),
  ...e(['float'], 'pair', '$0.as_integer_ratio()'),
  // lists of ints
  ...e(['ints'], 'int', 'len($0)', 'sum($0)', 'min($0)', 'max($0)', '$0[0]', '$0[-1]', '$0[I]', '$0.index(N)', '$0.count(N)',
    'max($0, default=0)', 'min($0, key=abs)', 'sum($0) // len($0)', 'sorted($0)[len($0) // 2]', 'len(set($0))',
    'sum(x for x in $0 if x % 2 == 0)', 'sum(1 for x in $0 if x > N)', '$0.pop()', '$0.pop(0)', 'max($0) - min($0)',
    'sum(i * x for i, x in enumerate($0))'),
  ...e(['ints'], 'ints', 'sorted($0)', 'sorted($0, reverse=True)', 'sorted($0, key=abs)', 'sorted($0, key=lambda x: (x % 3, x))',
    'list(reversed($0))', '$0[::-1]', '$0[I:I]', '$0[::K]', '$0[1:]', '$0[:-1]', '$0[I:]', '[x * 2 for x in $0]', '[x for x in $0 if x % 2]',
    '[x for x in $0 if x > N]', 'list(map(abs, $0))', 'list(filter(None, $0))', '$0 + $0[:N]', '$0 * 2', 'sorted(set($0))',
    '[x % D for x in $0]', '$0.copy()', '[sum($0[:i + 1]) for i in range(len($0))]', '[a - b for a, b in zip($0[1:], $0)]',
    '[i for i, x in enumerate($0) if x == N]', 'list(dict.fromkeys($0))', '$0[:N] + [INT]', '[max(x, 0) for x in $0]'),
  ...e(['ints', 'ints'], 'ints', '$0 + $1', '[a + b for a, b in zip($0, $1)]', '[x for x in $0 if x in $1]', 'sorted(set($0) | set($1))',
    'sorted(set($0) - set($1))', '[a * b for a, b in zip($0, $1)]'),
  ...e(['ints'], 'bool', 'N in $0', 'any(x < 0 for x in $0)', 'all(x > 0 for x in $0)', '$0 == sorted($0)', 'not $0',
    'len($0) == len(set($0))', 'sum($0) > INT', '$0 < [N]'),
  ...e(['ints'], 'str', 'str($0)', "' '.join(map(str, $0))", "JOIN.join(str(x) for x in $0)", "f'{$0}'", 'repr($0[:N])', "f'{len($0)} items'"),
  ...e(['ints'], 'set', 'set($0)', '{x % 3 for x in $0}', 'set($0[:N])'),
  ...e(['ints'], 'dict', '{str(x): $0.count(x) for x in $0}', '{str(i): x for i, x in enumerate($0)}', "{str(x): x * x for x in $0}", 'dict.fromkeys(map(str, $0), 0)'),
  ...e(['ints'], 'pair', '(min($0), max($0))', 'divmod(sum($0), D)', '($0[0], $0[-1])', 'tuple($0[:2])'),
  ...e(['ints'], 'float', 'sum($0) / len($0)', 'sum($0) / D'),
  ...e(['ints'], 'pairs', 'list(enumerate($0))', 'list(zip($0, $0[1:]))', 'sorted(enumerate($0), key=lambda p: p[1])'),
  ...e(['ints'], 'grid', '[$0[i:i + 2] for i in range(0, len($0), 2)]', '[[x] * 2 for x in $0[:3]]'),
  // lists of strs
  ...e(['strs'], 'str', "JOIN.join($0)", "' '.join($0)", '$0[0]', '$0[-1]', '$0[I]', 'max($0)', 'min($0)', 'max($0, key=len)',
    "''.join(w[0] for w in $0 if w)", 'sorted($0)[0]', "', '.join(sorted($0))", '$0.pop()', "JOIN.join(reversed($0))", 'str($0)',
    "JOIN.join(w.upper() for w in $0)"),
  ...e(['strs'], 'strs', 'sorted($0)', 'sorted($0, key=len)', 'sorted($0, key=str.lower)', 'sorted($0, key=lambda w: (len(w), w))',
    'sorted($0, reverse=True)', '[w.upper() for w in $0]', '[w[::-1] for w in $0]', '[w for w in $0 if len(w) > N]',
    '[w for w in $0 if w.isalpha()]', '$0[::-1]', '$0[I:]', '$0[::2]', 'list(map(str.strip, $0))', 'list(dict.fromkeys($0))',
    '[w.title() for w in $0]', "[f'{i}:{w}' for i, w in enumerate($0)]", '$0 + [WORD]', 'sorted(set($0))', '[w[:N] for w in $0]'),
  ...e(['strs'], 'int', 'len($0)', 'sum(len(w) for w in $0)', '$0.index(WORD)', '$0.count(WORD)', 'len(set($0))', 'max(map(len, $0))'),
  ...e(['strs'], 'ints', '[len(w) for w in $0]', 'list(map(len, $0))', '[w.count(SUB) for w in $0]', '[i for i, w in enumerate($0) if w]'),
  ...e(['strs'], 'bool', 'WORD in $0', 'any(w.isupper() for w in $0)', 'all($0)', "'' in $0", '$0 == sorted($0)'),
  ...e(['strs'], 'dict', '{w: len(w) for w in $0}', '{w: i for i, w in enumerate($0)}', '{w: $0.count(w) for w in $0}', 'dict.fromkeys($0, 0)'),
  ...e(['strs'], 'pairs', 'list(zip($0, range(len($0))))', 'sorted((w, len(w)) for w in $0)'),
  // dicts
  ...e(['dict'], 'int', '$0[KEY]', '$0.get(KEY, 0)', 'len($0)', 'sum($0.values())', 'max($0.values())', 'min($0.values(), default=0)',
    '$0.pop(KEY)', '$0.pop(KEY, -1)', '$0.setdefault(KEY, N)', 'sum(1 for v in $0.values() if v > N)'),
  ...e(['dict'], 'strs', 'list($0)', 'sorted($0)', 'sorted($0, key=$0.get)', 'sorted($0, key=lambda k: -$0[k])', 'list($0.keys())',
    '[k for k, v in $0.items() if v > N]', "[f'{k}={v}' for k, v in $0.items()]", 'sorted($0, reverse=True)[:N]'),
  ...e(['dict'], 'ints', 'list($0.values())', 'sorted($0.values())', '[v * 2 for v in $0.values()]'),
  ...e(['dict'], 'pairs', 'list($0.items())', 'sorted($0.items())', 'sorted($0.items(), key=lambda kv: kv[1])', 'list($0.items())[:N]'),
  ...e(['dict'], 'dict', '{k: v for k, v in $0.items() if v % 2 == 0}', '{k: -v for k, v in $0.items()}', '{**$0, KEY: N}', 'dict($0)',
    '{k.upper(): v for k, v in $0.items()}', '$0.copy()', 'dict(sorted($0.items()))', '{k: $0[k] + 1 for k in $0}'),
  ...e(['dict', 'dict'], 'dict', '{**$0, **$1}', '$0 | $1', '{k: v for k, v in $0.items() if k in $1}'),
  ...e(['dict'], 'bool', 'KEY in $0', 'N in $0.values()', 'not $0', 'all(v > 0 for v in $0.values())'),
  ...e(['dict'], 'str', 'str($0)', "', '.join(f'{k}:{v}' for k, v in sorted($0.items()))", 'max($0, key=$0.get)', "min($0)", "f'{$0}'"),
  // sets
  ...e(['set'], 'set', '$0 | {N, INT}', '$0 & {N, 1, 2, 3}', '$0 - {N, 0}', '$0 ^ {1, N}', '{x * 2 for x in $0}', '$0.union({N})',
    '$0.intersection(range(5))', '$0.difference({0, 1})', '$0.copy()', '{x for x in $0 if x > N}'),
  ...e(['set', 'set'], 'set', '$0 | $1', '$0 & $1', '$0 - $1', '$0 ^ $1'),
  ...e(['set'], 'ints', 'sorted($0)', 'sorted($0, reverse=True)', 'list(sorted($0))[:N]'),
  ...e(['set'], 'int', 'len($0)', 'sum($0)', 'max($0)', 'min($0)', '$0.pop()'),
  ...e(['set'], 'bool', 'N in $0', '$0.issubset({0, 1, 2, 3, 4, 5})', '$0.isdisjoint({N})', 'not $0', '$0 <= {1, 2, 3}'),
  // tuples and pairs
  ...e(['pair'], 'str', '$0[0]', "f'{$0[0]}={$0[1]}'", 'str($0)', "'%s: %d' % $0"),
  ...e(['pair'], 'int', '$0[1]', 'len($0)', '$0[1] * 2', '$0.index($0[1])', '$0.count(N)'),
  ...e(['pair'], 'pair', '($0[1], $0[0])', '$0 + (N,)', '$0[::-1]', 'tuple(sorted(map(str, $0)))'),
  ...e(['pairs'], 'dict', 'dict($0)', '{k: v for k, v in $0 if v > N}'),
  ...e(['pairs'], 'strs', '[k for k, v in $0]', '[k for k, _ in sorted($0, key=lambda p: p[1])]', "[f'{k}{v}' for k, v in $0]"),
  ...e(['pairs'], 'ints', '[v for _, v in $0]', 'sorted(v for k, v in $0)', '[v * 2 for k, v in $0 if k < KEY]'),
  ...e(['pairs'], 'pairs', 'sorted($0)', 'sorted($0, key=lambda p: p[1])', 'sorted($0, key=lambda p: (-p[1], p[0]))', '$0[::-1]', '$0[:N]',
    '[(v, k) for k, v in $0]', 'list(reversed($0))'),
  ...e(['pairs'], 'pair', 'max($0, key=lambda p: p[1])', 'min($0)', '$0[0]', '$0[-1]'),
  ...e(['pairs'], 'int', 'sum(v for _, v in $0)', 'len($0)', 'len(dict($0))'),
  // bytes
  ...e(['bytes'], 'str', '$0.decode()', '$0.hex()', 'str($0)', "$0.decode('ascii')"),
  ...e(['bytes'], 'bytes', '$0.upper()', '$0[::-1]', '$0 + b\'!\'', '$0[1:]', '$0.replace(b\'a\', b\'@\')', 'bytes(reversed($0))', '$0 * 2'),
  ...e(['bytes'], 'int', 'len($0)', '$0[0]', 'sum($0)', '$0.count(b\'a\')', '$0.find(b\'l\')'),
  ...e(['bytes'], 'ints', 'list($0)', 'sorted($0)'),
  // grids (nested lists)
  ...e(['grid'], 'ints', '[sum(row) for row in $0]', '[len(row) for row in $0]', '[x for row in $0 for x in row]', '[max(row, default=0) for row in $0]', '$0[0]', '$0[-1]'),
  ...e(['grid'], 'grid', '[row[::-1] for row in $0]', '[sorted(row) for row in $0]', '[list(r) for r in zip(*$0)]', '$0[::-1]',
    '[[x * 2 for x in row] for row in $0]', '[row for row in $0 if row]', '[row + [0] for row in $0]'),
  ...e(['grid'], 'int', 'len($0)', 'sum(map(sum, $0))', '$0[0][0]', '$0[I][I]', 'sum(len(r) for r in $0)'),
  ...e(['grid'], 'str', 'str($0)', "'\\n'.join(' '.join(map(str, r)) for r in $0)"),
  // bools
  ...e(['bool'], 'bool', 'not $0', '$0 and True', '$0 or False'),
  ...e(['bool', 'bool'], 'bool', '$0 and $1', '$0 or $1', '$0 != $1'),
  ...e(['bool'], 'int', 'int($0)', '$0 + $0', 'N if $0 else INT'),
  ...e(['bool'], 'str', 'str($0)', "'yes' if $0 else 'no'", "f'{$0}'"),
];

/** Statements that change `$0` in place (the aliasing lessons ride on these). */
const MUTATIONS: readonly Op[] = [
  ...e(['ints'], null, '$0.append(INT)', '$0.extend([N, INT])', '$0.insert(I, INT)', '$0.remove(N)', '$0.sort()', '$0.sort(reverse=True)',
    '$0.reverse()', '$0.pop()', '$0.pop(0)', 'del $0[0]', 'del $0[I:I]', '$0[0] = INT', '$0[I] = N', '$0[1:3] = [N]', '$0.clear()',
    '$0 += [N]', '$0 *= 2', '$0.sort(key=abs)'),
  ...e(['strs'], null, '$0.append(WORD)', '$0.insert(0, WORD)', '$0.remove(WORD)', '$0.sort()', '$0.sort(key=len)', '$0.pop()',
    '$0[0] = $0[0].upper()', 'del $0[-1]', '$0.extend(STR.split())', '$0.reverse()', '$0 += [STR]'),
  ...e(['dict'], null, '$0[KEY] = N', '$0[KEY] += 1', '$0.update({KEY: N})', 'del $0[KEY]', '$0.pop(KEY, None)', '$0.setdefault(KEY, INT)',
    '$0.clear()', '$0[KEY] = $0.get(KEY, 0) + 1', '$0 |= {KEY: INT}'),
  ...e(['set'], null, '$0.add(N)', '$0.discard(N)', '$0.remove(N)', '$0.update({N, INT})', '$0 -= {N}', '$0 &= {0, 1, 2, 3, 4, 5, 6}', '$0.clear()'),
  ...e(['grid'], null, '$0.append([N])', '$0[0].append(N)', '$0[0][0] = INT', '$0.sort()', '$0.pop()'),
];

const PARAM_NAMES: Record<Ty, readonly string[]> = {
  int: ['n', 'x', 'k', 'count', 'limit', 'value', 'num', 'size', 'start', 'step', 'year', 'amount'],
  float: ['x', 'rate', 'price', 'ratio', 'temp', 'weight', 'score', 'f'],
  bool: ['flag', 'strict', 'verbose', 'reverse', 'enabled'],
  str: ['s', 'text', 'name', 'word', 'line', 'path', 'msg', 'key', 'label', 'sentence', 'title', 'raw', 'query'],
  ints: ['nums', 'xs', 'values', 'data', 'scores', 'items', 'arr', 'numbers', 'costs', 'lst'],
  strs: ['words', 'names', 'items', 'tokens', 'parts', 'lines', 'tags', 'fruits', 'keys'],
  dict: ['d', 'counts', 'table', 'ages', 'stock', 'config', 'scores', 'mapping', 'inventory'],
  set: ['seen', 'ids', 's', 'nums', 'tags', 'members'],
  pair: ['pair', 'point', 'entry', 'item', 'p', 'rec'],
  pairs: ['pairs', 'records', 'entries', 'rows', 'items', 'kv'],
  bytes: ['data', 'raw', 'buf', 'payload', 'b'],
  grid: ['grid', 'matrix', 'rows', 'board', 'm', 'table'],
};
const LOCAL_NAMES: Record<Ty, readonly string[]> = {
  int: ['total', 'n', 'idx', 'count', 'size', 'best', 'pos', 'result', 'diff', 'i', 'length', 'first', 'last', 'acc', 'q', 'r'],
  float: ['avg', 'mean', 'ratio', 'half', 'scaled', 'result', 'y', 'share'],
  bool: ['ok', 'found', 'is_ok', 'has_it', 'valid', 'flag', 'same', 'done'],
  str: ['out', 'result', 'head', 'tail', 'clean', 'joined', 'label', 'word', 'first', 'rest', 'msg', 'token', 'upper', 'key', 'line', 'text'],
  ints: ['out', 'result', 'evens', 'vals', 'ordered', 'picked', 'lengths', 'sizes', 'idxs', 'diffs', 'counts', 'copy', 'rest', 'tail'],
  strs: ['parts', 'words', 'result', 'keys', 'names', 'pieces', 'fields', 'kept', 'chars', 'tokens', 'out'],
  dict: ['freq', 'index', 'lookup', 'merged', 'counts', 'out', 'inv', 'by_len', 'table'],
  set: ['uniq', 'common', 'seen', 'rest', 'both', 'only', 'marks'],
  pair: ['pair', 'bounds', 'top', 'qr', 'span', 'best'],
  pairs: ['pairs', 'ranked', 'items', 'rows', 'ordered', 'zipped'],
  bytes: ['enc', 'raw', 'data', 'blob'],
  grid: ['rows', 'grid', 'cols', 'chunks', 'flipped', 'table'],
};
const ELEMENT: Partial<Record<Ty, Ty>> = { ints: 'int', strs: 'str', str: 'str', dict: 'str', set: 'int', grid: 'ints', bytes: 'int' };
const ELEMENT_NAMES: Partial<Record<Ty, readonly string[]>> = {
  int: ['x', 'n', 'v', 'num', 'item', 'val'], str: ['w', 'word', 'ch', 'c', 'part', 'name', 'key', 'k', 's'], ints: ['row', 'r', 'line'],
};
const VERBS = ['count', 'clean', 'parse', 'normalize', 'merge', 'split', 'group', 'rank', 'find', 'score', 'format', 'encode',
  'sum', 'collect', 'filter', 'check', 'build', 'summarize', 'invert', 'flatten', 'dedupe', 'tally', 'pick', 'trim', 'pad', 'sort'];
const NOUNS = ['words', 'items', 'text', 'values', 'pairs', 'names', 'scores', 'tokens', 'line', 'record', 'digits', 'keys', 'rows',
  'chars', 'tags', 'counts', 'title', 'path', 'matrix', 'prices', 'entries', 'fields', 'data', 'input'];
const EXCEPTIONS = ['IndexError', 'KeyError', 'ValueError', 'ZeroDivisionError', '(ValueError, TypeError)', 'Exception', 'LookupError'];

const fill = (rng: Rng, tpl: string, vars: readonly string[]): string =>
  tpl.replace(/\$(\d)|\b([A-Z][A-Z0-9]*)\b/g, (m, v: string | undefined, ph: string | undefined) =>
    v !== undefined ? vars[Number(v)]! : ph && FILLERS[ph] ? FILLERS[ph](rng) : m);

/** A program being built: the scope's typed variables and the lines so far. */
class Body {
  readonly lines: string[] = [];
  readonly scope = new Map<string, Ty>();

  constructor(readonly rng: Rng) {}

  varsOf(ty: Ty): string[] {
    return [...this.scope].filter(([, t]) => t === ty).map(([n]) => n);
  }

  /** An operation whose inputs are all in scope, with variables for them; null if none fits. */
  pickOp(pool: readonly Op[], want?: Ty): { op: Op; vars: string[] } | null {
    const fits = pool.filter((op) => (want === undefined || op.gives === want) && op.takes.every((t) => this.varsOf(t).length > 0));
    if (fits.length === 0) return null;
    const op = this.rng.pick(fits);
    return { op, vars: op.takes.map((t) => this.rng.pick(this.varsOf(t))) };
  }

  freshName(ty: Ty, names = LOCAL_NAMES[ty]): string {
    const free = names.filter((n) => !this.scope.has(n));
    return free.length > 0 ? this.rng.pick(free) : `${this.rng.pick(names)}${this.scope.size}`;
  }

  /** `name = expr`, reusing an existing variable of the type now and then (rebinding). */
  assign(indent: string): boolean {
    const picked = this.pickOp(OPS);
    if (!picked) return false;
    const { op, vars } = picked;
    const gives = op.gives!;
    const reuse = this.varsOf(gives);
    const name = reuse.length > 0 && this.rng.chance(0.25) ? this.rng.pick(reuse) : this.freshName(gives);
    this.lines.push(`${indent}${name} = ${fill(this.rng, op.tpl, vars)}`);
    this.scope.set(name, gives);
    return true;
  }

  mutate(indent: string): boolean {
    const picked = this.pickOp(MUTATIONS);
    if (!picked) return false;
    this.lines.push(`${indent}${fill(this.rng, picked.op.tpl, picked.vars)}`);
    return true;
  }
}

/** One of the body shapes; each leaves at least one variable worth returning in scope. */
function shape(b: Body): void {
  const rng = b.rng;
  const kind = rng.weighted({ straight: 3, mutate: 2, alias: 0.8, loop: 2.2, while: 0.6, branch: 1.2, guard: 1.2, unpack: 0.8, helper: 0.8 });
  const steps = rng.int(1, 3);
  switch (kind) {
    case 'straight':
      for (let i = 0; i < steps + 1; i++) b.assign('    ');
      return;
    case 'mutate':
      for (let i = 0; i < steps; i++) (rng.chance(0.6) ? b.mutate('    ') : false) || b.assign('    ');
      return;
    case 'alias': {
      const colls = (['ints', 'strs', 'dict', 'set', 'grid'] as const).filter((t) => b.varsOf(t).length > 0);
      if (colls.length === 0) return shape(b);
      const ty = rng.pick(colls);
      const src = rng.pick(b.varsOf(ty));
      const alias = b.freshName(ty, ['alias', 'other', 'ref', 'view', 'same', 'copy']);
      const copy = rng.chance(0.4) ? rng.pick(['[:]', '.copy()']) : '';
      b.lines.push(`    ${alias} = ${src}${ty === 'set' || ty === 'dict' ? (copy ? '.copy()' : '') : copy}`);
      b.scope.set(alias, ty);
      b.lines.push(`    ${fill(rng, rng.pick(MUTATIONS.filter((m) => m.takes[0] === ty)).tpl, [alias])}`);
      return;
    }
    case 'loop': {
      const iterables = (Object.keys(ELEMENT) as Ty[]).filter((t) => b.varsOf(t).length > 0);
      if (iterables.length === 0) return shape(b);
      const ty = rng.pick(iterables);
      const src = rng.pick(b.varsOf(ty));
      const elTy = ELEMENT[ty]!;
      const el = b.freshName(elTy, ELEMENT_NAMES[elTy] ?? LOCAL_NAMES[elTy]);
      const accTy = rng.pick<Ty>(['int', 'str', 'ints', 'strs', 'dict']);
      const acc = b.freshName(accTy);
      b.lines.push(`    ${acc} = ${{ int: '0', str: "''", ints: '[]', strs: '[]', dict: '{}' }[accTy as 'int']}`);
      const useIndex = rng.chance(0.25) && ty !== 'dict' && ty !== 'set';
      b.lines.push(useIndex ? `    for i, ${el} in enumerate(${src}):` : `    for ${el} in ${src}${ty === 'dict' && rng.chance(0.3) ? '.keys()' : ''}:`);
      const inner = new Map(b.scope);
      b.scope.set(el, elTy);
      if (useIndex) b.scope.set('i', 'int');
      const filterOp = b.pickOp(OPS.filter((o) => o.takes.length === 1 && o.takes[0] === elTy), 'bool');
      let ind = '        ';
      if (filterOp && rng.chance(0.5)) {
        b.lines.push(`        if ${fill(rng, filterOp.op.tpl, [el])}:`);
        ind = '            ';
        if (rng.chance(0.2)) {
          b.lines.push(`${ind}${rng.pick(['continue', 'break'])}`);
          ind = '        ';
        }
      }
      const valOp = b.pickOp(OPS.filter((o) => o.takes.length === 1 && o.takes[0] === elTy));
      const val = valOp ? fill(rng, valOp.op.tpl, [el]) : el;
      const valTy = valOp ? valOp.op.gives! : elTy;
      switch (accTy) {
        case 'int': b.lines.push(`${ind}${acc} += ${valTy === 'int' || valTy === 'bool' ? val : elTy === 'int' ? el : `len(${el})`}`); break;
        case 'str': b.lines.push(`${ind}${acc} += ${valTy === 'str' ? val : `str(${val})`}`); break;
        case 'ints': b.lines.push(`${ind}${acc}.append(${valTy === 'int' ? val : useIndex ? 'i' : `len(str(${el}))`})`); break;
        case 'strs': b.lines.push(`${ind}${acc}.append(${valTy === 'str' ? val : `str(${val})`})`); break;
        case 'dict': b.lines.push(`${ind}${acc}[${elTy === 'str' ? el : `str(${el})`}] = ${acc}.get(${elTy === 'str' ? el : `str(${el})`}, 0) + 1`); break;
      }
      b.scope.clear();
      for (const [k, v] of inner) b.scope.set(k, v);
      b.scope.set(acc, accTy);
      return;
    }
    case 'while': {
      const ints = b.varsOf('int');
      const n = ints.length > 0 ? rng.pick(ints) : null;
      const v = b.freshName('int', ['i', 'j', 'k', 'steps']);
      const acc = b.freshName('ints', ['out', 'seq', 'trail', 'history']);
      const start = n ? `abs(${n}) % 50 + 1` : String(rng.int(1, 40));
      b.lines.push(`    ${v} = ${start}`, `    ${acc} = []`);
      b.lines.push(`    while ${v} > ${rng.pick(['0', '1'])}:`);
      b.lines.push(`        ${acc}.append(${v})`);
      b.lines.push(rng.chance(0.5) ? `        ${v} = ${v} // ${rng.pick([2, 3])}` : `        ${v} = ${v} // 2 if ${v} % 2 == 0 else ${v} - 1`);
      b.scope.set(v, 'int');
      b.scope.set(acc, 'ints');
      return;
    }
    case 'branch': {
      const cond = b.pickOp(OPS, 'bool');
      if (!cond) return shape(b);
      const ifAt = b.lines.length;
      b.lines.push(`    if ${fill(rng, cond.op.tpl, cond.vars)}:`);
      const prior = new Set(b.scope.keys());
      b.assign('        ');
      if (b.lines.length === ifAt + 1) {
        b.lines.push('        pass');
        return;
      }
      const made = b.lines[b.lines.length - 1]!.trim().split(' = ')[0]!;
      const ty = b.scope.get(made)!;
      // A name first bound inside the branch is not there for the other branches' values.
      const isNew = !prior.has(made);
      if (isNew) b.scope.delete(made);
      if (rng.chance(0.3)) {
        const other = b.pickOp(OPS, 'bool');
        if (other) b.lines.push(`    elif ${fill(rng, other.op.tpl, other.vars)}:`, `        ${made} = ${literal(rng, ty)}`);
      }
      if (rng.chance(0.7)) {
        const alt = b.pickOp(OPS, ty);
        b.lines.push('    else:', `        ${made} = ${alt ? fill(rng, alt.op.tpl, alt.vars) : literal(rng, ty)}`);
      } else if (isNew) {
        b.lines.splice(ifAt, 0, `    ${made} = ${literal(rng, ty)}`);
      }
      b.scope.set(made, ty);
      return;
    }
    case 'guard': {
      b.lines.push('    try:');
      const before = b.lines.length;
      b.assign('        ');
      if (b.lines.length === before) return shape(b);
      const made = b.lines[b.lines.length - 1]!.trim().split(' = ')[0]!;
      const ty = b.scope.get(made)!;
      const exc = rng.pick(EXCEPTIONS);
      if (rng.chance(0.3) && ty === 'str') {
        b.lines.push(`    except ${exc} as e:`, `        ${made} = ${rng.pick(['str(e)', 'repr(e)', "type(e).__name__", "f'error: {e}'"])}`);
      } else {
        b.lines.push(`    except ${exc}:`, `        ${made} = ${literal(rng, ty)}`);
      }
      return;
    }
    case 'unpack': {
      const options: [string, string][] = [];
      for (const p of b.varsOf('pair')) options.push([`a, b = ${p}`, 'pairAB']);
      for (const l of b.varsOf('ints')) options.push([`first, *rest = ${l}`, 'intsFR'], [`*init, last = ${l}`, 'intsIL']);
      for (const s of b.varsOf('str')) options.push([`head, _, tail = ${s}.partition(${FILLERS.SEP!(rng)})`, 'strHT'], [`x, y = ${s}.split(${FILLERS.SEP!(rng)}, 1)`, 'strXY']);
      for (const d of b.varsOf('dict')) options.push([`(k, v), *_ = sorted(${d}.items())`, 'dictKV']);
      if (options.length === 0) return shape(b);
      const [line, tag] = rng.pick(options);
      b.lines.push(`    ${line}`);
      const binds: Record<string, [string, Ty][]> = {
        pairAB: [['a', 'str'], ['b', 'int']], intsFR: [['first', 'int'], ['rest', 'ints']], intsIL: [['init', 'ints'], ['last', 'int']],
        strHT: [['head', 'str'], ['tail', 'str']], strXY: [['x', 'str'], ['y', 'str']], dictKV: [['k', 'str'], ['v', 'int']],
      };
      for (const [n, t] of binds[tag]!) b.scope.set(n, t);
      if (tag === 'strXY' && rng.chance(0.4)) b.lines.push('    x, y = y, x');
      return;
    }
    case 'helper':
      // Handled by the caller (a helper is a separate def); fall back to a straight body here.
      for (let i = 0; i < steps; i++) b.assign('    ');
      return;
  }
}

function functionName(rng: Rng): string {
  return `${rng.pick(VERBS)}_${rng.pick(NOUNS)}`;
}

const PARAM_TYPES: readonly Ty[] = ['str', 'str', 'str', 'ints', 'ints', 'strs', 'int', 'int', 'dict', 'float', 'set', 'pairs', 'pair', 'grid', 'bytes', 'bool'];

/** One semantics program: its source, entry and literal arguments. */
export function generateSemanticsProgram(seed: number, index: number): ProgramSpec {
  const rng = new Rng(seed).fork(`semantics-${index}`);
  const id = `semantics/${String(index).padStart(6, '0')}`;
  const entry = functionName(rng);
  const b = new Body(rng);
  const params: [string, Ty][] = [];
  for (let i = 0, n = rng.weighted({ 1: 4, 2: 3, 3: 1 }); i < Number(n); i++) {
    const ty = rng.pick(PARAM_TYPES);
    const name = b.freshName(ty, PARAM_NAMES[ty]);
    params.push([name, ty]);
    b.scope.set(name, ty);
  }
  // A helper now and then: the entry calls it, so step into / step out see a second frame.
  const helperLines: string[] = [];
  if (rng.chance(0.2)) {
    const [pName, pTy] = rng.pick(params);
    const op = OPS.filter((o) => o.takes.length === 1 && o.takes[0] === pTy);
    if (op.length > 0) {
      const chosen = rng.pick(op);
      const helper = `${rng.pick(['_', ''])}${rng.pick(VERBS)}_one`;
      helperLines.push(`def ${helper}(${pName}):`, `    return ${fill(rng, chosen.tpl, [pName])}`, '', '');
      const out = b.freshName(chosen.gives!);
      b.lines.push(`    ${out} = ${helper}(${pName})`);
      b.scope.set(out, chosen.gives!);
    }
  }
  const shapes = rng.weighted({ 1: 5, 2: 3, 3: 1 });
  for (let i = 0; i < Number(shapes); i++) shape(b);
  if (b.lines.length === 0) b.assign('    ');
  // Return what was made last most of the time; sometimes a parameter (mutated in place) or a pair.
  const made = [...b.scope.keys()].filter((n) => !params.some(([p]) => p === n));
  const last = made.length > 0 ? made[made.length - 1]! : params[0]![0];
  const ret = rng.weighted({ last: 6, param: 1, tuple: 1.2, none: 0.3 });
  if (ret === 'last' || made.length < 2) b.lines.push(`    return ${last}`);
  else if (ret === 'param') b.lines.push(`    return ${rng.pick(params)[0]}`);
  else if (ret === 'tuple') b.lines.push(`    return ${last}, ${made[made.length - 2]}`);
  const source = [...helperLines, `def ${entry}(${params.map(([n]) => n).join(', ')}):`, ...b.lines].join('\n') + '\n';
  const args = params.map(([, ty]) => literal(rng, ty)).join(', ');
  return { id, group: id, origin: 'semantics', source, entry, args };
}
