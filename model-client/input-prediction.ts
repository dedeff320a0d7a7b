/**
 * Input prediction: which call of a function returns a given value, asked of the model.
 *
 * The function's return state is written with that value on each candidate return line, its
 * locals left to the model: the completer (PartialFrameDecoder, partial-frame.ts) writes
 * them after the given frame start `<|inv_return_sep|><|loc_sep|>f:L<|src_sep|>SRC<|arg_sep|>
 * "VALUE"<|locals_sep|>` and scores the start itself. Then the model's `inv_step_call` from a
 * return state gives a call frame: its locals are the arguments. The return state whose
 * start the model finds likeliest gives the model's own answer; the other lines', and return
 * states drawn on the likeliest line, give more (callCandidates), for a caller that checks
 * each by running it forward with the model.
 *
 * One protocol for the debugger's Predict Inputs (`ndb/predictInputs`, adapter/queries.ts) and
 * `ndb eval cruxeval --task input` (evaluation/cruxeval.ts); each reads the call frame its own
 * way (the debugger as positional arguments, the evaluation by the parameters' kinds).
 */
import { serializeFrameStart } from '../grammar/serialize.js';
import type { State } from '../grammar/state.js';
import { MAX_SOURCE_CHARS, truncateRepr, truncateText } from '../grammar/truncate.js';
import type { ProgramCut } from '../program-analysis/cut.js';
import { NoPrediction } from './call-outcome.js';
import type { Prediction, PredictOptions, Predictor } from './predictor.js';

