/**
 * A name's value changes only on a line that binds it. Between two states of one frame, a
 * local that the executed line does not store or delete (program-analysis/control_flow.py reads the stores
 * from the bytecode: assignments, `for`/`with`/except-as targets, augmented assignment,
 * walrus, import) is bound to the same object, so its repr:
 *
 * - is the same text when the object is immutable (a number, str, bytes, None, a bool, a
 *   function: its qualified name and masked address, `<function f.<locals>.g at 0x…>`): the
 *   same object prints the same, truncation included (checked up to which non-ASCII
 *   characters they are, see shape());
 * - keeps its type's first mark otherwise: `[` a list, `(` a tuple, `{` or `set(` a dict or a
 *   set (a cleared set prints `set()`), `<` a default repr, `Name(` a constructor form
 *   (`deque(`, `Counter(`); mutation changes what follows, not that.
 *
 * Which steps this covers (keptNames()): a step within one frame (the location written bare:
 * step_over, step_into and their inverses, the executed line being the earlier state's); and
 * the jumps that land in the same frame (step_return to its return, inv_step_call to its
 * call), for names the function never stores at all (a parameter never rebound). Left out:
 * cell and free variables (an inner function can rebind them), names declared global or
 * nonlocal anywhere, the module's frame, and programs that can reach a frame by hand or print
 * their own reprs (ProgramNames.localsByCodeOnly).
 */
import type { Action, Event, State } from '../grammar/state.js';
import { truncateRepr } from '../grammar/truncate.js';
import { type ControlFlow, type FrameFlow, runsStatements } from '../program-analysis/control-flow.js';
import type { ContentRule } from './json-constraint.js';
import { reprRule } from './repr-constraint.js';

/** The state being written, as far as the locals need it. */
export interface LandingFrame {
  event: Event;
  /** The innermost frame's line. */
  line: number;
  /** Written as a bare line: the same frame as the state before (grammar/scope.ts). */
  bare: boolean;
}

const SAME_FRAME_STEPS: ReadonlySet<Action['kind']> = new Set(['step_over', 'step_into']);
const SAME_FRAME_INVERSE_STEPS: ReadonlySet<Action['kind']> = new Set(['inv_step_over', 'inv_step_into']);
/** Events after which the frame goes on running its own line (a return leaves it). */
const RUNNING: ReadonlySet<Event> = new Set(['line', 'line_call', 'call', 'exception']);

const sameFrame = (a: { function: string; line: number }, b: { function: string; line: number }) => a.function === b.function && a.line === b.line;

/**
 * What a history of walking steps shows before a state: the caller on its call line
 * (callerOnCallLine), the frame's earlier states (frameStates); and what the whole history
 * shows, jumps and all: the run's latest state in its entry frame alone (entryState).
 */
export interface RunHistory {
  caller?: State | undefined;
  frameStates?: readonly State[] | undefined;
  entry?: State | undefined;
}

/** Steps that never leave a call for another one of the same stack: each goes to the next state, over a call or out of one. */
const WALKING: ReadonlySet<Action['kind']> = new Set(['step_into', 'step_over', 'step_return']);

/**
 * The states before `steps[at]`, newest first, while the history walks (forward steps only)
 * and each state still holds the frames below `steps[at]`'s innermost one, unmoved: the
 * states of its call and of the calls it made, back to its caller's own states.
 */
function* walkedBack(steps: readonly { state: State; action?: Action }[], at: number): Generator<State> {
  const outer = steps[at]!.state.stack.slice(0, -1);
  for (let j = at - 1; j >= 0; j--) {
    const { state: s, action } = steps[j]!;
    if (!action || !WALKING.has(action.kind) || !outer.every((f, k) => s.stack[k] !== undefined && sameFrame(f, s.stack[k]!))) return;
    yield s;
  }
}

/**
 * The caller's state on the line that made the call, for a state `steps[at]` inside a call
 * (a return, for keptByCaller; a comprehension's iteration, for loop-values.ts): walking
 * back over forward steps, every state inside the call (its stack longer, with the caller's
 * frames below), then a line state of exactly the caller's frames with the caller on its
 * call line. Undefined where the steps do not show it: a jump on the way (a breakpoint can
 * land in a later call of the same function, from the same line of a loop), or a run
 * entered inside the call.
 */
export function callerOnCallLine(steps: readonly { state: State; action?: Action }[], at: number): State | undefined {
  const prev = steps[at]?.state;
  if (!prev || prev.stack.length < 2) return undefined;
  for (const s of walkedBack(steps, at)) {
    if (s.stack.length >= prev.stack.length) continue;
    return s.event === 'line' ? s : undefined;
  }
  return undefined;
}

/**
 * The latest state before `steps[at]` whose stack is the run's outermost frame alone: a run
 * makes one call of its entry, so that is a state of the same call as any frame above it,
 * jumps or not.
 */
export function entryState(steps: readonly { state: State }[], at: number): State | undefined {
  for (let j = at - 1; j >= 0; j--) if (steps[j]!.state.stack.length === 1) return steps[j]!.state;
  return undefined;
}

/**
 * The states before `steps[at]` of the same frame (the same call: its callers on the same
 * lines, the same function), newest first, walking back over forward steps past any
 * callee's states: as far as the steps show them, to the frame's call, a jump on the way, or
 * the history's start (at most `max`).
 */
