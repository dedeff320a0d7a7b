/**
 * A return event on a line with no return or yield instruction is an exception leaving the
 * frame, and one on a line that only returns the constant None (a bare `return`, a body's
 * end: `__init__`'s) returns None (ControlFlow.returnsValue): its value is `None`.
 */
import type { Rule } from '../rule.js';

export const raisedReturn: Rule = {
  name: 'raised-return',
  family: 'return',
  frame(step, at) {
    if (at.event !== 'return' || at.function === undefined || step.flow.returnsValue(at.function, at.line)) return undefined;
    return { returns: ['None'] };
  },
};