/** The model's completions of a frame whose text starts with `start` (partial-frame.ts's PartialFrameDecoder). */
export interface FrameCompleter {
  /** The greedy completion. */
  complete(program: string, direction: 'inverse', start: string): Promise<CompletedStart>;
  /** `samples` completions drawn at `temperature`, each the frame or why it failed. */
  completeSamples(program: string, direction: 'inverse', start: string, samples: number, sampling: { temperature?: number; seed?: number }): Promise<({ ok: true; frame: CompletedStart } | { ok: false; error: Error })[]>;
}

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
 * The return state on each candidate line, its locals written by the model, the likeliest
 * start first. Without a completer, each with its locals left empty, in the lines' order. A
 * line that fails to complete drops out; when all do, the last failure is thrown, and a
 * failure that `fatal` picks out (a bug rather than the model's) at once.
 */
export async function returnStates(q: InputQuestion, complete?: FrameCompleter, fatal: (err: unknown) => boolean = () => false): Promise<ChosenReturn[]> {
  const chosen: ChosenReturn[] = [];
  let failure: unknown;
  for (const line of q.returnLines) {
    if (!complete) {
      chosen.push({ state: returnState(q, line), startLogprob: 0, restLogprob: 0 });
      continue;
    }
    try {
      const asked = completionAsked(q, line);
      chosen.push(writtenReturn(q, await complete.complete(asked.program, 'inverse', asked.start)));
    } catch (err) {
      if (fatal(err)) throw err;
      failure = err;
    }
  }
  if (chosen.length === 0) throw failure;
  // Stable: equal starts keep the lines' order.
  return chosen.sort((a, b) => b.startLogprob - a.startLogprob);
}

/** Return states drawn on `line` (its start given, its locals sampled): other guesses at what the call held. */
async function sampledReturns(q: InputQuestion, complete: FrameCompleter, line: number, samples: number, seed: number, fatal: (err: unknown) => boolean): Promise<ChosenReturn[]> {
  const asked = completionAsked(q, line);
  const drawn = await complete.completeSamples(asked.program, 'inverse', asked.start, samples, { temperature: 1, seed });
  return drawn.flatMap((d) => {
    if (!d.ok) {
      if (fatal(d.error)) throw d.error;
      return [];
    }
    return [writtenReturn(q, d.frame)];
  });
}

/** What the completer is given for the return state on `line`: the program and the frame's start, the cut's on a long file. */
function completionAsked(q: InputQuestion, line: number): { program: string; start: string } {
  const state = returnState(q, line);
  return q.cut ? { program: q.cut.text, start: returnFrameStart(q.cut.stateToCut(state)) } : { program: q.program, start: returnFrameStart(state) };
}

/** A completed return state back in the file's lines, with its scores. */
function writtenReturn(q: InputQuestion, done: CompletedStart): ChosenReturn {
  return { state: q.cut ? q.cut.stateToFile(done.state, q.lines) : done.state, startLogprob: done.startLogprob, restLogprob: done.restLogprob };
}

/** One answer to the question: a return state the model wrote, and the call frame its `inv_step_call` from there gives. */
export interface CallCandidate {
  returned: ChosenReturn;
  /** A call state of the function alone on the stack: its locals are the arguments. */
  call: Extract<Prediction, { kind: 'state' }>;
  /** `likeliest`: the likeliest return state's (the model's own answer); `line`: another return line's; `sample`: a drawn return state's. */
  source: 'likeliest' | 'line' | 'sample';
}

/**
 * Return states drawn for more answers where the model's own is not confirmed by its run
 * forward. README, "The model": four raised the real-code input task from 86 to 100 of 349
 * rows; eight found no more than four on the first 84.
 */
export const INPUT_CANDIDATES = 4;

export interface CandidateOptions {
  complete?: FrameCompleter;
  /** Picks out a failure that is a bug rather than the model's (thrown at once). */
  fatal?: (err: unknown) => boolean;
  /** How the model is asked for each call frame (votes, seed). */
  predict?: PredictOptions;
  /** Return states drawn on the likeliest line after the greedy ones (default 0; needs `complete`). */
  samples?: number;
}

/**
 * The model's answers to `q`, each a call frame the model's `inv_step_call` gives from a
 * return state it wrote: from the likeliest return state first, then the other return lines'
 * (returnStates), then `samples` return states drawn on the likeliest line. Lazily: a caller
 * that checks each (forward, by the model) stops at the one it keeps and pays for no more.
 * An answer that is not the function's call, or that fails, is passed over; when none is
 * left, a NoPrediction says why the first failed.
 */
export async function* callCandidates(predictor: Predictor, q: InputQuestion, opts: CandidateOptions = {}): AsyncGenerator<CallCandidate> {
  const fatal = opts.fatal ?? (() => false);
  const returns = await returnStates(q, opts.complete, fatal);
  let first: string | undefined;
  let given = 0;
  const answer = async (returned: ChosenReturn): Promise<CallCandidate['call'] | undefined> => {
    try {
      const call = await predictor.predict([{ state: returned.state }], { kind: 'inv_step_call' }, opts.predict ?? {});
      if (call.kind === 'state' && call.state.event === 'call' && call.state.stack.length === 1) return call;
      first ??= `inv_step_call from ${q.function}'s return did not give its call (${call.kind === 'state' ? `a ${call.state.event} state` : `the run's ${call.exit.kind} exit`})`;
    } catch (err) {
      if (fatal(err)) throw err;
      first ??= err instanceof Error ? err.message : String(err);
    }
    return undefined;
  };
  for (const [i, returned] of returns.entries()) {
    const call = await answer(returned);
    if (call) {
      given++;
      yield { returned, call, source: i === 0 ? 'likeliest' : 'line' };
    }
  }
  const samples = opts.samples ?? 0;
  if (opts.complete && samples > 0) {
    for (const returned of await sampledReturns(q, opts.complete, returns[0]!.state.line, samples, opts.predict?.seed ?? 0, fatal)) {
      const call = await answer(returned);
      if (call) {
        given++;
        yield { returned, call, source: 'sample' };
      }
    }
  }
  if (given === 0) throw new NoPrediction(first ?? `no call of ${q.function} returning ${q.value}`);
}
