/**
 * Jumps by rollout: a step over a line that calls into the program, a step out, a breakpoint
 * and a continue are worked out as the state tree defines them (state-tree/tree.ts), by
 * stepping into every event on the way, one predicted step after another, each under the
 * symbolic stepper's rules, so that the value a line receives is what its callee's steps
 * returned, not the model's one-shot guess. Past a step budget the caller falls back to the
 * one-shot jump.
 */
import type { Action, State } from '../grammar/state.js';

/** Where a forward jump from `from` stops, by the tree's moves; null: not a jump rolled out. */
export type StopWhen = (landing: State) => boolean;

/**
 * The stop condition of `action` taken from `from` (step_over: the next state at the same depth
 * or above; step_return: the frame's return, or from a return the caller's next state; a
 * breakpoint: the next line event on its line; continue: never, the run's end).
 */
export function stopWhen(from: State, action: Action): StopWhen | null {
  const depth = from.stack.length;
  switch (action.kind) {
    case 'step_over':
      return (s) => s.stack.length <= depth;
    case 'step_return':
      return from.event === 'return' ? (s) => s.stack.length < depth : (s) => s.stack.length < depth || (s.stack.length === depth && s.event === 'return');
    case 'breakpoint':
      return (s) => s.event === 'line' && s.line === action.line;
    case 'continue':
      return () => false;
    default:
      return null;
  }
}

/** The most steps a rollout takes before the one-shot jump answers instead. */
export const ROLLOUT_STEPS = 64;
