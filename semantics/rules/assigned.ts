/**
 * The names the line just run bound or changed, with their reprs: a forward step from a line
 * event to the next stop of the same frame (the location bare), after a line that only
 * assigns literals (`acc = []`: ControlFlow.literals) or is a simple statement CPython's walker
 * runs on the state before's values (`i += 1`, `c = s[i]`, `words = line.split(',')`,
 * `xs.append(x)`, `d[k] = v`, `if n < 0: n = -n`: ControlFlow.statements). A name the statement
 * may bind but did not (the `if`'s test failed, a method that changed nothing) keeps its repr.
 * Not for names declared global or nonlocal (not the frame's locals), nor where the program can
 * reach frames by hand or writes its own reprs.
 */
import { NONE_HEAD } from '../../program-analysis/control-flow.js';
import type { ValueFact } from '../facts.js';
import type { Rule } from '../rule.js';
import type { Step } from '../step.js';

type Bound = ValueFact & { binds: true };
const exact = (repr: string): Bound => ({ kind: 'exact', repr, binds: true });

/** Whether the step is one this rule reads: forward from a line event of a frame that runs statements. */
const applies = (step: Step) => step.forward && step.byCode && step.fromStatementLine;

export const assigned: Rule = {
  name: 'assigned',
  family: 'assign',
  ask(step) {
    const statement = applies(step) && !step.flow.literals.has(step.prev!.line) ? step.flow.statements.get(step.prev!.line) : undefined;
    return statement ? [step.execute(`statement ${step.prev!.line}`, statement.source)] : [];
  },
  // A statement the walker ran to its end raised nothing and called none of the program's code: the step goes on in the frame.
  landing(step, landing) {
    const line = step.prev?.line;
    if (!applies(step) || line === undefined || step.answer(`statement ${line}`)?.kind !== 'changed') return landing;
    // Where it opens a frame (a key lambda, a comprehension), step_into stops in it first.
    const opens = step.action!.kind === 'step_into' && step.flow.statements.get(line)?.opens;
    return opens ? { ...landing, exception: NONE_HEAD } : { ...landing, exception: NONE_HEAD, call: NONE_HEAD, line_call: NONE_HEAD };
  },
  frame(step, at) {
    const { flow, prev } = step;
    if (!applies(step) || !at.bare || (at.event !== 'line' && at.event !== 'return')) return undefined;
    const literals = flow.literals.get(prev!.line);
    // A literal over lines that report events: not bound while the step is still among them.
    const end = flow.literalSpans.get(prev!.line);
    if (literals && end !== undefined && at.line > prev!.line && at.line <= end) return undefined;
    if (literals) return { values: Object.fromEntries(Object.entries(literals).filter(([name]) => !step.unstable(name)).map(([name, repr]) => [name, exact(repr)])) };
    const statement = flow.statements.get(prev!.line);
    const ran = step.answer(`statement ${prev!.line}`);
    if (!statement || ran?.kind !== 'changed') return undefined;
    const values: Record<string, Bound> = {};
    for (const name of statement.binds) {
      if (step.unstable(name)) continue;
      const after = ran.locals[name] ?? prev!.locals[name];
      if (after !== undefined) values[name] = exact(after);
    }
    return Object.keys(values).length > 0 ? { values } : undefined;
  },
};
