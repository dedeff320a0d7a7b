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
import { type ControlFlow, headImpossible, type Landing, runsStatements, type TestExpr } from '../program-analysis/control-flow.js';
import { bothRules, keptByCaller, keptNames, keptValueRule, type LandingFrame, oneOfTextsRule, sameTextRule } from './kept-values.js';
import { type ContentRule, JsonString, KnownNames, type LocalEntry, LocalsSegment, ValueSegment } from './json-constraint.js';
import { type FrameNames, LocSegment } from './loc-constraint.js';
import { branchLanding } from './branch-landing.js';
import { evaluate, mutated, someExpr, testHolds } from './expr-eval.js';
import { comprehensionCallValues, comprehensionUnbound, comprehensionValue, type LoopBefore, loopBefore, loopLanding, loopValues } from './loop-values.js';
import { type PyValue, pyRepr, reprValue } from './repr-value.js';
import { reprRule } from './repr-constraint.js';
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
   * The program's control flow (control-flow.ts): lines by frame, where the action can land
   * from `prev`, and a return's value on a line that returns nothing (None). None: not known.
   */
  flow?: ControlFlow;
  /** The state the action is taken from (for `flow`). */
  prev?: State;
  /**
   * Inside a call: the caller's state on the line that made the call, before it (the state
   * tree's parent of the callee's states), when the history holds it (kept-values.ts); read
   * from a return (what the caller keeps) and from a comprehension (what it iterates).
   */
  caller?: State;
  /** The frame's states before `prev`, newest first, as far as the history holds them (kept-values.ts frameStates): where a loop came from, how often it went round. */
  frameStates?: readonly State[];
  /** The run's latest state in its entry frame alone (kept-values.ts entryState): what a comprehension of the entry's parameters walks, after a jump. */
  entry?: State;
}

/** No names: nothing known to rule out. */
const NO_NAMES: ReadonlySet<string> = new Set();

/** Whether a name that held `before` (undefined: unbound) must be written: every value the step decides for it differs. */
function mustChange(before: string | undefined, stepped: SteppedValues, name: string): boolean {
  if (before === undefined) return true;
  const assigned = stepped.assigned?.[name];
  if (assigned !== undefined) return truncateRepr(assigned) !== before;
  const next = stepped.iterated?.[name];
  return next !== undefined && next.every((v) => truncateRepr(v) !== before);
}

/** What a forward step to a landing decides (FrameConstraint.valuesStepped). */
interface SteppedValues {
  /** The names the line just run assigned, with their values' reprs (valuesAssigned). */
  assigned?: Readonly<Record<string, string>>;
  /** A loop's targets entering its body, with the elements that may come next (loop-values.ts). */
  iterated?: Readonly<Record<string, readonly string[]>>;
}

/**
 * A call's value, received by the line that made it (control_flow.py's `received`): a step
 * from the callee's return event to the caller's next stop (`y = helper(x)` then shows y as
 * the return event showed the value; `return helper(x)` returns it). Only a normal return
 * lands on a line or a return: an exception leaving the callee stops on the caller's
 * exception event first. `landingFunction`: the function of the frame being written.
 */
export function valueReceived(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: LandingFrame, landingFunction: string | undefined): { name?: string; value: string } | undefined {
  if (!prev || prev.event !== 'return' || prev.value === undefined || prev.stack.length < 2 || landing.bare) return undefined;
  if ((action?.kind !== 'step_over' && action?.kind !== 'step_into') || (landing.event !== 'line' && landing.event !== 'return')) return undefined;
  if (!flow.programNames.localsByCodeOnly) return undefined;
  const callee = prev.stack[prev.stack.length - 1]!;
  const caller = prev.stack[prev.stack.length - 2]!;
  if (caller.function !== landingFunction || !runsStatements(caller.function)) return undefined;
  const received = flow.received.get(caller.line);
  if (!received || received.callee !== callee.function) return undefined;
  if (received.name === undefined) return landing.event === 'return' && landing.line === caller.line ? { value: prev.value } : undefined;
  return flow.programNames.unstable.has(received.name) ? undefined : { name: received.name, value: prev.value };
}

