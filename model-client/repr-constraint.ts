/**
 * Values are values: a local's repr (and a return's or an exception's value) must be shaped
 * like the repr of a Python value, checked character by character while decoding (a
 * ContentRule on the JSON string's contents, json-constraint.ts), not after.
 *
 * What every repr of a builtin or stdlib value has, and what the grammar keeps: string and
 * bytes literals close with their own quote (backslash escapes), and brackets nest, `()`, `[]`,
 * `{}`, and the `<...>` of default reprs (`<Foo object at 0x…>`, `<function f.<locals>.g at
 * 0x…>`, `defaultdict(<class 'int'>, {})`); a repr is complete when every string and bracket
 * is closed, or when it is cut by the truncation rule (it ends in `…`, grammar/truncate.ts).
 * `{'ann', '31'), ('bob', 'x2')]` is refused at its `)`.
 *
 * A program that defines `__repr__` can print anything: there the rule is off (reprRule(false)).
 */
import { MAX_REPR_CHARS } from '../grammar/truncate.js';
import type { ContentRule } from './json-constraint.js';

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const CLOSERS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };
const CLOSING = new Set([')', ']', '}', '>']);
const TRUNCATED = '…';

interface Scan {
  /** Closers owed, innermost last. */
  stack: string[];
  /** The quote of the string being read, or ''. */
  quote: string;
  escape: boolean;
}

/** Scans a repr's text; null where it cannot be a repr's prefix. */
function scan(s: string): Scan | null {
  const stack: string[] = [];
  let quote = '';
  let escape = false;
  for (const ch of s) {
    if (quote) {
      if (escape) escape = false;
      else if (ch === '\\') escape = true;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch in CLOSERS) stack.push(CLOSERS[ch]!);
    else if (CLOSING.has(ch) && stack.pop() !== ch) return null;
  }
  return { stack, quote, escape };
}

/**
 * A prefix of a repr: a scan that has not gone wrong (a truncation mark may end it). At the
 * length cap it must be whole: nothing more can come, so an open prefix there is a dead end
 * (one short of the cap, the truncation mark can always finish it).
 */
function reprPrefix(s: string): boolean {
  if (codePoints(s) >= MAX_REPR_CHARS) return reprComplete(s);
  if (s.endsWith(TRUNCATED) && scan(s.slice(0, -TRUNCATED.length)) !== null) return true;
  return scan(s) !== null;
}

/** A whole repr: every string and bracket closed, or cut by the truncation rule. */
function reprComplete(s: string): boolean {
  if (s === '') return false;
  if (s.endsWith(TRUNCATED) && scan(s.slice(0, -TRUNCATED.length)) !== null) return true;
  const r = scan(s);
  return r !== null && r.stack.length === 0 && r.quote === '';
}

const REPR: ContentRule = { prefix: reprPrefix, complete: reprComplete };
const ANY: ContentRule = { prefix: () => true, complete: () => true };

/** The rule for a repr: shaped like a value's, or anything where the program writes its own reprs. */
export function reprRule(on: boolean): ContentRule {
  return on ? REPR : ANY;
}

/** Whether the program may write reprs of its own (a `__repr__` anywhere in its text). */
export function writesOwnReprs(program: string): boolean {
  return program.includes('__repr__');
}
