/**
 * Stepping into a call of the program's: from a line whose one call of the program's is
 * `f(ARGS)`, `obj.m(ARGS)` or `K(ARGS)` (control_flow.py's `calls`: nothing else on the line
 * opens a frame, and every parameter's value is an expression of the caller's values), where
 * CPython's walker evaluates every argument on the state before without raising, the next stop
 * is the callee's call event, right below the caller on that line, and its locals are the
 * parameters bound to those values: positional and keyword arguments, literal defaults, and a
 * method's `self`, the caller's object itself (its repr, where it shows an instance of a class
 * that runs this def) or, for `K(ARGS)`, K's new instance (`<__main__.K object at 0x…>`, where
 * K prints no repr of its own). The model writes none of them.
 */
import { type CallSite, NONE_HEAD } from '../../program-analysis/control-flow.js';
import type { ValueFact } from '../facts.js';
import type { Rule } from '../rule.js';
import type { Step } from '../step.js';

/** The call site of the line a step_into from the state before runs into, where this rule applies. */
function site(step: Step): CallSite | undefined {
  if (step.action?.kind !== 'step_into' || !step.byCode || !step.fromStatementLine) return undefined;
  return step.flow.calls.get(step.prev!.line);
}

/** The call site a step from a callee's return goes back to, where it is that callee's (undefined: not such a step). */
function returnedTo(step: Step): CallSite | undefined {
  const { prev, flow } = step;
  if (!prev || prev.event !== 'return' || prev.stack.length < 2 || !step.forward || !step.byCode || flow.hidesCalls) return undefined;
  const callee = prev.stack[prev.stack.length - 1]!;
  const call = flow.calls.get(prev.stack[prev.stack.length - 2]!.line);
  return call && call.callee === callee.function ? call : undefined;
}

/** The module a class of the program is defined in, as its instances' reprs name it: `python3 FILE` runs it as `__main__`, an entry call as `__ndb_main__` (tracer.py). */
function moduleName(step: Step): string {
  return step.prev!.stack[0]!.function === '<module>' ? '__main__' : '__ndb_main__';
}

/**
 * `self`'s repr on the callee's call: the receiver's own repr where it shows an instance of a
 * class that runs the method; a new instance's; null where not known (K's own repr); undefined
 * where the rule does not apply (the receiver is not such an instance).
 */
function selfRepr(step: Step, call: CallSite): string | null | undefined {
  if (call.receiver) {
    const repr = step.prev!.locals[call.receiver.name];
    const instance = repr === undefined ? null : /^<(?:__main__|__ndb_main__)\.(\w+) object at 0x…>$/.exec(repr);
    return instance && call.receiver.classes.includes(instance[1]!) ? repr! : undefined;
  }
  if (call.instance === undefined) return null;
  return call.instance === null ? null : `<${moduleName(step)}.${call.instance} object at 0x…>`;
}

/**
 * The parameters' reprs (null: not known), where every argument evaluated, or is a name bound
 * now whose value is not known (a module's list: reading it cannot raise); undefined where an
 * argument raised or may raise, or the receiver is not an instance of a class that runs the
 * method.
 */
function bound(step: Step): Record<string, string | null> | undefined {
  const call = site(step);
  if (!call) return undefined;
  const self = selfRepr(step, call);
  if (self === undefined) return undefined;
  const out: Record<string, string | null> = call.self ? { [call.self]: self } : {};
  // No argument calls anything (`f(xs, xs.pop())` changes xs before the call).
  const plain = Object.values(call.params).every((source) => !source.includes('('));
  for (const [name, source] of Object.entries(call.params)) {
    // A name passed on is the same object: its repr as the caller shows it (cut short or not).
    const shown = plain ? (step.prev!.locals[source] ?? step.globals[source]) : undefined;
    const repr = shown ?? step.value(`argument ${name}`);
    if (repr === undefined && !boundName(step, source)) return undefined;
    out[name] = repr ?? null;
  }
  return out;
}

/** Whether `source` is a name the frame holds, or one of the module's it shows (in a script's run). */
function boundName(step: Step, source: string): boolean {
  if (!/^[A-Za-z_]\w*$/.test(source)) return false;
  const { prev, history } = step;
  if (prev!.locals[source] !== undefined || step.globals[source] !== undefined) return true;
  const module = history.entry;
  const f = step.flow.frames.get(step.prevFunction!);
  // A name the function binds itself is its own, bound or not: never the module's.
  return module?.stack.length === 1 && module.stack[0]!.function === '<module>' && module.locals[source] !== undefined && !f?.storedAnywhere.has(source) && !f?.params?.has(source);
}

export const called: Rule = {
  name: 'called',
  family: 'call',
  ask(step) {
    const call = site(step);
    return call ? Object.entries(call.params).map(([name, source]) => step.evaluate(`argument ${name}`, source)) : [];
  },
  landing(step, landing) {
    // Back from the line's one call of the program's: nothing else on it opens a frame.
    const back = returnedTo(step);
    if (back) return { ...landing, call: { bare: new Set(), stacks: new Set() } };
    const call = site(step);
    if (!call || !bound(step)) return landing;
    // The arguments evaluate: the first frame the line opens is the callee's, on its first line.
    const entry = `${step.prev!.stack.map((f) => `${f.function}:${f.line}`).join(' ')} ${call.callee}:${call.line}`;
    return landing.call?.stacks?.has(entry) ? { call: { bare: new Set(), stacks: new Set([entry]) }, line: NONE_HEAD, line_call: NONE_HEAD, return: NONE_HEAD, exception: NONE_HEAD } : landing;
  },
  frame(step, at) {
    const call = site(step);
    const values = call && at.event === 'call' && !at.bare && at.function === call.callee && at.line === call.line ? bound(step) : undefined;
    if (!values) return undefined;
    const decided = Object.entries(values).filter((e): e is [string, string] => e[1] !== null);
    return { values: Object.fromEntries(decided.map(([name, repr]): [string, ValueFact & { binds: true }] => [name, { kind: 'exact', repr, binds: true }])) };
  },
};