/**
 * The names the line just run assigned, with their reprs: a forward step from a line event to
 * the next stop of the same frame (the location bare), after a line that only assigns
 * literals (`acc = []`: ControlFlow.literals) or a name an expression of values the state
 * before shows (`i += 1`, `c = s[i]`: ControlFlow.assigned, evaluated by expr-eval.ts), or
 * changes a local list or dict in place by such values (`xs.append(x)`, `d[k] = v`:
 * ControlFlow.mutated). Not
 * for names declared global or nonlocal (not the frame's locals), nor where the program can
 * reach frames by hand or writes its own reprs.
 */
function valuesAssigned(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: LandingFrame): Readonly<Record<string, string>> | undefined {
  if (!prev || prev.event !== 'line' || !landing.bare || (landing.event !== 'line' && landing.event !== 'return')) return undefined;
  if ((action?.kind !== 'step_over' && action?.kind !== 'step_into') || !flow.programNames.localsByCodeOnly) return undefined;
  const { unstable } = flow.programNames;
  const literals = flow.literals.get(prev.line);
  // A comprehension's frame on the line does not run the line's statement.
  if (!runsStatements(prev.stack.at(-1)!.function)) return undefined;
  if (literals) return Object.fromEntries(Object.entries(literals).filter(([name]) => !unstable.has(name)));
  const assigned = flow.assigned.get(prev.line);
  if (assigned) {
    // `if TEST: NAME = EXPR`: where the test fails, the names keep what they held (or stay unbound).
    const runs = assigned.when === undefined ? true : testHolds(assigned.when, prev.locals, flow.pure);
    if (runs === undefined) return undefined;
    // Each value alone: the line ran to its end, so none of them raised.
    const out: Record<string, string> = {};
    for (const { name, value } of [assigned, ...(assigned.also ?? [])]) {
      if (unstable.has(name)) continue;
      if (!runs) {
        if (prev.locals[name] !== undefined) out[name] = prev.locals[name]!;
        continue;
      }
      const v = evaluate(value, prev.locals, flow.pure);
      const repr = v && pyRepr(v);
      if (repr !== undefined) out[name] = repr;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  const changed = flow.mutated.get(prev.line);
  if (!changed || unstable.has(changed.name)) return undefined;
  const value = mutated(changed, prev.locals, flow.pure);
  const repr = value && pyRepr(value);
  return repr === undefined ? undefined : { [changed.name]: repr };
}

/**
 * Stepping back over a line that only adds to a name (`i += 1`, `s = s + c`, `xs += [x]`), the
 * value the name held before: the value after, less what was added, where the state after
 * shows both (the added part must not read the name). An int less the int added; a str, list
 * or tuple without the suffix added (an int after may have been a bool before, `b += 1` with b
 * True: a case left to this rule's reading, 1, as no program we trace does it). The line
 * binds nothing else, so the added part reads the
 * same values before and after; had the line raised, the landing would be no line of this
 * frame after it, or the added part would raise on these values too.
 */
function valuesUndone(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: LandingFrame): Readonly<Record<string, string>> | undefined {
  if (!prev || prev.event !== 'line' || !landing.bare || landing.event !== 'line') return undefined;
  if ((action?.kind !== 'inv_step_over' && action?.kind !== 'inv_step_into') || !flow.programNames.localsByCodeOnly) return undefined;
  if (!runsStatements(prev.stack.at(-1)!.function)) return undefined;
  const assigned = flow.assigned.get(landing.line);
  const v = assigned?.value;
  if (!assigned || assigned.also || assigned.when || flow.programNames.unstable.has(assigned.name) || !v || !('binary' in v) || (v.binary !== '+' && v.binary !== '-')) return undefined;
  const [self, added] = v.operands as [TestExpr, TestExpr];
  if (!('name' in self) || self.name !== assigned.name || someExpr(added, (x) => 'name' in x && x.name === assigned.name)) return undefined;
  const after = prev.locals[assigned.name];
  const now = after === undefined ? undefined : reprValue(after);
  const part = evaluate(added, prev.locals, flow.pure);
  const before = now && part && undoAdd(v.binary, now, part);
  const repr = before && pyRepr(before);
  return repr === undefined ? undefined : { [assigned.name]: repr };
}

/** The value `x` with `x OP part` equal to `after`: ints exactly (not floats: rounding), sequences by their suffix. */
function undoAdd(op: string, after: PyValue, part: PyValue): PyValue | undefined {
  const isInt = (v: PyValue) => v.type === 'int' || v.type === 'bool';
  if (after.type === 'int' && isInt(part)) {
    const n = part.type === 'int' ? part.value : part.type === 'bool' && part.value ? 1n : 0n;
    return { type: 'int', value: op === '+' ? after.value - n : after.value + n };
  }
  if (op !== '+') return undefined;
  if (after.type === 'str' && part.type === 'str') {
    const k = after.chars.length - part.chars.length;
    return k >= 0 && part.chars.every((c, i) => after.chars[k + i] === c) ? { type: 'str', chars: after.chars.slice(0, k) } : undefined;
  }
  if ((after.type === 'list' && part.type === 'list') || (after.type === 'tuple' && part.type === 'tuple')) {
    const k = after.items.length - part.items.length;
    return k >= 0 && part.items.every((x, i) => pyRepr(after.items[k + i]!) === pyRepr(x) && pyRepr(x) !== undefined) ? { type: after.type, items: after.items.slice(0, k) } : undefined;
  }
  return undefined;
}

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
    byName.set(fn, f?.params ? new KnownNames(new Set([...f.params, ...f.storedAnywhere, ...f.shared])) : undefined);
  }
  return byName.get(fn);
}

