/**
 * How a call of a function ends, as the model predicts it: start at the call (from literal
 * arguments: NeuralPredictor.start) and run to its return, by one of three methods:
 *   step_return   one step_return from the call;
 *   breakpoint    a breakpoint on each of the function's return lines in turn; the landing
 *                 the model is surest of (frame probability) among those on a line wins, or,
 *                 if it says no return line is reached, its likeliest exit;
 *   step_over     line by line in the function (F10), each call it makes one step.
 * From there the run steps on (step_over in the function, step_return from a deeper frame)
 * to the entry's return or an exit, at most MAX_STEPS actions after a jump, MAX_LINE_STEPS
 * line by line. (Line by line into every call, step_into, was tried in the twelfth session:
 * 55 of the first 120 real-code rows against 62 by step_over, README "Held-out results".)
 *
 * The output task of `ndb eval cruxeval`, `ndb verify`'s predictions and the input task's
 * forward check ask this, and so does the debugger's Predict Inputs (adapter/queries.ts),
 * on a sibling of the session's predictor.
 */
import type { Action, Exit, State } from '../grammar/state.js';
import { MAX_SOURCE_CHARS, truncateText } from '../grammar/truncate.js';
import { CutError } from '../program-analysis/cut.js';
import { type Entry, EntryError } from '../program-analysis/entry-state.js';
import { sourceLines } from '../python/source.js';
import { FrameBudgetError } from './decode.js';
import { ContextOverflowError } from './onnx-session.js';
import type { PredictOptions, Prediction, Predictor } from './predictor.js';

export type OutputMethod = 'step_return' | 'breakpoint' | 'step_over';
export const OUTPUT_METHODS: readonly OutputMethod[] = ['breakpoint', 'step_return', 'step_over'];
export const isOutputMethod = (x: string): x is OutputMethod => (OUTPUT_METHODS as readonly string[]).includes(x);

/** Most actions from the first landing to the entry's return, after a jump… */
const MAX_STEPS = 16;
/** …and line by line (a loop of a few dozen iterations). */
const MAX_LINE_STEPS = 400;

/** The model gave no usable answer (an exit with an error, a frame of the wrong kind). */
export class NoPrediction extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoPrediction';
  }
}

/** The model's run took its whole step budget without the entry's return (usually a loop it never leaves). */
export class NoReturnError extends NoPrediction {
  constructor(steps: number) {
    super(`no return of the entry within ${steps} steps`);
    this.name = 'NoReturnError';
  }
}

/** The model's doing (no frame within the token budget, a prompt or a program past its context, no usable answer), not a bug of ndb's. */
export function isModelFailure(err: unknown): boolean {
  return err instanceof NoPrediction || err instanceof FrameBudgetError || err instanceof ContextOverflowError || err instanceof CutError;
}

/**
 * How a call of the entry ends, as the model predicts it: its return value or the exception
 * it raises (the exit's repr), with the model's confidence in that value. `ndb verify`
 * (evaluation/verify.ts) reads both; the output task wants a return value only.
 */
export type CallOutcome = ({ kind: 'returned'; value: string } | { kind: 'raised'; exception: string }) & {
  confidence: number;
  /** The call state the run began at (the arguments bound to the parameters); absent when they do not bind. */
  call?: State;
  /** The line-by-line run found no return within its steps and the answer is a breakpoint run's (runFromCallOrJump). */
  jumped?: true;
};

/**
 * From a landing, on to the entry's return (depth 1) or an exit. The outcome's confidence is
 * the model's probability of the whole path from the call: the product of every landing's
 * frame probability. The value's own tokens are not enough: once the model has chosen the
 * line `return 1`, the value 1 is certain, so a wrong branch used to show "1 (confidence 1.00)".
 */
async function runToEnd(p: Predictor, history: { state: State; action?: Action }[], landing: Prediction, opts: PredictOptions, maxSteps = MAX_STEPS): Promise<CallOutcome> {
  let path = 1;
  for (let steps = 0; ; steps++) {
    path *= landing.confidence.frame;
    if (landing.kind === 'exit') return exitOutcome(landing.exit, path);
    const { state } = landing;
    if (state.event === 'return' && state.stack.length === 1) return { kind: 'returned', value: state.value!, confidence: path };
    if (steps === maxSteps) throw new NoReturnError(maxSteps);
    const action: Action = state.stack.length > 1 ? { kind: 'step_return' } : { kind: 'step_over' };
    history.push({ state, action });
    landing = await p.predict(history, action, opts);
  }
}

function exitOutcome(exit: Exit, confidence: number): CallOutcome {
  if (exit.kind === 'normal') return { kind: 'returned', value: exit.value, confidence };
  if (exit.kind === 'error') return { kind: 'raised', exception: exit.value, confidence };
  throw new NoPrediction(`the model predicted exit ${exit.kind}`);
}

export interface PredictCallOptions {
  method?: OutputMethod;
  /** The entry's own return lines (the breakpoint method; rows.py's inspect). */
  returns?: readonly number[];
  /** Frames decoded and voted on per prediction (PredictOptions.samples). */
  samples?: number;
}

