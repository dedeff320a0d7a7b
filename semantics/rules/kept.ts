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
 * anywhere, the module's frame, and programs that can reach a frame by hand or print their
 * own reprs (ProgramNames.localsByCodeOnly).
 */
import type { Event, State } from '../../grammar/state.js';
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
    const values: Record<string, ValueFact> = {};
    for (const [name, before] of Object.entries(reference.locals)) if (keeps(name)) values[name] = { kind: 'kept', before };
    return { values };
  },
};

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
 * nonlocal. Null for the module's frame, a frame not compiled here, or a program that can
 * reach frames by hand.
 */
function keptBesides(flow: ControlFlow, state: State, rebound: (f: FrameFlow) => ReadonlySet<string> | undefined): ((name: string) => boolean) | null {
  if (!flow.programNames.localsByCodeOnly) return null;
  const fn = state.stack[state.stack.length - 1]!.function;
  const f = flow.frames.get(fn);
  if (!f || fn === '<module>') return null;
  const names = rebound(f);
  const { unstable } = flow.programNames;
  return (name) => !names?.has(name) && !f.shared.has(name) && !unstable.has(name);
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
