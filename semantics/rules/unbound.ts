/**
 * Names a frame cannot hold on a stop before its line runs (a line event): bound only on
 * lines that cannot have run yet in this call (ControlFlow.unboundBefore).
 */
import type { Rule } from '../rule.js';

export const unbound: Rule = {
  name: 'unbound',
  family: 'unbound',
  frame(step, at) {
    if (at.function === undefined || (at.event !== 'line' && at.event !== 'line_call')) return undefined;
    const names = step.flow.unboundBefore(at.function, at.line);
    return names.size > 0 ? { unbound: names } : undefined;
  },
};
