/**
 * A call's value, received by the line that made it (control_flow.py's `received`): a step
 * from the callee's return event to the caller's next stop (`y = helper(x)` then shows y as
 * the return event showed the value; `return helper(x)` returns it). Only a normal return
 * lands on a line or a return: an exception leaving the callee stops on the caller's
 * exception event first.
 */
import { runsStatements } from '../../program-analysis/control-flow.js';
import type { Rule } from '../rule.js';

export const received: Rule = {
  name: 'received',
  family: 'call',
  frame(step, at) {
    const { flow, prev } = step;
    if (!prev || prev.event !== 'return' || prev.value === undefined || prev.stack.length < 2 || at.bare) return undefined;
    if (!step.forward || (at.event !== 'line' && at.event !== 'return') || !step.byCode) return undefined;
    const callee = prev.stack[prev.stack.length - 1]!;
    const caller = prev.stack[prev.stack.length - 2]!;
    if (caller.function !== at.function || !runsStatements(caller.function)) return undefined;
    const line = flow.received.get(caller.line);
    if (!line || line.callee !== callee.function) return undefined;
    if (line.name === undefined) return at.event === 'return' && at.line === caller.line ? { returns: [prev.value] } : undefined;
    return step.unstable(line.name) ? undefined : { values: { [line.name]: { kind: 'exact', repr: prev.value, binds: true } } };
  },
};