/** The output task's protocol for any entry: start at its call (from the literal arguments), run to its return. */
export async function predictCall(p: Predictor, code: string, entry: Entry, opts: PredictCallOptions = {}): Promise<CallOutcome> {
  const predictOpts: PredictOptions = opts.samples === undefined ? {} : { samples: opts.samples };
  const start = await startCall(p, code, entry, predictOpts);
  if (start.kind === 'unbound') return start.outcome;
  return { ...(await runFromCallOrJump(p, code, start.call, opts, predictOpts)), call: start.call };
}

/**
 * runFromCall; line by line, when the run finds no return of the entry within MAX_LINE_STEPS
 * (the model looping where the real run ends: 13 of the 18 real-code rows without an answer
 * end in 8 to 52 lines), run again from the call by breakpoint. The input task's forward
 * check (predictCandidateCall) runs without it: a confirmation by the jump gained no row
 * there (README, "The model").
 */
async function runFromCallOrJump(p: Predictor, code: string, call: State, opts: PredictCallOptions, predictOpts: PredictOptions): Promise<CallOutcome> {
  try {
    return await runFromCall(p, code, call, opts, predictOpts);
  } catch (err) {
    if (!(err instanceof NoReturnError && opts.method === 'step_over')) throw err;
    return { ...(await runFromCall(p, code, call, { ...opts, method: 'breakpoint' }, predictOpts)), jumped: true };
  }
}

/**
 * The entry's call state, or, for arguments that do not bind, the exception the call raises
 * before the function runs (known from the input, not predicted).
 */
async function startCall(p: Predictor, code: string, entry: Entry, predictOpts: PredictOptions): Promise<{ kind: 'call'; call: State } | { kind: 'unbound'; outcome: CallOutcome }> {
  const start = await p.start(code, entry, predictOpts);
  if (start.kind === 'exit') return { kind: 'unbound', outcome: exitOutcome(start.exit, start.confidence.value ?? start.confidence.frame) };
  return { kind: 'call', call: start.state };
}

async function runFromCall(p: Predictor, code: string, call: State, opts: PredictCallOptions, predictOpts: PredictOptions): Promise<CallOutcome> {
  const returns = opts.returns ?? [];
  const method = opts.method ?? 'step_return';
  // One action from the call; breakpoint without return lines to break on is a step_return.
  if (method !== 'breakpoint' || returns.length === 0) {
    const action: Action = { kind: method === 'breakpoint' ? 'step_return' : method };
    const landing = await p.predict([{ state: call }], action, predictOpts);
    return runToEnd(p, [{ state: call, action }], landing, predictOpts, method === 'step_over' ? MAX_LINE_STEPS : MAX_STEPS);
  }
  const lines = sourceLines(code);
  const landings: { action: Action; prediction: Prediction }[] = [];
  for (const line of returns) {
    const action: Action = { kind: 'breakpoint', line, source: truncateText(lines[line - 1] ?? '', MAX_SOURCE_CHARS) };
    landings.push({ action, prediction: await p.predict([{ state: call }], action, predictOpts) });
  }
  const surest = (xs: typeof landings) => xs.reduce((a, b) => (b.prediction.confidence.frame > a.prediction.confidence.frame ? b : a));
  const onLine = landings.filter((l) => l.prediction.kind === 'state');
  const chosen = surest(onLine.length > 0 ? onLine : landings);
  return runToEnd(p, [{ state: call, action: chosen.action }], chosen.prediction, predictOpts);
}

/** A candidate input's forward run (predictCandidateCall). */
export interface CandidateRun {
  /** How the model says the call ends; null when it gives no answer (or the arguments are not literals). */
  outcome: CallOutcome | null;
  /** The arguments are literals that bind to the entry's parameters: the function would run. */
  binds: boolean;
  /** The call state (the arguments bound), where the run got that far. */
  call?: State;
}

/**
 * A candidate input's forward run (the input task's check and the debugger's Predict Inputs,
 * model-client/input-check.ts): predictCall (by default line by line, step_over: the better
 * method for it on real code, README "Held-out results"). No outcome when the call cannot be
 * run (arguments that are not literals: a repr the model cut with `…`) or the model gives no
 * answer. Other errors are bugs and are thrown.
 */
export async function predictCandidateCall(p: Predictor, code: string, entry: Entry, returns: readonly number[], samples?: number, method: OutputMethod = 'step_over'): Promise<CandidateRun> {
  const opts: PredictCallOptions = { method, returns, ...(samples === undefined ? {} : { samples }) };
  const predictOpts: PredictOptions = samples === undefined ? {} : { samples };
  let call: State | undefined;
  try {
    const start = await startCall(p, code, entry, predictOpts);
    if (start.kind === 'unbound') return { outcome: start.outcome, binds: false };
    call = start.call;
    return { outcome: { ...(await runFromCall(p, code, call, opts, predictOpts)), call }, binds: true, call };
  } catch (err) {
    if (err instanceof EntryError) return { outcome: null, binds: false };
    // The model failed after the literal arguments were read: they bind (call_frame.py binds them before the model's turn).
    if (isModelFailure(err)) return { outcome: null, binds: true, ...(call ? { call } : {}) };
    throw err;
  }
}
