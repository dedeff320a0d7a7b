/**
 * An incremental validator of one predicted frame of the trace language: from its first
 * token (an event, or an exit) to `<|action_sep|>` (a state) or `<|trace_end|>` (an exit).
 *
 * It works at the token level for special tokens (which one may come next) and at the
 * character level inside payload segments (segment.ts): tokens arrive as special-token names
 * or as byte strings (byte-level BPE: a token may end inside a UTF-8 character), the bytes
 * are decoded to code points, the payload escape (escape.ts) is undone, and the segment of
 * the layout at hand checks each code point.
 *
 * The layouts, the heads and which heads may follow each action are grammar/layout.ts's
 * tables: a frame's segments are the empty one after its head, then each part up to the
 * separator after it (the last up to `<|action_sep|>` or `<|trace_end|>`). A forward action
 * leads to a forward event or a forward exit, an inverse one to an inverse event or
 * `<|inv_exit_entry|>`; `continue` only to an exit, a breakpoint only to a line or an exit; a
 * run's first frame is a call or an exit. A bare line number (and so a locals delta) only
 * after a step action that stays in a frame (scope.ts), never for a call.
 *
 * SRC is fixed by the line number: `forced()` hands it out with the token after it, so the
 * decoder feeds it without sampling.
 */
import { escapePayload } from '../grammar/escape.js';
import { HEADS, type Head, type Part, STEP_ACTIONS, frameEnd, headsAfter, layoutOf } from '../grammar/layout.js';
import type { Action, Event, State } from '../grammar/state.js';
import { MAX_SOURCE_CHARS, MAX_REPR_CHARS, truncateRepr, truncateText, MAX_LOCALS } from '../grammar/truncate.js';
import { type ControlFlow, headImpossible, type Landing } from '../program-analysis/control-flow.js';
import type { FrameAnswer } from '../semantics/facts.js';
import type { StepOracle } from '../semantics/oracle.js';
import { type ContentRule, JsonString, KnownNames, type LocalEntry, LocalsSegment, ValueSegment } from './json-constraint.js';
import { type FrameNames, LocSegment } from './loc-constraint.js';
import { reprRule } from './repr-constraint.js';
import { bothRules, factRule, oneOfTextsRule } from './value-rules.js';
import { type Segment, type TokenSpan, cp } from './segment.js';

/** What a frame is predicted from. */
export interface FrameRules {
  /** The action that leads to the frame (its direction is the frame's); null for a run's first state. */
  action: Action | null;
  /** The program's source lines (line n is lines[n - 1]). */
  lines: readonly string[];
  names: FrameNames;
  /**
   * Call frames: the parameters of the function whose call line is the key, in the order a
   * call frame's locals hold them. A call frame on such a line writes those names first.
   */
  callLocals?: ReadonlyMap<number, readonly string[]>;
  /** Call frames: each function's call lines, by name (see LocRules). */
  callLines?: ReadonlyMap<string, ReadonlySet<number>>;
  /** Function name -> the names its frames can hold as locals (program-info.ts); others are free. */
  localNames?: ReadonlyMap<string, KnownNames>;
  /** The innermost function of the state before (what a bare location keeps). */
  prevFunction?: string;
  /** A breakpoint's target: the function holding its line (undefined: not known, e.g. a class body). */
  breakpointFunction?: string;
  /**
   * The symbolic stepper for this step (semantics/oracle.ts): the program's control flow
   * (lines by frame, where the action can land) and what Python's semantics decide of the
   * frame from the state before and the history. None: the grammar alone.
   */
  oracle?: StepOracle;
}

/** No names: nothing known to rule out. */
const NO_NAMES: ReadonlySet<string> = new Set();

const CODE_NAMES = new WeakMap<ControlFlow, Map<string, KnownNames | undefined>>();

/**
 * The names a frame of a function the signatures do not cover (a comprehension, a lambda, a
 * generator expression) can hold, from its bytecode: parameters, the names it binds, cell
 * and free variables. Undefined for a module or class body, or a name not compiled here.
 */
