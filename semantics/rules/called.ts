/**
 * Stepping into a call of the program's: from a line whose one call of a function of the
 * program's is `f(ARGS)` (control_flow.py's `calls`: nothing else on the line opens a frame,
 * and every parameter's value is an expression of the caller's values), where CPython's
 * walker evaluates every argument on the state before without raising, the next stop is f's
 * call event, right below the caller on that line, and its locals are the parameters bound
 * to those values: positional and keyword arguments, literal defaults. The model writes none
 * of them.
 */
import type { ValueFact } from '../facts.js';
import type { Rule } from '../rule.js';
import type { Step } from '../step.js';

/** The call site of the line a step_into from the state before runs into, where this rule applies. */
function site(step: Step) {
  if (step.action?.kind !== 'step_into' || !step.byCode || !step.fromStatementLine) return undefined;
  return step.flow.calls.get(step.prev!.line);
}

/** The parameters' reprs, where every argument evaluated (none raised, none unknown). */
function bound(step: Step): Record<string, string> | undefined {
  const call = site(step);
  if (!call) return undefined;
  const out: Record<string, string> = {};
  for (const name of Object.keys(call.params)) {
    const repr = step.value(`argument ${name}`);
    if (repr === undefined) return undefined;
    out[name] = repr;
  }
  return out;
}

export const called: Rule = {
  name: 'called',
  family: 'call',
  ask(step) {
    const call = site(step);
    return call ? Object.entries(call.params).map(([name, source]) => step.evaluate(`argument ${name}`, source)) : [];
  },
  landing(step, landing) {
    const call = site(step);
    if (!call || !bound(step)) return landing;
    // The arguments evaluate: the first frame the line opens is the callee's.
    const stacks = landing.call?.stacks;
    const prefix = `${step.prev!.stack.map((f) => `${f.function}:${f.line}`).join(' ')} ${call.callee}:`;
    const into = stacks && new Set([...stacks].filter((s) => s.startsWith(prefix) && !s.slice(prefix.length).includes(' ')));
    const none = { bare: new Set<number>(), stacks: new Set<string>() };
    return into && into.size > 0 ? { call: { bare: new Set(), stacks: into }, line: none, line_call: none, return: none, exception: none } : landing;
  },
  frame(step, at) {
    const call = site(step);
    const values = call && at.event === 'call' && !at.bare && at.function === call.callee ? bound(step) : undefined;
    if (!values) return undefined;
    return { values: Object.fromEntries(Object.entries(values).map(([name, repr]): [string, ValueFact & { binds: true }] => [name, { kind: 'exact', repr, binds: true }])) };
  },
};
