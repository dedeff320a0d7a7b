/**
 * Sampling training trajectories from a state tree with the paper's stochastic policy
 * (reference §5): every action is drawn from an equal mix of two distributions,
 * (a) step_into .35, step_over .1, step_return .2, breakpoint .1, continue .05 (normalized)
 * and (b) step_into .5, step_over .5.
 *
 * Choices the paper leaves open, ours:
 * - Breakpoint targets: 80% a line the run reaches later (uniform over distinct such
 *   lines), 20% any line of the program that holds code (it may never be reached, and then
 *   the breakpoint acts like continue).
 * - Inverse policy: the mirror of the forward one: (a) inv_step_into .5, inv_step_over .3,
 *   inv_step_call .2 and (b) inv_step_into .5, inv_step_over .5.
 * - Start: forward trajectories start at the entry call half of the time and at a random
 *   state otherwise; inverse ones start at the last state (the entry's return) half of the
 *   time. A trajectory ends at an exit, or open after `maxSteps` states.
 * - The `jumps` policy (ours, `ndb data build --jumps SHARE`) weights what fails most on real
 *   code: jumps (step_return .3, breakpoint .3, continue .1, step_into and step_over .15 each)
 *   and inv_step_call (.4 against inv_step_into and inv_step_over .3 each), starting at the
 *   entry call (forward) or the entry's return (inverse) 80% of the time: the shape of the
 *   output and input questions (run a call to its return; infer the call from the return).
 * - The `walk` policy (ours, `ndb data build --walks SHARE`) is the paper's (b) alone: step_into
 *   and step_over (inv_step_into and inv_step_over) only, so the trajectory runs line by line
 *   until maxSteps or the end, as a user pressing F10 and F11 does. The paper's mix ends most
 *   trajectories within a few states (its step_return from the entry ends the run: 63% of the
 *   forward trajectories of a 2026-12-06 build had three actions or fewer, 4% fifteen or
 *   more), so a loop's third iteration, or a counter moved on for the tenth time, was hardly
 *   ever seen, and the model stepping through a loop lost count.
 */
import type { Action, Direction, ForwardAction, InverseAction, Step, Trajectory } from '../grammar/state.js';
import type { StateTree } from '../state-tree/tree.js';
import type { Rng } from '../util/rng.js';

export const POLICIES = ['paper', 'jumps', 'walk'] as const;
export type Policy = (typeof POLICIES)[number];
export const isPolicy = (s: string): s is Policy => (POLICIES as readonly string[]).includes(s);

export interface SamplingOptions {
  maxSteps: number;
  /** The action distribution; the paper's when absent. */
  policy?: Policy;
}

const FORWARD_POLICY_A = { step_into: 0.35, step_over: 0.1, step_return: 0.2, breakpoint: 0.1, continue: 0.05 } as const;
const FORWARD_POLICY_B = { step_into: 0.5, step_over: 0.5 } as const;
const INVERSE_POLICY_A = { inv_step_into: 0.5, inv_step_over: 0.3, inv_step_call: 0.2 } as const;
const INVERSE_POLICY_B = { inv_step_into: 0.5, inv_step_over: 0.5 } as const;
const FORWARD_JUMPS = { step_into: 0.15, step_over: 0.15, step_return: 0.3, breakpoint: 0.3, continue: 0.1 } as const;
const INVERSE_JUMPS = { inv_step_into: 0.3, inv_step_over: 0.3, inv_step_call: 0.4 } as const;

/** Lines of the program that hold code (not blank, not a comment): candidate breakpoints. */
export function codeLines(lines: readonly string[]): number[] {
  const out: number[] = [];
  lines.forEach((text, i) => {
    const t = text.trim();
    if (t && !t.startsWith('#')) out.push(i + 1);
  });
  return out;
}

function breakpointTarget(tree: StateTree, node: number, rng: Rng): ForwardAction {
  const lines = tree.trace.lines;
  let target: number | undefined;
  if (rng.chance(0.8)) {
    const ahead = new Set<number>();
    for (let j = node + 1; j < tree.size; j++) if (tree.states[j]!.event === 'line') ahead.add(tree.states[j]!.line);
    if (ahead.size > 0) target = rng.pick([...ahead]);
  }
  target ??= rng.pick(codeLines(lines));
  return { kind: 'breakpoint', line: target, source: lines[target - 1] ?? '' };
}

function forwardAction(tree: StateTree, node: number, rng: Rng, policy: Policy): ForwardAction {
  const table: Readonly<Record<string, number>> =
    policy === 'jumps' ? FORWARD_JUMPS : policy === 'walk' ? FORWARD_POLICY_B : rng.chance(0.5) ? FORWARD_POLICY_A : FORWARD_POLICY_B;
  const kind = rng.weighted(table) as keyof typeof FORWARD_JUMPS;
  return kind === 'breakpoint' ? breakpointTarget(tree, node, rng) : { kind };
}

function inverseAction(rng: Rng, policy: Policy): InverseAction {
  const table: Readonly<Record<string, number>> =
    policy === 'jumps' ? INVERSE_JUMPS : policy === 'walk' ? INVERSE_POLICY_B : rng.chance(0.5) ? INVERSE_POLICY_A : INVERSE_POLICY_B;
  return { kind: rng.weighted(table) as keyof typeof INVERSE_JUMPS };
}

export function sampleTrajectory(tree: StateTree, direction: Direction, rng: Rng, opts: SamplingOptions): Trajectory {
  const steps: Step[] = [];
  const nodes = direction === 'forward' ? tree.states : tree.inverse.map((n) => n.state);
  if (nodes.length === 0) throw new Error('cannot sample a trajectory from an empty trace');
  const policy = opts.policy ?? 'paper';
  // Position 0 is the entry call forward, and the last state (the entry's return) inverse.
  let at = rng.chance(policy === 'jumps' ? 0.8 : 0.5) ? 0 : rng.int(0, nodes.length - 1);
  while (steps.length < opts.maxSteps) {
    const action: Action = direction === 'forward' ? forwardAction(tree, at, rng, policy) : inverseAction(rng, policy);
    steps.push({ state: nodes[at]!, action });
    const landing = tree.move(at, action);
    if ('exit' in landing) return { direction, program: tree.trace.program, steps, exit: landing.exit };
    at = landing.node;
  }
  return { direction, program: tree.trace.program, steps, exit: null };
}
