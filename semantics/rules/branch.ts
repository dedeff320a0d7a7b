/**
 * Where a step from or back to an `if`, `elif` or `while` header lands, where the state
 * decides its test (control_flow.py's `branches` lists such headers; CPython's walker
 * evaluates the test on the values the locals show). Nothing of the program runs.
 *
 * - Forward from the header (step_into: where the test opens no frame, a call of the
 *   program's or a comprehension, in which it would stop first): the test holds, so the next stop is the body's first line and
 *   nothing is called or raised on the way; or it does not, so the next stop is anywhere the
 *   header leads but the body.
 * - Back from a line to a header before it: the header binds nothing, so its state showed the
 *   same locals as the line's; a header whose test on them would not have led to this line
 *   (into its body where the test fails, past it where the test holds) is not the line before.
 */
import { type FrameFlow, type Landing, runsStatements, NONE_HEAD } from '../../program-analysis/control-flow.js';
import type { Rule } from '../rule.js';
import { INVERSE_STEPS, type Question, type Step, FORWARD_STEPS as STEPS } from '../step.js';

export const branch: Rule = {
  name: 'branch',
  family: 'branch',
  ask(step) {
    const { flow, action, prev } = step;
    const f = decidingFrame(step);
    if (!f) return [];
    const test = (line: number): Question => step.evaluate(`test ${line}`, `bool(${flow.branches.get(line)!.test})`);
    if (STEPS.has(action!.kind)) {
      const branch = flow.branches.get(prev!.line);
      // step_into stops first in a frame the test opens (`if is_match(c, t):`, `if any(...)`).
      return branch && !(action!.kind === 'step_into' && branch.opens) ? [test(prev!.line)] : [];
    }
    // Back: the headers a step back from this line can land on, whose test changes nothing it reads.
    return [...(f.prev.get(prev!.line) ?? [])].filter((h) => flow.branches.has(h) && h !== prev!.line && !flow.branches.get(h)!.changes).map(test);
  },
  landing: (step, landing) => (decidingFrame(step) ? branchLanding(step, landing) : landing),
};

/**
 * The frame whose branch tests the state before decides: a line event of a function's frame,
 * or of a module or class body whose data its locals show (`shown`: a name they lack is a
 * function, a class, a module, or the builtins', which the walker does not mistake for a
 * value); not a comprehension's frame, which reports the line of the statement it is in.
 */
function decidingFrame(step: Step): FrameFlow | undefined {
  const { flow, action, prev } = step;
  if (!action || !prev || prev.event !== 'line' || !flow.programNames.localsByCodeOnly || (!STEPS.has(action.kind) && !INVERSE_STEPS.has(action.kind))) return undefined;
  const fn = prev.stack[prev.stack.length - 1]!.function;
  const f = flow.frames.get(fn);
  return f && (f.params !== null || f.shown !== null) && runsStatements(fn) ? f : undefined;
}

/** Whether the header's test holds on the state before, as CPython's walker found it (undefined: not known). */
function holds(step: Step, header: number): boolean | undefined {
  const v = step.value(`test ${header}`);
  return v === 'True' ? true : v === 'False' ? false : undefined;
}

/** `landing` narrowed by the branch tests the state before decides. */
function branchLanding(step: Step, landing: Landing): Landing {
  return STEPS.has(step.action!.kind) ? fromHeader(step, landing) : backToHeader(step, decidingFrame(step)!, landing);
}

function fromHeader(step: Step, landing: Landing): Landing {
  const { flow, prev } = step;
  const branch = flow.branches.get(prev!.line);
  const bare = landing.line?.bare;
  if (!branch || !bare?.has(branch.body)) return landing;
  const test = holds(step, prev!.line);
  if (test === undefined) return landing;
  if (test) return { line: { bare: new Set([branch.body]), stacks: new Set() }, line_call: NONE_HEAD, exception: NONE_HEAD, return: NONE_HEAD, call: NONE_HEAD };
  // Past the body: the next line, or the return after the function's last line.
  return { ...landing, line: { ...landing.line, bare: new Set([...bare].filter((l) => l !== branch.body)) }, line_call: NONE_HEAD, exception: NONE_HEAD, call: NONE_HEAD };
}

function backToHeader(step: Step, f: FrameFlow, landing: Landing): Landing {
  const { flow, prev } = step;
  const to = prev!.line;
  const impossible = (header: number) => {
    const branch = flow.branches.get(header);
    if (!branch || branch.changes || header === to || (f.stores.get(header)?.size ?? 0) > 0 || !f.next.get(header)?.has(to)) return false;
    const test = holds(step, header);
    return test !== undefined && test !== (to === branch.body);
  };
  const out: Landing = { ...landing };
  for (const head of ['line', 'line_call'] as const) {
    const bare = landing[head]?.bare;
    if (bare && [...bare].some((l) => flow.branches.has(l))) out[head] = { ...landing[head], bare: new Set([...bare].filter((l) => !impossible(l))) };
  }
  return out;
}
