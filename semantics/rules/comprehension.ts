/**
 * A one-line comprehension's own frame, decided by its caller's values: on its call event
 * (a step_into from a line that only assigns or returns it) the free variables it reads hold
 * the caller's values and its targets nothing yet; its return gives the comprehension's value
 * evaluated on what the caller shows.
 */
import { MORE_LOCALS_KEY } from '../../grammar/truncate.js';
import type { Rule } from '../rule.js';
import type { Action, State } from '../../grammar/state.js';
import type { ControlFlow } from '../../program-analysis/control-flow.js';
import type { RunHistory } from '../history.js';
import { COMPREHENSION, FORWARD_STEPS as STEPS, type LandingFrame, type Step } from '../step.js';
import { comprehensionWalks } from './loop.js';

export const comprehension: Rule = {
  name: 'comprehension',
  family: 'comprehension',
  ask(step) {
    const found = comprehensionWalked(step.flow, step.action, step.prev, step.history);
    return found ? [step.evaluate(`comprehension ${step.prev!.line}`, found.value, found.walks)] : [];
  },
  frame(step, at) {
    const { flow, action, prev } = step;
    const call = comprehensionCallValues(flow, action, prev, at, at.function);
    const targets = comprehensionUnbound(flow, action, prev, at, at.function);
    const value = comprehensionValue(step, at);
    if (!call && targets.length === 0 && value === undefined) return undefined;
    return {
      ...(call ? { values: Object.fromEntries(Object.entries(call).map(([name, repr]) => [name, { kind: 'exact', repr, binds: true } as const])) } : {}),
      ...(targets.length > 0 ? { unbound: targets } : {}),
      ...(value !== undefined ? { returns: [value] } : {}),
    };
  },
};

/**
 * A list comprehension's frame on a line event, stepping forward: its source and the locals
 * that show what it walks (comprehensionWalks), for CPython's walker to evaluate.
 */
function comprehensionWalked(flow: ControlFlow, action: Action | null, prev: State | undefined, history: RunHistory): { value: string; walks: Readonly<Record<string, string>> } | undefined {
  if (!action || !STEPS.has(action.kind) || !prev || prev.event !== 'line') return undefined;
  const fn = prev.stack[prev.stack.length - 1]!.function;
  if (fn !== '<listcomp>' || !flow.programNames.localsByCodeOnly) return undefined;
  const loop = flow.loops.get(prev.line)?.find((l) => l.kind === fn);
  const walks = loop?.value && comprehensionWalks(loop, prev, history);
  return walks ? { value: loop!.value!, walks } : undefined;
}

/**
 * The value a list comprehension's frame returns, as a repr: the comprehension evaluated on
 * the values its caller shows, for its return event after a line event of the same frame (a
 * forward step; an exception leaving the frame stops on its exception event first).
 * Undefined where not known.
 */
function comprehensionValue(step: Step, landing: LandingFrame): string | undefined {
  if (!landing.bare || landing.event !== 'return' || !comprehensionWalked(step.flow, step.action, step.prev, step.history)) return undefined;
  return step.value(`comprehension ${step.prev!.line}`);
}

/**
 * What a comprehension's frame shows on its call event, a step_into from the caller's line
 * that only assigns or returns the comprehension, nothing that can run code before it
 * (control_flow.py's `received`): its free variables (the names it reads from the caller)
 * that the caller's state shows, with the caller's values: the same objects, nothing run since.
 */
function comprehensionCallValues(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: LandingFrame, fn: string | undefined): Record<string, string> | undefined {
  if (action?.kind !== 'step_into' || !prev || prev.event !== 'line' || landing.event !== 'call' || landing.bare || fn === undefined || !COMPREHENSION.test(fn)) return undefined;
  if (!flow.programNames.localsByCodeOnly || landing.line !== prev.line || flow.received.get(prev.line)?.callee !== fn) return undefined;
  const free = flow.loops.get(prev.line)?.find((l) => l.kind === fn)?.free;
  if (!free || prev.locals[MORE_LOCALS_KEY] !== undefined) return undefined;
  const out: Record<string, string> = {};
  for (const name of free) if (prev.locals[name] !== undefined && !flow.programNames.unstable.has(name)) out[name] = prev.locals[name]!;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The targets a comprehension's frame cannot hold yet: on its call event, and on its first
 * line event, a step from the call (it binds them only by taking an element).
 */
function comprehensionUnbound(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: LandingFrame, fn: string | undefined): readonly string[] {
  if (fn === undefined || !COMPREHENSION.test(fn) || !flow.programNames.localsByCodeOnly) return [];
  const first = landing.event === 'call' || (landing.event === 'line' && landing.bare && prev?.event === 'call' && action !== null && STEPS.has(action.kind));
  const loop = first ? flow.loops.get(landing.line)?.find((l) => l.kind === fn) : undefined;
  return loop ? Object.keys(loop.sources) : [];
}

