/**
 * A name's value changes only on a line that binds it. Between two states of one frame, a
 * local that the executed line does not store or delete (program-analysis/control_flow.py
 * reads the stores from the bytecode: assignments, `for`/`with`/except-as targets, augmented
 * assignment, walrus, import) is bound to the same object (a `kept` fact: what its repr
 * keeps is model-client/value-rules.ts's keptValueRule).
 *
 * Which steps this covers: a step within one frame (the location written bare: step_over,
 * step_into and their inverses, the executed line being the earlier state's); the jumps that
 * land in the same frame (step_return to its return, inv_step_call to its call), for names
 * the function never stores at all (a parameter never rebound); and after a return, the
 * caller going on with the line that made the call: its names the line does not bind hold
 * what they held on that line before the call (the history's `caller`). Left out: cell and
 * free variables (an inner function can rebind them), names declared global or nonlocal
 * anywhere, a module's names another frame binds too, and programs that can reach a frame by hand or print their
 * own reprs (ProgramNames.localsByCodeOnly).
 */
import type { Event, State } from '../../grammar/state.js';
import { ELLIPSIS } from '../../grammar/truncate.js';
import { IMMUTABLE_REPR } from '../repr-items.js';
import { type ControlFlow, type FrameFlow, runsStatements } from '../../program-analysis/control-flow.js';
import type { ValueFact } from '../facts.js';
import type { Rule } from '../rule.js';
import type { LandingFrame, Step } from '../step.js';

/** Events after which the frame goes on running its own line (a return leaves it). */
const RUNNING: ReadonlySet<Event> = new Set(['line', 'line_call', 'call', 'exception']);

export const kept: Rule = {
  name: 'kept',
  family: 'keep',
  frame(step, at) {
    const { caller } = step.history;
    const byCaller = keptByCaller(step, at);
    const keeps = byCaller ?? keptNames(step, at);
    const reference = byCaller ? caller! : step.prev;
    if (!keeps || !reference) return undefined;
    // Across a line that changes no object (a step within the frame over it, or back to it; the
    // caller's line, a comprehension's or a pure function's call), the same value.
    const { pureLines } = step.flow;
    const untouched = byCaller ? (pureLines.has(caller!.line) ? () => true : untouchedByCall(step)) : null;
    const same = byCaller ? (name: string, before: string) => untouched?.(name, before) ?? false : () => at.bare && step.prev?.event === 'line' && pureLines.has(step.forward ? step.prev.line : step.inverse ? at.line : -1);
    const values: Record<string, ValueFact & { binds?: true }> = {};
    // Back in the caller, written whole: its names are still bound, so the frame must show them.
    const bound = byCaller ? { binds: true as const } : {};
    const through = byCaller ? passedThrough(step) : undefined;
    for (const [name, before] of Object.entries(reference.locals)) {
      if (!keeps(name)) continue;
      // An object the call passed to a parameter holds what that parameter showed at the callee's return.
      const after = through?.get(name);
      if (after !== undefined) values[name] = { kind: 'exact', repr: after, ...bound };
      // The same value prints the same text, cut at the same place.
      else values[name] = same(name, before) ? { kind: 'exact', repr: before, ...bound } : { kind: 'kept', before, ...bound };
    }
    return { values };
  },
};

