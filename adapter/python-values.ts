/**
 * Python repr strings as trees, for a debugger's Variables view.
 *
 * A predicted state holds each local as the text the tracer writes: repr() of the value,
 * possibly cut by ndb's rule (first 99 characters, then `…`). To let the user expand a list or
 * a dict, the text is parsed here, without Python (the values never existed: the model wrote
 * them). Built-in containers become `list`/`tuple`/`set`/`dict` nodes; a call-shaped repr that
 * wraps exactly one container (`deque([…])`, `Counter({…})`, `defaultdict(<class 'int'>, {…})`)
 * shows that container's children; everything else is an atom. A cut container keeps the
 * children that are whole, and the last one if it is itself a (cut) container. Nothing here
 * throws: text that does not parse is an atom.
 */
import { ELLIPSIS } from '../grammar/truncate.js';

export type PyValue =
  | { kind: 'atom'; text: string }
  | { kind: ContainerKind; text: string; children: PyChild[]; truncated: boolean };

export type ContainerKind = 'list' | 'tuple' | 'set' | 'dict';

/** A child of a container: `0`, `1`, … for sequences and sets, the key's repr for a dict. */
export interface PyChild {
  name: string;
  value: PyValue;
}

type Container = Extract<PyValue, { children: PyChild[] }>;

/**
 * One parsed value. `whole`: the value's text certainly ended where parsing stopped; false
 * when the cut came first (a number at the cut may have had more digits, a list more items).
 * Only the cut ends a value early, so a value that is not whole always reaches the end.
 */
interface Parsed {
  value: PyValue;
  whole: boolean;
}

class Malformed extends Error {}

/** Calls whose repr is the empty container, with no argument inside to show it. */
const EMPTY_CALLS = new Map<string, ContainerKind>([
  ['set', 'set'],
  ['frozenset', 'set'],
  ['Counter', 'dict'],
  ['OrderedDict', 'dict'],
]);

/** What Python writes for a container that contains itself: nothing to expand. */
const RECURSIVE = ['[...]', '{...}'];

const DELIMITERS = new Set([',', ':', ')', ']', '}']);
const CALL = /[A-Za-z_][\w.]*(?=\()/y;
const KEYWORD = /[A-Za-z_]\w*=(?!=)/y;

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && /\s/.test(ch);
}

class Parser {
  private pos = 0;

  /** `src` is the repr without its final `…`; `cut` tells whether there was one. */
  constructor(
    private readonly src: string,
    private readonly cut: boolean,
  ) {}

  parseAll(): PyValue {
    const { value } = this.value();
    this.spaces();
    if (this.pos < this.src.length) throw new Malformed();
    return value;
  }

  private atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  /** Reaching the end early is the cut's doing, or the text is malformed. */
  private endEarly(): void {
    if (!this.cut) throw new Malformed();
    this.pos = this.src.length;
  }

  private spaces(): void {
    while (isSpace(this.src[this.pos])) this.pos++;
  }

  private value(): Parsed {
    this.spaces();
    const start = this.pos;
    if (this.atEnd()) return this.endEarly(), this.atom(start, false);
    const recursive = RECURSIVE.find((r) => this.src.startsWith(r, start));
    if (recursive) {
      this.pos += recursive.length;
      return this.atom(start, true);
    }
    const c = this.src[start];
    if (c === '[') return this.list(start);
    if (c === '(') return this.paren(start);
    if (c === '{') return this.brace(start);
    if (c === '<') return this.opaque(start);
    const next = this.src[start + 1];
    if (c === "'" || c === '"' || (c === 'b' && (next === "'" || next === '"'))) return this.string(start);
    CALL.lastIndex = start;
    const name = CALL.exec(this.src);
    if (name) return this.call(start, name[0]);
    return this.scalar(start);
  }

  private text(start: number, whole: boolean): string {
    return this.src.slice(start, this.pos) + (whole ? '' : ELLIPSIS);
  }

  private atom(start: number, whole: boolean): Parsed {
    return { value: { kind: 'atom', text: this.text(start, whole) }, whole };
  }

  private container(kind: ContainerKind, start: number, children: PyChild[], whole: boolean): Parsed {
    return { value: { kind, text: this.text(start, whole), children, truncated: !whole }, whole };
  }

