/**
 * The value of an expression that only reads what a state shows (nothing of the program
 * runs): an `if` or `while` test, the right side of an assignment. The expression is one
 * control_flow.py's test_expr accepted: locals, literals, comparisons, `and`/`or`/`not`,
 * arithmetic, `len`/`abs`, indexing, slicing and a few str predicates. It is evaluated as
 * Python would on the values the locals' reprs show (repr-value.ts); wherever Python would
 * raise (a missing name, `1 < 'a'`, an index out of range, a division by zero) or this module
 * does not model the case exactly (non-ASCII text for `isdigit`, float `//`), the answer is
 * undefined: not known.
 */
import type { Locals } from '../grammar/state.js';
import type { TestExpr } from '../program-analysis/control-flow.js';
import { type PyValue, reprValue } from './repr-value.js';

/** True or false as Python would find the test on these locals; undefined where not known. */
export function testHolds(test: TestExpr, locals: Locals): boolean | undefined {
  const v = evaluate(test, locals);
  return v && truth(v);
}

const TRUE: PyValue = { type: 'bool', value: true };
const FALSE: PyValue = { type: 'bool', value: false };
const bool = (b: boolean | undefined): PyValue | undefined => (b === undefined ? undefined : b ? TRUE : FALSE);
const int = (value: bigint): PyValue => ({ type: 'int', value });
/** Floats and ints convert exactly only up to 2^53. */
const SAFE = 2n ** 53n;
/** The longest str or list an operation here builds. */
const MAX_ITEMS = 100_000;

/** The expression's value on these locals; undefined where not known. */
export function evaluate(e: TestExpr, locals: Locals): PyValue | undefined {
  if ('const' in e) return reprValue(e.const);
  if ('name' in e) {
    const repr = Object.hasOwn(locals, e.name) ? locals[e.name] : undefined;
    return repr === undefined ? undefined : reprValue(repr);
  }
  if ('bool' in e) {
    // `a and b` is a if a is false, else b; `a or b` the mirror. Short-circuit, as Python.
    let last: PyValue | undefined;
    for (const part of e.values) {
      last = evaluate(part, locals);
      if (!last || truth(last) === (e.bool === 'or')) return last;
    }
    return last;
  }
  if ('not' in e) {
    const v = evaluate(e.not, locals);
    return v && bool(!truth(v));
  }
  if ('neg' in e) {
    const v = evaluate(e.neg, locals);
    const n = v && numeric(v);
    return n === undefined ? undefined : typeof n === 'bigint' ? int(-n) : { type: 'float', value: -n };
  }
  if ('compare' in e) {
    let left = evaluate(e.operands[0]!, locals);
    for (let i = 0; i < e.compare.length; i++) {
      const right = left && evaluate(e.operands[i + 1]!, locals);
      const holds = right && compare(e.compare[i]!, left!, right);
      if (holds === undefined) return undefined;
      if (!holds) return FALSE;
      left = right;
    }
    return TRUE;
  }
  if ('binary' in e) {
    const a = evaluate(e.operands[0]!, locals);
    const b = a && evaluate(e.operands[1]!, locals);
    return b && binary(e.binary, a!, b);
  }
  if ('call' in e) {
    const v = evaluate(e.arg, locals);
    if (!v) return undefined;
    if (e.call === 'len') {
      const n = length(v);
      return n === undefined ? undefined : int(BigInt(n));
    }
    if (e.call === 'abs') {
      const n = numeric(v);
      return n === undefined ? undefined : typeof n === 'bigint' ? int(n < 0n ? -n : n) : { type: 'float', value: Math.abs(n) };
    }
    return undefined;
  }
  if ('method' in e) {
    const object = evaluate(e.object, locals);
    const args = e.args.map((a) => evaluate(a, locals));
    if (object?.type !== 'str' || args.some((a) => a === undefined)) return undefined;
    return strMethod(e.method, object.chars, args as PyValue[]);
  }
  if ('slice' in e) {
    const of = evaluate(e.of, locals);
    const bounds = e.slice.map((b) => (b === null ? null : evaluate(b, locals)));
    return of && slice(of, bounds);
  }
  const of = evaluate(e.of, locals);
  const index = of && evaluate(e.index, locals);
  return index && item(of!, index);
}

function truth(v: PyValue): boolean {
  switch (v.type) {
    case 'none':
      return false;
    case 'bool':
      return v.value;
    case 'int':
      return v.value !== 0n;
    case 'float':
      return v.value !== 0;
    default:
      return length(v)! > 0;
  }
}

function length(v: PyValue): number | undefined {
  if (v.type === 'str') return v.chars.length;
  if (v.type === 'list' || v.type === 'tuple' || v.type === 'set') return v.items.length;
  if (v.type === 'dict') return v.keys.length;
  return undefined;
}

