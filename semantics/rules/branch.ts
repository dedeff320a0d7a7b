/**
 * Where a step from or back to an `if`, `elif` or `while` header lands, where the state
 * decides its test (expr-eval.ts: the test only reads values the locals show, and
 * control_flow.py's `branches` lists such headers). Nothing runs.
 *
 * - Forward from the header (step_into: where the test opens no frame, a call of the
 *   program's or a comprehension, in which it would stop first): the test holds, so the next stop is the body's first line and
 *   nothing is called or raised on the way; or it does not, so the next stop is anywhere the
 *   header leads but the body.
 * - Back from a line to a header before it: the header binds nothing, so its state showed the
 *   same locals as the line's; a header whose test on them would not have led to this line
 *   (into its body where the test fails, past it where the test holds) is not the line before.
 */
import type { Action, State } from '../../grammar/state.js';
import { type ControlFlow, type FrameFlow, type HeadLanding, type Landing, runsStatements } from '../../program-analysis/control-flow.js';
import { opensFrame, testHolds } from '../expr-eval.js';
import type { Rule } from '../rule.js';
import { INVERSE_STEPS, FORWARD_STEPS as STEPS } from '../step.js';

export const branch: Rule = {
  name: 'branch',
  family: 'branch',
  landing: (step, landing) => branchLanding(step.flow, step.action, step.prev, landing),
};
const NONE: HeadLanding = { bare: new Set(), stacks: new Set() };

/** `landing` narrowed by the branch tests the state before decides. */
function branchLanding(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: Landing): Landing {
  if (!action || !prev || prev.event !== 'line' || flow.ownReprs) return landing;
  const fn = prev.stack[prev.stack.length - 1]!.function;
  const f = flow.frames.get(fn);
  // A module or class body's names live in a namespace the locals do not show whole; a
  // comprehension's frame reports the line of the statement it is in, not that statement.
  if (!f || f.params === null || !runsStatements(fn)) return landing;
  if (STEPS.has(action.kind)) return fromHeader(flow, action, prev, landing);
  if (INVERSE_STEPS.has(action.kind)) return backToHeader(flow, f, prev, landing);
  return landing;
}

function fromHeader(flow: ControlFlow, action: Action, prev: State, landing: Landing): Landing {
  const branch = flow.branches.get(prev.line);
  const bare = landing.line?.bare;
  if (!branch || !bare?.has(branch.body)) return landing;
  // step_into stops first in a frame the test opens: a function of the program it calls
  // (`if is_match(c, t):`), a comprehension or generator expression (`if any(...)`).
  if (action.kind === 'step_into' && opensFrame(branch.test)) return landing;
  const holds = testHolds(branch.test, prev.locals, flow.pure);
  if (holds === undefined) return landing;
  if (holds) return { line: { bare: new Set([branch.body]), stacks: new Set() }, line_call: NONE, exception: NONE, return: NONE, call: NONE };
  // Past the body: the next line, or the return after the function's last line.
  return { ...landing, line: { ...landing.line, bare: new Set([...bare].filter((l) => l !== branch.body)) }, line_call: NONE, exception: NONE, call: NONE };
}

function backToHeader(flow: ControlFlow, f: FrameFlow, prev: State, landing: Landing): Landing {
  const to = prev.line;
  const impossible = (header: number) => {
    const branch = flow.branches.get(header);
    if (!branch || header === to || (f.stores.get(header)?.size ?? 0) > 0 || !f.next.get(header)?.has(to)) return false;
    const holds = testHolds(branch.test, prev.locals, flow.pure);
    return holds !== undefined && holds !== (to === branch.body);
  };
  const out: Landing = { ...landing };
  for (const head of ['line', 'line_call'] as const) {
    const bare = landing[head]?.bare;
    if (bare && [...bare].some((l) => flow.branches.has(l))) out[head] = { ...landing[head], bare: new Set([...bare].filter((l) => !impossible(l))) };
  }
  return out;
}