  /** A number, None, True, Ellipsis…: everything up to the next delimiter. */
  private scalar(start: number): Parsed {
    while (!this.atEnd() && !DELIMITERS.has(this.src[this.pos]!) && !isSpace(this.src[this.pos])) this.pos++;
    if (this.pos === start) throw new Malformed();
    // At the cut a number may have lost digits: only what follows it proves it whole.
    return this.atom(start, !(this.atEnd() && this.cut));
  }

  private string(start: number): Parsed {
    if (this.src[this.pos] === 'b') this.pos++;
    const quote = this.src[this.pos++];
    while (!this.atEnd()) {
      const ch = this.src[this.pos++];
      if (ch === '\\') this.pos++;
      else if (ch === quote) return this.atom(start, true);
    }
    this.endEarly();
    return this.atom(start, false);
  }

  /** `<Foo object at 0x…>`, `<class 'int'>`, `<bound method A.f of <A object at 0x…>>`. */
  private opaque(start: number): Parsed {
    let depth = 0;
    while (!this.atEnd()) {
      const ch = this.src[this.pos++];
      if (ch === '<') depth++;
      else if (ch === '>' && --depth === 0) return this.atom(start, true);
    }
    this.endEarly();
    return this.atom(start, false);
  }

  /**
   * Comma-separated items up to `close` (its opening already read), each one value or, with
   * `pairs`, `key: value`. At the cut, items holds the whole ones, plus the last if it is a
   * cut container (it still has children to show). `commas` tells `(1)` from `(1,)`.
   */
  private items(close: string, pairs: boolean): { items: PyChild[]; closed: boolean; commas: number } {
    const items: PyChild[] = [];
    let commas = 0;
    for (;;) {
      this.spaces();
      if (this.atEnd()) return this.endEarly(), { items, closed: false, commas };
      if (this.src[this.pos] === close) {
        this.pos++;
        return { items, closed: true, commas };
      }
      if (items.length > commas) throw new Malformed(); // two items with no comma between
      const { child, whole } = pairs ? this.pair() : keep(String(items.length), this.value());
      if (child) items.push(child);
      if (!whole) return { items, closed: false, commas };
      this.spaces();
      if (this.src[this.pos] === ',') {
        this.pos++;
        commas++;
      } else if (!this.atEnd() && this.src[this.pos] !== close) {
        throw new Malformed();
      }
    }
  }

  private pair(): { child?: PyChild; whole: boolean } {
    const key = this.value();
    if (!key.whole) return { whole: false };
    this.spaces();
    if (this.atEnd()) return this.endEarly(), { whole: false };
    if (this.src[this.pos++] !== ':') throw new Malformed();
    return keep(key.value.text, this.value());
  }

  private list(start: number): Parsed {
    this.pos++;
    const { items, closed } = this.items(']', false);
    return this.container('list', start, items, closed);
  }

  /** `()`, `(1,)`, `(1, 2)`; `(1+2j)`, with no comma, is a complex number: an atom. */
  private paren(start: number): Parsed {
    this.pos++;
    const { items, closed, commas } = this.items(')', false);
    if (commas === 0 && (items.length > 0 || !closed)) {
      // No comma yet: a tuple of one item, or a parenthesized atom if cut before it could tell.
      if (closed) return this.atom(start, true);
      return this.endEarly(), this.atom(start, false);
    }
    return this.container('tuple', start, items, closed);
  }

  /** `{}` is a dict; otherwise a `:` after the first item makes one, and its absence a set. */
  private brace(start: number): Parsed {
    this.pos++;
    this.spaces();
    if (this.src[this.pos] === '}') {
      this.pos++;
      return this.container('dict', start, [], true);
    }
    const isDict = this.colonAfterFirst();
    if (isDict === undefined) return this.endEarly(), this.atom(start, false);
    const { items, closed } = this.items('}', isDict);
    return this.container(isDict ? 'dict' : 'set', start, items, closed);
  }

  /** Peeks past the first item for a `:`; undefined when the cut hides what follows it. */
  private colonAfterFirst(): boolean | undefined {
    const at = this.pos;
    const first = this.value();
    this.spaces();
    const colon = first.whole && !this.atEnd() ? this.src[this.pos] === ':' : undefined;
    this.pos = at;
    return colon;
  }