function codeNames(flow: ControlFlow | undefined, fn: string): KnownNames | undefined {
  // Where the program can reach frames by hand (exec, locals()…), a frame may hold any name.
  if (!flow?.programNames.localsByCodeOnly) return undefined;
  let byName = CODE_NAMES.get(flow);
  if (!byName) CODE_NAMES.set(flow, (byName = new Map()));
  if (!byName.has(fn)) {
    const f = flow.frames.get(fn);
    // A function's frame holds its parameters and what its code binds; a namespace (a module, a class body) its data.
    // `.0`, a comprehension's iterator argument, is no name the tracer shows.
    const names = f?.params ? [...f.params, ...f.storedAnywhere, ...f.shared].filter((n) => !n.startsWith('.')) : f?.shown ? [...f.shown] : undefined;
    byName.set(fn, names ? new KnownNames(new Set(names)) : undefined);
  }
  return byName.get(fn);
}

/** A call frame's required names, as the truncation rule keeps them (the first 11 of more than 12). */
function requiredCallLocals(params: readonly string[] | undefined): readonly string[] | undefined {
  if (!params) return undefined;
  return params.length > MAX_LOCALS ? params.slice(0, MAX_LOCALS - 1) : params;
}

type SegmentKind = 'none' | Part;
/** A frame's segments after its head, each with the special token that ends it. */
type Segments = readonly (readonly [SegmentKind, string])[];

function segmentsOf(head: Head): Segments {
  const parts = layoutOf(head);
  const ends = [...parts.map((p) => p.token), frameEnd(head)];
  return ends.map((token, i) => [i === 0 ? 'none' : parts[i - 1]!.part, token] as const);
}

/** Each head token's segments. */
const SEGMENTS: ReadonlyMap<string, Segments> = new Map([...HEADS].map(([token, head]) => [token, segmentsOf(head)]));

/** No payload: the special token after it comes right away. */
class EmptySegment implements Segment {
  push(): boolean {
    return false;
  }
  canEnd(): boolean {
    return true;
  }
  forced(): string {
    return '';
  }
  clone(): EmptySegment {
    return this;
  }
}

/** A source line: exactly the program's text, as truncated for training. */
class SourceSegment implements Segment {
  private pos = 0;

  constructor(private readonly expected: readonly number[]) {}

  push(c: number): boolean {
    if (this.expected[this.pos] !== c) return false;
    this.pos++;
    return true;
  }
  canEnd(): boolean {
    return this.pos === this.expected.length;
  }
  /** The one character that may come next (a sample of a pending character's range would miss it). */
  get next(): number | undefined {
    return this.expected[this.pos];
  }
  forced(): string | null {
    if (this.pos === 0) return escapePayload(String.fromCodePoint(...this.expected));
    return this.canEnd() ? '' : null;
  }
  clone(): SourceSegment {
    const c = new SourceSegment(this.expected);
    c.pos = this.pos;
    return c;
  }
}

/** Which written values a rule decided: name -> the rule (semantics/rules/), and the return value's. */
export interface Decisions {
  locals: Readonly<Record<string, string>>;
  value?: string;
}

/** Which tokens wrote what, for confidences. */
export interface FrameSpans {
  /** The head token (event or exit). */
  head: number;
  /** The location's payload tokens and the special token that ended it. */
  loc?: TokenSpan;
  /** The return value, exception or exit value. */
  value?: TokenSpan;
  /** Each written local (a delta's unchanged ones are not written). */
  locals: readonly LocalEntry[];
}

/** A UTF-8 decoder that takes one byte at a time and rejects invalid sequences (WHATWG's rules). */
class Utf8State {
  need = 0;
  acc = 0;
  lower = 0x80;
  upper = 0xbf;

  /** The code point completed by this byte, -1 when more bytes are needed, null when invalid. */
  push(b: number): number | null {
    if (this.need === 0) {
      if (b <= 0x7f) return b;
      if (b >= 0xc2 && b <= 0xdf) [this.need, this.acc] = [1, b & 0x1f];
      else if (b >= 0xe0 && b <= 0xef) {
        [this.need, this.acc] = [2, b & 0x0f];
        if (b === 0xe0) this.lower = 0xa0;
        if (b === 0xed) this.upper = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        [this.need, this.acc] = [3, b & 0x07];
        if (b === 0xf0) this.lower = 0x90;
        if (b === 0xf4) this.upper = 0x8f;
      } else return null;
      return -1;
    }
    if (b < this.lower || b > this.upper) return null;
    [this.lower, this.upper] = [0x80, 0xbf];
    this.acc = (this.acc << 6) | (b & 0x3f);
    return --this.need === 0 ? this.acc : -1;
  }

