/**
 * The symbolic stepper's facts (semantics/facts.ts) as content rules of the locals and value
 * segments: an exact repr, one of a few, or what the repr of the same object keeps.
 *
 * The same object's repr:
 * - is the same text when the object is immutable (a number, str, bytes, None, a bool, a
 *   function: its qualified name and masked address, `<function f.<locals>.g at 0x…>`): the
 *   same object prints the same, truncation included (checked up to which non-ASCII
 *   characters they are, see shape()), and so is a default repr (`<__main__.Stock object at
 *   0x…>`: its class and masked address);
 * - keeps its type's first mark otherwise: `[` a list, `(` a tuple, `{` or `set(` a dict or a
 *   set (a cleared set prints `set()`), `<` a default repr, `Name(` a constructor form
 *   (`deque(`, `Counter(`); mutation changes what follows, not that.
 */
import { truncateRepr } from '../grammar/truncate.js';
import type { PyType, ValueFact } from '../semantics/facts.js';
import type { ContentRule } from './json-constraint.js';
import { reprRule } from './repr-constraint.js';

/** A fact as a rule on the repr written (a value's repr rule `repr` besides); undefined: only `repr`. */
export function factRule(fact: ValueFact): ContentRule | undefined {
  switch (fact.kind) {
    case 'exact':
      return sameTextRule(truncateRepr(fact.repr));
    case 'one_of':
      return oneOfTextsRule(fact.reprs.map((text) => truncateRepr(text)));
    case 'kept':
      return keptValueRule(fact.before);
    case 'type':
      return typeRule(fact.types);
  }
}

