/**
 * The names the line just run assigned, with their reprs: a forward step from a line event to
 * the next stop of the same frame (the location bare), after a line that only assigns
 * literals (`acc = []`: ControlFlow.literals) or a name an expression of values the state
 * before shows (`i += 1`, `c = s[i]`: ControlFlow.assigned), or changes a local list or dict
 * in place by such values (`xs.append(x)`, `d[k] = v`: ControlFlow.mutated). Not for names
 * declared global or nonlocal (not the frame's locals), nor where the program can reach
 * frames by hand or writes its own reprs.
 */
import { evaluate, mutated, testHolds } from '../expr-eval.js';
import { pyRepr } from '../repr-value.js';
import type { Rule } from '../rule.js';
import type { ValueFact } from '../facts.js';

type Bound = ValueFact & { binds: true };
const exact = (repr: string): Bound => ({ kind: 'exact', repr, binds: true });

export const assigned: Rule = {
  name: 'assigned',
  family: 'assign',
  frame(step, at) {
    const { flow, prev } = step;
    if (!step.forward || !step.byCode || !step.fromStatementLine || !at.bare || (at.event !== 'line' && at.event !== 'return')) return undefined;
    const literals = flow.literals.get(prev!.line);
    if (literals) return { values: Object.fromEntries(Object.entries(literals).filter(([name]) => !step.unstable(name)).map(([name, repr]) => [name, exact(repr)])) };
    const line = flow.assigned.get(prev!.line);
    if (line) {
      // `if TEST: NAME = EXPR`: where the test fails, the names keep what they held (or stay unbound).
      const runs = line.when === undefined ? true : testHolds(line.when, prev!.locals, flow.pure);
      if (runs === undefined) return undefined;
      // Each value alone: the line ran to its end, so none of them raised.
      const values: Record<string, Bound> = {};
      for (const { name, value } of [line, ...(line.also ?? [])]) {
        if (step.unstable(name)) continue;
        if (!runs) {
          if (prev!.locals[name] !== undefined) values[name] = exact(prev!.locals[name]!);
          continue;
        }
        const v = evaluate(value, prev!.locals, flow.pure);
        const repr = v && pyRepr(v);
        if (repr !== undefined) values[name] = exact(repr);
      }
      return Object.keys(values).length > 0 ? { values } : undefined;
    }
    const changed = flow.mutated.get(prev!.line);
    if (!changed || step.unstable(changed.name)) return undefined;
    const value = mutated(changed, prev!.locals, flow.pure);
    const repr = value && pyRepr(value);
    return repr === undefined ? undefined : { values: { [changed.name]: exact(repr) } };
  },
};