export function frameStates(steps: readonly { state: State; action?: Action }[], at: number, max = 2000): State[] {
  const prev = steps[at]?.state;
  const out: State[] = [];
  // A call is its frame's first state: before it, a state of the same shape is another call's.
  if (!prev || prev.event === 'call') return out;
  const n = prev.stack.length;
  for (const s of walkedBack(steps, at)) {
    if (out.length >= max || s.stack.length < n || s.stack[n - 1]!.function !== prev.stack[n - 1]!.function) break;
    if (s.stack.length > n) continue;
    out.push(s);
    if (s.event === 'call') break;
  }
  return out;
}

/**
 * After a return, the caller goes on with the line that made the call: its names the line
 * does not bind are bound to the objects they held on that line before the call (`caller`,
 * the caller's state there). The names so kept, for a step from a return to the caller's next
 * line, return or exception (null: none known).
 */
export function keptByCaller(flow: ControlFlow, action: Action | null, prev: State | undefined, caller: State | undefined, landing: LandingFrame): ((name: string) => boolean) | null {
  if (!action || !prev || !caller || !SAME_FRAME_STEPS.has(action.kind) || prev.event !== 'return' || landing.bare || landing.event === 'call') return null;
  return keptBesides(flow, caller, (f) => f.stores.get(caller.line));
}

/**
 * The names of the innermost frame of `state` kept besides those `rebound` names (from the
 * frame's flow; undefined: none): not cell or free variables, not declared global or
 * nonlocal. Null for the module's frame, a frame not compiled here, or a program that can
 * reach frames by hand.
 */
function keptBesides(flow: ControlFlow, state: State, rebound: (f: FrameFlow) => ReadonlySet<string> | undefined): ((name: string) => boolean) | null {
  if (!flow.programNames.localsByCodeOnly) return null;
  const fn = state.stack[state.stack.length - 1]!.function;
  const f = flow.frames.get(fn);
  if (!f || fn === '<module>') return null;
  const names = rebound(f);
  const { unstable } = flow.programNames;
  return (name) => !names?.has(name) && !f.shared.has(name) && !unstable.has(name);
}

/**
 * Whether a step from a `for` header lands past its body: the loop ran out, binding nothing
 * (its header binds only its targets, and only into the body). Only the loops control_flow.py
 * lists (`loops`), whose iterable is a plain shape (no walrus to bind on entry).
 */
function loopExhausted(flow: ControlFlow, prev: State, landing: LandingFrame): boolean {
  if (prev.event !== 'line' || (landing.event !== 'line' && landing.event !== 'return')) return false;
  // A comprehension's frame reports the header's line too (`for x in [y for y in ys]:`).
  if (!runsStatements(prev.stack.at(-1)!.function)) return false;
  const loop = flow.loops.get(prev.line)?.find((l) => l.kind === 'for');
  return loop?.body !== undefined && landing.line !== loop.body;
}

/**
 * The names bound to the same object in `prev` and in the state being written (null: none
 * known), with the rule above.
 */
export function keptNames(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: LandingFrame): ((name: string) => boolean) | null {
  if (!action || !prev) return null;
  if (SAME_FRAME_STEPS.has(action.kind) && landing.bare && RUNNING.has(prev.event) && landing.event !== 'call')
    return keptBesides(flow, prev, (f) => (loopExhausted(flow, prev, landing) ? undefined : f.stores.get(prev.line)));
  if (SAME_FRAME_INVERSE_STEPS.has(action.kind) && landing.bare && RUNNING.has(landing.event) && landing.event !== 'call') return keptBesides(flow, prev, (f) => f.stores.get(landing.line));
  if ((action.kind === 'step_return' && landing.event === 'return' && prev.event !== 'return') || (action.kind === 'inv_step_call' && landing.event === 'call' && prev.event !== 'call')) return keptBesides(flow, prev, (f) => f.storedAnywhere);
  return null;
}

const IMMUTABLE_NAMES: ReadonlySet<string> = new Set(['None', 'True', 'False', 'inf', 'nan', 'Ellipsis', 'NotImplemented']);
const IMMUTABLE_START = /^(?:['"0-9-]|b['"])/;
const CONSTRUCTOR = /^[\p{L}_][\p{L}\p{N}_.]*\(/u;
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
  if (IMMUTABLE_START.test(prev) || IMMUTABLE_NAMES.has(prev) || prev.startsWith(FUNCTION)) return sameTextRule(prev);
  const first = prev[0]!;
  if (first === '{' || prev.startsWith('set(')) return headsRule(['{', 'set(', REPR_FAILED]);
  if (first === '[' || first === '(' || first === '<') return headsRule([first, REPR_FAILED]);
  const ctor = CONSTRUCTOR.exec(prev);
  return ctor ? headsRule([ctor[0], REPR_FAILED]) : undefined;
}

/** Both rules at once. */
export function bothRules(a: ContentRule, b: ContentRule): ContentRule {
  const only = a.only ?? b.only;
  return { prefix: (s) => a.prefix(s) && b.prefix(s), complete: (s) => a.complete(s) && b.complete(s), ...(only ? { only: only.filter((t) => a.complete(t) && b.complete(t)) } : {}) };
}
