/**
 * Values are values: a local's repr (and a return's or an exception's value) must be shaped
 * like the repr of a Python value, checked character by character while decoding (a
 * ContentRule on the JSON string's contents, json-constraint.ts), not after.
 *
 * The shapes (parseRepr below), what builtin and stdlib reprs write:
 *
 *   value      unary (op unary)*          op: `+` `-` (complex `(1+2j)`), `|` and ` | ` (flags, unions)
 *   unary      `-`? atom
 *   atom       number                     `12`, `-0.0`, `1.5e-07`, `1e+20`, `2j`
 *            | string                     `'a'`, `"it's"`, `b'\x00'` (backslash escapes, either quote)
 *            | `[` items `]`              list
 *            | `(` `)` | `(` value `,)` | `(` items `)`   tuple, or a parenthesised complex
 *            | `{` items `}` | `{` value `: ` value (`, ` value `: ` value)* `}`   set, dict
 *            | `...`                      a recursive container (`[...]`, `{...}`)
 *            | `<` ... `>`                a default repr: any text with balanced brackets and strings
 *                                         (`<Foo object at 0x…>`, `<class 'int'>`)
 *            | name trailer*              `re.IGNORECASE`, `deque([1])`, `Point(x=1, y=2)`,
 *                                         `list[int]`, `f.<locals>.P(x=1)`; a bare name without
 *                                         a dot or trailer only where a repr writes one (None, True, inf…)
 *   trailer    `.` name | `.` `<`…`>` | `(` args `)` | `[` items `]`
 *   items      value (`, ` value)*        args: the same, each may be `name=value`
 *
 * and the truncation rule (grammar/truncate.ts): a repr over MAX_REPR_CHARS keeps its first
 * MAX_REPR_CHARS - 1 characters and ends in `…`, so a mark outside a string or a default repr
 * ends a value anywhere, but only as its MAX_REPR_CHARS-th character. `[1 2]`, `{'a' 'b'}`,
 * `1.2.3`, `'a'b`, `,1]` and `{'ann', '31'), ('bob', 'x2')]` (at its `)`) are refused.
 *
 * A program that defines `__repr__` can print anything: there the rule is off (reprRule(false)).
 * Soundness (every real repr passes) is checked against real runs, evaluation/control-flow-check.ts.
 */
import { MAX_REPR_CHARS } from '../grammar/truncate.js';
import type { ContentRule } from './json-constraint.js';

const TRUNCATED = '…';

/** Bare names a repr writes on its own (anything else bare must be dotted or called). */
const BARE_NAMES: ReadonlySet<string> = new Set(['None', 'True', 'False', 'Ellipsis', 'NotImplemented']);
/** Floats and complex parts written as names. */
const BARE_NUMBERS: ReadonlySet<string> = new Set(['inf', 'nan', 'infj', 'nanj']);

