/**
 * When a frame may be written as a delta of the one before it (reference §4: locals are
 * deltas, "full after a scope change"). Serializer and parser share this one rule.
 */
import { STEP_ACTIONS } from './layout.js';
import type { Action, State } from './state.js';

/** The same Python frame: same depth, same callers (name and call line), same function. */
export function sameFrame(a: State, b: State): boolean {
  if (a.stack.length !== b.stack.length) return false;
  const last = a.stack.length - 1;
  for (let i = 0; i < last; i++) {
    const fa = a.stack[i]!;
    const fb = b.stack[i]!;
    if (fa.function !== fb.function || fa.line !== fb.line) return false;
  }
  return a.stack[last]!.function === b.stack[last]!.function;
}

/**
 * The scope is kept when a step action (layout.ts, ACTIONS) moves within one frame and the
 * new state is not a call (a call always opens a new scope, even a recursive one). Jumps
 * (breakpoint, step_return, continue, inv_step_call) always write the full state.
 */
export function scopeKept(prev: State | undefined, action: Action | undefined, cur: State): boolean {
  if (!prev || !action || !STEP_ACTIONS.has(action.kind)) return false;
  if (cur.event === 'call') return false;
  return sameFrame(prev, cur);
}

/** Locals may be written as a delta only when no variable disappeared (a delta cannot say `del`). */
export function localsAsDelta(prev: State, cur: State): boolean {
  return Object.keys(prev.locals).every((k) => k in cur.locals);
}
