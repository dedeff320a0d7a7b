/**
 * What a debugger asks of a predictor: the first state of a run, then, given the states
 * visited and an action, the next state or the end of the run.
 *
 * Implementations: NeuralPredictor (the model; what ndb debugs with) and TracerPredictor
 * (the real tracer; ground truth for tests, evaluation and the opt-in verify mode only).
 */
import type { Action, Direction, Exit, State } from '../grammar/state.js';
import type { ExitConfidence, StateConfidence } from './confidence.js';
import type { ProgramCut } from '../program-analysis/cut.js';
import type { Entry } from '../program-analysis/entry-state.js';
import type { PredictionStats } from '../protocol/dap.js';

/**
 * Where a prediction comes from: the model, the user's input (the entry's call state, see
 * program-analysis/entry-state.ts), or the real tracer (evaluation/tracer-predictor.ts).
 */
export type Origin = 'model' | 'input' | 'tracer';

/** With n samples: how the vote went. */
export interface Vote {
  /** Samples decoded. */
  samples: number;
  /** Samples that gave a complete frame (the others ran out of tokens). */
  valid: number;
  /** Share of the valid samples that gave the winning frame, 0..1. */
  agreement: number;
  /** Distinct frames among the valid samples. */
  distinct: number;
}

/** How much work a prediction was: defined with the wire types (protocol/dap.ts), since stopped events and Predict Inputs carry it to clients. */
export type { PredictionStats };

interface PredictionBase {
  origin: Origin;
  /** The frame as predicted, in the trace language (empty for the user's input and the tracer). */
  text: string;
  vote?: Vote;
  stats?: PredictionStats;
}

export interface PredictedState extends PredictionBase {
  kind: 'state';
  direction: Direction;
  state: State;
  confidence: StateConfidence;
}

export interface ExitPrediction extends PredictionBase {
  kind: 'exit';
  exit: Exit;
  confidence: ExitConfidence;
}

export type Prediction = PredictedState | ExitPrediction;

/** A visited state and the action taken from it (the current state's action may be left out). */
export interface HistoryEntry {
  state: State;
  action?: Action;
}

export interface PredictOptions {
  /** Frames to decode and vote on (default 1). */
  samples?: number;
  /** Sampling temperature; default 0 (greedy) for one sample, 1 for several. */
  temperature?: number;
  /** Seed of the samples (default: the predictor's); a new seed gives new samples (resample). */
  seed?: number;
  /** Aborts the prediction between two forward passes (DecodeAbortedError). */
  signal?: AbortSignal;
}

export interface StartOptions extends PredictOptions {
  /**
   * The lines the user asked to stop at (breakpoints): a module entry of a program too long
   * for the model is cut to the statements up to the first of them (program-analysis/cut.ts).
   */
  stopLines?: readonly number[];
}

export interface Predictor {
  /**
   * Starts a run of `program` at `entry` (a function and its literal arguments, or with
   * `inferArgs` arguments the predictor proposes), or at the module's top level.
   */
  start(program: string, entry: Entry | null, opts?: StartOptions): Promise<Prediction>;
  /**
   * Optional: the cut of the program the model sees since the last start (program-analysis/cut.ts),
   * or null when it sees the whole program. States, actions and histories always carry the
   * file's own line numbers; only a prediction's `text` is the model's, in the cut's lines.
   */
  programCut?(): ProgramCut | null;
  /**
   * The state `action` leads to from the last state of `history` (the states visited so
   * far, oldest first, each with the action taken from it; the last one's action, if
   * given, must be `action`).
   */
  predict(history: readonly HistoryEntry[], action: Action, opts?: PredictOptions): Promise<Prediction>;
  /**
   * Optional: work that any next prediction continuing from the last one begins with, done
   * now (NeuralPredictor: running the last frame's final tokens through the model), so
   * that the next key press does not wait for it. The debugger calls it while the user
   * looks at a stop; it never changes what a prediction gives.
   */
  catchUp?(): Promise<void>;
  /**
   * Optional: a second predictor on the same model, with a program, cut and prompt cache of
   * its own, for a question asked beside a run (Predict Inputs' forward check,
   * adapter/queries.ts) that must leave the run's cache as it is.
   */
  sibling?(): Predictor;
}

/** History and action as complete steps; checks that every earlier state has its action. */
export function historySteps(history: readonly HistoryEntry[], action: Action): { state: State; action: Action }[] {
  if (history.length === 0) throw new Error('predict needs at least the current state (call start first)');
  return history.map((h, i) => {
    const last = i === history.length - 1;
    if (!last && !h.action) throw new Error(`history entry ${i} has no action`);
    if (last && h.action && JSON.stringify(h.action) !== JSON.stringify(action)) {
      throw new Error(`the current state's action (${h.action.kind}) is not the action to predict (${action.kind})`);
    }
    return { state: h.state, action: last ? action : h.action! };
  });
}