/** A return event's value on a line without a return or yield: an exception leaving the frame. */
const NONE_VALUE = { prefix: (s: string) => 'None'.startsWith(s), complete: (s: string) => s === 'None' };

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
  /** valueReceived for this frame's landing, worked out once (the return's value and the locals both read it); absent: not yet. */
  private received?: { at: ReturnType<typeof valueReceived> };

  constructor(private readonly rules: FrameRules) {
    const flow = rules.flow;
    this.landing = flow ? branchLanding(flow, rules.action, rules.prev, loopLanding(flow, rules.action, rules.prev, rules, flow.landing(rules.action, rules.prev))) : {};
    const heads = new Set<string>(headsAfter(rules.action));
    for (const h of heads) {
      const head = HEADS.get(h);
      if (head?.kind === 'event' && headImpossible(this.landing[head.event])) heads.delete(h);
    }
    this.heads = heads;
    const step = rules.action !== null && STEP_ACTIONS.has(rules.action.kind);
    this.bareAllowedFor = (event) => step && event !== 'call';
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
        const flow = rules.flow;
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
        const names = this.function === undefined ? undefined : (rules.localNames?.get(this.function) ?? codeNames(rules.flow, this.function));
        const back = this.loopStepBack();
        const unbound = this.unboundNames(back);
        // A delta keeps every name of the state before: not where one of them cannot be bound here.
        const delta = this.bare && !Object.keys(rules.prev?.locals ?? {}).some((n) => unbound.has(n));
        const stepped = this.valuesStepped();
        const bound = this.surelyBound(stepped).filter((n) => !unbound.has(n) && (!names || names.all.has(n)));
        return new LocalsSegment(delta, call ? requiredCallLocals(rules.callLocals?.get(this.line!)) : undefined, names, this.localRule(back, stepped), [...unbound], bound);
      }
      case 'value': {
        const fn = this.function;
        const onlyNone = this.head?.kind === 'event' && this.head.event === 'return' && fn !== undefined && rules.flow !== undefined && !rules.flow.returnsValue(fn, this.line!);
        if (onlyNone) return new ValueSegment(new JsonString(NONE_VALUE, MAX_REPR_CHARS));
        const returned = this.head?.kind === 'event' && this.head.event === 'return' && fn !== undefined ? (rules.flow?.returnValues(fn, this.line!) ?? this.valueReturned() ?? this.valueReceived() ?? this.comprehensionReturned()) : undefined;
        if (returned) return new ValueSegment(new JsonString(oneOfTextsRule(returned.map((text) => truncateRepr(text))), MAX_REPR_CHARS));
        // A return's or an exception's value is a repr too (an exit's is left free).
        const event = this.head?.kind === 'event' && rules.flow !== undefined && !rules.flow.ownReprs;
        return event ? new ValueSegment(new JsonString(reprRule(true), MAX_REPR_CHARS)) : new ValueSegment();
      }
    }
  }

  /**
   * Names the step surely bound that the state before lacks or held with another value, so
   * that the locals written (a delta too) must show them: a line that assigns a literal or a value the state decides, a loop's targets
   * entering its body (a forward step to the frame's next stop), the name a callee's return
   * value is assigned to, a comprehension's free variables on its call. Not where the frame
   * is near the cap on locals (a truncated frame keeps only its first names).
   */
  private surelyBound(stepped: SteppedValues): string[] {
    const { prev, caller } = this.rules;
    const names = [...new Set([...Object.keys(stepped.assigned ?? {}), ...Object.keys(stepped.iterated ?? {})])];
    if (!prev || names.length === 0) return [];
    // The same frame: a name it held before is written only where its value changed (a delta
    // keeps the rest), so it is required only where every value it may now hold differs.
    if (this.bare) return Object.keys(prev.locals).length >= MAX_LOCALS - 2 ? [] : names.filter((n) => mustChange(prev.locals[n], stepped, n));
    // A new comprehension's frame holds only these; the caller a callee returned to, what its state on the call line showed and the name the line binds.
    const held = this.head?.kind === 'event' && this.head.event === 'call' ? names.length : caller && caller.line === prev.stack[prev.stack.length - 2]?.line ? Object.keys(caller.locals).length + 1 : undefined;
    return held === undefined || held >= MAX_LOCALS - 2 ? [] : names;
  }

  /**
   * What the step forward to this landing decides, worked out once per frame for both the
   * names it surely binds and their values: an assignment's value, a loop's next element.
   */
  private valuesStepped(): SteppedValues {
    const { flow, action, prev } = this.rules;
    const landing = this.landingFrame();
    if (!flow || !landing) return {};
    const received = this.callValueReceived();
    const assigned =
      valuesAssigned(flow, action, prev, landing) ?? (received?.name === undefined ? undefined : { [received.name]: received.value }) ?? comprehensionCallValues(flow, action, prev, landing, this.function);
    const iterated = loopValues(flow, action, prev, this.rules, landing);
    return { ...(assigned ? { assigned } : {}), ...(iterated ? { iterated } : {}) };
  }

  /**
   * The value a return lands with, decided by the state before: a step from the line event of
   * a line that is only `return EXPR` (ControlFlow.returned) to its return, where the state
   * shows every value EXPR reads (expr-eval.ts; its evaluation raising nothing, no exception
   * can pass through).
   */
  private valueReturned(): string[] | undefined {
    const { flow, action, prev } = this.rules;
    if (!flow?.programNames.localsByCodeOnly || !prev || prev.event !== 'line' || prev.line !== this.line || !this.bare) return undefined;
    if (!runsStatements(prev.stack.at(-1)!.function)) return undefined;
    if (action?.kind !== 'step_over' && action?.kind !== 'step_into') return undefined;
    const expr = flow.returned.get(this.line);
    const value = expr && evaluate(expr, prev.locals, flow.pure);
    const repr = value && pyRepr(value);
    return repr === undefined ? undefined : [repr];
  }

  /** What a list comprehension's frame returns, decided by its caller's values (loop-values.ts comprehensionValue). */
  private comprehensionReturned(): string[] | undefined {
    const { flow, action, prev } = this.rules;
    const landing = this.landingFrame();
    const value = flow && landing && comprehensionValue(flow, action, prev, this.rules, landing);
    return value === undefined ? undefined : [value];
  }

  /** The value a return lands with that a callee's return just gave the line (`return helper(x)`: valueReceived). */
  private valueReceived(): string[] | undefined {
    const received = this.callValueReceived();
    return received && received.name === undefined ? [received.value] : undefined;
  }

  /** valueReceived at this frame's landing, once its head is read. */
  private callValueReceived(): ReturnType<typeof valueReceived> {
    const { flow, action, prev } = this.rules;
    const landing = this.landingFrame();
    if (!flow || !landing) return undefined;
    this.received ??= { at: valueReceived(flow, action, prev, landing, this.function) };
    return this.received.at;
  }

  /**
   * Names the frame cannot hold on a stop before its line runs (a line event): bound only on
   * lines that cannot have run yet in this call (ControlFlow.unboundBefore); stepping back
   * over a loop's first iteration, its targets (loop-values.ts).
   */
  private unboundNames(back: LoopBefore | undefined): ReadonlySet<string> {
    const { flow, action, prev } = this.rules;
    const landing = this.landingFrame();
    if (!flow || this.function === undefined || !landing) return NO_NAMES;
    const targets = comprehensionUnbound(flow, action, prev, landing, this.function);
    if (targets.length > 0) return new Set(targets);
    if (landing.event !== 'line' && landing.event !== 'line_call') return NO_NAMES;
    const unbound = flow.unboundBefore(this.function, this.line!);
    return back && back.unbound.size > 0 ? new Set([...unbound, ...back.unbound]) : unbound;
  }

  /** Stepping back over a loop's iteration, what its targets held before it (loop-values.ts), for the locals being written. */
  private loopStepBack(): LoopBefore | undefined {
    const { flow, action, prev } = this.rules;
    const landing = this.landingFrame();
    return flow && landing && loopBefore(flow, action, prev, landing);
  }

  /** Where the frame being written stops, once its head is an event: what the value rules take as the landing. */
  private landingFrame(): LandingFrame | undefined {
    return this.head?.kind === 'event' ? { event: this.head.event, line: this.line!, bare: this.bare } : undefined;
  }

  /**
   * What each local's repr may be: a value's; where the step cannot rebind it, what it was
   * (kept-values.ts); where the line just run assigned it a literal or a value the state before
   * decides (`i += 1`), that value's repr;
   * where it ran a loop's iteration, the element that comes next, and stepping back over
   * one, the element before (loop-values.ts).
   */
  private localRule(back: LoopBefore | undefined, stepped: SteppedValues): (name: string) => ContentRule {
    const { flow, action, prev } = this.rules;
    const repr = reprRule(flow !== undefined && !flow.ownReprs);
    const landing = this.landingFrame();
    if (!flow || !landing) return () => repr;
    const byCaller = keptByCaller(flow, action, prev, this.rules.caller, landing);
    const kept = byCaller ?? keptNames(flow, action, prev, landing);
    const reference = byCaller ? this.rules.caller : prev;
    const assigned = stepped.assigned ?? valuesUndone(flow, action, prev, landing);
    const iterated = stepped.iterated ?? back?.values;
    if (!kept && !assigned && !iterated) return () => repr;
    return (name) => {
      const literal = assigned?.[name];
      if (literal !== undefined) return bothRules(repr, sameTextRule(truncateRepr(literal)));
      const next = iterated?.[name];
      if (next !== undefined) return bothRules(repr, oneOfTextsRule(next.map((text) => truncateRepr(text))));
      const before = reference!.locals[name];
      const keep = before !== undefined && kept?.(name) ? keptValueRule(before) : undefined;
      return keep ? bothRules(repr, keep) : repr;
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
