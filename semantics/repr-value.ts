/**
 * A value read back from its repr, for the few types whose repr is a literal that says all
 * there is to know (nothing runs): None, bool, int, float, str, and lists, tuples, sets and
 * dicts of these. Anything else (a truncated repr, bytes, an object, `nan`) reads as
 * undefined.
 */
import { reprChars, reprItems } from './repr-items.js';

export type PyValue =
  | { type: 'none' }
  | { type: 'bool'; value: boolean }
  | { type: 'int'; value: bigint }
  | { type: 'float'; value: number }
  /** A str as its code points, one per element. */
  | { type: 'str'; chars: readonly string[] }
  | { type: 'list' | 'tuple'; items: readonly PyValue[] }
  /**
   * A set. Read from a repr, its items are in the repr's order, which is its iteration order;
   * built anew (`set(xs)`, expr-eval.ts) it is `unordered`: the hash table's order is not known
   * (a str's hash changes from run to run), so only uses that do not depend on it may read it.
   */
  | { type: 'set'; items: readonly PyValue[]; unordered?: boolean }
  | { type: 'dict'; keys: readonly PyValue[]; values: readonly PyValue[] };

const INT = /^-?\d+$/;
const FLOAT = /^-?(?:\d+\.\d*(?:e[+-]?\d+)?|\d+e[+-]?\d+)$/;

/** The value a repr shows, or undefined where the repr does not tell it whole. */
export function reprValue(repr: string): PyValue | undefined {
  if (repr === 'None') return { type: 'none' };
  if (repr === 'True' || repr === 'False') return { type: 'bool', value: repr === 'True' };
  if (INT.test(repr)) return { type: 'int', value: BigInt(repr) };
  if (FLOAT.test(repr)) {
    const value = Number(repr);
    return Number.isFinite(value) ? { type: 'float', value } : undefined;
  }
  if (repr.startsWith("'") || repr.startsWith('"')) {
    const chars = reprChars(repr);
    return chars && { type: 'str', chars };
  }
  const shown = reprItems(repr);
  if (!shown?.complete) return undefined;
  const items = all(shown.items);
  if (!items) return undefined;
  if (repr.startsWith('[')) return { type: 'list', items };
  if (repr.startsWith('(')) return { type: 'tuple', items };
  // A frozenset equals a set of the same elements; `{}` is an empty dict.
  if (!shown.values && repr !== '{}') return { type: 'set', items };
  const values = all(shown.values ?? []);
  return values && { type: 'dict', keys: items, values };
}

function all(reprs: readonly string[]): PyValue[] | undefined {
  const out: PyValue[] = [];
  for (const r of reprs) {
    const v = reprValue(r);
    if (!v) return undefined;
    out.push(v);
  }
  return out;
}

/**
 * The repr Python writes for a value, or undefined where this module cannot be sure of it:
 * a set (its order is the hash table's), a str with characters beyond ASCII (whether repr
 * escapes them is Unicode's printable property).
 */
export function pyRepr(v: PyValue): string | undefined {
  switch (v.type) {
    case 'none':
      return 'None';
    case 'bool':
      return v.value ? 'True' : 'False';
    case 'int':
      return v.value.toString();
    case 'float':
      return floatRepr(v.value);
    case 'str':
      return strRepr(v.chars);
    case 'set':
      return undefined;
    case 'dict': {
      const parts = v.keys.map((k, i) => {
        const key = pyRepr(k);
        const value = pyRepr(v.values[i]!);
        return key === undefined || value === undefined ? undefined : `${key}: ${value}`;
      });
      return parts.includes(undefined) ? undefined : `{${parts.join(', ')}}`;
    }
    default: {
      const items = v.items.map(pyRepr);
      if (items.includes(undefined)) return undefined;
      if (v.type === 'list') return `[${items.join(', ')}]`;
      return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
    }
  }
}

const STR_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function strRepr(chars: readonly string[]): string | undefined {
  if (chars.some((c) => c.codePointAt(0)! > 0x7f)) return undefined;
  // Python quotes with ' unless the text holds ' and no ".
  const quote = chars.includes("'") && !chars.includes('"') ? '"' : "'";
  const body = chars.map((c) => {
    if (STR_ESCAPES[c] !== undefined) return STR_ESCAPES[c];
    if (c === quote) return `\\${c}`;
    const cp = c.codePointAt(0)!;
    return cp < 0x20 || cp === 0x7f ? `\\x${cp.toString(16).padStart(2, '0')}` : c;
  });
  return `${quote}${body.join('')}${quote}`;
}

/** repr() of a finite float: the shortest digits that read back the same (as JavaScript's), laid out as Python does. */
function floatRepr(x: number): string {
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const [mantissa, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, '0');
  const fraction = digits.slice(e + 1) || '0';
  return `${sign}${whole}.${fraction}`;
}