  /**
   * `Name(args)`: the empty forms (`set()`, `Counter()`) and calls with exactly one
   * positional container argument expand; other calls (`Decimal('1.5')`, `Point(x=1, y=2)`)
   * are atoms.
   */
  private call(start: number, name: string): Parsed {
    this.pos += name.length + 1;
    const args: Parsed[] = [];
    let closed = false;
    for (let first = true; ; first = false) {
      this.spaces();
      if (this.atEnd()) break;
      if (this.src[this.pos] === ')') {
        this.pos++;
        closed = true;
        break;
      }
      if (!first && this.src[this.pos++] !== ',') throw new Malformed();
      this.spaces();
      KEYWORD.lastIndex = this.pos;
      const keyword = KEYWORD.exec(this.src);
      if (keyword) this.pos += keyword[0].length;
      const arg = this.value();
      if (!keyword) args.push(arg);
      if (!arg.whole) break;
    }
    if (!closed) this.endEarly();
    const short = name.slice(name.lastIndexOf('.') + 1);
    const empty = EMPTY_CALLS.get(short);
    if (closed && args.length === 0 && empty) return this.container(empty, start, [], true);
    const inner = args.filter((a) => a.value.kind !== 'atom');
    if (inner.length !== 1) return this.atom(start, closed);
    const wrapped = inner[0]!.value as Container;
    const items = short === 'OrderedDict' && wrapped.kind === 'list' ? pairsAsItems(wrapped.children) : undefined;
    const value: Container = { kind: items ? 'dict' : wrapped.kind, text: this.text(start, closed), children: items ?? wrapped.children, truncated: wrapped.truncated };
    return { value, whole: closed };
  }
}

/** Keeps a whole value, or a cut one that is a container: a cut atom shows nothing true. */
function keep(name: string, parsed: Parsed): { child?: PyChild; whole: boolean } {
  const shown = parsed.whole || parsed.value.kind !== 'atom';
  return shown ? { child: { name, value: parsed.value }, whole: parsed.whole } : { whole: false };
}

/** OrderedDict's repr before Python 3.12 is a list of (key, value) pairs: show them as items. */
function pairsAsItems(children: PyChild[]): PyChild[] | undefined {
  const items: PyChild[] = [];
  for (const { value } of children) {
    if (value.kind !== 'tuple' || value.truncated || value.children.length !== 2) return undefined;
    items.push({ name: value.children[0]!.value.text, value: value.children[1]!.value });
  }
  return items;
}

/** Parses a repr as the tracer writes it, possibly cut by ndb's rule; never throws. */
export function parsePyValue(text: string): PyValue {
  const cut = text.endsWith(ELLIPSIS);
  try {
    return new Parser(cut ? text.slice(0, -ELLIPSIS.length) : text, cut).parseAll();
  } catch (e) {
    // RangeError: nesting deeper than the JS stack; the text is then shown as it is.
    if (e instanceof Malformed || e instanceof RangeError) return { kind: 'atom', text };
    throw e;
  }
}

export function childCount(value: PyValue): number {
  return value.kind === 'atom' ? 0 : value.children.length;
}

const ANGLE_TYPES: Record<string, string> = {
  class: 'type',
  function: 'function',
  'built-in function': 'builtin_function_or_method',
  'bound method': 'method',
  module: 'module',
};

/** A guess at type(value).__name__ from the text, for DAP's `type` field; undefined if unsure. */
export function typeName(value: PyValue): string | undefined {
  const text = value.text;
  const call = /^[A-Za-z_][\w.]*(?=\()/.exec(text);
  if (call) return call[0].slice(call[0].lastIndexOf('.') + 1);
  if (value.kind !== 'atom') return value.kind;
  if (text === 'None') return 'NoneType';
  if (text === 'True' || text === 'False') return 'bool';
  if (text === 'Ellipsis') return 'ellipsis';
  if (/^-?\d+…?$/.test(text)) return 'int';
  if (/^-?(\d+\.\d*(e[+-]?\d+)?|\d+e[+-]?\d+)…?$|^-?inf$|^nan$/.test(text)) return 'float';
  if (/^(\([^()]*j\)|-?[\d.e+-]+j|-?infj|nanj)$/.test(text)) return 'complex';
  if (/^['"]/.test(text)) return 'str';
  if (/^b['"]/.test(text)) return 'bytes';
  const angle = /^<(?:(class|function|built-in function|bound method|module)\b|([\w.]+) object\b)/.exec(text);
  if (angle?.[1]) return ANGLE_TYPES[angle[1]];
  if (angle?.[2]) return angle[2].slice(angle[2].lastIndexOf('.') + 1);
  return undefined;
}
