/**
 * Synthetic training programs: small, deterministic, varied Python functions built
 * compositionally (never copied from a benchmark), each with a literal input to call it on.
 *
 * A function body is generated statement by statement over a scope of typed variables, and
 * every expression is built for a requested type from the variables in scope, so programs
 * are type-correct and run. Termination and short traces hold by construction:
 * - loops are bounded: ranges of bounded length, iteration over collections the body may not
 *   touch, while loops whose control variable only the template steps;
 * - inside a loop only designated accumulators may grow (str and list), and only by "pieces"
 *   that mention nothing growing, so sizes grow linearly, never by doubling;
 * - collections are never aliased (a bare collection variable is copied when assigned or
 *   returned, helpers never mutate their collection parameters), so iterating one collection
 *   while appending to "another" cannot run forever;
 * - recursion depth is bounded by how the caller builds the argument.
 * Exceptions come only where intended: guarded idioms everywhere, try/except around risky
 * operations, and in a few programs an uncaught raise or an unguarded operation (a real bug).
 */
import type { ProgramSpec } from './program.js';
import { Rng } from '../util/rng.js';

/** The value types of the generator's little type system; `char` is a one-character str. */
type Ty =
  | 'int'
  | 'bool'
  | 'str'
  | 'char'
  | 'list[int]'
  | 'list[str]'
  | 'dict[str,int]'
  | 'set[int]'
  | 'tuple[int,int]';

type Weighted<T> = readonly (readonly [number, T])[];

function pickW<T>(rng: Rng, items: Weighted<T>): T {
  const total = items.reduce((sum, [w]) => sum + w, 0);
  let r = rng.next() * total;
  for (const [w, item] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1]![1];
}

const isCollection = (ty: Ty): boolean =>
  ty === 'list[int]' || ty === 'list[str]' || ty === 'dict[str,int]' || ty === 'set[int]';

/** Types a loop could blow up by concatenation (`s += s`); dicts and sets only grow by keys. */
const isGrowable = (ty: Ty): boolean => ty === 'str' || ty === 'list[int]' || ty === 'list[str]';

const SIZED: readonly Ty[] = ['str', 'list[int]', 'list[str]', 'dict[str,int]', 'set[int]'];

const indent = (lines: readonly string[]): string[] => lines.map((line) => `    ${line}`);

// ---------------------------------------------------------------------------------------------
// Names

const VAR_NAMES: Record<Ty, readonly string[]> = {
  int: ['total', 'count', 'acc', 'n', 'm', 'k', 'steps', 'best', 'diff', 'score', 'value', 'num',
    'limit', 'offset', 'step', 'size', 'width', 'carry', 'prod', 'low', 'high', 'mid', 'pos',
    'delta', 'level', 'depth', 'hits', 'misses', 'gap', 'runs', 'bonus', 'cost', 'peak', 'streak'],
  bool: ['found', 'ok', 'done', 'flag', 'valid', 'changed', 'has_neg', 'matched', 'is_sorted',
    'balanced', 'active', 'seen_zero'],
  str: ['text', 'word', 'name', 'line', 'out', 'prefix', 'suffix', 'label', 'key', 'tag', 'msg',
    'buf', 'part', 'head', 'tail', 'token', 'joined', 'code', 'chunk', 'stem', 'title', 'note',
    'initials', 'pattern', 'result'],
  char: ['c', 'ch', 'letter', 'sym'],
  'list[int]': ['nums', 'values', 'items', 'data', 'scores', 'arr', 'stack', 'queue', 'evens',
    'odds', 'digits', 'sizes', 'lengths', 'result', 'window', 'ranks', 'deltas', 'picks', 'heights',
    'costs', 'out'],
  'list[str]': ['words', 'names', 'parts', 'tokens', 'chunks', 'lines', 'labels', 'tags', 'pieces',
    'fields', 'letters', 'result', 'kept'],
  'dict[str,int]': ['counts', 'freq', 'index', 'mapping', 'table', 'lookup', 'tally', 'positions',
    'score_of', 'ages', 'stock', 'votes', 'weights', 'totals'],
  'set[int]': ['seen', 'visited', 'uniq', 'marks', 'pool', 'ids', 'taken', 'kept_ids'],
  'tuple[int,int]': ['pair', 'bounds', 'point', 'extent', 'coords', 'minmax', 'qr'],
};

/** Short names for loop and comprehension targets, by the target's type. */
const TARGET_NAMES: Record<'index' | 'int' | 'str' | 'char' | 'key' | 'value', readonly string[]> = {
  index: ['i', 'j', 'idx', 'pos', 'k'],
  int: ['x', 'v', 'n', 'num', 'val', 'item', 'd'],
  str: ['w', 'word', 'name', 'tok', 'part', 's', 'item'],
  char: ['c', 'ch', 'letter', 'char'],
  key: ['k', 'key', 'name', 'word'],
  value: ['v', 'cnt', 'val', 'amount', 'count'],
};

/** Never used as a variable: builtins the generated code calls, and names it must not shadow. */
const RESERVED = ['abs', 'all', 'any', 'bool', 'chr', 'dict', 'divmod', 'enumerate', 'int', 'len',
  'list', 'map', 'max', 'min', 'ord', 'range', 'reversed', 'set', 'sorted', 'str', 'sum', 'tuple',
  'zip', 'iter', 'next', 'print', 'type', 'id', 'hash', 'input', 'format', 'pow', 'round', 'err',
  'memo', 'ValueError', 'KeyError', 'IndexError', 'ZeroDivisionError'];

const VERBS = ['count', 'sum', 'score', 'build', 'merge', 'find', 'normalize', 'encode', 'summarize',
  'check', 'process', 'transform', 'collect', 'compute', 'tally', 'scan', 'pack', 'clean', 'rank',
  'group', 'shift', 'squash', 'measure', 'pick', 'fold', 'mix', 'walk', 'trim', 'parse', 'label',
  'balance', 'weigh', 'sort', 'split', 'filter', 'flatten', 'rotate', 'compress'];
const NOUNS = ['items', 'words', 'values', 'text', 'pairs', 'digits', 'chars', 'scores', 'tokens',
  'data', 'record', 'chunks', 'runs', 'grid', 'steps', 'parts', 'batch', 'entries', 'keys', 'nums',
  'letters', 'line', 'stack', 'names', 'votes', 'prices', 'readings', 'labels'];

// ---------------------------------------------------------------------------------------------
// Literals

/** A Python string literal, quoted the way `repr` would. */
function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')
    .split(quote)
    .join(`\\${quote}`);
  return quote + body + quote;
}

/** Strings that appear in code: separators, needles, affixes. Never empty where Python forbids it. */
const CODE_STRS = [' ', ',', '-', 'a', 'e', 'o', 'x', 'ab', '!', ':', '#', '.', '_', 'the', '*',
  'z', '0', 'abc', 'hi', '?', ';', '/', 'é', 'an', 'ok'];
const JOIN_SEPS = ['', ' ', ',', '-', ', ', '_', '|', ';', ':', '/'];
const SPLIT_SEPS = [',', '-', ' ', ';', ':', '_'];
const CHARS = ['a', 'e', 'i', 'o', 'x', 'z', ' ', ',', '-', '.', '!', '#', '0', '1', 'A', 'é'];
const VOWEL_SETS = ['aeiou', 'AEIOU', 'aeiouAEIOU', 'xyz', '0123456789', ' ,.!?', 'abc'];
const FSTRING_TEXT = ['', ' ', ':', '=', '-', '/', ', ', '|', '#', 'n=', 'id ', '<', '>', ' -> ',
  'total: ', '(', ')'];
const MESSAGES = ['invalid input', 'negative value', 'empty data', 'value too large', 'bad token',
  'unexpected state', 'limit exceeded', 'no match', 'out of range'];

/** Words for inputs: duplicates, anagrams, empty and unicode ones make counting idioms bite. */
const WORDS = ['apple', 'bob', 'cat', 'dog', 'eel', 'fig', 'go', 'hat', 'ice', 'jam', 'kiwi', 'lemon',
  'a', 'an', 'the', 'zebra', 'Ann', 'bee', 'sky', 'tree', 'x', 'yo', 'ab', 'ok', 'top', 'pot', 'tea',
  'eat', 'ate', 'café', 'Zoë', '42', '7', 'level', 'noon', 'A1', 'hi!'];
const PHRASES = ['hello world', 'Mississippi', 'racecar', 'a,b,c', '1,2,3', 'x y  z', "it's",
  'naïve café', '12345', '42', '-7', 'A man, a plan', '  padded  ', 'ab-cd-ef', '3 apples',
  'UPPER lower', 'snake_case_name', 'CamelCase', 'a1b2c3', 'tab\tsep', 'say "hi"', 'ñandú', 'zzz',
  'banana', 'the cat sat', 'x=1;y=2', 'data.txt', '!?', 'Hello, World!', 'aaa bbb aaa',
  'mixed 123 ok', 'b', ''];

/** A literal to compare with: mostly small, since most values in these programs are. */
function cmpInt(rng: Rng): string {
  return String(pickW(rng, [[8, () => rng.int(0, 9)], [1, () => rng.int(-3, -1)], [1, () => rng.int(10, 20)]] as const)());
}

function litInt(rng: Rng): string {
  return String(pickW(rng, [[6, () => rng.int(0, 10)], [1.5, () => rng.int(-5, -1)],
    [1, () => rng.int(11, 30)]] as const)());
}

/** A literal of `ty` written in code: small and plain. */
function literal(rng: Rng, ty: Ty): string {
  const ints = (n: number) => Array.from({ length: n }, () => litInt(rng));
  switch (ty) {
    case 'int': return litInt(rng);
    case 'bool': return rng.pick(['True', 'False']);
    case 'str': return pyStr(rng.pick(CODE_STRS));
    case 'char': return pyStr(rng.pick(CHARS));
    case 'list[int]': return `[${ints(rng.int(0, 4)).join(', ')}]`;
    case 'list[str]': return `[${Array.from({ length: rng.int(0, 3) }, () => pyStr(rng.pick(WORDS))).join(', ')}]`;
    case 'dict[str,int]': return rng.chance(0.6) ? '{}' : `{${pyStr(rng.pick(WORDS))}: ${litInt(rng)}}`;
    case 'set[int]': return rng.chance(0.5) ? 'set()' : `{${[...new Set(ints(rng.int(1, 3)))].join(', ')}}`;
    case 'tuple[int,int]': return `(${litInt(rng)}, ${litInt(rng)})`;
  }
}

function inputInt(rng: Rng): number {
  return pickW(rng, [[5, () => rng.int(0, 9)], [2, () => rng.int(-9, -1)], [1.5, () => rng.int(10, 40)],
    [0.6, () => rng.int(100, 9999)]] as const)();
}

function inputStr(rng: Rng): string {
  return pickW(rng, [
    [4, () => rng.pick(PHRASES)],
    [3, () => rng.pick(WORDS)],
    [2, () => Array.from({ length: rng.int(2, 3) }, () => rng.pick(WORDS)).join(rng.pick([' ', ',', '-']))],
    [1, () => Array.from({ length: rng.int(0, 7) }, () => rng.pick([...'abcdexyz AB,.1'])).join('')],
  ] as const)();
}

