/**
 * The value a return lands with, where the line decides it: a line that is only
 * `return LITERAL` (ControlFlow.returnValues), and a step from the line event of a line that
 * is only `return EXPR` (ControlFlow.returned) to its return, where the state shows every
 * value EXPR reads (its evaluation raising nothing, no exception can pass through).
 */
import { evaluate } from '../expr-eval.js';
import { pyRepr } from '../repr-value.js';
import type { Rule } from '../rule.js';

export const returned: Rule = {
  name: 'returned',
  family: 'return',
  frame(step, at) {
    const { flow, prev } = step;
    if (at.event !== 'return' || at.function === undefined) return undefined;
    const literal = flow.returnValues(at.function, at.line);
    if (literal) return { returns: literal };
    if (!step.byCode || !step.forward || !step.fromStatementLine || prev!.line !== at.line || !at.bare) return undefined;
    const expr = flow.returned.get(at.line);
    const value = expr && evaluate(expr, prev!.locals, flow.pure);
    const repr = value && pyRepr(value);
    return repr === undefined ? undefined : { returns: [repr] };
  },
};
