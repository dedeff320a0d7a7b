/**
 * Prefix validators for the JSON of the trace language, in the exact form the serializer
 * writes (JSON.stringify's escapes, Python json.dumps spacing `{"a": "1", "b": "2"}`). Only
 * that canonical form is accepted: it is what training showed, and it keeps the parsed
 * state's re-serialization identical to the predicted text.
 *
 *   JsonString   one string: raw characters except `"`, `\` and controls; escapes `\" \\ \b
 *                \f \n \r \t` and `\u00XX` (other controls) or `\uDXXX` (lone surrogates),
 *                lowercase hex, as JSON.stringify writes them; an optional length cap and a
 *                rule on the decoded content
 *   ValueSegment a repr: one JSON string of at most MAX_REPR_CHARS characters
 *   LocalsSegment an object of repr strings: identifier keys (at most MAX_REPR_CHARS long,
 *                so that a frame stays bounded), no duplicates, at most MAX_LOCALS entries;
 *                the delta marker `"..": ".."` only first and only where a delta is
 *                allowed; the truncation entry `"…": "+N"` only last
 */
import { DELTA_MARKER } from '../grammar/serialize.js';
import { MAX_LOCALS, MAX_REPR_CHARS, MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { type Segment, type TokenSpan, cp } from './segment.js';

/** A rule on a string's decoded content: which prefixes can still become valid, which are. */
export interface ContentRule {
  prefix(s: string): boolean;
  complete(s: string): boolean;
  /** Every text the rule allows, where it allows only a few (a literal, a kept value, a loop's next element). */
  only?: readonly string[];
}

const ANY: ContentRule = { prefix: () => true, complete: () => true };

const QUOTE = cp('"');
const BACKSLASH = cp('\\');
const SHORT_ESCAPES: ReadonlyMap<number, string> = new Map([
  [cp('"'), '"'],
  [cp('\\'), '\\'],
  [cp('b'), '\b'],
  [cp('f'), '\f'],
  [cp('n'), '\n'],
  [cp('r'), '\r'],
  [cp('t'), '\t'],
]);
/** What the short escapes write. */
const SHORT_ESCAPED = [...SHORT_ESCAPES.values()];
const HEX = /^[0-9a-f]$/;
/** Controls JSON.stringify writes as a short escape, never as \u00XX. */
const SHORT_ESCAPED_CONTROLS = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/**
 * The characters JSON.stringify writes as `\u` + four hex digits starting with `hex`:
 * controls without a short escape, and lone surrogates.
 */
function unicodeEscapesFrom(hex: string): number[] {
  const scale = 16 ** (4 - hex.length);
  const lo = hex === '' ? 0 : parseInt(hex, 16) * scale;
  const hi = lo + scale - 1;
  const out: number[] = [];
  for (let c = lo; c <= Math.min(hi, 0x1f); c++) if (!SHORT_ESCAPED_CONTROLS.has(c)) out.push(c);
  for (let c = Math.max(lo, 0xd800); c <= Math.min(hi, 0xdfff); c++) out.push(c);
  return out;
}

type StringState = 'open' | 'body' | 'escape' | 'hex' | 'closed';

/** One JSON string, from its opening quote to its closing one. */
export class JsonString {
  private state: StringState = 'open';
  private hex = '';
  /** The decoded content so far. */
  content = '';
  private length = 0;
  /** Tokens that wrote the opening and the closing quote. */
  span: TokenSpan = { from: -1, to: -1 };

  constructor(
    private readonly rule: ContentRule = ANY,
    private readonly maxLength = Infinity,
  ) {}

  get closed(): boolean {
    return this.state === 'closed';
  }

  /** Whether the rule leaves one text for the rest of the string: what is still to come is certain. */
  get pinned(): boolean {
    return this.state !== 'closed' && this.rule.only !== undefined && this.rule.only.filter((t) => t.startsWith(this.content)).length === 1;
  }

  push(c: number, at: number): boolean {
    switch (this.state) {
      case 'open':
        if (c !== QUOTE) return false;
        this.span = { from: at, to: at };
        this.state = 'body';
        return true;
      case 'body':
        if (c === QUOTE) {
          if (!this.rule.complete(this.content)) return false;
          this.span = { from: this.span.from, to: at };
          this.state = 'closed';
          return true;
        }
        if (c === BACKSLASH) {
          // Only if some escape can follow: one more character, within the rule.
          if (this.length >= this.maxLength) return false;
          if (!SHORT_ESCAPED.some((ch) => this.fits(ch)) && !this.unicodeEscapeFits('')) return false;
          this.state = 'escape';
          return true;
        }
        return c >= 0x20 && this.add(String.fromCodePoint(c));
      case 'escape': {
        if (c === cp('u')) {
          if (!this.unicodeEscapeFits('')) return false;
          this.state = 'hex';
          this.hex = '';
          return true;
        }
        const ch = SHORT_ESCAPES.get(c);
        if (ch === undefined) return false;
        this.state = 'body';
        return this.add(ch);
      }
      case 'hex': {
        const digit = String.fromCodePoint(c);
        // Each digit must leave a character the rule takes: a \u escape cannot be undone.
        if (!HEX.test(digit) || !this.unicodeEscapeFits(this.hex + digit)) return false;
        this.hex += digit;
        if (this.hex.length < 4) return true;
        this.state = 'body';
        return this.add(String.fromCharCode(parseInt(this.hex, 16)));
      }
      case 'closed':
        return false;
    }
  }

  /** Whether the rule takes `ch` next. */
  private fits(ch: string): boolean {
    return this.rule.prefix(this.content + ch);
  }

  /** Whether some `\u` escape starting with `hex` writes a character the rule takes next. */
  private unicodeEscapeFits(hex: string): boolean {
    return unicodeEscapesFrom(hex).some((c) => this.fits(String.fromCharCode(c)));
  }

  private add(ch: string): boolean {
    if (this.length + 1 > this.maxLength || !this.fits(ch)) return false;
    this.content += ch;
    this.length++;
    return true;
  }

  clone(): JsonString {
    const c = new JsonString(this.rule, this.maxLength);
    c.state = this.state;
    c.hex = this.hex;
    c.content = this.content;
    c.length = this.length;
    c.span = this.span;
    return c;
  }
}

/** A return value, an exception or an exit value: one repr string. */
export class ValueSegment implements Segment {
  constructor(private readonly string = new JsonString(ANY, MAX_REPR_CHARS)) {}

  get pinned(): boolean {
    return this.string.pinned;
  }

  get span(): TokenSpan {
    return this.string.span;
  }

  push(c: number, at: number): boolean {
    return this.string.push(c, at);
  }

  canEnd(): boolean {
    return this.string.closed;
  }

  forced(): string | null {
    return this.string.closed ? '' : null;
  }

  clone(): ValueSegment {
    return new ValueSegment(this.string.clone());
  }
}

// Python identifiers (PEP 3131, close enough: the tracer's locals are real variable names).
const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;
const MORE_VALUE = /^\+[1-9][0-9]*$/;
const MORE_VALUE_PREFIX = /^(\+([1-9][0-9]*)?)?$/;

/**
 * A key: an identifier not written yet in this object (or a special key). A prefix at the
 * length cap must already be a new name: no character may follow it, so a taken name there
 * would be a dead end. Shorter prefixes can always grow into a new name.
 */
function keyRule(markerAllowed: boolean, taken: readonly string[], names?: KnownNames, moreAllowed = true): ContentRule {
  const special = (s: string) => (markerAllowed && DELTA_MARKER.startsWith(s)) || (moreAllowed && MORE_LOCALS_KEY.startsWith(s));
  const more = (s: string) => moreAllowed && s === MORE_LOCALS_KEY;
  if (names) {
    return {
      prefix: (s) => (names.prefixes.has(s) && names.startsNew(s, taken)) || special(s),
      complete: (s) => (names.all.has(s) && !taken.includes(s)) || (markerAllowed && s === DELTA_MARKER) || more(s),
    };
  }
  return {
    prefix: (s) => (IDENTIFIER.test(s) && (Array.from(s).length < MAX_REPR_CHARS || !taken.includes(s))) || special(s),
    complete: (s) => (IDENTIFIER.test(s) && !taken.includes(s)) || (markerAllowed && s === DELTA_MARKER) || more(s),
  };
}

/** The names a function's frame can hold (its code object's variables), with their prefixes. */
export class KnownNames {
  readonly prefixes: ReadonlySet<string>;

  constructor(readonly all: ReadonlySet<string>) {
    const prefixes = new Set<string>();
    for (const name of all) for (let i = 1; i <= name.length; i++) prefixes.add(name.slice(0, i));
    this.prefixes = prefixes;
  }

  /** Whether `prefix` can still become a name not taken yet (no dead ends for the decoder). */
  startsNew(prefix: string, taken: readonly string[]): boolean {
    for (const name of this.all) if (name.startsWith(prefix) && !taken.includes(name)) return true;
    return false;
  }
}

/** A key that must be one of `names`. */
function oneOfKeysRule(names: readonly string[]): ContentRule {
  return { prefix: (s) => names.some((n) => n.startsWith(s)), complete: (s) => names.includes(s) };
}

/** A key that must be `name`: the frame's locals are known by name, their values are not. */
function requiredKeyRule(name: string): ContentRule {
  return { prefix: (s) => name.startsWith(s), complete: (s) => s === name };
}
const markerValueRule: ContentRule = { prefix: (s) => DELTA_MARKER.startsWith(s), complete: (s) => s === DELTA_MARKER };
const moreValueRule: ContentRule = { prefix: (s) => MORE_VALUE_PREFIX.test(s), complete: (s) => MORE_VALUE.test(s) };

/** A written local: its name and the tokens that wrote its repr. */
export interface LocalEntry {
  key: string;
  span: TokenSpan;
}

/**
 * Where the object stands: before `{`; right after `{` (a key or `}`); after `, ` (a key);
 * in a key; `: ` half written; in a value; after a value (`,` or `}`); `, ` half written;
 * closed.
 */
type LocalsState = 'start' | 'open' | 'keyNext' | 'key' | 'colon' | 'colonSpace' | 'value' | 'next' | 'comma' | 'closed';

/**
 * A locals object, full or a delta; with `required`, those names first, in that order (a
 * call frame's parameters: only their values are the model's). Other names may follow (a
 * closure's free variables).
 */
export class LocalsSegment implements Segment {
  private state: LocalsState = 'start';
  private current: JsonString | null = null;
  private key = '';
  private keys: readonly string[] = [];
  private entries_: readonly LocalEntry[] = [];

  constructor(
    private readonly deltaAllowed: boolean,
    private readonly required?: readonly string[],
    /** The names the frame's function can hold; undefined: any identifier (module, class body, lambda…). */
    private readonly names?: KnownNames,
    /** What each name's repr may be (repr-constraint.ts, value-rules.ts); by default any text. */
    private readonly valueRule: (name: string) => ContentRule = () => ANY,
    /** Names the frame cannot hold here (ControlFlow.unboundBefore): never written, as if taken. */
    private readonly unbound: readonly string[] = [],
    /** Names the object must write, in any order (a name the step surely bound that the state before lacked). */
    private readonly mustHave: readonly string[] = [],
  ) {}

  /** The names of `mustHave` not written yet. */
  private pending(): readonly string[] {
    return this.mustHave.filter((n) => !this.keys.includes(n));
  }

  /** Names no key may be: those written, and those the frame cannot hold. */
  private taken(): readonly string[] {
    return this.unbound.length === 0 ? this.keys : [...this.keys, ...this.unbound];
  }

  /** Whether every required name is written (the object may close only then). */
  private requiredDone(): boolean {
    return (!this.required || this.keys.length >= this.required.length) && this.pending().length === 0;
  }

  /** The written locals (the delta marker left out), with the tokens of each repr. */
  get entries(): readonly LocalEntry[] {
    return this.entries_;
  }

  /** Whether the value being written (its key written) is one text the rules fix. */
  get pinned(): boolean {
    return (this.state === 'colon' || this.state === 'colonSpace' || this.state === 'value') && this.current!.pinned;
  }

  push(c: number, at: number): boolean {
    switch (this.state) {
      case 'start':
        return this.expect(c, '{', 'open');
      case 'open':
        if (c === cp('}')) return this.requiredDone() && this.expect(c, '}', 'closed');
        return this.startKey(c, at);
      case 'keyNext':
        return this.startKey(c, at);
      case 'key':
        if (!this.current!.push(c, at)) return false;
        if (this.current!.closed) {
          this.key = this.current!.content;
          this.keys = [...this.keys, this.key];
          // The value's string, and its rule, from the key on: `pinned` reads it before `: `.
          this.current = this.valueString();
          this.state = 'colon';
        }
        return true;
      case 'colon':
        return this.expect(c, ':', 'colonSpace');
      case 'colonSpace':
        return this.expect(c, ' ', 'value');
      case 'value':
        if (!this.current!.push(c, at)) return false;
        if (this.current!.closed) {
          if (this.key !== DELTA_MARKER) this.entries_ = [...this.entries_, { key: this.key, span: this.current!.span }];
          this.state = 'next';
        }
        return true;
      case 'next':
        if (c === cp('}')) return this.requiredDone() && this.expect(c, '}', 'closed');
        // Nothing may follow the truncation entry, and the cap counts real entries.
        if (this.key === MORE_LOCALS_KEY || this.entries_.length >= MAX_LOCALS) return false;
        // Every name the function has is written: no key could follow a comma.
        if (this.names && !this.names.startsNew('', this.taken())) return false;
        return this.expect(c, ',', 'comma');
      case 'comma':
        return this.expect(c, ' ', 'keyNext');
      case 'closed':
        return false;
    }
  }

  private expect(c: number, ch: string, next: LocalsState): boolean {
    if (c !== cp(ch)) return false;
    this.state = next;
    return true;
  }

  private startKey(c: number, at: number): boolean {
    // A fresh string per key carries the key rule: the marker may only be the first key.
    const required = this.required?.[this.keys.length];
    const pending = this.pending();
    // No truncation entry while a name must still come; and the last free entries go to those names.
    const marker = this.deltaAllowed && this.keys.length === 0;
    const more = pending.length === 0 && this.moreMayCome();
    // No key can start where every name is taken and no special key may come (`{}` is the frame).
    if (required === undefined && pending.length === 0 && this.names && !marker && !more && !this.names.startsNew('', this.taken())) return false;
    const rule =
      required !== undefined
        ? requiredKeyRule(required)
        : pending.length > 0 && MAX_LOCALS - this.entries_.length <= pending.length
          ? oneOfKeysRule(pending)
          : keyRule(marker, this.taken(), this.names, more);
    this.current = new JsonString(rule, MAX_REPR_CHARS);
    this.state = 'key';
    return this.current.push(c, at);
  }

  /**
   * Whether the truncation entry may come next: a whole frame writes it after exactly
   * MAX_LOCALS - 1 names (grammar/truncate.ts), a delta wherever it changed; never for a
   * function that has no more names than the cap.
   */
  private moreMayCome(): boolean {
    if (this.names && this.names.all.size <= MAX_LOCALS) return false;
    return this.keys[0] === DELTA_MARKER || this.entries_.length === MAX_LOCALS - 1;
  }

  private valueString(): JsonString {
    if (this.key === DELTA_MARKER) return new JsonString(markerValueRule);
    if (this.key === MORE_LOCALS_KEY) return new JsonString(moreValueRule);
    return new JsonString(this.valueRule(this.key), MAX_REPR_CHARS);
  }

  canEnd(): boolean {
    return this.state === 'closed';
  }

  forced(): string | null {
    return this.state === 'closed' ? '' : null;
  }

  clone(): LocalsSegment {
    const c = new LocalsSegment(this.deltaAllowed, this.required, this.names, this.valueRule, this.unbound, this.mustHave);
    c.state = this.state;
    c.current = this.current?.clone() ?? null;
    c.key = this.key;
    // Both lists are replaced, never mutated: sharing them is safe.
    c.keys = this.keys;
    c.entries_ = this.entries_;
    return c;
  }
}
