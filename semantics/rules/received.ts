/**
 * A call's value, received by the line that made it (control_flow.py's `received`): a step
 * from the callee's return event to the caller's next stop (`y = helper(x)` then shows y as
 * the return event showed the value; `a, b = helper(x)` the items of the tuple or list it
 * showed, where they are as many as the names; `obj = Stock(...)` the new object, `__init__`'s
 * `self`; `return helper(x)` returns it). Only a normal return lands on a line or a return: an
 * exception leaving the callee stops on the caller's exception event first.
 */
import { NONE_HEAD, type Received, runsStatements } from '../../program-analysis/control-flow.js';
import { ELLIPSIS } from '../../grammar/truncate.js';
import type { ValueFact } from '../facts.js';
import { IMMUTABLE_REPR, reprItems } from '../repr-items.js';
import type { Rule } from '../rule.js';
import type { Step } from '../step.js';

/** The received line the state before's return goes back to, and the value it receives; undefined where this rule does not apply. */
function receiving(step: Step): { line: Received; value: string } | undefined {
  const { flow, prev } = step;
  if (!prev || prev.event !== 'return' || prev.value === undefined || prev.stack.length < 2 || !step.forward || !step.byCode) return undefined;
  const callee = prev.stack[prev.stack.length - 1]!;
  const caller = prev.stack[prev.stack.length - 2]!;
  if (!runsStatements(caller.function)) return undefined;
  const line = flow.received.get(caller.line);
  if (!line || line.callee !== callee.function) return undefined;
  const value = line.instance === undefined ? prev.value : prev.locals[line.instance];
  return value === undefined ? undefined : { line, value };
}

export const received: Rule = {
  name: 'received',
  family: 'call',
  landing(step, landing) {
    const r = receiving(step);
    if (!r) return landing;
    const returns = r.line.name === undefined && !r.line.names && !r.line.appends;
    if ((r.line.names && !unpacked(r.line.names, r.value, () => false)) || (r.line.appends && !appended(step, r.line, r.value))) return landing;
    // A return of None may be an exception leaving the callee (the caller's exception event
    // comes next): a normal return only where the value is another or the line cannot raise.
    const callee = step.prev!.stack[step.prev!.stack.length - 1]!;
    if (step.prev!.value === 'None' && (step.flow.raisesOf(callee.function)?.has(step.prev!.line) ?? true)) return landing;
    // Binding a name, unpacking as many items as names, or a list's append cannot raise nor
    // call anything; the frame goes on to its next line (or returns, after its last). `return
    // CALL` returns it right there.
    return returns ? { ...landing, exception: NONE_HEAD, call: NONE_HEAD, line: NONE_HEAD, line_call: NONE_HEAD } : { ...landing, exception: NONE_HEAD, call: NONE_HEAD };
  },
  frame(step, at) {
    const { prev } = step;
    const r = receiving(step);
    if (!r || at.bare || (at.event !== 'line' && at.event !== 'return')) return undefined;
    const caller = prev!.stack[prev!.stack.length - 2]!;
    if (caller.function !== at.function) return undefined;
    const { line, value } = r;
    if (line.appends) return appended(step, line, value);
    if (line.names) return unpacked(line.names, value, (n) => step.unstable(n));
    if (line.name === undefined) return at.event === 'return' && at.line === caller.line ? { returns: [value] } : undefined;
    return step.unstable(line.name) ? undefined : { values: { [line.name]: { kind: 'exact', repr: value, binds: true } } };
  },
};

/** Each name bound to its item of a tuple or list repr with exactly as many items (else nothing: the unpacking raises, or the items are not shown whole). */
function unpacked(names: readonly string[], value: string, unstable: (name: string) => boolean) {
  const items = value.startsWith('(') || value.startsWith('[') ? reprItems(value) : undefined;
  if (!items?.complete || items.values || items.items.length !== names.length || names.some(unstable)) return undefined;
  return { values: Object.fromEntries(names.map((n, i): [string, ValueFact & { binds: true }] => [n, { kind: 'exact', repr: items.items[i]!, binds: true }])) };
}


/**
 * `XS.append(CALL)`: XS as the caller's state on the line showed it, the value at its end.
 * Only where XS is shown whole and no argument CALL got can be XS or hold it (the callee
 * could change it: an argument's repr that is not XS's and holds no copy of it is another
 * object), and the value is shown whole.
 */
function appended(step: Step, line: Received, value: string) {
  const caller = step.history.caller;
  const xs = caller?.locals[line.appends!];
  if (!caller || xs === undefined || !xs.startsWith('[') || xs.endsWith(ELLIPSIS) || value.endsWith(ELLIPSIS) || step.unstable(line.appends!)) return undefined;
  for (const name of line.args ?? []) {
    const arg = caller.locals[name];
    if (arg === undefined || (!IMMUTABLE_REPR.test(arg) && arg.includes(xs))) return undefined;
  }
  const repr = xs === '[]' ? `[${value}]` : `${xs.slice(0, -1)}, ${value}]`;
  return { values: { [line.appends!]: { kind: 'exact', repr, binds: true } as ValueFact & { binds: true } } };
}