  /** The code points the pending bytes can still become. */
  range(): [number, number] {
    const rest = 6 * (this.need - 1);
    const lo = ((this.acc << 6) | (this.lower & 0x3f)) * 2 ** rest;
    const hi = ((this.acc << 6) | (this.upper & 0x3f)) * 2 ** rest + (2 ** rest - 1);
    return [lo, hi];
  }

  copyTo(o: Utf8State): void {
    [o.need, o.acc, o.lower, o.upper] = [this.need, this.acc, this.lower, this.upper];
  }
}

const LT = cp('<');
const ELLIPSIS = cp('…');
const BACKSLASH = cp('\\');
const PIPE = cp('|');

export class FrameConstraint {
  private readonly heads: ReadonlySet<string>;
  private readonly bareAllowedFor: (event: Event) => boolean;
  private head: Head | null = null;
  private layout: Segments = [];
  private index = -1;
  private segment: Segment = new EmptySegment();
  private segmentStart = 0;
  /** Tokens consumed so far: the index of the next one. */
  private tokens = 0;
  private utf8 = new Utf8State();
  /** Backslashes after a held `<` (escape.ts: `<\\…|` loses one backslash), or -1 when none is held. */
  private held = -1;
  private line: number | undefined;
  private bare = false;
  /** The frame's function, once its location is read. */
  private function: string | undefined;
  private spans: FrameSpans = { head: -1, locals: [] };
  private finished = false;
  private readonly landing: Landing;
  /** The program's control flow (the oracle's), if any. */
  private readonly flow: ControlFlow | undefined;

  constructor(private readonly rules: FrameRules) {
    this.flow = rules.oracle?.step.flow;
    this.landing = rules.oracle ? rules.oracle.landing() : {};
    const heads = new Set<string>(headsAfter(rules.action));
    const goesOn = rules.oracle?.step.flow.runGoesOn(rules.action, rules.oracle.step.prev) ?? false;
    for (const h of heads) {
      const head = HEADS.get(h);
      if (head?.kind === 'event' && headImpossible(this.landing[head.event])) heads.delete(h);
      if (head?.kind === 'exit' && goesOn && (head.exit === 'normal' || head.exit === 'error')) heads.delete(h);
    }
    this.heads = heads;
    const step = rules.action !== null && STEP_ACTIONS.has(rules.action.kind);
    this.bareAllowedFor = (event) => step && event !== 'call';
  }

  /** The head tokens the frame may open with: the action's, less those the landing rules out. */
  get headTokens(): ReadonlySet<string> {
    return this.heads;
  }

  /** The frame is complete (its last special token was accepted). */
  get done(): boolean {
    return this.finished;
  }

  /**
   * Whether the rules fix the value being written from here (a literal assigned, a kept
   * value, a loop's next element): the next token is certain, whatever the model thought.
   */
  get pinned(): boolean {
    return this.held < 0 && this.segment.pinned === true;
  }

  /** The head, once written. */
  get frameHead(): Head | null {
    return this.head;
  }

  /** Token spans of the complete frame. */
  get frameSpans(): FrameSpans {
    return this.spans;
  }

  /**
   * The written values the symbolic stepper decided, each with the rule that decided it: where
   * the rule allowed exactly one text, the model chose none of it.
   */
  get decisions(): Decisions {
    const answer = this.decided();
    if (!answer) return { locals: {} };
    const locals: Record<string, string> = {};
    for (const { key } of this.spans.locals) {
      const fact = answer.value(key);
      if (fact && factRule(fact)?.only?.length === 1) locals[key] = fact.rule;
    }
    const returns = this.head?.kind === 'event' && this.head.event === 'return' ? answer.returns : undefined;
    const one = returns && new Set(returns.reprs.map((r) => truncateRepr(r))).size === 1;
    return { locals, ...(one ? { value: returns.rule } : {}) };
  }

  /** Accepts a special token; false (and the constraint is then spoiled: test on a clone) if it cannot come here. */
  pushSpecial(token: string): boolean {
    const at = this.tokens++;
    if (this.finished || this.utf8.need > 0) return false;
    if (!this.head) {
      const head = this.heads.has(token) ? HEADS.get(token) : undefined;
      if (!head) return false;
      this.head = head;
      this.layout = SEGMENTS.get(token)!;
      this.spans = { ...this.spans, head: at };
      this.enter(0);
      return true;
    }
    const [kind, terminator] = this.layout[this.index]!;
    if (token !== terminator || !this.flushHeld(at) || !this.segment.canEnd()) return false;
    this.leave(kind, at);
    if (this.index + 1 === this.layout.length) this.finished = true;
    else this.enter(this.index + 1);
    return true;
  }

