/**
 * A local's type, where pyright makes it certain (program-analysis/types.ts): on a line event
 * of a frame, each local the type checker typed at that line holds a value of that type, so its
 * repr has that type's shape (model-client/value-rules.ts): a number, a string, `None`, a
 * list's brackets, a default repr. Not a value: a rule before it that decides one stands. Only
 * where the program reaches its frames by code alone (no exec, locals(), reprs of its own), and
 * not for names that code elsewhere rebinds (global, nonlocal).
 */
import { typesOf } from '../../program-analysis/types.js';
import type { ValueFact } from '../facts.js';
import type { Rule } from '../rule.js';

export const typed: Rule = {
  name: 'typed',
  family: 'type',
  frame(step, at) {
    if (at.event !== 'line' || at.function === undefined || !step.byCode) return undefined;
    const types = typesOf(step.flow)?.at(at.function, at.line);
    if (!types) return undefined;
    const values: Record<string, ValueFact> = {};
    for (const [name, t] of types) if (!step.unstable(name)) values[name] = { kind: 'type', types: t };
    return { values };
  },
};