/** The literal for one entry argument: inputs are more varied than literals in code. */
function inputLiteral(rng: Rng, ty: Ty): string {
  const list = <T>(max: number, make: () => T) => Array.from({ length: pickW(rng, [[1, 0], [6, rng.int(1, max)]]) }, make);
  switch (ty) {
    case 'int': return String(inputInt(rng));
    case 'bool': return rng.pick(['True', 'False']);
    case 'str':
    case 'char': return pyStr(inputStr(rng));
    case 'list[int]': return `[${list(8, () => rng.chance(0.9) ? rng.int(-5, 15) : inputInt(rng)).join(', ')}]`;
    case 'list[str]': return `[${list(6, () => pyStr(rng.pick(WORDS))).join(', ')}]`;
    case 'dict[str,int]': {
      const keys = [...new Set(list(5, () => rng.pick(WORDS)))];
      return `{${keys.map((k) => `${pyStr(k)}: ${rng.int(-3, 12)}`).join(', ')}}`;
    }
    case 'set[int]': {
      const items = [...new Set(list(5, () => rng.int(-3, 12)))];
      return items.length ? `{${items.join(', ')}}` : 'set()';
    }
    case 'tuple[int,int]': return `(${inputInt(rng)}, ${inputInt(rng)})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Scope and generation state for one function

interface Var {
  name: string;
  ty: Ty;
  /** Never rebound or mutated: loop targets, helper parameters of collection type, ... */
  fixed: boolean;
  /** The innermost loop whose body bound it (0: none); a loop may mutate str/list bound in its body. */
  loop: number;
  /** A str/list computed from something growing in a loop: it must not feed an accumulator. */
  tainted: boolean;
  /** Times an expression used it: unused variables are preferred, so data flows somewhere. */
  reads: number;
}

/** An expression known to be valid in this block, e.g. `xs[i]` inside `for i in range(len(xs))`. */
interface Fact {
  text: string;
  ty: Ty;
}

interface Frame {
  vars: Var[];
  facts: Fact[];
  /** How strongly expressions prefer this frame's variables (inner blocks, comprehension targets). */
  weight: number;
}

interface Loop {
  id: number;
  /** Outer str/list variables this loop may grow; every other outer str/list is frozen in it. */
  acc: ReadonlySet<string>;
  /** Variables the loop header reads on every iteration: the body must leave them alone. */
  frozen: ReadonlySet<string>;
  /** False where the step comes at the end of the body, which `continue` would skip forever. */
  continueOk: boolean;
  /** Variables the body should mostly update: the accumulators set up for it. */
  favored: readonly string[];
}

/** A function the code being generated can call. */
interface Helper {
  name: string;
  ret: Ty;
  /** Runs a loop or recursion: too costly to call once per loop iteration. */
  heavy: boolean;
  /** The call's arguments, built in the caller's scope. */
  args(g: Gen): string[];
}

class Gen {
  readonly loops: Loop[] = [];
  /** Building a piece an accumulator grows by: growing or tainted str/list are off limits. */
  piece = false;
  /** Depth of nested blocks. */
  nest = 0;
  /** > 0 inside a comprehension, whose element runs once per item. */
  comp = 0;
  /** The function runs a loop or calls something heavy. */
  heavy = false;
  readonly called = new Set<string>();
  private readonly frames: Frame[] = [];
  /** Every name bound so far in the function, with its type: a name is reused only for its type. */
  private readonly boundTy = new Map<string, Ty>();
  /** Locals in the order they were last assigned, so a function tends to return its result. */
  private readonly touched: string[] = [];
  private loopIds = 0;

  constructor(
    readonly rng: Rng,
    readonly ret: Ty,
    readonly helpers: readonly Helper[],
    private readonly reserved: ReadonlySet<string>,
    public budget: number,
  ) {
    this.push();
  }

  get loop(): Loop | undefined {
    return this.loops[this.loops.length - 1];
  }

  canNest(): boolean {
    return this.nest < 3 && this.budget >= 3;
  }

  /** Opens a scope whose variables are `focus` times as likely to be used as the enclosing ones. */
  push(focus = 3): void {
    const outer = this.frames[this.frames.length - 1];
    this.frames.push({ vars: [], facts: [], weight: (outer?.weight ?? 1 / focus) * focus });
  }

  pop(): void {
    this.frames.pop();
  }

  /** Runs `fn` in a comprehension's own scope. */
  inComprehension<T>(fn: () => T): T {
    this.push(10);
    this.comp++;
    try {
      return fn();
    } finally {
      this.comp--;
      this.pop();
    }
  }

  /** Runs `fn` building an accumulator piece. */
  asPiece<T>(fn: () => T): T {
    const was = this.piece;
    this.piece = true;
    try {
      return fn();
    } finally {
      this.piece = was;
    }
  }

  visible(): Var[] {
    return this.frames.flatMap((f) => f.vars);
  }

  lookup(name: string): Var | undefined {
    return this.visible().find((v) => v.name === name);
  }

  declare(name: string, ty: Ty, opts: { fixed?: boolean; rhs?: string; record?: boolean } = {}): void {
    const frame = this.frames[this.frames.length - 1]!;
    frame.vars.push({
      name,
      ty,
      fixed: opts.fixed ?? false,
      loop: this.loop?.id ?? 0,
      tainted: opts.rhs !== undefined && this.taints(opts.rhs),
      reads: 0,
    });
    if (opts.record !== false) this.boundTy.set(name, ty);
    if (!opts.fixed) this.touch(name, opts.rhs);
  }

  addFact(fact: Fact): void {
    this.frames[this.frames.length - 1]!.facts.push(fact);
  }

  fact(ty: Ty): string | null {
    const facts = this.frames.flatMap((f) => f.facts).filter((f) => f.ty === ty || (ty === 'str' && f.ty === 'char'));
    return facts.length ? this.rng.pick(facts).text : null;
  }

  /**
   * Records an assignment to `name` (with statement text `rhs`), for taint and for returns.
   * The name itself does not count: an accumulator growing by a piece stays untainted.
   */
  touch(name: string, rhs?: string): void {
    const v = this.lookup(name);
    if (v && rhs !== undefined && this.taints(rhs, name)) v.tainted = true;
    const at = this.touched.indexOf(name);
    if (at >= 0) this.touched.splice(at, 1);
    this.touched.push(name);
  }

  /** The most recently assigned visible local of type `ty`. */
  recent(ty: Ty): Var | undefined {
    for (let i = this.touched.length - 1; i >= 0; i--) {
      const v = this.lookup(this.touched[i]!);
      if (v && (v.ty === ty || (ty === 'str' && v.ty === 'char'))) return v;
    }
    return undefined;
  }

  /** The accumulators of every enclosing loop. */
  growing(): Set<string> {
    return new Set(this.loops.flatMap((l) => [...l.acc]));
  }

  /** Whether `v` cannot be large: not a growing or tainted str/list. */
  bounded(v: Var): boolean {
    return !isGrowable(v.ty) || !(v.tainted || this.growing().has(v.name));
  }

  /** Whether an expression mentions a growing or tainted variable (other than `self`). */
  taints(text: string, self?: string): boolean {
    if (this.loops.length === 0) return false;
    return this.namesIn(text).some((name) => {
      const v = this.lookup(name);
      return name !== self && v !== undefined && !this.bounded(v);
    });
  }

  /** The visible variables an expression mentions (a rough scan: string literals may add a few). */
  namesIn(text: string): string[] {
    const names = new Set(text.match(/[A-Za-z_]\w*/g) ?? []);
    return this.visible().filter((v) => names.has(v.name)).map((v) => v.name);
  }

  mutable(v: Var): boolean {
    if (v.fixed || this.loops.some((l) => l.frozen.has(v.name))) return false;
    const loop = this.loop;
    if (!loop || !isGrowable(v.ty)) return true;
    return v.loop === loop.id || loop.acc.has(v.name);
  }

  varsOf(ty: Ty, opts: { bounded?: boolean } = {}): Var[] {
    return this.visible().filter(
      (v) =>
        (v.ty === ty || (ty === 'str' && v.ty === 'char')) &&
        (!(this.piece || opts.bounded) || this.bounded(v)),
    );
  }

  /** A visible variable of `ty`, favouring inner blocks (loop and comprehension targets) and unused ones. */
  pickVar(ty: Ty, opts: { bounded?: boolean } = {}): string | null {
    const candidates = new Set(this.varsOf(ty, opts));
    const weighted: [number, Var][] = [];
    for (const frame of this.frames) {
      for (const v of frame.vars) if (candidates.has(v)) weighted.push([frame.weight * (v.reads ? 1 : 2.5), v]);
    }
    if (!weighted.length) return null;
    const v = pickW(this.rng, weighted);
    v.reads++;
    return v.name;
  }

  isVar(text: string): boolean {
    return this.lookup(text) !== undefined;
  }

  /** A name for a new variable of `ty` that clashes with nothing visible. */
  fresh(ty: Ty, pool: readonly string[] = VAR_NAMES[ty], record = true, avoid?: ReadonlySet<string>): string {
    const visible = new Set(this.visible().map((v) => v.name));
    const free = (name: string) =>
      !this.reserved.has(name) && !visible.has(name) && !avoid?.has(name) &&
      (!record || (this.boundTy.get(name) ?? ty) === ty);
    const options = pool.filter(free);
    if (options.length) return this.rng.pick(options);
    const base = this.rng.pick(pool);
    for (let i = 2; ; i++) if (free(`${base}${i}`)) return `${base}${i}`;
  }

  openLoop(spec: Omit<Loop, 'id'>): void {
    this.loops.push({ ...spec, id: ++this.loopIds });
    this.heavy = true;
  }

  closeLoop(): void {
    this.loops.pop();
  }
}

// ---------------------------------------------------------------------------------------------
// Expressions

/** Python's operator precedence, loosest first; operands are parenthesized only where needed. */
const P = { ternary: 1, or: 2, and: 3, not: 4, cmp: 5, bor: 6, xor: 7, band: 8, add: 10, mul: 11,
  unary: 12, pow: 13, atom: 14 } as const;

const BINARY_PREC: Record<string, number> = {
  if: P.ternary, or: P.or, and: P.and, in: P.cmp, is: P.cmp, '<': P.cmp, '<=': P.cmp, '>': P.cmp,
  '>=': P.cmp, '==': P.cmp, '!=': P.cmp, '|': P.bor, '^': P.xor, '&': P.band, '+': P.add, '-': P.add,
  '*': P.mul, '//': P.mul, '%': P.mul, '**': P.pow,
};

/** The space-separated tokens of `e` outside brackets and quotes. */
function topTokens(e: string): string[] {
  const tokens: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < e.length; i++) {
    const ch = e[i]!;
    if (ch === "'" || ch === '"') {
      for (i++; i < e.length && e[i] !== ch; i++) if (e[i] === '\\') i++;
    } else if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    else if (ch === ' ' && depth === 0) {
      tokens.push(e.slice(start, i));
      start = i + 1;
    }
  }
  tokens.push(e.slice(start));
  return tokens;
}

/** The precedence of the loosest operator at the top of `e`. */
function precOf(e: string): number {
  const tokens = topTokens(e);
  if (tokens[0] === 'lambda') return 0;
  if (tokens[0] === 'not') return P.not;
  let prec: number = tokens.length === 1 && e.startsWith('-') ? P.unary : P.atom;
  for (const t of tokens) prec = Math.min(prec, BINARY_PREC[t] ?? (t === 'not' ? P.cmp : P.atom));
  return prec;
}

/** `e` as an operand that needs precedence at least `min`. */
const paren = (e: string, min: number = P.atom): string => (precOf(e) < min ? `(${e})` : e);

/** Chance that an expression at nesting depth d is just a variable or literal. */
const ATOM_CHANCE = [0.15, 0.55];

/**
 * An expression of type `ty`: composite near the top, a variable or literal deeper down.
 * Literals come only from `atom`, so composite expressions always involve some data.
 */
function expr(g: Gen, ty: Ty, d = 0): string {
  if (!g.rng.chance(ATOM_CHANCE[d] ?? 1)) {
    for (let tries = 0; tries < 5; tries++) {
      const out = pickW(g.rng, PRODUCERS[ty])(g, d + 1);
      // Constant expressions (`6 % 2`, `'a'.upper()`) teach nothing about execution.
      if (out !== null && g.namesIn(out).length > 0) return out;
    }
  }
  return atom(g, ty);
}

/** A sub-expression in a position that needs precedence `min` (default: a primary, as in `x.f()`). */
const sub = (g: Gen, ty: Ty, d: number, min: number = P.atom): string => paren(expr(g, ty, d), min);

function atom(g: Gen, ty: Ty): string {
  const v = g.rng.chance(0.9) ? g.pickVar(ty) : null;
  if (v !== null) return v;
  if (ty !== 'bool') return literal(g.rng, ty);
  // A literal condition (`if True:`) is dead code; test something instead.
  const n = g.pickVar('int');
  if (n !== null) return `${n} ${g.rng.pick(['>', '<', '==', '!='])} ${cmpInt(g.rng)}`;
  const sized = anySized(g);
  if (sized !== null) return g.rng.pick([`not ${sized}`, `len(${sized}) > ${K(g, 0, 3)}`]);
  const p = g.pickVar('tuple[int,int]');
  return p === null ? literal(g.rng, ty) : `${p}[0] ${g.rng.pick(['<', '>', '=='])} ${p}[1]`;
}

/** An int that depends on the data: an int variable or a length, a literal only as a last resort. */
function someInt(g: Gen): string {
  const n = g.pickVar('int');
  if (n !== null && g.rng.chance(0.8)) return n;
  const sized = anySized(g);
  return sized === null ? n ?? litInt(g.rng) : `len(${sized})`;
}

/**
 * Two different sub-expressions of `ty` (no `x + x`, `min(a, a)`), or null; by default they
 * are safe as arguments or items (only ternaries and lambdas get parentheses).
 */
function twoOf(g: Gen, ty: Ty, d: number, leftMin: number = P.or, rightMin = leftMin): [string, string] | null {
  const a = sub(g, ty, d, leftMin);
  for (let tries = 0; tries < 2; tries++) {
    const b = sub(g, ty, d, rightMin);
    if (b !== a) return [a, b];
  }
  return null;
}

/** `a OP b` over two different operands (left-associative; comparisons do not chain). */
function binary(g: Gen, ty: Ty, d: number, op: string): string | null {
  const p = BINARY_PREC[op] ?? P.atom;
  const ab = twoOf(g, ty, d, p === P.cmp ? p + 1 : p, p + 1);
  return ab && (op === '+' || op === '-' ? addSub(ab[0], op, ab[1]) : `${ab[0]} ${op} ${ab[1]}`);
}

/** `+ b` or `- b` with a negative literal b folded in: `- 5` rather than `+ -5`. */
function signed(op: '+' | '-', b: string): [string, string] {
  return /^-\d+$/.test(b) ? [op === '+' ? '-' : '+', b.slice(1)] : [op, b];
}

function addSub(a: string, op: '+' | '-', b: string): string {
  const [o, v] = signed(op, b);
  return `${a} ${o} ${v}`;
}

const cond = (g: Gen, d = 0): string => expr(g, 'bool', d);

/** A copy of collection variable `name`, written one of the usual ways. */
function copyOf(g: Gen, name: string, ty: Ty): string {
  if (ty === 'dict[str,int]') return g.rng.pick([`dict(${name})`, `${name}.copy()`]);
  if (ty === 'set[int]') return g.rng.pick([`set(${name})`, `${name}.copy()`]);
  return g.rng.pick([`list(${name})`, `${name}[:]`, `${name}.copy()`]);
}

/** An expression of type `ty` that is a new object, never an alias of a collection variable. */
function freshExpr(g: Gen, ty: Ty, d = 0): string {
  const e = expr(g, ty, d);
  return isCollection(ty) && g.isVar(e) ? copyOf(g, e, ty) : e;
}

/** A piece an accumulator of type `ty` may grow by. */
const piece = (g: Gen, ty: Ty): string => g.asPiece(() => expr(g, ty, 1));

function callHelper(g: Gen, ty: Ty): string | null {
  const perItem = g.loops.length > 0 || g.comp > 0;
  const options = g.helpers.filter((h) => h.ret === ty && !(perItem && h.heavy));
  if (!options.length) return null;
  const h = g.rng.pick(options);
  if (h.heavy) g.heavy = true;
  g.called.add(h.name);
  return `${h.name}(${h.args(g).join(', ')})`;
}

/** A range bound that stays small: literal, a length, or a clamped int. */
function bound(g: Gen): string {
  const seq = g.pickVar(g.rng.pick(['str', 'list[int]', 'list[str]'] as const), { bounded: true });
  const n = g.pickVar('int');
  return pickW(g.rng, [
    [2, () => String(g.rng.int(2, 6))],
    [seq ? 3 : 0, () => `len(${seq})`],
    [n ? 1.5 : 0, () => `min(${n}, ${g.rng.int(3, 7)})`],
    [n ? 1 : 0, () => `abs(${n}) % ${g.rng.int(3, 7)}`],
  ] as const)();
}

/** Something to iterate whose items have type `elem`, reading only bounded variables. */
function source(g: Gen, elem: 'int' | 'str' | 'char'): string | null {
  const v = (ty: Ty) => g.pickVar(ty, { bounded: true });
  const options: Weighted<() => string | null> = ({
    int: [
      [4, () => v('list[int]')],
      [1, () => { const xs = v('list[int]'); return xs && g.rng.pick([`sorted(${xs})`, `${xs}[::-1]`, `${xs}[1:]`, `reversed(${xs})`]); }],
      [1, () => { const s = v('set[int]'); return s && g.rng.pick([s, `sorted(${s})`]); }],
      [1, () => { const d = v('dict[str,int]'); return d && `${d}.values()`; }],
      [1.5, () => `range(${bound(g)})`],
    ],
    str: [
      [3, () => v('list[str]')],
      [1, () => { const ws = v('list[str]'); return ws && g.rng.pick([`sorted(${ws})`, `${ws}[::-1]`]); }],
      [2, () => { const s = v('str'); return s && g.rng.pick([`${s}.split()`, `${s}.split(${pyStr(g.rng.pick(SPLIT_SEPS))})`]); }],
      [1.5, () => { const d = v('dict[str,int]'); return d && g.rng.pick([d, `sorted(${d})`]); }],
    ],
    char: [
      [4, () => v('str')],
      [1, () => { const s = v('str'); return s && g.rng.pick([`${s}.lower()`, `${s}[::-1]`, `sorted(${s})`, `${s}.strip()`]); }],
    ],
  } satisfies Record<string, Weighted<() => string | null>>)[elem];
  for (let tries = 0; tries < 4; tries++) {
    const out = pickW(g.rng, options)();
    if (out !== null) return out;
  }
  return null;
}

/** A loop or comprehension header: targets, iterable, and facts valid inside. */
interface Header {
  targets: [string, Ty][];
  iter: string;
  facts: Fact[];
}

/** Builds a header; `record` says whether its target names outlive it (for) or not (comprehension). */
function header(g: Gen, record: boolean): Header | null {
  const elemTy = g.rng.pick(['int', 'int', 'str', 'char'] as const);
  const kind = pickW(g.rng, [[5, 'elem'], [1.5, 'range'], [1.5, 'index'], [1.3, 'enumerate'],
    [0.8, 'zip'], [1, 'items']] as const);
  const chosen = new Set<string>();
  const name = (k: keyof typeof TARGET_NAMES, ty: Ty) => {
    const n = g.fresh(ty, TARGET_NAMES[k], record, chosen);
    chosen.add(n);
    return n;
  };
  switch (kind) {
    case 'elem': {
      const src = source(g, elemTy);
      return src === null ? null : { targets: [[name(elemTy, elemTy), elemTy]], iter: src, facts: [] };
    }
    case 'range': {
      const b = bound(g);
      const iter = g.rng.pick([`range(${b})`, `range(1, ${b} + 1)`, `range(${b}, 0, -1)`, `range(0, ${b}, 2)`]);
      return { targets: [[name('index', 'int'), 'int']], iter, facts: [] };
    }
    case 'index': {
      const seqTy = g.rng.pick(['list[int]', 'list[str]', 'str'] as const);
      const seq = g.pickVar(seqTy, { bounded: true });
      if (!seq || g.lookup(seq)?.ty === 'char') return null;
      const item: Ty = seqTy === 'list[int]' ? 'int' : seqTy === 'list[str]' ? 'str' : 'char';
      const i = name('index', 'int');
      const [iter, extra] = g.rng.pick([
        [`range(len(${seq}))`, null],
        [`range(1, len(${seq}))`, `${seq}[${i} - 1]`],
        [`range(len(${seq}) - 1)`, `${seq}[${i} + 1]`],
      ] as const);
      const facts: Fact[] = [{ text: `${seq}[${i}]`, ty: item }];
      if (extra) facts.push({ text: extra, ty: item });
      return { targets: [[i, 'int']], iter, facts };
    }
    case 'enumerate': {
      const src = source(g, elemTy);
      if (!src) return null;
      const i = name('index', 'int');
      const iter = g.rng.chance(0.3) ? `enumerate(${src}, 1)` : `enumerate(${src})`;
      return { targets: [[i, 'int'], [name(elemTy, elemTy), elemTy]], iter, facts: [] };
    }
    case 'zip': {
      const xs = g.pickVar('list[int]', { bounded: true });
      if (xs && g.rng.chance(0.5)) {
        const a = name('int', 'int');
        return { targets: [[a, 'int'], [name('int', 'int'), 'int']], iter: `zip(${xs}, ${xs}[1:])`, facts: [] };
      }
      const other = g.rng.pick(['int', 'str', 'char'] as const);
      const [s1, s2] = [source(g, elemTy), source(g, other)];
      if (!s1 || !s2) return null;
      const a = name(elemTy, elemTy);
      return { targets: [[a, elemTy], [name(other, other), other]], iter: `zip(${s1}, ${s2})`, facts: [] };
    }
    case 'items': {
      const d = g.pickVar('dict[str,int]', { bounded: true });
      if (!d) return null;
      const k = name('key', 'str');
      const iter = g.rng.chance(0.3) ? `sorted(${d}.items())` : `${d}.items()`;
      return { targets: [[k, 'str'], [name('value', 'int'), 'int']], iter, facts: [] };
    }
  }
}

const targetText = (h: Header): string => h.targets.map(([n]) => n).join(', ');

/** `open ELEM for TARGETS in ITER [if COND] close`, with the element built by `elem`. */
/** A comprehension nested in another or in a nested loop would multiply the trace's length. */
const comprehensionOk = (g: Gen): boolean => g.comp === 0 && g.loops.length < 2;

function comprehension(g: Gen, open: string, close: string, elem: (g: Gen) => string): string | null {
  if (!comprehensionOk(g)) return null;
  return g.inComprehension(() => {
    const h = header(g, false);
    if (!h) return null;
    for (const [n, ty] of h.targets) g.declare(n, ty, { fixed: true, record: false });
    h.facts.forEach((f) => g.addFact(f));
    // An element that ignores the targets (`[k for x in xs]`) makes a dull comprehension.
    const uses = (e: string) => g.namesIn(e).some((n) => h.targets.some(([t]) => t === n));
    let body = elem(g);
    for (let tries = 0; tries < 3 && !uses(body); tries++) body = elem(g);
    if (!uses(body)) return null;
    const filter = g.rng.chance(0.35) ? ` if ${cond(g, 1)}` : '';
    return `${open}${body} for ${targetText(h)} in ${h.iter}${filter}${close}`;
  });
}

const genexp = (g: Gen, elem: (g: Gen) => string): string | null => comprehension(g, '', '', elem);

/** A lambda usable as a sort key for items of `ty`. */
function sortKey(g: Gen, ty: 'int' | 'str'): string {
  const p = g.fresh(ty, TARGET_NAMES[ty], false);
  const options = ty === 'int'
    ? ['abs', `lambda ${p}: -${p}`, `lambda ${p}: (${p} % ${g.rng.int(2, 5)}, ${p})`, `lambda ${p}: abs(${p} - ${g.rng.int(0, 6)})`]
    : ['len', 'str.lower', `lambda ${p}: (len(${p}), ${p})`, `lambda ${p}: ${p}[::-1]`,
      `lambda ${p}: ${p}.count(${pyStr(g.rng.pick(CHARS))})`];
  return g.rng.pick(options);
}

/** An f-string over simple fields (no quotes or backslashes inside, which Python 3.11 forbids). */
function fstring(g: Gen): string | null {
  const fields: string[] = [];
  for (let i = g.rng.int(1, 3); i > 0; i--) {
    const ty = g.rng.pick(['int', 'int', 'str', 'str', 'list[int]', 'bool'] as const);
    const v = g.pickVar(ty);
    if (!v) continue;
    const spec = ty === 'int' ? g.rng.pick(['', '', '', ':>3', ':03d', ':+d'])
      : ty === 'str' ? g.rng.pick(['', '', '!r', ':>6', ':<4'])
      : '';
    const field = ty === 'int' && g.rng.chance(0.3) ? `${v} ${g.rng.pick(['+ 1', '* 2', '- 1', '% 10'])}` : v;
    fields.push(`${g.rng.pick(FSTRING_TEXT)}{${field}${spec}}`);
  }
  if (!fields.length) return null;
  return `f"${fields.join('')}${g.rng.chance(0.3) ? g.rng.pick(FSTRING_TEXT) : ''}"`;
}

type Producer = (g: Gen, d: number) => string | null;

/** A visible variable of type `ty`, or null (shorthand for producers). */
const V = (g: Gen, ty: Ty): string | null => g.pickVar(ty);
const K = (g: Gen, lo: number, hi: number): number => g.rng.int(lo, hi);
const strLit = (g: Gen): string => pyStr(g.rng.pick(CODE_STRS));
/** Some visible str or collection variable. */
function anySized(g: Gen): string | null {
  const present = SIZED.filter((ty) => g.varsOf(ty).length > 0);
  return present.length ? V(g, g.rng.pick(present)) : null;
}
const inLoop = (g: Gen): boolean => g.loops.length > 0 || g.comp > 0;

const INT_PRODUCERS: Weighted<Producer> = [
  [6, (g) => V(g, 'int')],
  [3, (g, d) => binary(g, 'int', d, g.rng.pick(['+', '-']))],
  [1, (g, d) => `${sub(g, 'int', d, P.mul)} * ${K(g, 2, 4)}`],
  [0.6, (g, d) => (inLoop(g) ? null : binary(g, 'int', d, '*'))],
  [1.2, (g, d) => `${sub(g, 'int', d, P.mul)} ${g.rng.pick(['//', '%'])} ${K(g, 2, 9)}`],
  [0.6, (g, d) => `${sub(g, 'int', d, P.mul)} ${g.rng.pick(['//', '%'])} max(1, ${expr(g, 'int', d)})`],
  [0.8, (g, d) => `abs(${expr(g, 'int', d)})`],
  [1.5, (g, d) => { const ab = twoOf(g, 'int', d); return ab && `${g.rng.pick(['min', 'max'])}(${ab[0]}, ${ab[1]})`; }],
  [2.5, (g) => { const s = anySized(g); return s && `len(${s})`; }],
  [1.5, (g) => { const xs = V(g, 'list[int]'); return xs && `sum(${xs})`; }],
  [1, (g) => {
    const xs = V(g, g.rng.pick(['list[int]', 'set[int]'] as const));
    return xs && `${g.rng.pick(['min', 'max'])}(${xs}, default=${litInt(g.rng)})`;
  }],
  [1.5, (g) => { const e = genexp(g, (g) => expr(g, 'int', 1)); return e && `sum(${e})`; }],
  [0.8, (g) => { const e = genexp(g, () => '1'); return e && `sum(${e})`; }],
  [0.5, (g) => { const e = comprehension(g, '[', ']', (g) => expr(g, 'int', 1)); return e && `len(${e})`; }],
  [1.2, (g) => { const s = V(g, 'str'); return s && `${s}.count(${strLit(g)})`; }],
  [0.5, (g) => { const s = V(g, 'str'); return s && `${s}.find(${strLit(g)})`; }],
  [1, (g) => { const c = V(g, 'char'); return c && `ord(${c})`; }],
  [0.4, (g) => { const s = V(g, 'str'); return s && `ord(${s}[0]) if ${s} else 0`; }],
  [1.2, (g) => { const d = V(g, 'dict[str,int]'); return d && `${d}.get(${atom(g, 'str')}, ${litInt(g.rng)})`; }],
  [0.7, (g) => {
    const d = V(g, 'dict[str,int]');
    return d && g.rng.pick([`sum(${d}.values())`, `max(${d}.values(), default=0)`, `len(${d})`]);
  }],
  [0.6, (g) => { const xs = V(g, 'list[int]'); return xs && `${xs}.count(${atom(g, 'int')})`; }],
  [0.4, (g) => { const xs = V(g, 'list[int]'); const x = atom(g, 'int'); return xs && `${xs}.index(${x}) if ${x} in ${xs} else -1`; }],
  [0.5, (g) => { const s = V(g, 'str'); return s && `int(${s}) if ${s}.isdigit() else ${litInt(g.rng)}`; }],
  [0.6, (g) => { const xs = V(g, 'list[int]'); return xs && `${xs}[${g.rng.pick(['0', '-1'])}] if ${xs} else ${litInt(g.rng)}`; }],
  [1, (g, d) => { const ab = twoOf(g, 'int', d); return ab && `${ab[0]} if ${sub(g, 'bool', d, P.or)} else ${ab[1]}`; }],
  [0.8, (g) => { const p = V(g, 'tuple[int,int]'); return p && `${p}[${K(g, 0, 1)}]`; }],
  [2, (g) => g.fact('int')],
  [1.2, (g) => callHelper(g, 'int')],
  [0.4, (g) => { const xs = V(g, g.rng.pick(['list[int]', 'list[str]'] as const)); return xs && `len(set(${xs}))`; }],
  [0.4, (g, d) => (inLoop(g) ? null : `${sub(g, 'int', d)} ** 2`)],
  [0.3, (g) => { const b = V(g, 'bool'); return b && `int(${b})`; }],
];

const BOOL_PRODUCERS: Weighted<Producer> = [
  [2.5, (g, d) => `${sub(g, 'int', d, P.bor)} ${g.rng.pick(['<', '<=', '>', '>=', '==', '!='])} ${cmpInt(g.rng)}`],
  [1.5, (g, d) => binary(g, 'int', d, g.rng.pick(['<', '<=', '>', '>=', '==', '!=']))],
  [1, (g, d) => `${sub(g, 'int', d, P.mul)} % ${K(g, 2, 4)} == ${K(g, 0, 1)}`],
  [2, (g) => V(g, 'bool')],
  [0.8, (g) => {
    const xs = V(g, g.rng.pick(['list[int]', 'set[int]'] as const));
    return xs && `${atom(g, 'int')} ${g.rng.pick(['in', 'not in'])} ${xs}`;
  }],
  [0.8, (g) => {
    const c = V(g, g.rng.pick(['dict[str,int]', 'list[str]', 'str'] as const));
    const x = atom(g, 'str');
    return c && x !== c ? `${x} ${g.rng.pick(['in', 'not in'])} ${c}` : null;
  }],
  [0.8, (g) => { const c = V(g, 'char'); return c && `${c} in ${pyStr(g.rng.pick(VOWEL_SETS))}`; }],
  [1.5, (g, d) => {
    const s = sub(g, 'str', d);
    return `${s}.${g.rng.pick(['isdigit', 'isalpha', 'isupper', 'islower', 'isspace', 'isalnum'])}()`;
  }],
  [0.8, (g, d) => `${sub(g, 'str', d)}.${g.rng.pick(['startswith', 'endswith'])}(${strLit(g)})`],
  [0.4, (g) => { const s = V(g, 'str'); return s && `${s} == ${s}[::-1]`; }],
  [0.7, (g, d) => `not ${sub(g, 'bool', d, P.bor)}`],
  [1, (g, d) => binary(g, 'bool', d, g.rng.pick(['and', 'or']))],
  [1, (g) => { const e = genexp(g, (g) => expr(g, 'bool', 1)); return e && `${g.rng.pick(['any', 'all'])}(${e})`; }],
  [1, (g) => { const s = anySized(g); return s && `len(${s}) ${g.rng.pick(['>', '<', '==', '>='])} ${K(g, 1, 4)}`; }],
  [0.5, (g) => { const s = anySized(g); return s && g.rng.pick([`not ${s}`, `bool(${s})`]); }],
  [0.4, (g, d) => binary(g, 'set[int]', d, g.rng.pick(['<=', '>=', '==']))],
  [0.3, (g, d) => { const ab = twoOf(g, 'str', d); return ab && `sorted(${ab[0]}) == sorted(${ab[1]})`; }],
  [0.8, (g) => callHelper(g, 'bool')],
];

const STR_PRODUCERS: Weighted<Producer> = [
  [6, (g) => V(g, 'str')],
  [2, (g, d) => `${sub(g, 'str', d)}.${g.rng.pick(['upper', 'lower', 'strip', 'title', 'capitalize', 'swapcase', 'lstrip', 'rstrip'])}()`],
  [2, (g, d) => {
    const slice = g.rng.pick(['::-1', `:${K(g, 1, 4)}`, `${K(g, 1, 3)}:`, '::2', '1:-1', ':-1', `-${K(g, 1, 3)}:`]);
    return `${sub(g, 'str', d)}[${slice}]`;
  }],
  [1, (g, d) => `${sub(g, 'str', d)}.replace(${strLit(g)}, ${pyStr(g.rng.pick(['', '_', '-', '*', 'X', ' ']))})`],
  [2, (g, d) => binary(g, 'str', d, '+')],
  [1.5, (g) => fstring(g)],
  [1, (g, d) => `str(${expr(g, 'int', d)})`],
  [0.8, (g) => {
    const ws = V(g, 'list[str]');
    return ws && `${pyStr(g.rng.pick(JOIN_SEPS))}.join(${g.rng.pick([ws, `sorted(${ws})`, `${ws}[::-1]`])})`;
  }],
  [1, (g) => { const e = genexp(g, (g) => expr(g, 'str', 1)); return e && `${pyStr(g.rng.pick(JOIN_SEPS))}.join(${e})`; }],
  [0.5, (g) => {
    const xs = comprehensionOk(g) && V(g, 'list[int]');
    return xs ? `${pyStr(g.rng.pick(JOIN_SEPS))}.join(str(x) for x in ${xs})` : null;
  }],
  [0.5, (g) => { const s = V(g, 'str'); return s && g.rng.pick([`''.join(sorted(${s}))`, `''.join(reversed(${s}))`]); }],
  [0.6, (g, d) => `chr(ord('a') + ${sub(g, 'int', d, P.mul)} % 26)`],
  [0.4, (g) => { const c = V(g, 'char'); return c && `chr(ord(${c}) + ${K(g, 1, 3)})`; }],
  [0.8, (g) => {
    const ws = V(g, 'list[str]');
    return ws && g.rng.pick([`${ws}[0] if ${ws} else ${strLit(g)}`, `max(${ws}, key=len, default='')`, `min(${ws}, default='')`]);
  }],
  [0.5, (g) => {
    const dd = V(g, 'dict[str,int]');
    return dd && g.rng.pick([`max(${dd}, key=${dd}.get, default='')`, `min(${dd}, default='')`]);
  }],
  [0.5, (g, d) => (inLoop(g) ? null : `${sub(g, 'str', d, P.mul)} * ${K(g, 2, 3)}`)],
  [0.6, (g, d) => { const ab = twoOf(g, 'str', d); return ab && `${ab[0]} if ${sub(g, 'bool', d, P.or)} else ${ab[1]}`; }],
  [0.4, (g, d) => `str(${expr(g, 'int', d)}).zfill(${K(g, 2, 4)})`],
  [0.3, (g, d) => `${sub(g, 'str', d)}.center(${K(g, 3, 8)}, ${pyStr(g.rng.pick(['*', '-', '.']))})`],
  [1, (g) => callHelper(g, 'str')],
  [1, (g) => g.fact('str')],
];

const CHAR_PRODUCERS: Weighted<Producer> = [
  [3, (g) => V(g, 'char')],
  [1, (g) => g.fact('char')],
];

const INTS_PRODUCERS: Weighted<Producer> = [
  [3, (g) => V(g, 'list[int]')],
  [2, (g) => {
    const xs = V(g, g.rng.pick(['list[int]', 'set[int]'] as const));
    return xs && g.rng.pick([`sorted(${xs})`, `sorted(${xs}, reverse=True)`, `sorted(${xs}, key=${sortKey(g, 'int')})`]);
  }],
  [1.5, (g, d) => `${sub(g, 'list[int]', d)}[${g.rng.pick(['1:', ':-1', '::-1', '::2', `:${K(g, 1, 4)}`, `${K(g, 1, 3)}:`])}]`],
  [3, (g) => comprehension(g, '[', ']', (g) => expr(g, 'int', 1))],
  [1, (g) => g.rng.pick([`list(range(${bound(g)}))`, `list(range(${K(g, 0, 3)}, ${bound(g)}))`, `list(range(${bound(g)}, 0, -1))`])],
  [1, (g, d) => `${sub(g, 'list[int]', d, P.add)} + ${g.rng.chance(0.5) ? sub(g, 'list[int]', d, P.mul) : `[${expr(g, 'int', d)}]`}`],
  [0.8, (g) => { const dd = V(g, 'dict[str,int]'); return dd && g.rng.pick([`list(${dd}.values())`, `sorted(${dd}.values())`]); }],
  [0.5, (g) => { const s = V(g, 'set[int]'); return s && `list(${s})`; }],
  [0.6, (g, d) => g.rng.pick([`[${expr(g, 'int', d)}] * ${K(g, 2, 4)}`, `[0] * ${paren(bound(g), P.unary)}`])],
  [0.6, (g) => {
    const s = comprehensionOk(g) && V(g, 'str');
    return s ? g.rng.pick([`list(map(ord, ${s}))`, `[int(c) for c in ${s} if c.isdigit()]`]) : null;
  }],
  [0.4, (g) => { const ws = V(g, 'list[str]'); return ws && `list(map(len, ${ws}))`; }],
  [0.5, (g, d) => { const ab = twoOf(g, 'int', d); return ab && `[${ab[0]}, ${ab[1]}]`; }],
  [1, (g) => callHelper(g, 'list[int]')],
];

const STRS_PRODUCERS: Weighted<Producer> = [
  [3, (g) => V(g, 'list[str]')],
  [2, (g, d) => { const s = sub(g, 'str', d); return g.rng.pick([`${s}.split()`, `${s}.split(${pyStr(g.rng.pick(SPLIT_SEPS))})`]); }],
  [0.8, (g) => { const s = V(g, 'str'); return s && g.rng.pick([`list(${s})`, `sorted(${s})`]); }],
  [2, (g) => {
    const ws = V(g, 'list[str]');
    return ws && g.rng.pick([`sorted(${ws})`, `sorted(${ws}, reverse=True)`, `sorted(${ws}, key=${sortKey(g, 'str')})`]);
  }],
  [1, (g, d) => `${sub(g, 'list[str]', d)}[${g.rng.pick(['1:', ':-1', '::-1', `:${K(g, 1, 3)}`])}]`],
  [2.5, (g) => comprehension(g, '[', ']', (g) => expr(g, 'str', 1))],
  [1, (g) => { const dd = V(g, 'dict[str,int]'); return dd && g.rng.pick([`sorted(${dd})`, `list(${dd})`]); }],
  [0.5, (g) => {
    const dd = comprehensionOk(g) && V(g, 'dict[str,int]');
    const k = g.fresh('str', TARGET_NAMES.key, false);
    const v = g.fresh('int', TARGET_NAMES.value, false, new Set([k]));
    return dd ? `[${k} for ${k}, ${v} in ${dd}.items() if ${v} ${g.rng.pick(['>', '<', '=='])} ${cmpInt(g.rng)}]` : null;
  }],
  [0.7, (g, d) => `${sub(g, 'list[str]', d, P.add)} + [${expr(g, 'str', d)}]`],
  [1, (g) => callHelper(g, 'list[str]')],
];

const DICT_PRODUCERS: Weighted<Producer> = [
  [3, (g) => V(g, 'dict[str,int]')],
  [3, (g) => comprehension(g, '{', '}', (g) => `${expr(g, 'str', 1)}: ${expr(g, 'int', 1)}`)],
  [0.8, (g) => {
    const s = comprehensionOk(g) && V(g, 'str');
    const c = g.fresh('char', TARGET_NAMES.char, false);
    return s ? `{${c}: ${s}.count(${c}) for ${c} in ${s}}` : null;
  }],
  [1, (g) => { const [ws, xs] = [V(g, 'list[str]'), V(g, 'list[int]')]; return ws && xs && `dict(zip(${ws}, ${xs}))`; }],
  [0.6, (g) => { const ws = V(g, 'list[str]'); return ws && `dict.fromkeys(${ws}, ${litInt(g.rng)})`; }],
  [0.4, (g) => { const dd = V(g, 'dict[str,int]'); return dd && `{**${dd}, ${strLit(g)}: ${atom(g, 'int')}}`; }],
  [0.8, (g) => callHelper(g, 'dict[str,int]')],
];

const SET_PRODUCERS: Weighted<Producer> = [
  [3, (g) => V(g, 'set[int]')],
  [1.5, (g) => { const xs = V(g, 'list[int]'); return xs && `set(${xs})`; }],
  [2, (g) => comprehension(g, '{', '}', (g) => expr(g, 'int', 1))],
  [1, (g, d) => binary(g, 'set[int]', d, g.rng.pick(['|', '&', '-', '^']))],
  [0.6, (g) => `set(range(${bound(g)}))`],
  [0.5, (g) => { const dd = V(g, 'dict[str,int]'); return dd && `set(${dd}.values())`; }],
  [0.6, (g) => callHelper(g, 'set[int]')],
];

const PAIR_PRODUCERS: Weighted<Producer> = [
  [3, (g) => V(g, 'tuple[int,int]')],
  [2, (g, d) => { const ab = twoOf(g, 'int', d); return ab && `(${ab[0]}, ${ab[1]})`; }],
  [1, (g, d) => `divmod(${expr(g, 'int', d)}, ${K(g, 2, 10)})`],
  [1, (g) => { const xs = V(g, 'list[int]'); return xs && `(min(${xs}, default=0), max(${xs}, default=0))`; }],
  [0.5, (g) => { const s = V(g, 'str'); return s && `(len(${s}), ${s}.count(${strLit(g)}))`; }],
  [0.5, (g) => { const p = V(g, 'tuple[int,int]'); return p && `(${p}[1], ${p}[0])`; }],
  [0.7, (g) => callHelper(g, 'tuple[int,int]')],
];

const PRODUCERS: Record<Ty, Weighted<Producer>> = {
  int: INT_PRODUCERS,
  bool: BOOL_PRODUCERS,
  str: STR_PRODUCERS,
  char: CHAR_PRODUCERS,
  'list[int]': INTS_PRODUCERS,
  'list[str]': STRS_PRODUCERS,
  'dict[str,int]': DICT_PRODUCERS,
  'set[int]': SET_PRODUCERS,
  'tuple[int,int]': PAIR_PRODUCERS,
};

// ---------------------------------------------------------------------------------------------
// Statements

type Stmt = (g: Gen) => string[] | null;

/** One statement (possibly compound); the budget pays for every line it takes. */
function stmt(g: Gen): string[] {
  const before = g.budget;
  let lines: string[] | null = null;
  for (let tries = 0; lines === null && tries < 8; tries++) lines = pickW(g.rng, stmtTable(g))(g);
  lines ??= declareStmt(g);
  g.budget = before - lines.length;
  return lines;
}

/** Statement kinds, weighted for the context: loop bodies mostly update their accumulators. */
function stmtTable(g: Gen): Weighted<Stmt> {
  const looping = g.loop !== undefined;
  const nest = g.canNest();
  return [
    [looping ? 1.5 : 4, declareStmt],
    [looping ? 5 : 2.5, updateStmt],
    [0.6, unpackStmt],
    [0.4, swapStmt],
    [nest && g.loops.length < 2 ? (looping ? 0.8 : 3.5) : 0, forStmt],
    [nest && !looping ? 1.2 : 0, whileStmt],
    [nest ? 2.5 : 0, ifStmt],
    [nest ? 1 : 0, tryStmt],
    [looping ? 0.5 : 0.4, returnIfStmt],
    [looping ? 1.2 : 0, jumpStmt],
    [g.helpers.length ? 0.6 : 0, (g) => callStmt(g, g.rng.pick(g.helpers))],
  ];
}

/** A nested block in its own scope: what it binds is gone after it (it may not have run). */
function block(g: Gen, maxStmts: number, setup?: () => void): string[] {
  g.push();
  g.nest++;
  setup?.();
  const lines: string[] = [];
  const n = g.rng.int(1, maxStmts);
  for (let i = 0; i < n && (i === 0 || g.budget > 0); i++) lines.push(...stmt(g));
  g.nest--;
  g.pop();
  return lines;
}

const DECL_TYPES: Weighted<Ty> = [[3, 'int'], [2, 'str'], [2, 'list[int]'], [1.2, 'list[str]'],
  [1, 'dict[str,int]'], [0.5, 'set[int]'], [0.8, 'bool'], [0.4, 'tuple[int,int]']];

function declareStmt(g: Gen): string[] {
  const ty = pickW(g.rng, DECL_TYPES);
  let rhs = freshExpr(g, ty);
  if (g.isVar(rhs)) rhs = freshExpr(g, ty); // `a = b` says little: one more try
  const name = g.fresh(ty);
  g.declare(name, ty, { rhs });
  return [`${name} = ${rhs}`];
}

type Updater = (g: Gen, name: string) => string[] | null;

const updateInt: Updater = (g, x) => pickW(g.rng, [
  [3, () => { const [op, e] = signed('+', expr(g, 'int', 1)); return [`${x} ${op}= ${e}`]; }],
  [2, () => [`${x} += 1`]],
  [1, () => { const [op, e] = signed('-', expr(g, 'int', 1)); return [`${x} ${op}= ${e}`]; }],
  [g.loop ? 0.5 : 1.5, () => { const e = expr(g, 'int'); return e === x ? null : [`${x} = ${e}`]; }],
  [1.5, () => { const e = expr(g, 'int', 1); return e === x ? null : [`${x} = ${g.rng.pick(['max', 'min'])}(${x}, ${e})`]; }],
  [0.6, () => [`${x} *= ${K(g, 2, 3)}`]],
  [0.4, () => [`${x} ${g.rng.pick(['//=', '%='])} ${K(g, 2, 7)}`]],
  [0.4, () => [`${x} = ${x} * 10 + ${sub(g, 'int', 1, P.mul)}`]],
] as const)();

const updateBool: Updater = (g, b) => pickW(g.rng, [
  [3, () => { const e = cond(g); return e === b ? null : [`${b} = ${e}`]; }],
  [1, () => [`${b} = ${g.rng.pick(['True', 'False'])}`]],
  [1, () => { const e = sub(g, 'bool', 1, P.not); return e === b ? null : [`${b} = ${b} ${g.rng.pick(['or', 'and'])} ${e}`]; }],
  [0.5, () => [`${b} = not ${b}`]],
] as const)();

/** Rewrites of a str that never lengthen it, safe for an accumulator inside a loop. */
const STR_SHRINKS = ['.strip()', '.lower()', '.upper()', '[1:]', '[:-1]', '.title()', "[::-1]",
  ".replace(' ', '')", ".rstrip('!')"];

const updateStr: Updater = (g, s) => {
  if (g.growing().has(s)) {
    return pickW(g.rng, [
      [3, () => [`${s} += ${piece(g, 'str')}`]],
      [1, () => [`${s} = ${piece(g, 'str')} + ${s}`]],
      [0.8, () => [`${s} = ${s}${g.rng.pick(STR_SHRINKS)}`]],
    ] as const)();
  }
  return pickW(g.rng, [
    [2, () => [`${s} += ${expr(g, 'str', 1)}`]],
    [2, () => [`${s} = ${expr(g, 'str')}`]],
    [1, () => [`${s} = ${s}${g.rng.pick(STR_SHRINKS)}`]],
  ] as const)();
};

function updateList(g: Gen, xs: string, ty: 'list[int]' | 'list[str]'): string[] {
  const elem = ty === 'list[int]' ? 'int' : 'str';
  const grows = g.growing().has(xs);
  const item = () => (grows ? piece(g, elem) : expr(g, elem, 1));
  return pickW(g.rng, [
    [3, () => [`${xs}.append(${item()})`]],
    [0.8, () => [`${xs}.insert(0, ${item()})`]],
    [0.6, () => [`${xs} += [${item()}]`]],
    [1, () => [`${xs}.extend(${grows ? piece(g, ty) : expr(g, ty, 1)})`]],
    [0.7, () => [`${xs}.${g.rng.pick(['sort()', 'sort(reverse=True)', 'reverse()', `sort(key=${sortKey(g, elem)})`])}`]],
    [0.6, () => [`if ${xs}:`, `    ${xs}.pop(${g.rng.pick(['', '0'])})`]],
    [0.4, () => { const x = atom(g, elem); return [`if ${x} in ${xs}:`, `    ${xs}.remove(${x})`]; }],
    [0.3, () => [`if ${xs}:`, `    ${xs}[${g.rng.pick(['0', '-1'])}] = ${item()}`]],
    [0.4, () => [`${xs} = ${xs}[${g.rng.pick(['1:', ':-1', '::2', '::-1'])}]`]],
    [grows ? 0 : 1, () => [`${xs} = ${freshExpr(g, ty)}`]],
  ] as const)();
}

function updateDict(g: Gen, d: string): string[] {
  const k = g.asPiece(() => atom(g, 'str'));
  const n = () => (g.rng.chance(0.4) ? '1' : sub(g, 'int', 1, P.mul));
  return pickW(g.rng, [
    [3, () => [`${d}[${k}] = ${addSub(`${d}.get(${k}, 0)`, '+', n())}`]],
    [1.5, () => [`${d}[${k}] = ${expr(g, 'int', 1)}`]],
    [0.6, () => [`${d}.setdefault(${k}, ${litInt(g.rng)})`]],
    [0.8, () => { const [op, e] = signed(g.rng.pick(['+', '-']), n()); return [`if ${k} in ${d}:`, `    ${d}[${k}] ${op}= ${e}`]; }],
    [0.5, () => [`${d}.pop(${k}, None)`]],
    [0.3, () => [`if ${k} in ${d}:`, `    del ${d}[${k}]`]],
    [0.4, () => [`${d}.update(${expr(g, 'dict[str,int]', 1)})`]],
    [0.4, () => [`${d}[${k}] = max(${d}.get(${k}, 0), ${expr(g, 'int', 1)})`]],
  ] as const)();
}

function updateSet(g: Gen, s: string): string[] {
  return pickW(g.rng, [
    [3, () => [`${s}.add(${expr(g, 'int', 1)})`]],
    [0.8, () => [`${s}.discard(${atom(g, 'int')})`]],
    [0.6, () => [`${s} ${g.rng.pick(['|=', '-=', '&='])} ${expr(g, 'set[int]', 1)}`]],
    [0.6, () => [`${s}.update(${expr(g, 'list[int]', 1)})`]],
  ] as const)();
}

const updatePair: Updater = (g, p) => pickW(g.rng, [
  [2, () => [`${p} = (${expr(g, 'int', 1)}, ${expr(g, 'int', 1)})`]],
  [1, () => [`${p} = (${p}[1], ${p}[0])`]],
  [1, () => { const x = atom(g, 'int'); return [`${p} = (min(${p}[0], ${x}), max(${p}[1], ${x}))`]; }],
] as const)();

const UPDATERS: Record<Ty, Updater> = {
  int: updateInt,
  bool: updateBool,
  str: updateStr,
  char: () => null,
  'list[int]': (g, xs) => updateList(g, xs, 'list[int]'),
  'list[str]': (g, xs) => updateList(g, xs, 'list[str]'),
  'dict[str,int]': updateDict,
  'set[int]': updateSet,
  'tuple[int,int]': updatePair,
};

/** Mutates or reassigns a variable, preferring the accumulators of the enclosing loop. */
function updateStmt(g: Gen): string[] | null {
  const favored = new Set(g.loop?.favored ?? []);
  const options = g.visible()
    .filter((v) => g.mutable(v))
    .map((v) => [favored.has(v.name) ? 6 : v.ty === 'int' ? 1.5 : 1, v] as const);
  if (!options.length) return null;
  const v = pickW(g.rng, options);
  const lines = UPDATERS[v.ty](g, v.name);
  // `x = x`, `x -= x`: a no-op or a constant in disguise.
  if (!lines || lines.some((l) => new RegExp(`^${v.name} (=|-=|//=|%=) ${v.name}$`).test(l))) return null;
  g.touch(v.name, lines.join('\n'));
  return lines;
}

/** Tuple unpacking that binds new variables. */
function unpackStmt(g: Gen): string[] | null {
  const two = (ty: Ty, pools: readonly (readonly [string, string])[]): [string, string] => {
    const [p, q] = g.rng.pick(pools);
    const a = g.fresh(ty, [p]);
    return [a, g.fresh(ty, [q], true, new Set([a]))];
  };
  const made = pickW(g.rng, [
    [2, () => {
      const [q, r] = two('int', [['q', 'r'], ['quot', 'rem'], ['tens', 'ones'], ['whole', 'rest']]);
      return { names: [[q, 'int'], [r, 'int']] as [string, Ty][], line: `${q}, ${r} = divmod(${expr(g, 'int', 1)}, ${K(g, 2, 10)})` };
    }],
    [1.5, () => {
      const xs = V(g, 'list[int]');
      const [lo, hi] = two('int', [['lo', 'hi'], ['smallest', 'largest'], ['low', 'high']]);
      if (!xs) return null;
      const line = `${lo}, ${hi} = min(${xs}, default=0), max(${xs}, default=0)`;
      return { names: [[lo, 'int'], [hi, 'int']] as [string, Ty][], line };
    }],
    [1.5, () => {
      const p = V(g, 'tuple[int,int]');
      const [a, b] = two('int', [['a', 'b'], ['x0', 'y0'], ['first', 'second']]);
      return p && { names: [[a, 'int'], [b, 'int']] as [string, Ty][], line: `${a}, ${b} = ${p}` };
    }],
    [1, () => {
      const a = g.fresh('int');
      const b = g.fresh('str', VAR_NAMES.str, true, new Set([a]));
      return { names: [[a, 'int'], [b, 'str']] as [string, Ty][], line: `${a}, ${b} = ${expr(g, 'int', 1)}, ${expr(g, 'str', 1)}` };
    }],
    [0.8, () => {
      const s = V(g, 'str');
      const [h, t] = two('str', [['head', 'tail'], ['left', 'right'], ['key', 'val'], ['before', 'after']]);
      if (!s) return null;
      const line = `${h}, _, ${t} = ${s}.partition(${pyStr(g.rng.pick(SPLIT_SEPS))})`;
      return { names: [[h, 'str'], [t, 'str']] as [string, Ty][], line };
    }],
    [0.6, () => {
      const xs = V(g, 'list[int]');
      const [h, t] = [g.fresh('int', ['first', 'head', 'top']), g.fresh('list[int]', ['rest', 'others', 'remaining'])];
      return xs && { names: [[h, 'int'], [t, 'list[int]']] as [string, Ty][], line: `${h}, *${t} = ${xs} or [0]` };
    }],
  ] as const)();
  if (!made) return null;
  for (const [name, ty] of made.names) g.declare(name, ty, { rhs: made.line });
  return [made.line];
}

/** `a, b = b, a` and friends, over two mutable variables of one type. */
function swapStmt(g: Gen): string[] | null {
  const ty = g.rng.pick(['int', 'int', 'str'] as const);
  const vars = g.visible().filter((v) => v.ty === ty && g.mutable(v));
  if (vars.length < 2) return null;
  const [a, b] = g.rng.shuffle([...vars]).map((v) => v.name) as [string, string];
  const line = ty === 'str'
    ? `${a}, ${b} = ${b}, ${a}`
    : g.rng.pick([`${a}, ${b} = ${b}, ${a}`, `${a}, ${b} = ${b}, ${a} + ${b}`, `${a}, ${b} = min(${a}, ${b}), max(${a}, ${b})`]);
  g.touch(a, line);
  g.touch(b, line);
  return [line];
}

// --- Loops ---

/** The variables set up for a loop to accumulate into. */
interface Accumulators {
  lines: string[];
  /** Everything the body should favour updating. */
  names: string[];
}

const ACC_TYPES: Weighted<Ty> = [[3, 'int'], [1.5, 'list[int]'], [1, 'list[str]'], [1.3, 'str'],
  [1, 'dict[str,int]'], [0.6, 'set[int]'], [0.8, 'bool']];
const EMPTY: Partial<Record<Ty, readonly string[]>> = {
  int: ['0', '0', '1'], str: ["''"], 'list[int]': ['[]'], 'list[str]': ['[]'], 'dict[str,int]': ['{}'],
  'set[int]': ['set()'], bool: ['False', 'True'],
};

/**
 * Declares fresh accumulators before a loop (`total = 0`, `result = []`) and may pick an
 * existing mutable variable too; `avoid` holds names the loop header uses.
 */
function accumulators(g: Gen, avoid: ReadonlySet<string>): Accumulators {
  const lines: string[] = [];
  const names: string[] = [];
  for (let i = pickW(g.rng, [[4, 0], [5, 1], [1.5, 2]] as const); i > 0; i--) {
    const ty = pickW(g.rng, ACC_TYPES);
    const init = g.rng.chance(0.8) ? g.rng.pick(EMPTY[ty]!) : freshExpr(g, ty, 1);
    const name = g.fresh(ty, VAR_NAMES[ty], true, avoid);
    g.declare(name, ty, { rhs: init });
    lines.push(`${name} = ${init}`);
    names.push(name);
  }
  const existing = g.visible().filter((v) => g.mutable(v) && !avoid.has(v.name) && !names.includes(v.name));
  if (existing.length && g.rng.chance(0.35)) names.push(g.rng.pick(existing).name);
  return { lines, names };
}

/** Generates a loop body with `acc` allowed to grow and `frozen` left alone. */
function loopBody(g: Gen, acc: Accumulators, frozen: readonly string[], continueOk: boolean,
  setup?: () => void, maxStmts = 4): string[] {
  const grow = acc.names.filter((n) => {
    const v = g.lookup(n);
    return v !== undefined && isGrowable(v.ty);
  });
  g.openLoop({ acc: new Set(grow), frozen: new Set(frozen), continueOk, favored: acc.names });
  const body = block(g, maxStmts, setup);
  g.closeLoop();
  return body;
}

/** The collection variables an expression reads: a loop over them must not change them. */
function collectionsIn(g: Gen, text: string): string[] {
  return g.namesIn(text).filter((n) => {
    const ty = g.lookup(n)?.ty;
    return ty !== undefined && (isCollection(ty) || ty === 'str');
  });
}

/** A `break` at this loop's own level (not inside a nested loop) makes a for-else meaningful. */
const hasOwnBreak = (body: readonly string[]): boolean =>
  body.some((l) => l.trim() === 'break') && !body.some((l) => /^\s*(for|while) /.test(l));

function forStmt(g: Gen): string[] | null {
  const h = header(g, true);
  if (!h) return null;
  const reads = collectionsIn(g, h.iter);
  const acc = accumulators(g, new Set([...reads, ...h.targets.map(([n]) => n)]));
  const body = loopBody(g, acc, reads, true, () => {
    for (const [n, ty] of h.targets) g.declare(n, ty, { fixed: true });
    h.facts.forEach((f) => g.addFact(f));
  });
  const lines = [...acc.lines, `for ${targetText(h)} in ${h.iter}:`, ...indent(body)];
  if (hasOwnBreak(body) && g.budget >= 2 && g.rng.chance(0.4)) lines.push('else:', ...indent(block(g, 1)));
  return lines;
}

function whileStmt(g: Gen): string[] | null {
  return pickW(g.rng, [[2, counterWhile], [1.2, digitWhile], [1, stackWhile], [1, twoPointerWhile],
    [0.8, countdownWhile], [0.7, stepsWhile]] as const)(g);
}

/** `i = 0; while i < LIMIT: ...; i += STEP`, with LIMIT fixed for the whole loop. */
function counterWhile(g: Gen): string[] | null {
  const seq = g.pickVar(g.rng.pick(['str', 'list[int]', 'list[str]'] as const), { bounded: true });
  const seqTy = seq === null ? undefined : g.lookup(seq)?.ty;
  const bySeq = seq !== null && seqTy !== 'char' && g.rng.chance(0.6);
  const limit = bySeq ? `len(${seq})` : bound(g);
  const step = bySeq ? 1 : pickW(g.rng, [[4, 1], [1, 2]] as const);
  const i = g.fresh('int', ['i', 'j', 'k', 'idx', 'pos', 'steps', 'tries']);
  const acc = accumulators(g, new Set([i, ...g.namesIn(limit)]));
  g.declare(i, 'int', { rhs: '0' });
  const elem: Ty = seqTy === 'list[int]' ? 'int' : seqTy === 'list[str]' ? 'str' : 'char';
  const body = loopBody(g, acc, [i, ...g.namesIn(limit)], false, () => {
    if (bySeq) g.addFact({ text: `${seq}[${i}]`, ty: elem });
  });
  return [...acc.lines, `${i} = 0`, `while ${i} < ${limit}:`, ...indent([...body, `${i} += ${step}`])];
}

/** Walks the digits (or bits) of a non-negative int. */
function digitWhile(g: Gen): string[] {
  const base = pickW(g.rng, [[3, 10], [1, 2]] as const);
  const m = g.fresh('int', ['m', 'rest', 'num', 'left', 'remaining']);
  const init = `abs(${someInt(g)})`;
  const dn = g.fresh('int', base === 10 ? ['digit', 'd', 'last'] : ['bit', 'b', 'low'], true, new Set([m]));
  const acc = accumulators(g, new Set([m, dn]));
  g.declare(m, 'int', { rhs: init });
  const head = g.rng.chance(0.6) ? `while ${m} > 0:` : `while ${m}:`;
  const declareDigit = () => g.declare(dn, 'int', { fixed: true });
  if (g.rng.chance(0.5)) {
    const body = loopBody(g, acc, [m], false, declareDigit);
    return [...acc.lines, `${m} = ${init}`, head, ...indent([`${dn} = ${m} % ${base}`, ...body, `${m} //= ${base}`])];
  }
  const body = loopBody(g, acc, [m], true, declareDigit);
  return [...acc.lines, `${m} = ${init}`, head, ...indent([`${m}, ${dn} = divmod(${m}, ${base})`, ...body])];
}

/** Drains a work list: every iteration pops one item. */
function stackWhile(g: Gen): string[] {
  const ty = g.rng.pick(['list[int]', 'list[int]', 'list[str]'] as const);
  const elem = ty === 'list[int]' ? 'int' : 'str';
  const init = freshExpr(g, ty, 1);
  const st = g.fresh(ty, ['stack', 'queue', 'todo', 'pending', 'work']);
  const item = g.fresh(elem, TARGET_NAMES[elem], true, new Set([st]));
  const acc = accumulators(g, new Set([st, item]));
  g.declare(st, ty, { rhs: init });
  const pop = g.rng.chance(0.6) ? `${st}.pop()` : `${st}.pop(0)`;
  const body = loopBody(g, acc, [st], true, () => g.declare(item, elem, { fixed: true }));
  return [...acc.lines, `${st} = ${init}`, `while ${st}:`, ...indent([`${item} = ${pop}`, ...body])];
}

/** Two indices closing in from both ends of a sequence, optionally swapping (reversal). */
function twoPointerWhile(g: Gen): string[] | null {
  const seqTy = g.rng.pick(['list[int]', 'list[str]', 'str'] as const);
  const src = g.pickVar(seqTy, { bounded: true });
  if (!src || g.lookup(src)?.ty === 'char') return null;
  const elem: Ty = seqTy === 'list[int]' ? 'int' : seqTy === 'list[str]' ? 'str' : 'char';
  const pre: string[] = [];
  let seq = src;
  const swap = seqTy !== 'str' && g.rng.chance(0.5);
  if (swap) {
    seq = g.fresh(seqTy, ['arr', 'copy', 'work', 'flipped']);
    pre.push(`${seq} = ${copyOf(g, src, seqTy)}`);
    g.declare(seq, seqTy, { rhs: pre[0] });
  }
  const [l, r] = g.rng.pick([['lo', 'hi'], ['left', 'right'], ['i', 'j'], ['start', 'end']] as const);
  const lo = g.fresh('int', [l]);
  const hi = g.fresh('int', [r], true, new Set([lo]));
  const acc = accumulators(g, new Set([seq, src, lo, hi]));
  g.declare(lo, 'int', { rhs: '0' });
  g.declare(hi, 'int', { rhs: `len(${seq}) - 1` });
  const body = loopBody(g, acc, [lo, hi, seq], false, () => {
    g.addFact({ text: `${seq}[${lo}]`, ty: elem });
    g.addFact({ text: `${seq}[${hi}]`, ty: elem });
  }, 3);
  const swapLines = swap ? [`${seq}[${lo}], ${seq}[${hi}] = ${seq}[${hi}], ${seq}[${lo}]`] : [];
  const step = g.rng.chance(0.7)
    ? [`${lo} += 1`, `${hi} -= 1`]
    : [`if ${seq}[${lo}] ${g.rng.pick(['<', '<=', '=='])} ${seq}[${hi}]:`, `    ${lo} += 1`, 'else:', `    ${hi} -= 1`];
  return [...pre, ...acc.lines, `${lo}, ${hi} = 0, len(${seq}) - 1`, `while ${lo} < ${hi}:`,
    ...indent([...swapLines, ...body, ...step])];
}

/** Counts an int down to a floor, by halving or by a fixed step from a capped start. */
function countdownWhile(g: Gen): string[] {
  const v = g.fresh('int', ['v', 'n', 'size', 'rem', 'budget', 'fuel']);
  const halve = g.rng.chance(0.5);
  const init = halve ? `abs(${someInt(g)})` : `min(abs(${someInt(g)}), ${K(g, 8, 30)})`;
  const head = halve ? `while ${v} > ${K(g, 0, 2)}:` : `while ${v} > 0:`;
  const stepLine = halve ? `${v} //= ${K(g, 2, 3)}` : `${v} -= ${K(g, 1, 4)}`;
  const acc = accumulators(g, new Set([v]));
  g.declare(v, 'int', { rhs: init });
  const body = loopBody(g, acc, [v], false);
  return [...acc.lines, `${v} = ${init}`, head, ...indent([...body, stepLine])];
}

/** `while True` with a step counter checked first, so no path skips the exit. */
function stepsWhile(g: Gen): string[] {
  const steps = g.fresh('int', ['steps', 'tries', 'rounds', 'guard']);
  const acc = accumulators(g, new Set([steps]));
  g.declare(steps, 'int', { rhs: '0' });
  const exit = `${steps} > ${K(g, 2, 7)}${g.rng.chance(0.5) ? ` or ${sub(g, 'bool', 1, P.and)}` : ''}`;
  const body = loopBody(g, acc, [steps], true);
  return [...acc.lines, `${steps} = 0`, 'while True:',
    ...indent([`${steps} += 1`, `if ${exit}:`, '    break', ...body])];
}

// --- Branches, exceptions, jumps ---

function ifStmt(g: Gen): string[] {
  const lines = [`if ${cond(g)}:`, ...indent(block(g, 3))];
  for (let elifs = 0; elifs < 2 && g.budget >= 2 && g.rng.chance(0.25); elifs++) {
    lines.push(`elif ${cond(g)}:`, ...indent(block(g, 2)));
  }
  if (g.budget >= 2 && g.rng.chance(0.4)) lines.push('else:', ...indent(block(g, 2)));
  return lines;
}

/** An operation that may raise, with the variables it binds and how a handler would bind them. */
interface Risky {
  lines: string[];
  exc: string;
  targets: [string, Ty][];
  fallback: string[];
}

function riskyDiv(g: Gen): Risky | null {
  const den = pickW(g.rng, [
    [3, () => V(g, 'int')],
    [1, () => { const [a, b] = [V(g, 'int'), someInt(g)]; return a && a !== b ? `${a} - ${b}` : null; }],
    [1, () => { const s = anySized(g); return s && `len(${s})`; }],
    [1, () => { const n = V(g, 'int'); return n && `${n} % ${K(g, 2, 4)}`; }],
  ] as const)();
  const numerator = someInt(g);
  if (!den || den === numerator) return null;
  const t = g.fresh('int', ['ratio', 'share', 'per', 'each', 'avg', 'chunk_size', 'q']);
  return {
    lines: [`${t} = ${paren(numerator, P.mul)} ${g.rng.pick(['//', '%'])} ${paren(den, P.unary)}`],
    exc: 'ZeroDivisionError',
    targets: [[t, 'int']],
    fallback: [`${t} = ${g.rng.pick(['0', '-1', atom(g, 'int')])}`],
  };
}

function riskyKey(g: Gen): Risky | null {
  const d = V(g, 'dict[str,int]');
  if (!d) return null;
  const t = g.fresh('int', ['found_val', 'value', 'amount', 'hit', 'entry']);
  return {
    lines: [`${t} = ${d}[${atom(g, 'str')}]`],
    exc: 'KeyError',
    targets: [[t, 'int']],
    fallback: [`${t} = ${litInt(g.rng)}`],
  };
}

function riskyIndex(g: Gen): Risky | null {
  const seqTy = g.rng.pick(['list[int]', 'list[str]', 'str'] as const);
  const seq = V(g, seqTy);
  if (!seq) return null;
  const elem: Ty = seqTy === 'list[int]' ? 'int' : 'str';
  const t = g.fresh(elem, elem === 'int' ? ['first', 'last', 'picked', 'item', 'top'] : ['first', 'last', 'picked', 'head', 'chosen']);
  const index = g.rng.chance(0.4) ? g.rng.pick(['0', '-1', '1']) : expr(g, 'int', 1);
  return {
    lines: [`${t} = ${seq}[${index}]`],
    exc: 'IndexError',
    targets: [[t, elem]],
    fallback: [`${t} = ${literal(g.rng, elem)}`],
  };
}

function riskyParse(g: Gen): Risky | null {
  const s = V(g, 'str');
  if (!s) return null;
  const t = g.fresh('int', ['parsed', 'num', 'amount', 'number', 'qty']);
  return {
    lines: [`${t} = int(${g.rng.chance(0.3) ? `${s}.strip()` : s})`],
    exc: 'ValueError',
    targets: [[t, 'int']],
    fallback: [`${t} = ${litInt(g.rng)}`],
  };
}

function riskyFind(g: Gen): Risky | null {
  const t = g.fresh('int', ['where', 'at', 'position', 'found_at', 'loc']);
  const xs = V(g, 'list[int]');
  const s = V(g, 'str');
  const line = xs && g.rng.chance(0.5) ? `${t} = ${xs}.index(${atom(g, 'int')})` : s ? `${t} = ${s}.index(${strLit(g)})` : null;
  return line === null ? null : { lines: [line], exc: 'ValueError', targets: [[t, 'int']], fallback: [`${t} = -1`] };
}

function riskyUnpack(g: Gen): Risky | null {
  const s = V(g, 'str');
  if (!s) return null;
  const a = g.fresh('str', ['key', 'left', 'name', 'head']);
  const b = g.fresh('str', ['val', 'right', 'rest', 'tail'], true, new Set([a]));
  return {
    lines: [`${a}, ${b} = ${s}.split(${pyStr(g.rng.pick(SPLIT_SEPS))})`],
    exc: 'ValueError',
    targets: [[a, 'str'], [b, 'str']],
    fallback: [`${a}, ${b} = ${s}, ''`],
  };
}

function message(g: Gen): string {
  const v = g.pickVar(g.rng.pick(['int', 'str'] as const));
  const text = g.rng.pick(MESSAGES);
  return v && g.rng.chance(0.5) ? `f"${text}: {${v}}"` : pyStr(text);
}

function riskyRaise(g: Gen): Risky {
  const t = g.fresh('int', ['checked', 'accepted', 'level', 'grade']);
  return {
    lines: [`if ${cond(g)}:`, `    raise ValueError(${message(g)})`, `${t} = ${expr(g, 'int', 1)}`],
    exc: 'ValueError',
    targets: [[t, 'int']],
    fallback: [`${t} = ${litInt(g.rng)}`],
  };
}

function riskyRemove(g: Gen): Risky | null {
  const xs = g.visible().filter((v) => v.ty === 'list[int]' && g.mutable(v));
  if (!xs.length) return null;
  return { lines: [`${g.rng.pick(xs).name}.remove(${atom(g, 'int')})`], exc: 'ValueError', targets: [], fallback: [] };
}

/** Operations a careless program leaves unguarded (a bug when the input hits it). */
const BUGS: Weighted<(g: Gen) => Risky | null> = [[1, riskyDiv], [1, riskyKey], [1.5, riskyIndex],
  [1, riskyParse], [0.7, riskyFind], [0.5, riskyUnpack]];
const OTHER_EXCEPTIONS = ['ValueError', 'KeyError', 'IndexError', 'TypeError'];

function tryStmt(g: Gen): string[] | null {
  const r = pickW(g.rng, [...BUGS, [1, riskyRaise], [0.4, riskyRemove]])(g);
  if (!r) return null;
  const other = g.rng.pick(OTHER_EXCEPTIONS.filter((e) => e !== r.exc));
  const caught = g.rng.chance(0.2) ? `(${r.exc}, ${other})` : r.exc;
  const errors = g.visible().filter((v) => v.ty === 'list[str]' && g.mutable(v));
  const counter = g.visible().filter((v) => v.ty === 'int' && g.mutable(v));
  let handler = r.fallback;
  let bind = '';
  if (g.loop && g.rng.chance(0.25)) handler = [g.loop.continueOk && g.rng.chance(0.6) ? 'continue' : 'break'];
  else if (errors.length && g.rng.chance(0.3)) {
    bind = ' as err';
    handler = [...handler, `${g.rng.pick(errors).name}.append(str(err))`];
  } else if (!handler.length) handler = [counter.length ? `${g.rng.pick(counter).name} += 1` : 'pass'];
  const lines = ['try:', ...indent(r.lines), `except ${caught}${bind}:`, ...indent(handler)];
  // Bound on both paths (or the handler left the loop): usable after the statement.
  for (const [name, ty] of r.targets) g.declare(name, ty, { rhs: r.lines.join('\n') });
  if (g.budget >= 3 && g.rng.chance(0.2)) lines.push('else:', ...indent(block(g, 1)));
  if (counter.length && g.rng.chance(0.12)) lines.push('finally:', `    ${g.rng.pick(counter).name} += 1`);
  return lines;
}

function returnValue(g: Gen): string {
  const recent = g.recent(g.ret);
  if (recent && g.rng.chance(0.7)) return recent.name;
  return freshExpr(g, g.ret);
}

function returnIfStmt(g: Gen): string[] {
  return [`if ${cond(g)}:`, `    return ${returnValue(g)}`];
}

function jumpStmt(g: Gen): string[] | null {
  const loop = g.loop;
  if (!loop) return null;
  return [`if ${cond(g)}:`, `    ${loop.continueOk && g.rng.chance(0.45) ? 'continue' : 'break'}`];
}

function callStmt(g: Gen, h: Helper): string[] | null {
  if ((g.loop || g.comp) && h.heavy) return null;
  const call = `${h.name}(${h.args(g).join(', ')})`;
  g.called.add(h.name);
  if (h.heavy) g.heavy = true;
  const ints = h.ret === 'int' ? g.visible().filter((v) => v.ty === 'int' && g.mutable(v)) : [];
  if (ints.length && g.rng.chance(0.3)) {
    const target = g.rng.pick(ints).name;
    g.touch(target, call);
    return [`${target} += ${call}`];
  }
  const name = g.fresh(h.ret);
  g.declare(name, h.ret, { rhs: call });
  return [`${name} = ${call}`];
}

/** An uncaught raise under a data-dependent condition. */
function raiseStmt(g: Gen): string[] {
  const exc = pickW(g.rng, [[6, 'ValueError'], [1, 'KeyError'], [1, 'IndexError']] as const);
  return [`if ${cond(g)}:`, `    raise ${exc}(${message(g)})`];
}

/** An unguarded risky operation: a genuine bug for some inputs. */
function bugStmt(g: Gen): string[] | null {
  const r = pickW(g.rng, BUGS)(g);
  if (!r) return null;
  for (const [name, ty] of r.targets) g.declare(name, ty, { rhs: r.lines.join('\n') });
  return r.lines;
}

// ---------------------------------------------------------------------------------------------
// Functions

/** A statement emitted at a chosen top-level position (helper calls, the planted raise or bug). */
interface Scheduled {
  at: number;
  emit: (g: Gen) => string[] | null;
}

function functionBody(g: Gen, scheduled: readonly Scheduled[]): string[] {
  const lines: string[] = [];
  const emit = (s: Scheduled) => {
    const out = s.emit(g) ?? [];
    g.budget -= out.length;
    lines.push(...out);
  };
  let k = 0;
  do {
    scheduled.filter((s) => s.at === k).forEach(emit);
    lines.push(...stmt(g));
    k++;
  } while (g.budget > 0);
  scheduled.filter((s) => s.at >= k).forEach(emit);
  lines.push(`return ${returnValue(g)}`);
  return lines;
}

const RET_TYPES: Weighted<Ty> = [[4, 'int'], [2.5, 'str'], [2, 'list[int]'], [1, 'list[str]'],
  [1, 'dict[str,int]'], [1, 'bool'], [0.6, 'tuple[int,int]'], [0.4, 'set[int]']];
const PARAM_TYPES: Weighted<Ty> = [[3, 'list[int]'], [3, 'str'], [3, 'int'], [1.5, 'list[str]'],
  [1, 'dict[str,int]'], [0.3, 'set[int]'], [0.3, 'bool'], [0.3, 'tuple[int,int]']];

interface BuiltFunction {
  lines: string[];
  helper: Helper;
}

/** A helper generated like the entry, smaller; it never mutates its collection parameters. */
function plainHelper(rng: Rng, name: string, reserved: ReadonlySet<string>, earlier: readonly Helper[]): BuiltFunction {
  const ret = pickW(rng, RET_TYPES);
  const g = new Gen(rng, ret, earlier, reserved, rng.int(2, 6));
  const params = Array.from({ length: rng.int(1, 2) }, () => pickW(rng, PARAM_TYPES));
  const names = params.map((ty) => {
    const n = g.fresh(ty);
    g.declare(n, ty, { fixed: isCollection(ty) });
    return n;
  });
  const option = rng.chance(0.2) ? { name: g.fresh('int', ['k', 'limit', 'factor', 'base', 'scale']), value: litInt(rng) } : null;
  if (option) g.declare(option.name, 'int');
  const body = functionBody(g, []);
  const signature = [...names, ...(option ? [`${option.name}=${option.value}`] : [])].join(', ');
  const args = (cg: Gen) => {
    const out = params.map((ty) => expr(cg, ty, 1));
    if (option && cg.rng.chance(0.5)) out.push(cg.rng.chance(0.5) ? `${option.name}=${expr(cg, 'int', 1)}` : expr(cg, 'int', 1));
    return out;
  };
  return { lines: [`def ${name}(${signature}):`, ...indent(body)], helper: { name, ret, heavy: g.heavy, args } };
}

/** A recursive helper: its lines, return type, and how a caller builds arguments that bound its depth. */
interface Recursion {
  params: string[];
  body: string[];
  ret: Ty;
  args: (g: Gen) => string[];
}

/** An int argument small enough to be a recursion depth. */
function depthArg(g: Gen, max: number): string {
  const n = g.pickVar('int');
  const seq = max >= 8 ? g.pickVar(g.rng.pick(['str', 'list[int]', 'list[str]'] as const), { bounded: true }) : null;
  return pickW(g.rng, [
    [n ? 3 : 0, () => `abs(${n}) % ${max + 1}`],
    [n ? 1 : 0, () => `min(abs(${n}), ${max})`],
    [seq ? 1 : 0, () => `len(${seq})`],
    [0.5, () => String(g.rng.int(2, max))],
  ] as const)();
}

/** n, n - 1, ..., base: factorial- and triangle-like shapes. */
function linearRecursion(rng: Rng, f: string): Recursion {
  const n = rng.pick(['n', 'k', 'm', 'num']);
  if (rng.chance(0.3)) {
    const acc = rng.pick(['acc', 'total', 'result']);
    const next = rng.pick([`${acc} + ${n}`, `${acc} * 2 + ${n}`, `${acc} + ${n} % ${rng.int(2, 4)}`, `${acc} * ${n}`]);
    return {
      params: [n, acc],
      body: [`if ${n} <= 0:`, `    return ${acc}`, `return ${f}(${n} - 1, ${next})`],
      ret: 'int',
      args: (g) => [depthArg(g, 8), String(g.rng.int(0, 2))],
    };
  }
  const base = rng.int(0, 1);
  const rec = `${f}(${n} - ${rng.pick([1, 1, 2])})`;
  const combine = (r: string) => rng.pick([`${n} + ${r}`, `${n} * ${r}`, `${r} + ${n} % ${rng.int(2, 4)}`,
    `2 * ${r} + 1`, `${r} + ${n} * ${n}`, `max(${r}, ${n} * ${rng.int(2, 3)})`]);
  const prev = rng.pick(['prev', 'rest', 'sub']);
  const tail = rng.chance(0.3) ? [`${prev} = ${rec}`, `return ${combine(prev)}`] : [`return ${combine(rec)}`];
  return {
    params: [n],
    body: [`if ${n} <= ${base}:`, `    return ${rng.pick(['0', '1', n])}`, ...tail],
    ret: 'int',
    args: (g) => [depthArg(g, 8)],
  };
}

/** Peels the last digit (or bit) off a non-negative int. */
function digitRecursion(rng: Rng, f: string): Recursion {
  const n = rng.pick(['n', 'num', 'value', 'x']);
  const base = rng.pick([10, 10, 2]);
  const rec = `${f}(${n} // ${base})`;
  const [ret, baseValue, result] = rng.pick([
    ['int', n, `${n} % ${base} + ${rec}`],
    ['int', '1', `1 + ${rec}`],
    ['int', n, `max(${n} % ${base}, ${rec})`],
    ['int', n, `${rec} * ${rng.int(2, 3)} + ${n} % ${base}`],
    ['str', `str(${n})`, `${rec} + str(${n} % ${base})`],
  ] as const);
  return {
    params: [n],
    body: [`if ${n} < ${base}:`, `    return ${baseValue}`, `return ${result}`],
    ret,
    args: (g) => [`abs(${someInt(g)})`],
  };
}

/** Head and recursive tail of a list: sums, counts, maps, filters, reversals. */
function listRecursion(rng: Rng, f: string): Recursion {
  const ints = rng.chance(0.65);
  const xs = rng.pick(ints ? ['xs', 'nums', 'items', 'values', 'seq'] : ['words', 'names', 'items', 'parts']);
  const head = `${xs}[0]`;
  const rec = `${f}(${xs}[1:])`;
  const cmp = `${rng.pick(['>', '<', '>=', '!='])} ${rng.int(0, 5)}`;
  const [ret, baseValue, result]: readonly [Ty, string, string] = ints
    ? rng.pick([
      ['int', '0', `${head} + ${rec}`],
      ['int', '0', `(1 if ${head} ${cmp} else 0) + ${rec}`],
      ['int', '0', `max(${head}, ${rec})`],
      ['int', '0', `${head} * ${rng.int(1, 3)} - ${rec}`],
      ['list[int]', '[]', `[${head} * ${rng.int(2, 3)}] + ${rec}`],
      ['list[int]', '[]', `${rec} + [${head}]`],
      ['list[int]', '[]', `([${head}] if ${head} ${cmp} else []) + ${rec}`],
    ] as const)
    : rng.pick([
      ['int', '0', `len(${head}) + ${rec}`],
      ['list[str]', '[]', `[${head}.upper()] + ${rec}`],
      ['list[str]', '[]', `${rec} + [${head}]`],
      ['str', "''", `${head}[:1] + ${rec}`],
    ] as const);
  const guard = rng.pick([`if not ${xs}:`, `if len(${xs}) == 0:`]);
  return {
    params: [xs],
    body: [guard, `    return ${baseValue}`, `return ${result}`],
    ret,
    args: (g) => [expr(g, ints ? 'list[int]' : 'list[str]', 1)],
  };
}

/** First character and recursive rest of a string. */
function stringRecursion(rng: Rng, f: string): Recursion {
  const s = rng.pick(['s', 'text', 'word', 'rest']);
  const rec = `${f}(${s}[1:])`;
  const args = (g: Gen) => [expr(g, 'str', 1)];
  const variant = rng.int(0, 5);
  if (variant === 0) {
    return {
      params: [s], ret: 'bool', args,
      body: [`if len(${s}) < 2:`, '    return True', `if ${s}[0] != ${s}[-1]:`, '    return False', `return ${f}(${s}[1:-1])`],
    };
  }
  if (variant === 1) {
    return {
      params: [s], ret: 'str', args,
      body: [`if len(${s}) < 2:`, `    return ${s}`, `if ${s}[0] == ${s}[1]:`, `    return ${rec}`, `return ${s}[0] + ${rec}`],
    };
  }
  const [ret, baseValue, result] = rng.pick([
    ['str', "''", `${rec} + ${s}[0]`],
    ['str', "''", `(${s}[0] if ${s}[0].${rng.pick(['isalpha', 'isdigit', 'islower', 'isupper'])}() else '') + ${rec}`],
    ['int', '0', `(1 if ${s}[0] in ${pyStr(rng.pick(VOWEL_SETS))} else 0) + ${rec}`],
    ['str', "''", `${s}[0].${rng.pick(['upper', 'swapcase'])}() + ${rec}`],
  ] as const);
  return { params: [s], ret, args, body: [`if not ${s}:`, `    return ${baseValue}`, `return ${result}`] };
}

/** Two-argument recursions: Euclid's remainder walk, repeated multiplication or addition. */
function twoArgRecursion(rng: Rng, f: string): Recursion {
  const [a, b] = rng.pick([['a', 'b'], ['x', 'y'], ['m', 'n']] as const);
  return rng.pick([
    (): Recursion => ({
      params: [a, b], ret: 'int',
      body: [`if ${b} == 0:`, `    return ${rng.pick([a, `abs(${a})`])}`, `return ${f}(${b}, ${a} % ${b})`],
      args: (g) => [expr(g, 'int', 1), expr(g, 'int', 1)],
    }),
    (): Recursion => ({
      params: [a, b], ret: 'int',
      body: [`if ${b} <= 0:`, `    return ${rng.pick(['1', '0'])}`, `return ${a} ${rng.pick(['*', '+'])} ${f}(${a}, ${b} - 1)`],
      args: (g) => [expr(g, 'int', 1), depthArg(g, 6)],
    }),
    (): Recursion => {
      const half = rng.pick(['half', 'h', 'root']);
      return {
        params: [a, b], ret: 'int',
        body: [`if ${b} == 0:`, '    return 1', `${half} = ${f}(${a}, ${b} // 2)`, `if ${b} % 2 == 0:`,
          `    return ${half} * ${half}`, `return ${half} * ${half} * ${a}`],
        args: (g) => [expr(g, 'int', 1), depthArg(g, 12)],
      };
    },
  ])();
}

/** Two recursive calls per level (Fibonacci-like, grid paths), kept shallow; or memoized. */
function treeRecursion(rng: Rng, f: string): Recursion {
  const n = rng.pick(['n', 'k', 'steps']);
  const variant = rng.int(0, 3);
  if (variant === 0) {
    return {
      params: [n, 'memo'], ret: 'int',
      body: [`if ${n} < 2:`, `    return ${n}`, `if ${n} in memo:`, `    return memo[${n}]`,
        `memo[${n}] = ${f}(${n} - 1, memo) + ${f}(${n} - 2, memo)`, `return memo[${n}]`],
      args: (g) => [depthArg(g, 20), '{}'],
    };
  }
  if (variant === 1) {
    const [r, c] = rng.pick([['r', 'c'], ['rows', 'cols'], ['x', 'y']] as const);
    return {
      params: [r, c], ret: 'int',
      body: [`if ${r} == 0 or ${c} == 0:`, '    return 1', `return ${f}(${r} - 1, ${c}) + ${f}(${r}, ${c} - 1)`],
      args: (g) => [depthArg(g, 3), depthArg(g, 3)],
    };
  }
  const combine = rng.pick([`${f}(${n} - 1) + ${f}(${n} - 2)`, `${f}(${n} - 1) + 2 * ${f}(${n} - 2)`,
    `${f}(${n} - 1) + ${f}(${n} - 2) + 1`]);
  return {
    params: [n], ret: 'int',
    body: [`if ${n} < 2:`, `    return ${rng.pick([n, '1'])}`, `return ${combine}`],
    args: (g) => [depthArg(g, 6)],
  };
}

/** Splits a list in halves and combines the halves' results. */
function splitRecursion(rng: Rng, f: string): Recursion {
  const xs = rng.pick(['xs', 'nums', 'items', 'seq']);
  const mid = rng.pick(['mid', 'half', 'cut']);
  const left = `${f}(${xs}[:${mid}])`;
  const right = `${f}(${xs}[${mid}:])`;
  return {
    params: [xs], ret: 'int',
    body: [`if len(${xs}) <= 1:`, `    return ${rng.pick([`sum(${xs})`, `${xs}[0] if ${xs} else 0`, `len(${xs})`])}`,
      `${mid} = len(${xs}) // 2`, `return ${rng.pick([`${left} + ${right}`, `max(${left}, ${right})`, `min(${left}, ${right})`])}`],
    args: (g) => [expr(g, 'list[int]', 1)],
  };
}

const RECURSIONS: Weighted<(rng: Rng, f: string) => Recursion> = [[2, linearRecursion], [1.5, digitRecursion],
  [2, listRecursion], [1.5, stringRecursion], [1, twoArgRecursion], [1, treeRecursion], [0.7, splitRecursion]];

function recursiveHelper(rng: Rng, name: string): BuiltFunction {
  const r = pickW(rng, RECURSIONS)(rng, name);
  return {
    lines: [`def ${name}(${r.params.join(', ')}):`, ...indent(r.body)],
    helper: { name, ret: r.ret, heavy: true, args: r.args },
  };
}

function functionName(rng: Rng, taken: ReadonlySet<string>): string {
  for (;;) {
    const name = rng.chance(0.75) ? `${rng.pick(VERBS)}_${rng.pick(NOUNS)}` : rng.pick(VERBS);
    if (!taken.has(name)) return name;
  }
}

// ---------------------------------------------------------------------------------------------
// Programs

/** How a program ends: normally, or (by design, in a few) with an uncaught exception on some inputs. */
type Mode = 'clean' | 'raise' | 'bug';

/** Programs longer than this many lines are drawn again (the model's context is small). */
const MAX_LINES = 32;

export function generateSyntheticProgram(seed: number, index: number): ProgramSpec {
  const rng = new Rng(seed).fork(index);
  const id = `synthetic/${String(index).padStart(6, '0')}`;
  let program = buildProgram(rng);
  for (let tries = 0; tries < 5 && program.lines > MAX_LINES; tries++) program = buildProgram(rng);
  return { id, group: id, origin: 'synthetic', source: program.source, entry: program.entry, args: program.args };
}

function buildProgram(rng: Rng): { source: string; entry: string; args: string; lines: number } {
  const taken = new Set(RESERVED);
  const helperNames = Array.from({ length: pickW(rng, [[3, 0], [4, 1], [2.2, 2], [0.8, 3]] as const) }, () => {
    const name = functionName(rng, taken);
    taken.add(name);
    return name;
  });
  const entry = functionName(rng, taken);
  taken.add(entry);

  const helpers: Helper[] = [];
  const chunks: string[][] = [];
  for (const name of helperNames) {
    const built = rng.chance(0.35) ? recursiveHelper(rng, name) : plainHelper(rng, name, taken, helpers);
    helpers.push(built.helper);
    chunks.push(built.lines);
  }

  const helperLines = chunks.reduce((n, c) => n + c.length, 0);
  const budget = Math.max(4, Math.min(rng.int(5, 16), MAX_LINES - 6 - helperLines));
  const g = new Gen(rng, pickW(rng, RET_TYPES), helpers, taken, budget);
  const params = Array.from({ length: pickW(rng, [[4, 1], [4, 2], [1.5, 3]] as const) }, () => pickW(rng, PARAM_TYPES));
  const paramNames = params.map((ty) => {
    const n = g.fresh(ty);
    g.declare(n, ty);
    return n;
  });
  const scheduled: Scheduled[] = helpers.map((h) => ({
    at: rng.int(0, 3),
    emit: (g) => (g.called.has(h.name) ? null : callStmt(g, h)),
  }));
  const mode = pickW(rng, [[82, 'clean'], [11, 'raise'], [7, 'bug']] as const satisfies Weighted<Mode>);
  if (mode !== 'clean') scheduled.push({ at: rng.int(1, 4), emit: mode === 'raise' ? raiseStmt : bugStmt });
  chunks.push([`def ${entry}(${paramNames.join(', ')}):`, ...indent(functionBody(g, scheduled))]);

  return {
    source: `${chunks.map((c) => c.join('\n')).join('\n\n\n')}\n`,
    entry,
    args: params.map((ty) => inputLiteral(rng, ty)).join(', '),
    lines: chunks.reduce((n, c) => n + c.length, 0),
  };
}
