/**
 * The items a Python repr shows, read off its text (nothing runs): a list's, tuple's or set's
 * elements, a dict's keys and values, a str's characters, each as its own repr. A repr cut
 * by truncation (grammar/truncate.ts: it ends in `…`) shows its first items only: `complete`
 * says whether the list is whole.
 */
import { ELLIPSIS } from '../grammar/truncate.js';

export interface ReprItems {
  /** Each item's repr, in the order the repr shows them (iteration order, for these types). */
  items: string[];
  /** A dict's values, beside `items` (its keys). */
  values?: string[];
  /** False for a truncated repr: more items follow those shown. */
  complete: boolean;
}

const OPEN: Readonly<Record<string, string>> = { '[': ']', '(': ')', '{': '}' };

/** A repr of a value no one can change and no other name can share a change of: a str, bytes, a number, a bool, None. */
export const IMMUTABLE_REPR = /^(?:['"0-9-]|b['"]|None$|True$|False$)/;

/** The items of a list, tuple, set, frozenset, dict or str repr; undefined for any other repr. */
export function reprItems(repr: string): ReprItems | undefined {
  const complete = !repr.endsWith(ELLIPSIS);
  const text = complete ? repr : repr.slice(0, -ELLIPSIS.length);
  if (text === 'set()' || text === 'frozenset()') return complete ? { items: [], complete } : undefined;
  if (text.startsWith("'") || text.startsWith('"')) return stringItems(text, complete);
  const frozen = text.startsWith('frozenset({');
  if (frozen && complete && !text.endsWith('})')) return undefined;
  const body = frozen ? text.slice('frozenset('.length, complete ? -1 : undefined) : text;
  const close = OPEN[body[0] ?? ''];
  if (!close) return undefined;
  const parts = splitTopLevel(body.slice(1), close, complete);
  if (!parts) return undefined;
  if (body[0] === '(' && parts.length === 1 && complete && !body.endsWith(',)')) return undefined; // `(x)` is no tuple repr
  if (body[0] !== '{' || parts.length === 0) return { items: parts, complete };
  const pairs = parts.map(splitPair);
  if (pairs.every((p) => p === undefined)) return { items: parts, complete }; // a set
  if (pairs.some((p) => p === undefined)) return undefined;
  return { items: pairs.map((p) => p![0]), values: pairs.map((p) => p![1]), complete };
}

/**
 * The top-level items of a container's body (the text after its opening bracket): split at
 * `, ` outside brackets and string literals. In a truncated repr only the items followed by
 * a separator are whole. Undefined where the text is not shaped like a repr's.
 */
function splitTopLevel(body: string, close: string, complete: boolean): string[] | undefined {
  const items: string[] = [];
  const depth: string[] = [];
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "'" || c === '"') {
      const end = stringEnd(body, i);
      if (end < 0) return complete ? undefined : items;
      i = end;
    } else if (OPEN[c]) depth.push(OPEN[c]!);
    else if (depth.length > 0 && c === depth[depth.length - 1]) depth.pop();
    else if (depth.length === 0 && c === close) {
      if (!complete || i !== body.length - 1) return complete ? undefined : items;
      const last = body.slice(start, i);
      // `(1,)`: a one-element tuple's trailing comma leaves an empty last part.
      if (last !== '') items.push(last);
      return items;
    } else if (depth.length === 0 && c === ',') {
      items.push(body.slice(start, i));
      if (body[i + 1] === ' ') i++;
      start = i + 1;
    }
  }
  return complete ? undefined : items;
}

/** `key: value` at the top level, or undefined. */
function splitPair(item: string): [string, string] | undefined {
  const depth: string[] = [];
  for (let i = 0; i < item.length; i++) {
    const c = item[i]!;
    if (c === "'" || c === '"') {
      const end = stringEnd(item, i);
      if (end < 0) return undefined;
      i = end;
    } else if (OPEN[c]) depth.push(OPEN[c]!);
    else if (depth.length > 0 && c === depth[depth.length - 1]) depth.pop();
    else if (depth.length === 0 && c === ':' && item[i + 1] === ' ') return [item.slice(0, i), item.slice(i + 2)];
  }
  return undefined;
}

/** The index of the quote closing the string literal opened at `open` (a `b` prefix before it is the caller's), or -1. */
function stringEnd(text: string, open: number): number {
  const quote = text[open]!;
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t' };

/** A str repr's characters, each as repr() writes a one-character string. */
function stringItems(text: string, complete: boolean): ReprItems | undefined {
  const chars = reprChars(text, complete);
  return chars && { items: chars.map(charRepr), complete };
}

/**
 * The characters (code points) of a str literal as repr() writes it: all of them for a whole
 * repr, those before the cut for a truncated one (`complete` false); undefined where the text
 * is not shaped like a str repr.
 */
export function reprChars(text: string, complete = true): string[] | undefined {
  const quote = text[0]!;
  if (quote !== "'" && quote !== '"') return undefined;
  const chars: string[] = [];
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === quote) return complete && i === text.length - 1 ? chars : undefined;
    if (c !== '\\') {
      const cp = text.codePointAt(i)!;
      chars.push(String.fromCodePoint(cp));
      if (cp > 0xffff) i++;
      continue;
    }
    const e = text[i + 1];
    if (e === undefined) break; // cut inside an escape
    if (SIMPLE_ESCAPES[e] !== undefined) {
      chars.push(SIMPLE_ESCAPES[e]!);
      i++;
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (width === 0) return undefined;
    const hex = text.slice(i + 2, i + 2 + width);
    if (hex.length < width) break; // cut inside an escape
    if (!/^[0-9a-f]+$/.test(hex)) return undefined;
    chars.push(String.fromCodePoint(parseInt(hex, 16)));
    i += 1 + width;
  }
  return complete ? undefined : chars;
}

/** Characters str.isprintable() accepts besides ASCII, as far as Unicode's categories tell. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** repr() of a one-character string. */
export function charRepr(c: string): string {
  if (c === "'") return `"'"`;
  if (c === '\\') return "'\\\\'";
  if (c === '\n') return "'\\n'";
  if (c === '\r') return "'\\r'";
  if (c === '\t') return "'\\t'";
  const cp = c.codePointAt(0)!;
  if ((cp >= 0x20 && cp < 0x7f) || (cp > 0xa0 && PRINTABLE.test(c))) return `'${c}'`;
  const hex = cp.toString(16);
  return cp < 0x100 ? `'\\x${hex.padStart(2, '0')}'` : cp < 0x10000 ? `'\\u${hex.padStart(4, '0')}'` : `'\\U${hex.padStart(8, '0')}'`;
}
