/**
 * What a history of steps shows before a state, for the rules that read further back than the
 * state before: the caller on its call line (callerOnCallLine), the frame's earlier states
 * (frameStates), and the run's latest state in its entry frame alone (entryState).
 */
import type { Action, State } from '../grammar/state.js';

/** The history as the rules read it (each part absent where the steps do not show it). */
export interface RunHistory {
  /** Inside a call: the caller's state on the line that made the call, before it. */
  caller?: State | undefined;
  /** The frame's states before the state before, newest first: where a loop came from, how often it went round. */
  frameStates?: readonly State[] | undefined;
  /** The run's latest state in its entry frame alone: what a comprehension of the entry's parameters walks, after a jump. */
  entry?: State | undefined;
}

type Steps = readonly { state: State; action?: Action }[];

/** Steps that never leave a call for another one of the same stack: each goes to the next state, over a call or out of one. */
const WALKING: ReadonlySet<Action['kind']> = new Set(['step_into', 'step_over', 'step_return']);

const sameFrame = (a: { function: string; line: number }, b: { function: string; line: number }) => a.function === b.function && a.line === b.line;

/** The history before `steps[at]` as the rules read it. */
export function historyAt(steps: Steps, at: number): RunHistory {
  const caller = callerOnCallLine(steps, at);
  const entry = entryState(steps, at);
  return { ...(caller ? { caller } : {}), ...(entry ? { entry } : {}), frameStates: frameStates(steps, at) };
}

/**
 * The states before `steps[at]`, newest first, while the history walks (forward steps only)
 * and each state still holds the frames below `steps[at]`'s innermost one, unmoved: the
 * states of its call and of the calls it made, back to its caller's own states.
 */
function* walkedBack(steps: Steps, at: number): Generator<State> {
  const outer = steps[at]!.state.stack.slice(0, -1);
  for (let j = at - 1; j >= 0; j--) {
    const { state: s, action } = steps[j]!;
    if (!action || !WALKING.has(action.kind) || !outer.every((f, k) => s.stack[k] !== undefined && sameFrame(f, s.stack[k]!))) return;
    yield s;
  }
}

/**
 * The caller's state on the line that made the call, for a state `steps[at]` inside a call
 * (a return, for the kept rule; a comprehension's iteration, for the loop rule): walking
 * back over forward steps, every state inside the call (its stack longer, with the caller's
 * frames below), then a line state of exactly the caller's frames with the caller on its
 * call line. Undefined where the steps do not show it: a jump on the way (a breakpoint can
 * land in a later call of the same function, from the same line of a loop), or a run
 * entered inside the call.
 */
export function callerOnCallLine(steps: Steps, at: number): State | undefined {
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
export function frameStates(steps: Steps, at: number, max = 2000): State[] {
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