/** A repr that holds an object's: a default repr, or a constructor form (`Node(50)`, `Counter({…})`). */
const OBJECT = /<|[A-Za-z_][\w.]*\(/;

/**
 * Back in the caller from its line's one call of the program's (control_flow.py's `calls` or
 * `received`): which of its names the call left with the same value, not only the same object.
 * The callee reached only what its call got (its call event's locals, from the history: the
 * callee's frame states end there) and the module's values; a name whose repr overlaps none of
 * those (neither holds the other's text) is another object, untouched, unless the line itself
 * changes it in place (`changes`). What a parameter got that it still shows unchanged at the
 * callee's return (never rebound) nothing changed: it does not count. Null where that cannot be told: the callee's call not in the
 * history, an object's repr among what it got (an object may reach anything), a class
 * attribute some name may be.
 */
function untouchedByCall(step: Step): ((name: string, before: string) => boolean) | null {
  const { flow, history } = step;
  const caller = history.caller!;
  const changes = flow.changes.get(caller.line);
  const call = history.frameStates?.at(-1);
  if (!changes || flow.classState || !call || call.event !== 'call' || call.stack.length !== step.prev!.stack.length) return null;
  // The module's names any callee can change in place: only their immutable values stay.
  if (caller.stack.length === 1) return (name, before) => !changes.has(name) && IMMUTABLE_REPR.test(before);
  const entry = history.entry;
  const module = entry && entry.stack.length === 1 && entry.stack[0]!.function === '<module>' ? Object.values(entry.locals) : [];
  // A parameter the callee never rebinds that shows at its return what it showed at its call
  // is an object nothing changed (its repr shows all it holds), whatever else names it.
  const callee = flow.frames.get(call.stack[call.stack.length - 1]!.function);
  const returned = step.prev!.locals;
  const unchanged = (p: string, v: string) => callee?.params?.has(p) && !callee.storedAnywhere.has(p) && returned[p] === v && !v.endsWith(ELLIPSIS);
  const reached = [...Object.entries(call.locals).filter(([p, v]) => !unchanged(p, v)).map(([, v]) => v), ...module].filter((v) => !IMMUTABLE_REPR.test(v));
  // An object (`<…>`, `Node(50)`: a class's own repr may not show all it holds) may reach anything.
  if (reached.some((v) => OBJECT.test(v) || v.endsWith(ELLIPSIS))) return null;
  // A repr cut short may hold, past the cut, what the callee got: only where it got nothing it could change.
  const apart = (before: string) => reached.length === 0 || (!before.endsWith(ELLIPSIS) && reached.every((v) => !v.includes(before) && !before.includes(v)));
  return (name, before) => !changes.has(name) && (IMMUTABLE_REPR.test(before) || (!OBJECT.test(before) && apart(before)));
}

/**
 * Back in the caller from its line's one call of the program's (`table.append(fib(n, cache))`):
 * the caller's names passed whole as an argument (`cache` to the parameter `cache`) to a
 * parameter the callee never rebinds, with the repr that parameter shows at the callee's return
 * (whole, not cut): the same object, as the callee left it. Not a name the line changes in
 * place otherwise (`changes`), nor where a class attribute may be one of them.
 */
function passedThrough(step: Step): ReadonlyMap<string, string> | undefined {
  const { flow, prev, history } = step;
  const caller = history.caller!;
  const site = flow.calls.get(caller.line);
  const changes = flow.changes.get(caller.line);
  const callee = prev!.stack[prev!.stack.length - 1]!;
  if (!site || !changes || flow.classState || site.callee !== callee.function) return undefined;
  const f = flow.frames.get(callee.function);
  if (!f?.params) return undefined;
  const out = new Map<string, string>();
  for (const [param, expr] of Object.entries(site.params)) {
    const after = prev!.locals[param];
    if (!/^[A-Za-z_]\w*$/.test(expr) || !(expr in caller.locals) || changes.has(expr) || !f.params.has(param) || f.storedAnywhere.has(param)) continue;
    if (after === undefined || after.endsWith(ELLIPSIS)) continue;
    out.set(expr, after);
  }
  return out;
}

/** After a return, the names of the caller's line kept (null: none known), for a step from a return to the caller's next line, return or exception. */
function keptByCaller(step: Step, at: LandingFrame): ((name: string) => boolean) | null {
  const { flow, prev, history } = step;
  const caller = history.caller;
  if (!prev || !caller || !step.forward || prev.event !== 'return' || at.bare || at.event === 'call') return null;
  return keptBesides(flow, caller, (f) => f.stores.get(caller.line));
}

/**
 * The names of the innermost frame of `state` kept besides those `rebound` names (from the
 * frame's flow; undefined: none): not cell or free variables, not declared global or
 * nonlocal, not (in a module or class body) bound by another frame too. Null for a frame not
 * compiled here, or a program that can reach frames by hand.
 */
function keptBesides(flow: ControlFlow, state: State, rebound: (f: FrameFlow) => ReadonlySet<string> | undefined): ((name: string) => boolean) | null {
  if (!flow.programNames.localsByCodeOnly) return null;
  const fn = state.stack[state.stack.length - 1]!.function;
  const f = flow.frames.get(fn);
  if (!f) return null;
  const names = rebound(f);
  const { unstable } = flow.programNames;
  // A namespace's (the module's) names another frame may bind too.
  const elsewhere = f.params === null ? flow.storedElsewhere(fn) : undefined;
  return (name) => !names?.has(name) && !f.shared.has(name) && !unstable.has(name) && !elsewhere?.has(name);
}

/**
 * Whether a step from a `for` header lands past its body: the loop ran out, binding nothing
 * (its header binds only its targets, and only into the body). Only the loops control_flow.py
 * lists (`loops`), whose iterable is a plain shape (no walrus to bind on entry).
 */
function loopExhausted(flow: ControlFlow, prev: State, landing: LandingFrame): boolean {
  if (prev.event !== 'line' || (landing.event !== 'line' && landing.event !== 'return')) return false;
  // A comprehension's frame reports the header's line too (`for x in [y for y in ys]:`).
  if (!runsStatements(prev.stack.at(-1)!.function)) return false;
  const loop = flow.loops.get(prev.line)?.find((l) => l.kind === 'for');
  return loop?.body !== undefined && landing.line !== loop.body;
}

/** The names bound to the same object in the state before and in the state being written (null: none known). */
function keptNames(step: Step, at: LandingFrame): ((name: string) => boolean) | null {
  const { flow, action, prev } = step;
  if (!action || !prev) return null;
  if (step.forward && at.bare && RUNNING.has(prev.event) && at.event !== 'call')
    return keptBesides(flow, prev, (f) => (loopExhausted(flow, prev, at) ? undefined : f.stores.get(prev.line)));
  if (step.inverse && at.bare && RUNNING.has(at.event) && at.event !== 'call') return keptBesides(flow, prev, (f) => f.stores.get(at.line));
  if ((action.kind === 'step_return' && at.event === 'return' && prev.event !== 'return') || (action.kind === 'inv_step_call' && at.event === 'call' && prev.event !== 'call')) return keptBesides(flow, prev, (f) => f.storedAnywhere);
  return null;
}