const NAME_START_RE = /^[\p{L}\p{Nl}_]$/u;
const NAME_CHAR_RE = /^[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]$/u;
// ASCII first: these run on every character of every prefix.
const isAsciiLetter = (ch: string) => (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_';
const isDigit = (ch: string) => ch >= '0' && ch <= '9' && ch.length === 1;
const NAME_START = { test: (ch: string) => isAsciiLetter(ch) || (ch > '\x7f' && NAME_START_RE.test(ch)) };
const NAME_CHAR = { test: (ch: string) => isAsciiLetter(ch) || isDigit(ch) || (ch > '\x7f' && NAME_CHAR_RE.test(ch)) };
const DIGIT = { test: isDigit };
const CLOSERS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/** The text ran out where more must come: a prefix so far. */
class Open extends Error {}
/** The text cannot be (a prefix of) a repr. */
class Bad extends Error {}
const OPEN = new Open();
const BAD = new Bad();

export type ReprVerdict = 'complete' | 'open' | 'bad';
/** What an atom was, for the operators that may follow it (`+` in a complex, `|` between names). */
type AtomKind = 'number' | 'name' | 'other';

/** A recursive-descent reader of one repr, by code point; running out of text throws OPEN. */
class ReprReader {
  private i = 0;
  /** Inside a subscript, where any bare name (a type's) may stand. */
  private typeNames = 0;

  constructor(private readonly s: readonly string[]) {}

  read(): ReprVerdict {
    try {
      this.value(false);
      return this.i === this.s.length ? 'complete' : 'bad';
    } catch (e) {
      if (e === OPEN) return 'open';
      if (e === BAD) return 'bad';
      throw e;
    }
  }

  /** The next character, or undefined at the end (where an optional part may stop). */
  private peek(): string | undefined {
    return this.s[this.i];
  }

  /** The next character, which must come. */
  private next(): string {
    const ch = this.s[this.i++];
    if (ch === undefined) throw OPEN;
    return ch;
  }

  /** The next character (which must come) passes `ok`; nothing is read. */
  private startsWith(ok: (ch: string) => boolean): void {
    if (!ok(this.next())) throw BAD;
    this.i--;
  }

  private expect(text: string): void {
    for (const ch of text) if (this.next() !== ch) throw BAD;
  }

  /** A value; with `keywordAllowed`, `name=value` too (a call's argument). */
  private value(keywordAllowed: boolean): void {
    let kind = this.unary(keywordAllowed);
    for (;;) {
      const ch = this.peek();
      if ((ch === '+' || ch === '-') && kind === 'number') {
        // A complex number's parts: `1+2j`, `-0-1j`, `inf+nanj`.
        this.i++;
        // Checked before the operand is read, not only after: an operand that can never be a
        // number (`1+[`, `1+..`) must be refused at its first character, or the prefix stays
        // open with no way to finish (a dead end for the decoder).
        this.startsWith((c) => DIGIT.test(c) || NAME_START.test(c));
        kind = this.unary(false);
        if (kind !== 'number') throw BAD;
      } else if ((ch === '|' || ch === ' ') && kind === 'name') {
        // Flags (`re.I|re.M`) and unions (`int | None`): names joined by `|`.
        this.expect(ch === ' ' ? ' | ' : '|');
        this.startsWith((c) => NAME_START.test(c));
        kind = this.unary(false);
        if (kind !== 'name') throw BAD;
      } else return;
    }
  }

  /** An atom, negated or not: what kind it is (for the operators that may follow it). */
  private unary(keywordAllowed: boolean): AtomKind {
    if (this.peek() !== '-') return this.atom(keywordAllowed);
    this.i++;
    const ch = this.next();
    this.i--;
    if (!DIGIT.test(ch) && !NAME_START.test(ch)) throw BAD;
    return this.atom(false);
  }

  private atom(keywordAllowed: boolean): AtomKind {
    const ch = this.next();
    if (DIGIT.test(ch)) {
      this.number();
      return 'number';
    }
    if (NAME_START.test(ch)) return this.named(ch, keywordAllowed);
    if (ch === "'" || ch === '"') this.string(ch);
    else if (ch === '[') this.items(']');
    else if (ch === '(') this.parens();
    else if (ch === '{') this.braces();
    else if (ch === '<') this.angle();
    else if (ch === '.') this.expect('..');
    else throw BAD;
    return 'other';
  }

  /** Digits, an optional fraction and exponent, an optional `j`; nothing name-like after. */
  private number(): void {
    this.digits();
    if (this.peek() === '.') {
      this.i++;
      if (!DIGIT.test(this.next())) throw BAD;
      this.digits();
    }
    const e = this.peek();
    if (e === 'e' || e === 'E') {
      this.i++;
      const sign = this.next();
      if (sign !== '+' && sign !== '-') this.i--;
      if (!DIGIT.test(this.next())) throw BAD;
      this.digits();
    }
    if (this.peek() === 'j') this.i++;
    const after = this.peek();
    if (after !== undefined && (NAME_CHAR.test(after) || after === '.')) throw BAD;
  }

  private digits(): void {
    while (this.peek() !== undefined && DIGIT.test(this.peek()!)) this.i++;
  }

  /** A string's body up to its own quote (the opening one is read). */
  private string(quote: string): void {
    for (;;) {
      const ch = this.next();
      if (ch === '\\') this.next();
      else if (ch === quote) return;
    }
  }

  /** A default repr's body up to its `>`: strings and brackets balanced, anything else free. */
  private angle(): void {
    const owed = ['>'];
    while (owed.length) {
      const ch = this.next();
      if (ch === "'" || ch === '"') this.string(ch);
      else if (ch in CLOSERS) owed.push(CLOSERS[ch]!);
      else if (ch === ')' || ch === ']' || ch === '}' || ch === '>') {
        if (owed.pop() !== ch) throw BAD;
      }
    }
  }

  /** `value, value, …` up to `close` (the opening bracket is read); with a call's keywords. */
  private items(close: string, keywords = false): void {
    if (this.peek() === close) {
      this.i++;
      return;
    }
    for (;;) {
      this.value(keywords);
      const ch = this.next();
      if (ch === close) return;
      if (ch !== ',') throw BAD;
      this.expect(' ');
    }
  }

  /** `()`, `(x,)`, `(x, y)`, or a parenthesised value (a complex `(1+2j)`). */
  private parens(): void {
    if (this.peek() === ')') {
      this.i++;
      return;
    }
    this.value(false);
    const ch = this.next();
    if (ch === ')') return;
    if (ch !== ',') throw BAD;
    if (this.next() === ')') return;
    this.i--;
    this.expect(' ');
    this.items(')');
  }

  /** `{}`, a set `{x, y}`, a dict `{k: v, …}` (which one, the first item says). */
  private braces(): void {
    if (this.peek() === '}') {
      this.i++;
      return;
    }
    this.value(false);
    if (this.peek() !== ':') {
      const ch = this.next();
      if (ch === '}') return;
      if (ch !== ',') throw BAD;
      this.expect(' ');
      this.items('}');
      return;
    }
    for (;;) {
      this.expect(': ');
      this.value(false);
      const ch = this.next();
      if (ch === '}') return;
      if (ch !== ',') throw BAD;
      this.expect(' ');
      this.value(false);
    }
  }

  /**
   * A name (its first character read) and its trailers: attributes, a call, a subscript; or a
   * bytes literal `b'…'`; or, in a call's arguments, `name=value`.
   */
  private named(first: string, keywordAllowed: boolean): AtomKind {
    let name = first;
    while (this.peek() !== undefined && NAME_CHAR.test(this.peek()!)) name += this.s[this.i++]!;
    if (name === 'b' && (this.peek() === "'" || this.peek() === '"')) {
      this.string(this.next());
      return 'other';
    }
    let bare = true;
    for (;;) {
      const ch = this.peek();
      if (ch === '.') {
        this.i++;
        const start = this.next();
        // A qualified name's `<locals>` (a dataclass defined in a function: `f.<locals>.P(x=1)`).
        if (start === '<') this.angle();
        else if (NAME_START.test(start)) while (this.peek() !== undefined && NAME_CHAR.test(this.peek()!)) this.i++;
        else throw BAD;
      } else if (ch === '(') {
        this.i++;
        this.items(')', true);
      } else if (ch === '[') {
        // A generic alias's subscript names types: `list[int]`, `dict[str, list[int]]`.
        this.i++;
        this.typeNames++;
        this.items(']');
        this.typeNames--;
      } else break;
      bare = false;
    }
    if (!bare) return 'name';
    if (keywordAllowed && this.peek() === '=') {
      this.i++;
      this.value(false);
      return 'other';
    }
    if (BARE_NUMBERS.has(name)) return 'number';
    if (!BARE_NAMES.has(name) && this.typeNames === 0) {
      const ch = this.peek();
      // More may come (`Tru` becomes `True`, `re` becomes `re.I`), or a union's `|`.
      if (ch === undefined) throw OPEN;
      if (ch !== '|' && ch !== ' ') throw BAD;
    }
    return 'name';
  }
}

/**
 * Verdicts already read: decoding asks for every prefix of a repr, one character longer each
 * time, and the same reprs come back in state after state. Bounded: cleared when full.
 */
const VERDICTS = new Map<string, ReprVerdict>();
const MAX_VERDICTS = 200_000;

/** Reads a repr's text: a whole repr, a prefix of one, or neither (truncation aside). */
export function parseRepr(text: string): ReprVerdict {
  let verdict = VERDICTS.get(text);
  if (verdict === undefined) {
    verdict = new ReprReader(Array.from(text)).read();
    if (VERDICTS.size >= MAX_VERDICTS) VERDICTS.clear();
    VERDICTS.set(text, verdict);
  }
  return verdict;
}

/** The length in code points, counted only where it can reach the cap (UTF-16 units bound it from above). */
function atCap(s: string): boolean {
  return s.length >= MAX_REPR_CHARS && Array.from(s).length >= MAX_REPR_CHARS;
}

/**
 * A prefix of a repr. At the length cap it must be whole: nothing more can come, so an open
 * prefix there is a dead end (one short of the cap, the truncation mark can always finish it).
 */
function reprPrefix(s: string): boolean {
  if (atCap(s)) return reprComplete(s);
  return parseRepr(s) !== 'bad';
}

/** A whole repr, or one cut by the truncation rule (MAX_REPR_CHARS characters, the last `…`). */
function reprComplete(s: string): boolean {
  if (s.endsWith(TRUNCATED) && atCap(s) && Array.from(s).length === MAX_REPR_CHARS && parseRepr(s.slice(0, -TRUNCATED.length)) !== 'bad') return true;
  return parseRepr(s) === 'complete';
}

const REPR: ContentRule = { prefix: reprPrefix, complete: reprComplete };
const ANY: ContentRule = { prefix: () => true, complete: () => true };

/** The rule for a repr: shaped like a value's, or anything where the program writes its own reprs. */
export function reprRule(on: boolean): ContentRule {
  return on ? REPR : ANY;
}