  /** Accepts a payload token's bytes; false (spoiled, as above) if no valid frame continues this way. */
  pushBytes(bytes: Uint8Array): boolean {
    const at = this.tokens++;
    if (!this.head || this.finished) return false;
    for (const b of bytes) {
      const c = this.utf8.push(b);
      if (c === null) return false;
      if (c >= 0 ? !this.unescape(c, at) : !this.pendingViable()) return false;
    }
    return true;
  }

  /**
   * Half a character is viable when some character it can still become is: without this, a
   * token ending in a lead byte where only `"` may come would be a dead end. Checked on a
   * sample of the possible characters (all of them once the range is small): the segments'
   * rules are about ASCII or about whole Unicode classes, which a sample does not miss.
   */
  private pendingViable(): boolean {
    const [lo, hi] = this.utf8.range();
    const base = this.segment.clone();
    // A held `<` and backslashes are literal text before a non-ASCII character.
    if (this.held >= 0 && ![LT, ...backslashes(this.held)].every((c) => base.push(c, 0))) return false;
    const n = hi - lo + 1;
    // A source line allows exactly one character: sample that one (held text first, as above).
    if (this.segment instanceof SourceSegment) {
      const want = (base as SourceSegment).next;
      return want !== undefined && want >= lo && want <= hi;
    }
    const samples = n <= 256 ? Array.from({ length: n }, (_, i) => lo + i) : [...Array.from({ length: 256 }, (_, i) => lo + Math.floor((i * n) / 256)), hi];
    // The truncation mark: at a repr's length cap it may be the one character left (repr-constraint.ts).
    if (n > 256 && lo <= ELLIPSIS && ELLIPSIS <= hi) samples.unshift(ELLIPSIS);
    return samples.some((c) => base.clone().push(c, 0));
  }

  /**
   * The text and special token the grammar fixes from here (a source line and the token
   * after it; a closing token), or null when the model must choose.
   */
  forced(): { text: string; special: string } | null {
    if (!this.head || this.finished || this.held >= 0 || this.utf8.need > 0) return null;
    const text = this.segment.forced();
    return text === null ? null : { text, special: this.layout[this.index]![1] };
  }

  clone(): FrameConstraint {
    const c = Object.create(FrameConstraint.prototype) as FrameConstraint;
    Object.assign(c, this);
    // Every other field is immutable or replaced on change; these two change in place.
    c.segment = this.segment.clone();
    c.utf8 = new Utf8State();
    this.utf8.copyTo(c.utf8);
    return c;
  }

  private enter(index: number): void {
    this.index = index;
    this.segmentStart = this.tokens;
    this.segment = this.newSegment(this.layout[index]![0]);
  }

  private leave(kind: SegmentKind, at: number): void {
    if (kind === 'loc') {
      const loc = this.segment as LocSegment;
      this.line = loc.line;
      this.bare = loc.bare;
      this.function = loc.bare ? this.rules.prevFunction : loc.innermost;
      this.spans = { ...this.spans, loc: { from: this.segmentStart, to: at } };
    } else if (kind === 'value') {
      this.spans = { ...this.spans, value: (this.segment as ValueSegment).span };
    } else if (kind === 'locals') {
      this.spans = { ...this.spans, locals: (this.segment as LocalsSegment).entries };
    }
  }

