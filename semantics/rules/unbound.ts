/**
 * Names a frame cannot hold:
 * - on a stop before its line runs (a line event), those bound only on lines that cannot have
 *   run yet in this call (ControlFlow.unboundBefore);
 * - after a step forward within the frame from a line event, those neither the state before
 *   showed nor the line just run binds (ControlFlow.unboundAfter: `for x in xs:` reached from
 *   the line above shows no `x` yet, even where the loop's body binds it); back in a caller
 *   from a callee's return, those its state on the call line did not show nor that line binds;
 * - on a call event, all but a function's parameters (and cell or free variables), and for a
 *   class body all (ControlFlow.unboundOnCall).
 */
import { MORE_LOCALS_KEY } from '../../grammar/truncate.js';
import type { Rule } from '../rule.js';

export const unbound: Rule = {
  name: 'unbound',
  family: 'unbound',
  frame(step, at) {
    if (at.function === undefined) return undefined;
    if (at.event === 'call') {
      const names = step.flow.unboundOnCall(at.function);
      return names.size > 0 ? { unbound: names } : undefined;
    }
    const { prev } = step;
    const out = new Set<string>();
    if (at.event === 'line' || at.event === 'line_call') for (const n of step.flow.unboundBefore(at.function, at.line)) out.add(n);
    if (at.bare && step.forward && prev?.event === 'line' && step.prevFunction === at.function && !(MORE_LOCALS_KEY in prev.locals)) {
      for (const n of step.flow.unboundAfter(at.function, prev.line, Object.keys(prev.locals))) out.add(n);
    }
    // Back in the caller from a return: what it held on its call line, and what that line binds.
    const caller = step.history.caller;
    if (!at.bare && step.forward && prev?.event === 'return' && caller && caller.stack.length === prev.stack.length - 1 && caller.stack.at(-1)!.function === at.function && !(MORE_LOCALS_KEY in caller.locals)) {
      for (const n of step.flow.unboundAfter(at.function, caller.line, Object.keys(caller.locals))) out.add(n);
    }
    return out.size > 0 ? { unbound: out } : undefined;
  },
};
