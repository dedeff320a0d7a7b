/**
 * Ground truth as a Predictor: runs the program under the real tracer (tracer/) and answers
 * with the state tree's moves (state-tree/).
 *
 * FOR TESTS AND EVALUATION ONLY (the evaluation's `sameState`; the tests drive the runtime
 * with it, where every state must be known; verify mode compares with the real run through
 * adapter/verifier.ts, not this). It runs the user's program, which
 * the neural debugger never does, and it must never be used to stand in for a neural
 * prediction: whatever it returns is labelled origin 'tracer', and a debugger that shows
 * it shows the real run, not the model's.
 *
 * States are truncated as the model sees them (grammar/truncate.ts), so a neural prediction
 * and this one compare directly. predict replays the history's actions on the tree and
 * checks that every state of the history is the real one: past a wrong prediction there is
 * no ground truth to give.
 */
import type { Action, Direction, Exit, ForwardAction, InverseAction, Locals, State } from '../grammar/state.js';
import { truncateRepr, truncateState } from '../grammar/truncate.js';
import { StateTree } from '../state-tree/tree.js';
import { traceSource } from '../tracer/run-tracer.js';
import { CERTAIN_EXIT, CERTAIN_STATE } from '../model-client/confidence.js';
import type { Entry } from '../program-analysis/entry-state.js';
import { type HistoryEntry, historySteps, type Prediction, type Predictor } from '../model-client/predictor.js';

/** A place in the tree: a forward node, or a position in inverse order. */
type Position = { order: 'forward'; node: number } | { order: 'inverse'; pos: number };

/** A history state that is not what the real run shows there. */
export class OffTraceError extends Error {
  constructor(readonly step: number) {
    super(`history step ${step} is not the real run's state there: the tracer has no ground truth past it`);
    this.name = 'OffTraceError';
  }
}

export class TracerPredictor implements Predictor {
  private tree: StateTree | null = null;

  async start(program: string, entry: Entry | null): Promise<Prediction> {
    if (entry?.inferArgs) throw new Error('the real tracer needs the arguments: it cannot infer them');
    const trace = await traceSource(program, entry ? { entry: entry.entry, args: entry.args } : {});
    this.tree = new StateTree(trace);
    if (this.tree.size === 0) return this.exitPrediction(this.tree.exit);
    return this.statePrediction(this.tree.states[0]!, 'forward');
  }

  async predict(history: readonly HistoryEntry[], action: Action): Promise<Prediction> {
    const tree = this.tree;
    if (!tree) throw new Error('predict before start: the tracer has no program');
    const steps = historySteps(history, action);
    let at: Position = { order: 'forward', node: 0 };
    for (let i = 0; i < steps.length; i++) {
      const { state, action: taken } = steps[i]!;
      if (!sameState(this.stateAt(at), state)) throw new OffTraceError(i);
      const landing = this.move(at, taken);
      if ('exit' in landing) {
        if (i === steps.length - 1) return this.exitPrediction(landing.exit);
        throw new OffTraceError(i + 1);
      }
      at = landing.at;
    }
    return this.statePrediction(this.stateAt(at), action.kind.startsWith('inv_') ? 'inverse' : 'forward');
  }

  private stateAt(at: Position): State {
    return at.order === 'forward' ? this.tree!.states[at.node]! : this.tree!.inverse[at.pos]!.state;
  }

  /** The tree's move, switching between forward and inverse order when the action's direction does. */
  private move(at: Position, action: Action): { at: Position } | { exit: Exit } {
    const tree = this.tree!;
    if (action.kind.startsWith('inv_')) {
      const pos = at.order === 'inverse' ? at.pos : tree.inversePosition[at.node]!;
      const landing = tree.backward(pos, action as InverseAction);
      return 'exit' in landing ? landing : { at: { order: 'inverse', pos: landing.node } };
    }
    // A line_call shows its line before the call: going forward from it is going forward from that line.
    const node = at.order === 'forward' ? at.node : tree.inverse[at.pos]!.forward;
    const landing = tree.forward(node, action as ForwardAction);
    return 'exit' in landing ? landing : { at: { order: 'forward', node: landing.node } };
  }

  private statePrediction(real: State, direction: Direction): Prediction {
    const state = truncateState(real);
    return { kind: 'state', origin: 'tracer', direction, state, text: '', confidence: CERTAIN_STATE(Object.keys(state.locals), state.value !== undefined) };
  }

  private exitPrediction(real: Exit): Prediction {
    const exit = 'value' in real ? { ...real, value: truncateRepr(real.value) } : real;
    return { kind: 'exit', origin: 'tracer', exit, text: '', confidence: CERTAIN_EXIT('value' in exit) };
  }
}

/** Equal as the trace language sees them: truncated, locals in any order. */
export function sameState(a: State, b: State): boolean {
  const [x, y] = [truncateState(a), truncateState(b)];
  const sameLocals = (p: Locals, q: Locals) => Object.keys(p).length === Object.keys(q).length && Object.entries(p).every(([k, v]) => q[k] === v);
  return (
    x.event === y.event &&
    x.line === y.line &&
    x.source === y.source &&
    x.value === y.value &&
    JSON.stringify(x.stack) === JSON.stringify(y.stack) &&
    sameLocals(x.locals, y.locals)
  );
}
