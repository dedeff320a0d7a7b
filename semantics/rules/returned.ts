/**
 * The value a return lands with, where the line decides it: a line that is only
 * `return LITERAL` (ControlFlow.returnValues), and a step from the line event of a line that
 * is only `return EXPR` (ControlFlow.returned) to its return, where CPython's walker evaluates
 * EXPR on the values the state shows (raising nothing, no exception can pass through).
 */
import type { Rule } from '../rule.js';
import type { Step } from '../step.js';
import { NONE_HEAD } from '../../program-analysis/control-flow.js';


const applies = (step: Step) => step.byCode && step.forward && step.fromStatementLine;

export const returned: Rule = {
  name: 'returned',
  family: 'return',
  ask(step) {
    const expr = applies(step) ? step.flow.returned.get(step.prev!.line) : undefined;
    return expr ? [step.evaluate(`return ${step.prev!.line}`, expr)] : [];
  },
  // EXPR worked out: the line raised nothing and called none of the program's code, so it returns.
  landing(step, landing) {
    const line = step.prev?.line;
    if (!applies(step) || line === undefined || !step.flow.returned.has(line) || step.value(`return ${line}`) === undefined) return landing;
    // step_into would stop first in a frame EXPR opens (a comprehension, a key lambda): only step_over is sure to go straight to the return.
    return step.action!.kind === 'step_over' ? { ...landing, line: NONE_HEAD, exception: NONE_HEAD, call: NONE_HEAD, line_call: NONE_HEAD } : { ...landing, line: NONE_HEAD, exception: NONE_HEAD };
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
