/**
 * The value a return lands with, where the line decides it: a line that is only
 * `return LITERAL` (ControlFlow.returnValues), and a step from the line event of a line that
 * is only `return EXPR` (ControlFlow.returned) to its return, where CPython's walker evaluates
 * EXPR on the values the state shows (raising nothing, no exception can pass through).
 */
import type { Rule } from '../rule.js';
import type { Step } from '../step.js';

const applies = (step: Step) => step.byCode && step.forward && step.fromStatementLine;

export const returned: Rule = {
  name: 'returned',
  family: 'return',
  ask(step) {
    const expr = applies(step) ? step.flow.returned.get(step.prev!.line) : undefined;
    return expr ? [step.evaluate(`return ${step.prev!.line}`, expr)] : [];
  },
  frame(step, at) {
    const { flow, prev } = step;
    if (at.event !== 'return' || at.function === undefined) return undefined;
    const literal = flow.returnValues(at.function, at.line);
    if (literal) return { returns: literal };
    if (!applies(step) || prev!.line !== at.line || !at.bare) return undefined;
    const repr = step.value(`return ${at.line}`);
    return repr === undefined ? undefined : { returns: [repr] };
  },
};
