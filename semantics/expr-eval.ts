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
import type { Mutated, PureFunction, TestExpr } from '../program-analysis/control-flow.js';
import { type PyValue, pyRepr, reprValue } from './repr-value.js';

/** True or false as Python would find the test on these locals; undefined where not known. */
export function testHolds(test: TestExpr, locals: Locals, functions: Functions = NO_FUNCTIONS): boolean | undefined {
  const v = evaluate(test, locals, functions);
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

/** The program's functions a call may evaluate (ControlFlow.pure). */
export type Functions = ReadonlyMap<string, PureFunction>;
const NO_FUNCTIONS: Functions = new Map();
/** Steps of evaluation one expression may take, calls included (a recursive helper may go deep). */
const BUDGET = 100_000;
const MAX_DEPTH = 200;

/** Whether `hit` holds for the expression or any expression within it. */
export function someExpr(e: TestExpr, hit: (e: TestExpr) => boolean): boolean {
  if (hit(e)) return true;
  const within = (part: unknown): boolean => (Array.isArray(part) ? part.some(within) : part !== null && typeof part === 'object' && someExpr(part as TestExpr, hit));
  return Object.values(e).some(within);
}

/**
 * Whether evaluating the expression opens a frame: a call of a function of the program, a
 * comprehension or generator expression (each runs in its own frame). step_into stops there
 * before the line ends.
 */
export function opensFrame(e: TestExpr): boolean {
  return someExpr(e, (x) => 'calls' in x || 'comp' in x);
}

/** The expression's value on these locals; undefined where not known. */
export function evaluate(e: TestExpr, locals: Locals, functions: Functions = NO_FUNCTIONS): PyValue | undefined {
  try {
    return value(e, { locals, bound: new Map(), functions, budget: { left: BUDGET }, depth: 0 });
  } catch {
    // A limit of this engine (a BigInt or an array too large): not known, never a failed step.
    return undefined;
  }
}

/**
 * The value a local list or dict holds after a line changes it in place (`xs.append(x)`,
 * `d[k] = v`), from the value the locals show before; undefined where not known or where the
 * change would raise (`pop` of an empty list, an index out of range).
 */
export function mutated(m: Mutated, locals: Locals, functions: Functions = NO_FUNCTIONS): PyValue | undefined {
  const before = Object.hasOwn(locals, m.name) ? locals[m.name] : undefined;
  const v = before === undefined ? undefined : reprValue(before);
  const args = m.args.map((a) => evaluate(a, locals, functions));
  if (!v || args.some((a) => a === undefined)) return undefined;
  const [a, b] = args as PyValue[];
  if (v.type === 'dict') {
    if (m.op !== 'setitem' || !hashable(a!)) return undefined;
    const j = v.keys.findIndex((k) => equal(k, a!));
    // An existing key keeps its place (and its own key object); a new one goes last.
    if (j >= 0) return { type: 'dict', keys: v.keys, values: v.values.map((x, i) => (i === j ? b! : x)) };
    return sized({ type: 'dict', keys: [...v.keys, a!], values: [...v.values, b!] });
  }
  if (v.type !== 'list') return undefined;
  const n = BigInt(v.items.length);
  switch (m.op) {
    case 'append':
      return sized({ type: 'list', items: [...v.items, a!] });
    case 'extend': {
      const more = iterated(a!);
      return more && sized({ type: 'list', items: [...v.items, ...more] });
    }
    case 'pop':
      return v.items.length === 0 ? undefined : { type: 'list', items: v.items.slice(0, -1) };
    case 'insert': {
      // list.insert clamps its index, negative from the end.
      const i = a!.type === 'int' || a!.type === 'bool' ? numeric(a!) : undefined;
      if (typeof i !== 'bigint') return undefined;
      const k = i < 0n ? (i + n < 0n ? 0n : i + n) : i > n ? n : i;
      return sized({ type: 'list', items: [...v.items.slice(0, Number(k)), b!, ...v.items.slice(Number(k))] });
    }
    case 'setitem': {
      const i = a!.type === 'int' || a!.type === 'bool' ? numeric(a!) : undefined;
      if (typeof i !== 'bigint') return undefined;
      const k = i < 0n ? i + n : i;
      if (k < 0n || k >= n) return undefined; // IndexError
      return { type: 'list', items: v.items.map((x, j) => (BigInt(j) === k ? b! : x)) };
    }
  }
}

/** Where names are looked up: a comprehension's targets (or a called function's parameters), then the frame's locals. */
interface Env {
  locals: Locals;
  bound: ReadonlyMap<string, PyValue>;
  functions: Functions;
  /** Evaluation steps left to the whole expression; past them it is not known. */
  budget: { left: number };
  /** Calls deep: Python's own limit would raise RecursionError somewhere beyond. */
  depth: number;
}

class OutOfBudget extends Error {}

function value(e: TestExpr, env: Env): PyValue | undefined {
  if (--env.budget.left < 0) throw new OutOfBudget();
  if ('calls' in e) return call(e.calls, e.args, env);
  if ('const' in e) return reprValue(e.const);
  if ('name' in e) {
    const bound = env.bound.get(e.name);
    if (bound) return bound;
    const repr = Object.hasOwn(env.locals, e.name) ? env.locals[e.name] : undefined;
    return repr === undefined ? undefined : reprValue(repr);
  }
  if ('comp' in e) return comprehension(e.comp, env);
  if ('bool' in e) {
    // `a and b` is a if a is false, else b; `a or b` the mirror. Short-circuit, as Python.
    let last: PyValue | undefined;
    for (const part of e.values) {
      last = value(part, env);
      if (!last || truth(last) === (e.bool === 'or')) return last;
    }
    return last;
  }
  if ('not' in e) {
    const v = value(e.not, env);
    return v && bool(!truth(v));
  }
  if ('neg' in e) {
    const v = value(e.neg, env);
    const n = v && numeric(v);
    return n === undefined ? undefined : typeof n === 'bigint' ? int(-n) : { type: 'float', value: -n };
  }
  if ('invert' in e) {
    const v = value(e.invert, env);
    const n = v && numeric(v);
    return typeof n === 'bigint' ? int(~n) : undefined;
  }
  if ('ifexp' in e) {
    const test = value(e.ifexp[0]!, env);
    return test && value(e.ifexp[truth(test) ? 1 : 2]!, env);
  }
  if ('list' in e || 'tuple' in e) {
    const items = ('list' in e ? e.list : e.tuple).map((x) => value(x, env));
    if (items.some((x) => x === undefined)) return undefined;
    return { type: 'list' in e ? 'list' : 'tuple', items: items as PyValue[] };
  }
  if ('compare' in e) {
    let left = value(e.operands[0]!, env);
    for (let i = 0; i < e.compare.length; i++) {
      const right = left && value(e.operands[i + 1]!, env);
      const holds = right && compare(e.compare[i]!, left!, right);
      if (holds === undefined) return undefined;
      if (!holds) return FALSE;
      left = right;
    }
    return TRUE;
  }
  if ('binary' in e) {
    const a = value(e.operands[0]!, env);
    const b = a && value(e.operands[1]!, env);
    return b && binary(e.binary, a!, b);
  }
  if ('call' in e || 'method' in e) {
    const args = e.args.map((a) => value(a, env));
    if (args.some((a) => a === undefined)) return undefined;
    if ('call' in e) return builtin(e.call, args as PyValue[]);
    const object = value(e.object, env);
    return object && method(e.method, object, args as PyValue[]);
  }
  if ('slice' in e) {
    const of = value(e.of, env);
    const bounds = e.slice.map((b) => (b === null ? null : value(b, env)));
    return of && slice(of, bounds);
  }
  const of = value(e.of, env);
  const index = of && value(e.index, env);
  return index && item(of!, index);
}

/** A call of a function of the program whose body is `return EXPR`: EXPR on the arguments' values, nothing of the caller's. */
function call(name: string, args: readonly TestExpr[], env: Env): PyValue | undefined {
  const fn = env.functions.get(name);
  if (!fn || fn.params.length !== args.length || env.depth >= MAX_DEPTH) return undefined;
  const bound = new Map<string, PyValue>();
  for (let i = 0; i < args.length; i++) {
    const v = value(args[i]!, env);
    if (!v) return undefined;
    bound.set(fn.params[i]!, v);
  }
  return value(fn.body, { locals: {}, bound, functions: env.functions, budget: env.budget, depth: env.depth + 1 });
}

type Comprehension = Extract<TestExpr, { comp: unknown }>['comp'];

/** A list comprehension's (or a generator expression's, walked whole) elements, as a list. */
function comprehension(comp: Comprehension, env: Env): PyValue | undefined {
  const out: PyValue[] = [];
  const walk = (g: number, scope: Env): boolean => {
    if (g === comp.generators.length) {
      const v = value(comp.elt, scope);
      if (!v || out.length >= MAX_ITEMS) return false;
      out.push(v);
      return true;
    }
    const { target, iter, ifs } = comp.generators[g]!;
    const over = value(iter, scope);
    const items = over && iterated(over);
    if (!items) return false;
    for (const item of items) {
      const bound = new Map(scope.bound);
      if (!bind(target, item, bound)) return false;
      const inner = { ...scope, bound };
      let keep = true;
      for (const cond of ifs) {
        const c = value(cond, inner);
        if (!c) return false;
        if (!truth(c)) {
          keep = false;
          break;
        }
      }
      if (keep && !walk(g + 1, inner)) return false;
    }
    return true;
  };
  return walk(0, env) ? { type: 'list', items: out } : undefined;
}

/** Binds a `for` target (a name, or a tuple of targets unpacking an item of the same length). */
function bind(target: TestExpr, item: PyValue, bound: Map<string, PyValue>): boolean {
  if ('name' in target) {
    bound.set(target.name, item);
    return true;
  }
  if (!('tuple' in target)) return false;
  const parts = iterated(item);
  return parts !== undefined && parts.length === target.tuple.length && target.tuple.every((t, i) => bind(t, parts[i]!, bound));
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
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** The most bits an int built here may have: beyond, the answer is left to the model. */
const MAX_BITS = 4096n;

function bits(n: bigint): bigint {
  return BigInt((n < 0n ? -n : n).toString(2).length);
}

function intBinary(op: string, x: bigint, y: bigint): PyValue | undefined {
  switch (op) {
    case '+':
      return int(x + y);
    case '-':
      return int(x - y);
    case '*':
      return int(x * y);
    case '&':
      return int(x & y);
    case '|':
      return int(x | y);
    case '^':
      return int(x ^ y);
    case '<<':
      return y < 0n || bits(x) + y > MAX_BITS ? undefined : int(x << y);
    case '>>':
      return y < 0n ? undefined : int(x >> y);
    case '**':
      // A negative exponent makes a float; a huge result is not worth building.
      return y < 0n || (bits(x) > 1n && bits(x) * y > MAX_BITS) ? undefined : int(x ** y);
    case '//':
      return y === 0n ? undefined : int(floorDiv(x, y));
    case '%':
      return y === 0n ? undefined : int(x - y * floorDiv(x, y));
    default:
      return undefined;
  }
}

function binary(op: string, a: PyValue, b: PyValue): PyValue | undefined {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) {
    // bool's own &, | and ^ give a bool.
    if (a.type === 'bool' && b.type === 'bool' && (op === '&' || op === '|' || op === '^'))
      return bool(op === '&' ? a.value && b.value : op === '|' ? a.value || b.value : a.value !== b.value);
    if (typeof x === 'bigint' && typeof y === 'bigint' && op !== '/') return intBinary(op, x, y);
    // Float arithmetic is IEEE 754 double in both languages; float `//`, `%` and `**` are not modelled.
    const f = toFloat(x);
    const g = toFloat(y);
    if (f === undefined || g === undefined) return undefined;
    const r = op === '+' ? f + g : op === '-' ? f - g : op === '*' ? f * g : op === '/' && g !== 0 ? f / g : undefined;
    return r === undefined || !Number.isFinite(r) ? undefined : { type: 'float', value: r };
  }
  if (op === '+' && a.type === 'str' && b.type === 'str') return sized({ type: 'str', chars: [...a.chars, ...b.chars] });
  if (op === '+' && ((a.type === 'list' && b.type === 'list') || (a.type === 'tuple' && b.type === 'tuple'))) return sized({ type: a.type, items: [...a.items, ...b.items] });
  if (op === '*') {
    const [seq, times] = typeof y === 'bigint' ? [a, y] : typeof x === 'bigint' ? [b, x] : [undefined, undefined];
    const items = seq && sequenceItems(seq);
    if (!items || times === undefined) return undefined;
    const n = times > 0n ? times : 0n;
    if (n > BigInt(MAX_ITEMS) || n * BigInt(items.length) > BigInt(MAX_ITEMS)) return undefined;
    const repeated = Array.from({ length: Number(n) }, () => items).flat();
    return seq!.type === 'str' ? { type: 'str', chars: repeated as string[] } : { type: seq!.type as 'list' | 'tuple', items: repeated as PyValue[] };
  }
  return undefined;
}

/** A value, or undefined where it is longer than anything worth building here. */
function sized(v: PyValue): PyValue | undefined {
  const n = length(v);
  return n !== undefined && n > MAX_ITEMS ? undefined : v;
}

function toFloat(n: bigint | number): number | undefined {
  if (typeof n === 'number') return n;
  return n > SAFE || n < -SAFE ? undefined : Number(n);
}

const ASCII = /^[\x00-\x7f]*$/;
const WHITESPACE = /^[ \t\n\r\x0b\x0c\x1c-\x1f]$/;
const str = (chars: readonly string[]): PyValue => ({ type: 'str', chars });
const ascii = (chars: readonly string[]) => ASCII.test(chars.join(''));
const INT_TEXT = /^[ \t\n\r\x0b\x0c]*[+-]?\d+[ \t\n\r\x0b\x0c]*$/;

/**
 * The items a for loop over the value would see: a dict's keys; a set's in the order its repr
 * shows, which is its iteration order (not known for a set built anew: undefined).
 */
function iterated(v: PyValue): readonly PyValue[] | undefined {
  if (v.type === 'set' && v.unordered) return undefined;
  return elementsOf(v);
}

/** The items of a value that can be walked, in any order: for the builtins whose result does not depend on it. */
function elementsOf(v: PyValue): readonly PyValue[] | undefined {
  if (v.type === 'str') return v.chars.map((c) => str([c]));
  if (v.type === 'list' || v.type === 'tuple' || v.type === 'set') return v.items;
  if (v.type === 'dict') return v.keys;
  return undefined;
}

/** `set(xs)`: the distinct elements, the first of equals kept (as Python keeps it); undefined where one is unhashable (TypeError). */
function newSet(items: readonly PyValue[]): PyValue | undefined {
  const kept: PyValue[] = [];
  for (const x of items) {
    if (!hashable(x)) return undefined;
    if (!kept.some((k) => equal(k, x))) kept.push(x);
  }
  return { type: 'set', items: kept, unordered: kept.length > 1 };
}

function builtin(name: string, args: readonly PyValue[]): PyValue | undefined {
  const [v] = args as [PyValue];
  switch (name) {
    case 'len': {
      const n = length(v);
      return n === undefined ? undefined : int(BigInt(n));
    }
    case 'abs': {
      const n = numeric(v);
      return n === undefined ? undefined : typeof n === 'bigint' ? int(n < 0n ? -n : n) : { type: 'float', value: Math.abs(n) };
    }
    case 'bool':
      return bool(truth(v));
    case 'int': {
      if (v.type === 'str') return ascii(v.chars) && INT_TEXT.test(v.chars.join('')) ? int(BigInt(v.chars.join('').trim())) : undefined;
      const n = numeric(v);
      return typeof n === 'bigint' ? int(n) : n === undefined ? undefined : int(BigInt(Math.trunc(n)));
    }
    case 'float': {
      const n = numeric(v);
      const f = n === undefined ? undefined : toFloat(n);
      return f === undefined ? undefined : { type: 'float', value: f };
    }
    case 'str': {
      if (v.type === 'str') return v;
      const text = pyRepr(v);
      return text === undefined ? undefined : str([...text]);
    }
    case 'list':
    case 'tuple': {
      const items = iterated(v);
      return items && { type: name, items };
    }
    case 'set': {
      if (args.length === 0) return { type: 'set', items: [] };
      const items = iterated(v);
      return items && newSet(items);
    }
    case 'sum': {
      // A set's order only matters to a float's rounding.
      const items = elementsOf(v);
      if (!items || v.type === 'str' || (v.type === 'set' && v.unordered && !items.every((x) => x.type === 'int' || x.type === 'bool'))) return undefined;
      let total: PyValue | undefined = int(0n);
      for (const x of items) total = total && binary('+', total, x);
      return total && numeric(total) !== undefined ? total : undefined;
    }
    case 'sorted': {
      // Sorting a set forgets its order: no two of its elements are equal.
      const items = elementsOf(v);
      if (!items) return undefined;
      let failed = false;
      const out = [...items].sort((p, q) => {
        const o = order(p, q);
        if (o === undefined) failed = true;
        return o ?? 0;
      });
      return failed ? undefined : { type: 'list', items: out };
    }
    case 'min':
    case 'max': {
      // Only the first of equals depends on the order, and a set holds no two equal elements.
      const items = args.length === 1 ? elementsOf(v) : args;
      if (!items || items.length === 0) return undefined; // ValueError
      // The first of equals wins, as in Python.
      let best = items[0]!;
      for (const x of items.slice(1)) {
        const o = order(x, best);
        if (o === undefined) return undefined;
        if (name === 'min' ? o < 0 : o > 0) best = x;
      }
      return best;
    }
    case 'any':
    case 'all': {
      const items = elementsOf(v);
      return items && bool(name === 'any' ? items.some(truth) : items.every(truth));
    }
    case 'range': {
      const ns = args.map((a) => (a.type === 'int' || a.type === 'bool' ? numeric(a) : undefined));
      if (ns.some((n) => typeof n !== 'bigint')) return undefined;
      const [start, stop, step] = (ns.length === 1 ? [0n, ns[0], 1n] : [ns[0], ns[1], ns[2] ?? 1n]) as [bigint, bigint, bigint];
      if (step === 0n) return undefined; // ValueError
      // The number of elements, rounded up; none where the stop is behind the start.
      const count = step > 0n ? (stop - start + step - 1n) / step : (start - stop - step - 1n) / -step;
      if (count > BigInt(MAX_ITEMS)) return undefined;
      return { type: 'list', items: Array.from({ length: count > 0n ? Number(count) : 0 }, (_, i) => int(start + BigInt(i) * step)) };
    }
    case 'enumerate': {
      const items = iterated(v);
      const start = args[1] === undefined ? 0n : numeric(args[1]);
      if (!items || typeof start !== 'bigint' || args[1]?.type === 'float') return undefined;
      return { type: 'list', items: items.map((x, i) => ({ type: 'tuple', items: [int(start + BigInt(i)), x] })) };
    }
    case 'zip': {
      const lists = args.map(iterated);
      if (lists.some((l) => l === undefined)) return undefined;
      const n = Math.min(...lists.map((l) => l!.length));
      return { type: 'list', items: Array.from({ length: n }, (_, i) => ({ type: 'tuple', items: lists.map((l) => l![i]!) })) };
    }
    case 'reversed': {
      // A sequence (or a dict, since 3.8); reversed() of anything else raises.
      const items = v.type === 'str' || v.type === 'list' || v.type === 'tuple' || v.type === 'dict' ? iterated(v) : undefined;
      return items && { type: 'list', items: [...items].reverse() };
    }
    case 'ord':
      return v.type === 'str' && v.chars.length === 1 ? int(BigInt(v.chars[0]!.codePointAt(0)!)) : undefined;
    case 'chr': {
      const n = v.type === 'int' ? v.value : undefined;
      return n !== undefined && n >= 0n && n < 0x110000n && (n < 0xd800n || n > 0xdfffn) ? str([String.fromCodePoint(Number(n))]) : undefined;
    }
    default:
      return undefined;
  }
}

function method(name: string, object: PyValue, args: readonly PyValue[]): PyValue | undefined {
  if (object.type === 'dict' && (name === 'items' || name === 'values' || name === 'keys') && args.length === 0) {
    const items = name === 'keys' ? object.keys : name === 'values' ? object.values : object.keys.map((k, i) => ({ type: 'tuple' as const, items: [k, object.values[i]!] }));
    return { type: 'list', items };
  }
  if (object.type === 'dict') {
    if (name !== 'get' || args.length < 1 || args.length > 2 || !hashable(args[0]!)) return undefined;
    const j = object.keys.findIndex((k) => equal(k, args[0]!));
    return j >= 0 ? object.values[j] : (args[1] ?? { type: 'none' });
  }
  if (object.type === 'list' || object.type === 'tuple') {
    if (args.length !== 1) return undefined;
    const at = object.items.findIndex((v) => equal(v, args[0]!));
    if (name === 'count') return int(BigInt(object.items.filter((v) => equal(v, args[0]!)).length));
    if (name === 'index') return at < 0 ? undefined : int(BigInt(at));
    return undefined;
  }
  if (object.type !== 'str') return undefined;
  return strMethod(name, object.chars, args);
}

const METHOD_ARGS: Readonly<Record<string, readonly number[]>> = {
  startswith: [1], endswith: [1], count: [1], find: [1], index: [1], join: [1], replace: [2], split: [0, 1], strip: [0, 1],
  lstrip: [0, 1], rstrip: [0, 1], lower: [0], upper: [0], isdigit: [0], isalpha: [0], isalnum: [0], isspace: [0],
  isupper: [0], islower: [0],
};

function strMethod(name: string, chars: readonly string[], args: readonly PyValue[]): PyValue | undefined {
  // The numbers of arguments each method takes (control_flow.py's TEST_METHODS), checked again.
  const taken = METHOD_ARGS[name];
  if (taken === undefined || !taken.includes(args.length)) return undefined;
  const strArgs = args.map((a) => (a.type === 'str' ? a.chars : undefined));
  if (strArgs.includes(undefined) && name !== 'join') return undefined;
  const [p, q] = strArgs as (readonly string[])[];
  const text = chars.join('');
  switch (name) {
    case 'startswith':
      return bool(text.startsWith(p!.join('')));
    case 'endswith':
      return bool(text.endsWith(p!.join('')));
    case 'count':
      return p!.length === 0 ? int(BigInt(chars.length + 1)) : int(BigInt(text.split(p!.join('')).length - 1));
    case 'find':
    case 'index': {
      // Indexes count code points: search the arrays, not the UTF-16 text.
      const at = indexOf(chars, p!);
      return at < 0 && name === 'index' ? undefined : int(BigInt(at));
    }
    case 'join': {
      const items = iterated(args[0]!);
      if (!items || items.some((v) => v.type !== 'str')) return undefined;
      const out: string[] = [];
      items.forEach((v, i) => out.push(...(i > 0 ? chars : []), ...(v as { chars: readonly string[] }).chars));
      return sized(str(out));
    }
    case 'replace': {
      if (p!.length === 0) return undefined;
      return sized(str([...text.split(p!.join('')).join(q!.join(''))]));
    }
    case 'split': {
      if (p && p.length === 0) return undefined; // ValueError: empty separator
      if (!p && !ascii(chars)) return undefined;
      const parts = p ? text.split(p.join('')) : text.split(/[ \t\n\r\x0b\x0c\x1c-\x1f]+/).filter((w) => w !== '');
      return { type: 'list', items: parts.map((w) => str([...w])) };
    }
    case 'strip':
    case 'lstrip':
    case 'rstrip': {
      // Without an argument Unicode's whitespace is stripped: only ASCII text is modelled.
      if (!p && !ascii(chars)) return undefined;
      const strip = (c: string) => (p ? p.includes(c) : WHITESPACE.test(c));
      let lo = 0;
      let hi = chars.length;
      if (name !== 'rstrip') while (lo < hi && strip(chars[lo]!)) lo++;
      if (name !== 'lstrip') while (hi > lo && strip(chars[hi - 1]!)) hi--;
      return str(chars.slice(lo, hi));
    }
  }
  // Unicode's categories decide the rest for other text: only ASCII is modelled.
  if (!ascii(chars)) return undefined;
  const every = (re: RegExp) => chars.length > 0 && chars.every((c) => re.test(c));
  switch (name) {
    case 'lower':
      return str(chars.map((c) => c.toLowerCase()));
    case 'upper':
      return str(chars.map((c) => c.toUpperCase()));
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

function indexOf(chars: readonly string[], part: readonly string[]): number {
  for (let i = 0; i + part.length <= chars.length; i++) if (part.every((c, k) => chars[i + k] === c)) return i;
  return -1;
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
  return typeof got === 'string' ? str([got]) : got;
}

/** `of[lo:hi:step]`, with Python's rules for missing, negative and out-of-range bounds. */
function slice(of: PyValue, bounds: readonly (PyValue | null | undefined)[]): PyValue | undefined {
  const items = sequenceItems(of);
  if (!items) return undefined;
  const asInt = (b: PyValue | null | undefined): bigint | null | undefined => {
    if (b === null || b?.type === 'none') return null;
    const i = b && (b.type === 'int' || b.type === 'bool') ? numeric(b) : undefined;
    return typeof i === 'bigint' ? i : undefined;
  };
  const [lo, hi, st] = [asInt(bounds[0]), asInt(bounds[1]), asInt(bounds[2] ?? null)];
  if (lo === undefined || hi === undefined || st === undefined || st === 0n) return undefined;
  const n = BigInt(items.length);
  const step = st ?? 1n;
  // PySlice_AdjustIndices: clamp into [0, n] going forward, [-1, n - 1] going backward.
  const adjust = (b: bigint | null, missing: bigint): bigint => {
    if (b === null) return missing;
    const k = b < 0n ? b + n : b;
    if (step > 0n) return k < 0n ? 0n : k > n ? n : k;
    return k < 0n ? -1n : k >= n ? n - 1n : k;
  };
  const start = adjust(lo, step > 0n ? 0n : n - 1n);
  const stop = adjust(hi, step > 0n ? n : -1n);
  const kept: (string | PyValue)[] = [];
  for (let i = start; step > 0n ? i < stop : i > stop; i += step) kept.push(items[Number(i)]!);
  if (of.type === 'str') return str(kept as string[]);
  return { type: of.type as 'list' | 'tuple', items: kept as PyValue[] };
}
