/**
 * Repair feedback's one rule (issue 46): the first line where a run goes where the test did
 * not expect, read off the run's states alone. `ndb mcp`'s verify_tests applies it to the
 * predicted run of a failing predicted case (mcp/tools.ts); `ndb eval verify` applies the same
 * function to the real run (the tracer, ground truth) of a case that really fails, and counts
 * how often the two lines are the same (verify-eval.ts).
 *
 * The rule, over the states of one call in run order (into nested calls) and how it ended:
 * - the run raises: the line of its first `exception` state (in any frame);
 * - else the entry's frame returns a value (its last `return` state at the entry's depth; in a
 *   run cut short, its last state at that depth and the end's value): the local of that
 *   state holding exactly the returned repr, traced back through the entry's own states to
 *   the first from which it held that value to the return; the line run just before that
 *   state is the departure (the line that gave the local its final, wrong value);
 *   - the local held it from the first state (an argument returned as it came): that first state's line;
 *   - no local holds it (`return a + b`): the return line;
 * - no return value known: the last state's line.
 *
 * The same reprs decide for both runs: the real states are truncated as the model sees them
 * (grammar/truncate.ts), as the tracer predictor does.
 */
import type { Exit, State } from '../grammar/state.js';
import { MORE_LOCALS_KEY, truncateRepr, truncateState } from '../grammar/truncate.js';
import { exitOfTrace, stateOfEvent } from '../state-tree/tree.js';
import { traceSource } from '../tracer/run-tracer.js';

/** The most states of a predicted run the feedback steps through one by one (past them the end is predicted in one go): verify_tests' default. */
export const FEEDBACK_STEPS = 100;

export type DepartureKind = 'raises' | 'holds' | 'from_start' | 'returns' | 'ends';

export interface Departure {
  kind: DepartureKind;
  /** The departing line. */
  line: number;
  /** The state whose values are shown with it: the exception state, the state just after the line ran, the return, the last state. */
  index: number;
  /** raises: the exception's repr; else the returned value's repr, where known. */
  value?: string;
  /** holds / from_start: the local holding the returned value. */
  holder?: string;
}

/** The departure of a run (states in run order, stepping into calls; `end` how it ended, null where unknown); null without states. */
export function departureOf(states: readonly State[], end: Exit | null): Departure | null {
  if (states.length === 0) return null;
  const raised = states.findIndex((s) => s.event === 'exception');
  if (raised >= 0) return { kind: 'raises', line: states[raised]!.line, index: raised, ...(states[raised]!.value === undefined ? {} : { value: states[raised]!.value }) };
  const depth = states[0]!.stack.length;
  const own = states.map((s, i) => ({ s, i })).filter(({ s }) => s.stack.length === depth);
  const ret = [...own].reverse().find(({ s }) => s.event === 'return') ?? own.at(-1);
  const value = ret?.s.event === 'return' ? ret.s.value : end?.kind === 'normal' ? end.value : undefined;
  if (!ret || value === undefined) return { kind: 'ends', line: states.at(-1)!.line, index: states.length - 1 };
  const holder = Object.keys(ret.s.locals).find((n) => n !== MORE_LOCALS_KEY && ret.s.locals[n] === value);
  if (holder === undefined) return { kind: 'returns', line: ret.s.line, index: ret.i, value };
  let k = own.findIndex((x) => x.i === ret.i);
  while (k > 0 && own[k - 1]!.s.locals[holder] === value) k--;
  if (k === 0) return { kind: 'from_start', line: own[0]!.s.line, index: own[0]!.i, value, holder };
  return { kind: 'holds', line: own[k - 1]!.s.line, index: own[k]!.i, value, holder };
}

/** Seconds a real run may take (a mutant may loop forever): such a run has no departure. */
const REAL_TIMEOUT_SECONDS = 2;

/**
 * The departure of the real run of `entry(args)` in `code` (the tracer: this runs the code,
 * for evaluation only), or null when the run did not end (a time or event limit) or could not start.
 */
export async function realDeparture(code: string, entry: string, args: string): Promise<Departure | null> {
  try {
    const trace = await traceSource(code, { entry, args, limits: { timeoutSeconds: REAL_TIMEOUT_SECONDS } });
    if (trace.exit.exit === 'never' || trace.exit.reason === 'trace_lost') return null;
    const states = trace.events.map((e) => truncateState(stateOfEvent(e, trace.lines)));
    const exit = exitOfTrace(trace);
    return departureOf(states, 'value' in exit ? { ...exit, value: truncateRepr(exit.value) } : exit);
  } catch {
    return null;
  }
}
