/**
 * The trivial baseline for next-state prediction, as a Predictor so that `ndb eval states`
 * measures it with the same code as the model: the next state is the current frame's locals
 * on the next source line. "Next" follows the action: the next code line for a forward
 * step, the previous one for an inverse step, the breakpoint's own line for a breakpoint
 * (blank and comment lines are skipped: no state ever sits on them). Always a `line` event
 * in the current function, never a call, a return or an exit.
 */
import type { Action, State } from '../grammar/state.js';
import { truncateState } from '../grammar/truncate.js';
import { codeLines } from '../data-pipeline/trajectories.js';
import type { StateConfidence } from '../model-client/confidence.js';
import { CERTAIN_EXIT, CERTAIN_STATE } from '../model-client/confidence.js';
import { type Entry, entryStart } from '../program-analysis/entry-state.js';
import { type HistoryEntry, historySteps, type Prediction, type Predictor } from '../model-client/predictor.js';
import { sourceLines } from '../python/source.js';

/** A rule has no probabilities. */
const NO_CONFIDENCE = (state: State): StateConfidence => ({ event: 0, location: 0, locals: Object.fromEntries(Object.keys(state.locals).map((k) => [k, 0])), frame: 0 });

export class NextLineBaseline implements Predictor {
  private lines: string[] = [];
  private code: number[] = [];

  /** The entry's call state from the user's input (program-analysis/entry-state.ts), as the neural debugger starts. */
  async start(program: string, entry: Entry | null): Promise<Prediction> {
    this.lines = sourceLines(program);
    this.code = codeLines(this.lines);
    const start = await entryStart(program, entry);
    if (start.kind === 'known') return { kind: 'state', origin: 'input', direction: 'forward', state: start.state, text: '', confidence: CERTAIN_STATE(Object.keys(start.state.locals), false) };
    if (start.kind === 'exit') return { kind: 'exit', origin: 'input', exit: start.exit, text: '', confidence: CERTAIN_EXIT(true) };
    throw new Error('the baseline needs the whole call state from the input (this entry needs the program to run)');
  }

  async predict(history: readonly HistoryEntry[], action: Action): Promise<Prediction> {
    const steps = historySteps(history, action);
    const current = steps[steps.length - 1]!.state;
    const line = this.nextLine(current.line, action);
    const frames = current.stack.slice(0, -1);
    const state = truncateState({
      event: 'line',
      line,
      source: this.lines[line - 1] ?? '',
      stack: [...frames, { function: current.stack[current.stack.length - 1]!.function, line }],
      locals: current.locals,
    });
    // Origin 'model' in the Predictor's terms: a prediction, neither the input nor the real run.
    return { kind: 'state', origin: 'model', direction: action.kind.startsWith('inv_') ? 'inverse' : 'forward', state, text: '', confidence: NO_CONFIDENCE(state) };
  }

  private nextLine(line: number, action: Action): number {
    if (action.kind === 'breakpoint') return action.line;
    if (action.kind.startsWith('inv_')) return [...this.code].reverse().find((l) => l < line) ?? line;
    return this.code.find((l) => l > line) ?? line;
  }
}