/** A bool, int or float as a number (bool is an int in Python); undefined for anything else. */
function numeric(v: PyValue): bigint | number | undefined {
  if (v.type === 'bool') return v.value ? 1n : 0n;
  if (v.type === 'int') return v.value;
  if (v.type === 'float') return v.value;
  return undefined;
}

/** -1, 0 or 1 comparing two numbers exactly, ints and floats mixed as Python does. */
function numberOrder(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number') return -numberOrder(b, a);
  // An int against a (finite) float.
  const f = b as number;
  const floor = BigInt(Math.floor(f));
  if (Number.isInteger(f)) return a < floor ? -1 : a > floor ? 1 : 0;
  return a <= floor ? -1 : 1;
}

function equal(a: PyValue, b: PyValue): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && numberOrder(x, y) === 0;
  if (a.type === 'none' || b.type === 'none') return a.type === b.type;
  if (a.type === 'str' && b.type === 'str') return a.chars.length === b.chars.length && a.chars.every((c, i) => c === b.chars[i]);
  if ((a.type === 'list' && b.type === 'list') || (a.type === 'tuple' && b.type === 'tuple'))
    return a.items.length === b.items.length && a.items.every((v, i) => equal(v, b.items[i]!));
  // A repr's set or dict holds no two equal elements or keys.
  if (a.type === 'set' && b.type === 'set') return a.items.length === b.items.length && a.items.every((v) => b.items.some((w) => equal(v, w)));
  if (a.type === 'dict' && b.type === 'dict')
    return a.keys.length === b.keys.length && a.keys.every((k, i) => {
      const j = b.keys.findIndex((l) => equal(k, l));
      return j >= 0 && equal(a.values[i]!, b.values[j]!);
    });
  return false;
}

/** -1, 0 or 1 as `<` orders them; undefined where Python raises TypeError (or for sets, whose `<` is a subset test). */
function order(a: PyValue, b: PyValue): number | undefined {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return numberOrder(x, y);
  if (a.type === 'str' && b.type === 'str') return sequenceOrder(a.chars, b.chars, (c, d) => (c === d ? 0 : c.codePointAt(0)! < d.codePointAt(0)! ? -1 : 1));
  if ((a.type === 'list' && b.type === 'list') || (a.type === 'tuple' && b.type === 'tuple')) {
    // Python compares the first pair of items that differ, then the lengths.
    const i = a.items.findIndex((v, k) => k < b.items.length && !equal(v, b.items[k]!));
    if (i >= 0) return order(a.items[i]!, b.items[i]!);
    return Math.sign(a.items.length - b.items.length);
  }
  return undefined;
}

function sequenceOrder<T>(a: readonly T[], b: readonly T[], cmp: (x: T, y: T) => number): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = cmp(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return Math.sign(a.length - b.length);
}

function hashable(v: PyValue): boolean {
  return v.type === 'tuple' ? v.items.every(hashable) : v.type !== 'list' && v.type !== 'set' && v.type !== 'dict';
}

function contains(container: PyValue, x: PyValue): boolean | undefined {
  if (container.type === 'str') {
    if (x.type !== 'str') return undefined;
    const hay = container.chars.join('');
    return hay.includes(x.chars.join(''));
  }
  if (container.type === 'list' || container.type === 'tuple') return container.items.some((v) => equal(v, x));
  if (container.type === 'set') return hashable(x) ? container.items.some((v) => equal(v, x)) : undefined;
  if (container.type === 'dict') return hashable(x) ? container.keys.some((k) => equal(k, x)) : undefined;
  return undefined;
}

function compare(op: string, a: PyValue, b: PyValue): boolean | undefined {
  switch (op) {
    case '==':
      return equal(a, b);
    case '!=':
      return !equal(a, b);
    case 'is':
    case 'is not':
      // control_flow.py lets `is` compare only with None.
      if (a.type !== 'none' && b.type !== 'none') return undefined;
      return (a.type === b.type) === (op === 'is');
    case 'in':
      return contains(b, a);
    case 'not in': {
      const found = contains(b, a);
      return found === undefined ? undefined : !found;
    }
    default: {
      const o = order(a, b);
      if (o === undefined) return undefined;
      return op === '<' ? o < 0 : op === '<=' ? o <= 0 : op === '>' ? o > 0 : op === '>=' ? o >= 0 : undefined;
    }
  }
}