const IMMUTABLE_NAMES: ReadonlySet<string> = new Set(['None', 'True', 'False', 'inf', 'nan', 'Ellipsis', 'NotImplemented']);
const IMMUTABLE_START = /^(?:['"0-9-]|b['"])/;
const CONSTRUCTOR = /^[\p{L}_][\p{L}\p{N}_.]*\(/u;
/** A default repr, `<__main__.Stock object at 0x…>`: its class and masked address, the same for its whole life. */
const DEFAULT_OBJECT = /^<[\p{L}_][\p{L}\p{N}_.]* object at 0x…>$/u;
/** A function's repr: its qualified name and masked address, the same for its whole life. */
const FUNCTION = '<function ';
/** A repr that may replace any other: the tracer's, when a repr raises. */
const REPR_FAILED = '<repr failed: ';

/**
 * Text compared with every non-ASCII character as one: the decoder checks a character that
 * is still being written (part of its UTF-8 bytes) on a sample of what it can become
 * (frame-constraint.ts), and a sample would miss the one character an exact rule allows.
 */
function shape(text: string): string {
  return text.replace(/[^\x00-\x7f]/gu, '\x80');
}

function headsRule(heads: readonly string[]): ContentRule {
  const shapes = heads.map(shape);
  return {
    prefix: (s) => {
      const t = shape(s);
      return shapes.some((h) => h.startsWith(t) || t.startsWith(h));
    },
    complete: (s) => {
      const t = shape(s);
      return shapes.some((h) => t.startsWith(h));
    },
  };
}

/** The same text (non-ASCII characters aside, see shape()). */
export function sameTextRule(text: string): ContentRule {
  const want = shape(text);
  return { prefix: (s) => want.startsWith(shape(s)), complete: (s) => shape(s) === want, only: [text] };
}

/** One of these texts (non-ASCII characters aside, see shape()). */
export function oneOfTextsRule(texts: readonly string[]): ContentRule {
  const wants = texts.map(shape);
  return { prefix: (s) => wants.some((w) => w.startsWith(shape(s))), complete: (s) => wants.includes(shape(s)), only: [...new Set(texts)] };
}

/** What the repr of the object `prevRepr` shows may become (undefined: anything a repr may be). */
export function keptValueRule(prevRepr: string): ContentRule | undefined {
  const prev = truncateRepr(prevRepr);
  // Only from a repr the rule accepts: otherwise no text would be both.
  if (!reprRule(true).complete(prev) || prev.startsWith(REPR_FAILED)) return undefined;
  if (IMMUTABLE_START.test(prev) || IMMUTABLE_NAMES.has(prev) || prev.startsWith(FUNCTION) || DEFAULT_OBJECT.test(prev)) return sameTextRule(prev);
  const first = prev[0]!;
  // A repr fails only where some object's own __repr__ raises: a container of values never.
  const failed = prev.includes('<') || first !== '{' && first !== '[' && first !== '(' && !prev.startsWith('set(') ? [REPR_FAILED] : [];
  if (first === '{' || prev.startsWith('set(')) return headsRule(['{', 'set(', ...failed]);
  if (first === '[' || first === '(' || first === '<') return headsRule([first, ...failed]);
  const ctor = CONSTRUCTOR.exec(prev);
  return ctor ? headsRule([ctor[0], REPR_FAILED]) : undefined;
}

/** Both rules at once. */
export function bothRules(a: ContentRule, b: ContentRule): ContentRule {
  const only = a.only ?? b.only;
  return { prefix: (s) => a.prefix(s) && b.prefix(s), complete: (s) => a.complete(s) && b.complete(s), ...(only ? { only: only.filter((t) => a.complete(t) && b.complete(t)) } : {}) };
}

/** A repr's shape, as shape() writes it: whole (`complete`) or begun (`prefix`). */
interface Shape {
  prefix: RegExp;
  complete: RegExp;
}

/** Before the truncation mark: a whole repr or one cut (shape() writes `…` as \x80). */
const NUMBER: Shape = { prefix: /^-?\d*\x80?$/, complete: /^-?\d+\x80?$/ };
const BOOL: Shape = { prefix: /^(?:T(?:r(?:ue?)?)?|F(?:a(?:l(?:se?)?)?)?)?$/, complete: /^(?:True|False)$/ };
/** A float's repr (`1.5`, `1e+20`, `-inf`, `nan`); the repr rule beside it checks the rest. */
const FLOAT: Shape = { prefix: /^(?:-?[\d.e+-]*\x80?|-?i(?:nf?)?|n(?:an?)?)$/, complete: /^(?:-?\d[\d.e+-]*\x80?|-?inf|nan)$/ };
const heads = (...hs: string[]): Shape => {
  const alt = hs.map((h) => h.replace(/[[\]().*+?^$|{}\\]/g, '\\$&')).join('|');
  const prefixes = hs.flatMap((h) => [...h].map((_, i) => h.slice(0, i + 1).replace(/[[\]().*+?^$|{}\\]/g, '\\$&')));
  return { prefix: new RegExp(`^(?:|${prefixes.join('|')}|(?:${alt})[\\s\\S]*)$`), complete: new RegExp(`^(?:${alt})[\\s\\S]*$`) };
};
const exactly = (text: string): Shape => ({ prefix: new RegExp(`^${[...text].map((_, i) => `(?:${text[i]}`).join('')}${')?'.repeat(text.length)}$`), complete: new RegExp(`^${text}$`) });

/**
 * What a value of one of these types may print as (semantics/facts.ts PyType). An int's
 * subclass bool and the promotion of an int to a float included; any value's repr may have
 * failed (the tracer's `<repr failed: …>`).
 */
const TYPE_SHAPES: Readonly<Record<PyType, readonly Shape[]>> = {
  int: [NUMBER, BOOL],
  float: [FLOAT, NUMBER, BOOL],
  str: [heads("'", '"')],
  bool: [BOOL],
  none: [exactly('None')],
  list: [heads('[')],
  tuple: [heads('(')],
  dict: [heads('{')],
  set: [heads('{', 'set(')],
  object: [heads('<')],
};
const FAILED_SHAPE = heads(REPR_FAILED);

/** A value of one of `types`: its repr's shape (the repr rule beside it checks that it is a repr). */
export function typeRule(types: readonly PyType[]): ContentRule {
  const shapes = [...new Set(types.flatMap((t) => TYPE_SHAPES[t])), FAILED_SHAPE];
  return {
    prefix: (s) => {
      const t = shape(s);
      return shapes.some((sh) => sh.prefix.test(t));
    },
    complete: (s) => {
      const t = shape(s);
      return shapes.some((sh) => sh.complete.test(t));
    },
  };
}