  private newSegment(kind: SegmentKind): Segment {
    const { rules } = this;
    switch (kind) {
      case 'none':
        return new EmptySegment();
      case 'loc': {
        const event = this.head!.kind === 'event' ? this.head!.event : 'call';
        const flow = this.flow;
        const landing = this.landing[event];
        // An exception event reports a line that can raise; any other event any line of its frame.
        const frameLines = (name: string) => (event === 'exception' ? flow?.raisesOf(name) : flow?.linesOf(name));
        const bareLines = landing?.bare ?? (rules.prevFunction !== undefined ? frameLines(rules.prevFunction) : undefined);
        const innermostLines =
          event === 'call' && rules.callLines ? (name: string) => rules.callLines!.get(name) : event === 'exception' && flow ? frameLines : undefined;
        return new LocSegment({
          ...(flow ? { frameLines: (name: string) => flow.linesOf(name) } : {}),
          ...(bareLines ? { bareLines } : {}),
          ...(landing?.stacks ? { stacks: landing.stacks } : {}),
          lineCount: rules.lines.length,
          names: rules.names,
          bareAllowed: this.bareAllowedFor(event),
          ...(innermostLines ? { innermostLines } : {}),
          // A breakpoint stops on its own line, in the function that holds it.
          ...(rules.action?.kind === 'breakpoint' ? { innermost: { line: rules.action.line, ...(rules.breakpointFunction ? { function: rules.breakpointFunction } : {}) } } : {}),
        });
      }
      case 'src': {
        const text = truncateText(rules.lines[this.line! - 1] ?? '', MAX_SOURCE_CHARS);
        return new SourceSegment(Array.from(text, (ch) => cp(ch)));
      }
      case 'locals': {
        const call = this.head?.kind === 'event' && this.head.event === 'call';
        const names = this.function === undefined ? undefined : (rules.localNames?.get(this.function) ?? codeNames(this.flow, this.function));
        const decided = this.decided();
        const unbound = decided?.unbound ?? NO_NAMES;
        // A delta keeps every name of the state before: not where one of them cannot be bound here.
        const delta = this.bare && !Object.keys(rules.oracle?.step.prev?.locals ?? {}).some((n) => unbound.has(n));
        const bound = (decided?.mustWrite ?? []).filter((n) => !unbound.has(n) && (!names || names.all.has(n)));
        return new LocalsSegment(delta, call ? requiredCallLocals(rules.callLocals?.get(this.line!)) : undefined, names, this.localRule(decided), [...unbound], bound);
      }
      case 'value': {
        const returns = this.head?.kind === 'event' && this.head.event === 'return' ? this.decided()?.returns : undefined;
        if (returns) return new ValueSegment(new JsonString(oneOfTextsRule(returns.reprs.map((text) => truncateRepr(text))), MAX_REPR_CHARS));
        // A return's or an exception's value is a repr too (an exit's is left free).
        const event = this.head?.kind === 'event' && this.flow !== undefined && !this.flow.ownReprs;
        return event ? new ValueSegment(new JsonString(reprRule(true), MAX_REPR_CHARS)) : new ValueSegment();
      }
    }
  }

  /** What the symbolic stepper decides of the frame being written, once its head and location are read (undefined: no stepper, or an exit). */
  private decided(): FrameAnswer | undefined {
    const oracle = this.rules.oracle;
    if (!oracle || this.head?.kind !== 'event') return undefined;
    return oracle.frame({ event: this.head.event, line: this.line!, bare: this.bare, function: this.function });
  }

  /** What each local's repr may be: a value's, narrowed by the fact the stepper decides for the name (value-rules.ts). */
  private localRule(decided: FrameAnswer | undefined): (name: string) => ContentRule {
    const repr = reprRule(this.flow !== undefined && !this.flow.ownReprs);
    if (!decided) return () => repr;
    return (name) => {
      const fact = decided.value(name);
      const rule = fact && factRule(fact);
      return rule ? bothRules(repr, rule) : repr;
    };
  }

  /**
   * Undoes the payload escape on the fly. A `<` and the backslashes after it are held until
   * the next character says what they are; meanwhile one of their two readings must still
   * be a valid prefix, so that a held state is never a dead end.
   */
  private unescape(c: number, at: number): boolean {
    if (this.held < 0) {
      if (c !== LT) return this.segment.push(c, at);
      this.held = 0;
      return this.heldViable(at);
    }
    const k = this.held;
    if (c === BACKSLASH) {
      this.held++;
      return this.heldViable(at);
    }
    this.held = -1;
    if (c === PIPE) return k > 0 && this.emit(at, LT, ...backslashes(k - 1), PIPE);
    if (!this.emit(at, LT, ...backslashes(k))) return false;
    return this.unescape(c, at);
  }

  private heldViable(at: number): boolean {
    const k = this.held;
    const literal = this.segment.clone();
    if ([LT, ...backslashes(k)].every((c) => literal.push(c, at))) return true;
    if (k === 0) return false;
    const escaped = this.segment.clone();
    return [LT, ...backslashes(k - 1), PIPE].every((c) => escaped.push(c, at));
  }

  private flushHeld(at: number): boolean {
    if (this.held < 0) return true;
    const k = this.held;
    this.held = -1;
    return this.emit(at, LT, ...backslashes(k));
  }

  private emit(at: number, ...cps: number[]): boolean {
    return cps.every((c) => this.segment.push(c, at));
  }
}

function backslashes(k: number): number[] {
  return new Array<number>(k).fill(BACKSLASH);
}