/** Python's floor division and modulo of ints (the sign of a modulo follows the divisor). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function binary(op: string, a: PyValue, b: PyValue): PyValue | undefined {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) {
    if (typeof x === 'bigint' && typeof y === 'bigint') {
      if (op === '+') return int(x + y);
      if (op === '-') return int(x - y);
      if (op === '*') return int(x * y);
      if (y === 0n) return undefined; // ZeroDivisionError
      if (op === '//') return int(floorDiv(x, y));
      if (op === '%') return int(x - y * floorDiv(x, y));
    }
    // Float arithmetic is IEEE 754 double in both languages; float `//` and `%` are not modelled.
    const f = toFloat(x);
    const g = toFloat(y);
    if (f === undefined || g === undefined) return undefined;
    const r = op === '+' ? f + g : op === '-' ? f - g : op === '*' ? f * g : op === '/' && g !== 0 ? f / g : undefined;
    return r === undefined || !Number.isFinite(r) ? undefined : { type: 'float', value: r };
  }
  if (op === '+' && a.type === 'str' && b.type === 'str') return { type: 'str', chars: [...a.chars, ...b.chars] };
  if (op === '+' && ((a.type === 'list' && b.type === 'list') || (a.type === 'tuple' && b.type === 'tuple'))) return { type: a.type, items: [...a.items, ...b.items] };
  if (op === '*') {
    const [text, times] = a.type === 'str' ? [a, y] : b.type === 'str' ? [b, x] : [undefined, undefined];
    if (text?.type !== 'str' || typeof times !== 'bigint') return undefined;
    const n = times > 0n ? times : 0n;
    if (n * BigInt(text.chars.length) > BigInt(MAX_ITEMS)) return undefined;
    return { type: 'str', chars: Array.from({ length: Number(n) }, () => text.chars).flat() };
  }
  return undefined;
}

function toFloat(n: bigint | number): number | undefined {
  if (typeof n === 'number') return n;
  return n > SAFE || n < -SAFE ? undefined : Number(n);
}

const ASCII = /^[\x00-\x7f]*$/;
const WHITESPACE = /^[ \t\n\r\x0b\x0c\x1c-\x1f]$/;

function strMethod(name: string, chars: readonly string[], args: readonly PyValue[]): PyValue | undefined {
  if (name === 'startswith' || name === 'endswith') {
    const arg = args[0];
    if (arg?.type !== 'str') return undefined;
    const text = chars.join('');
    const part = arg.chars.join('');
    return bool(name === 'startswith' ? text.startsWith(part) : text.endsWith(part));
  }
  // Unicode's categories decide these for other text; only ASCII is modelled.
  const text = chars.join('');
  if (!ASCII.test(text)) return undefined;
  const every = (re: RegExp) => chars.length > 0 && chars.every((c) => re.test(c));
  switch (name) {
    case 'isdigit':
      return bool(every(/^[0-9]$/));
    case 'isalpha':
      return bool(every(/^[A-Za-z]$/));
    case 'isalnum':
      return bool(every(/^[A-Za-z0-9]$/));
    case 'isspace':
      return bool(every(WHITESPACE));
    case 'isupper':
      return bool(/[A-Z]/.test(text) && !/[a-z]/.test(text));
    case 'islower':
      return bool(/[a-z]/.test(text) && !/[A-Z]/.test(text));
    default:
      return undefined;
  }
}

function sequenceItems(v: PyValue): readonly (string | PyValue)[] | undefined {
  return v.type === 'str' ? v.chars : v.type === 'list' || v.type === 'tuple' ? v.items : undefined;
}

function item(of: PyValue, index: PyValue): PyValue | undefined {
  if (of.type === 'dict') {
    if (!hashable(index)) return undefined;
    const j = of.keys.findIndex((k) => equal(k, index));
    return j < 0 ? undefined : of.values[j]; // KeyError
  }
  const items = sequenceItems(of);
  const i = index.type === 'int' || index.type === 'bool' ? numeric(index) : undefined;
  if (!items || typeof i !== 'bigint') return undefined;
  const k = i < 0n ? i + BigInt(items.length) : i;
  if (k < 0n || k >= BigInt(items.length)) return undefined; // IndexError
  const got = items[Number(k)]!;
  return typeof got === 'string' ? { type: 'str', chars: [got] } : got;
}

function slice(of: PyValue, bounds: readonly (PyValue | null | undefined)[]): PyValue | undefined {
  const items = sequenceItems(of);
  if (!items) return undefined;
  const n = BigInt(items.length);
  const at = (b: PyValue | null | undefined, missing: bigint): bigint | undefined => {
    if (b === null || b?.type === 'none') return missing;
    const i = b && (b.type === 'int' || b.type === 'bool') ? numeric(b) : undefined;
    if (typeof i !== 'bigint') return undefined;
    // Python clamps slice bounds into [0, len].
    const k = i < 0n ? i + n : i;
    return k < 0n ? 0n : k > n ? n : k;
  };
  const lo = at(bounds[0], 0n);
  const hi = at(bounds[1], n);
  if (lo === undefined || hi === undefined) return undefined;
  const kept = lo < hi ? items.slice(Number(lo), Number(hi)) : [];
  if (of.type === 'str') return { type: 'str', chars: kept as string[] };
  return { type: of.type as 'list' | 'tuple', items: kept as PyValue[] };
}
