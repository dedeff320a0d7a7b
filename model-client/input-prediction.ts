/**
 * Input prediction: which call of a function returns a given value, asked of the model.
 *
 * The function's return state is written with that value on each candidate return line, its
 * locals left to the model: `complete` (PartialFrameDecoder.complete, partial-frame.ts) writes
 * them after the given frame start `<|inv_return_sep|><|loc_sep|>f:L<|src_sep|>SRC<|arg_sep|>
 * "VALUE"<|locals_sep|>` and scores the start itself, and the start the model finds likeliest
 * (the line, then the value there) wins. Then the model's `inv_step_call` from that return
 * state gives the call frame: its locals are the arguments.
 *
 * One protocol for the debugger's Predict Inputs (`ndb/predictInputs`, adapter/queries.ts) and
 * `ndb eval cruxeval --task input` (evaluation/cruxeval.ts); each reads the call frame its own
 * way (the debugger as positional arguments, the evaluation by the parameters' kinds).
 */
import { serializeFrameStart } from '../grammar/serialize.js';
import type { State } from '../grammar/state.js';
import { MAX_SOURCE_CHARS, truncateRepr, truncateText } from '../grammar/truncate.js';
import type { ProgramCut } from '../program-analysis/cut.js';
import type { Prediction, PredictOptions, Predictor } from './predictor.js';

/** The model's completion of a frame whose text starts with `start` (partial-frame.ts's PartialFrameDecoder.complete). */
export type CompleteFrame = (program: string, direction: 'inverse', start: string) => Promise<CompletedStart>;

export interface CompletedStart {
  state: State;
  /** Summed log-probability of the given start's unforced tokens. */
  startLogprob: number;
  /** Summed log-probability of the tokens the model wrote after the start. */
  restLogprob: number;
}

/** What is asked: a call of `function` that returns `value`. */
export interface InputQuestion {
  /** The program's text, as the file holds it. */
  program: string;
  /** Its lines (line L is `lines[L - 1]`): the return states' source text. */
  lines: readonly string[];
  /** The function, as its frames name it. */
  function: string;
  /** The candidate return lines, in the file's numbers. */
  returnLines: readonly number[];
  /** The return value, a Python repr. */
  value: string;
  /**
   * The part of a long file the model sees (program-analysis/cut.ts), if any: the completer
   * gets the cut's text and the return state in its lines, and the state it writes comes
   * back in the file's lines.
   */
  cut?: ProgramCut | null;
}

/** The return state the model chose, in the file's lines, with the scores of its start and of the locals it wrote. */
export interface ChosenReturn {
  state: State;
  startLogprob: number;
  restLogprob: number;
}

/** The function's return state on `line`, returning the question's value, its locals left empty. */
export function returnState(q: InputQuestion, line: number): State {
  return {
    event: 'return',
    line,
    source: truncateText(q.lines[line - 1] ?? '', MAX_SOURCE_CHARS),
    stack: [{ function: q.function, line }],
    locals: {},
    value: truncateRepr(q.value),
  };
}

/** The start of a return frame, as the completer is given it: the frame's text up to its locals. */
export function returnFrameStart(state: State): string {
  return serializeFrameStart('inverse', state, 'locals');
}

/**
 * The return state whose start the model finds likeliest, its locals written by the model.
 * Without a completer, the first candidate with its locals left empty. A candidate that
 * fails to complete drops out; when all do, the last failure is thrown, and a failure that
 * `fatal` picks out (a bug rather than the model's) at once.
 */
export async function chooseReturn(q: InputQuestion, complete?: CompleteFrame, fatal: (err: unknown) => boolean = () => false): Promise<ChosenReturn> {
  const cut = q.cut ?? null;
  let best: ChosenReturn | null = null;
  let failure: unknown;
  for (const line of q.returnLines) {
    const state = returnState(q, line);
    if (!complete) {
      best ??= { state, startLogprob: 0, restLogprob: 0 };
      continue;
    }
    try {
      const done = await complete(cut ? cut.text : q.program, 'inverse', returnFrameStart(cut ? cut.stateToCut(state) : state));
      const written = cut ? cut.stateToFile(done.state, q.lines) : done.state;
      if (!best || done.startLogprob > best.startLogprob) best = { state: written, startLogprob: done.startLogprob, restLogprob: done.restLogprob };
    } catch (err) {
      if (fatal(err)) throw err;
      failure = err;
    }
  }
  if (!best) throw failure;
  return best;
}

/** The model's call frame for `q`: the likeliest return state (chooseReturn), then `inv_step_call` from it. */
export async function predictCallFrame(predictor: Predictor, q: InputQuestion, opts: { complete?: CompleteFrame; fatal?: (err: unknown) => boolean; predict?: PredictOptions } = {}): Promise<{ returned: ChosenReturn; call: Prediction }> {
  const returned = await chooseReturn(q, opts.complete, opts.fatal);
  const call = await predictor.predict([{ state: returned.state }], { kind: 'inv_step_call' }, opts.predict ?? {});
  return { returned, call };
}
