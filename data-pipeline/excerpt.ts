/**
 * Cutting a big real module down to one traced call's scope (reference §2: "the trace is
 * cut to that call's scope"), with the same module that cuts a long program for the model
 * at inference (program-analysis/cut.ts), so the model is trained on exactly the shape of
 * program it is shown: the entry's reachable definitions, imports and constants in file
 * order, `# ...` between pieces that are not neighbours, the farthest callees cut to their
 * signature and docstring when the whole scope is too long. Every unit the trace ran in stays
 * whole (whatever the budget), and every line number of the trace is renumbered to point
 * into the cut.
 */
import { CUT_GAP, type CutBudget, cutProgram, type ProgramCut } from '../program-analysis/cut.js';
import type { Trace } from '../tracer/events.js';

/** Written between two non-adjacent pieces of the original file. */
export const EXCERPT_GAP = CUT_GAP;

/**
 * The pipeline's budget for a cut, in characters: the trajectories are built before any
 * tokenizer exists. 1,440 characters is about the 576 tokens NeuralPredictor leaves a cut
 * program (1,024 positions less 256 for the frame and 192 for the states before it) at the
 * shipped tokenizer's 2.5 characters a token on Python code.
 */
export const EXCERPT_BUDGET: CutBudget = { measure: (text) => text.length, limit: 1440, unit: 'characters' };

/** The trace with its program cut to `entry`'s scope and its lines renumbered into the cut. */
export async function excerptTrace(trace: Trace, entry: string, budget: CutBudget = EXCERPT_BUDGET): Promise<Trace> {
  // As at inference, a program that fits is shown whole.
  if (budget.measure(trace.program) <= budget.limit) return trace;
  const touched = trace.events.flatMap((e) => [e.line, ...e.stack.map((f) => f.line)]);
  const cut = await cutProgram(trace.program, entry, { budget, keepLines: touched, smallestIfTooLarge: true });
  return renumberTrace(trace, cut);
}

/** The trace's events in the cut's lines; the cut becomes the trace's program. */
export function renumberTrace(trace: Trace, cut: ProgramCut): Trace {
  const map = (line: number): number => {
    const to = cut.cutLine(line);
    if (to === undefined) throw new Error(`line ${line} lies outside the excerpt`);
    return to;
  };
  const events = trace.events.map((e) => ({
    ...e,
    line: map(e.line),
    stack: e.stack.map((f) => ({ ...f, line: map(f.line) })),
  }));
  const lines = cut.text.split('\n');
  lines.pop();
  return { ...trace, program: cut.text, lines, events };
}
