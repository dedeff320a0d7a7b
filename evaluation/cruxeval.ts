/**
 * `ndb eval cruxeval`: CruxEval's two tasks, answered by debugging with the model, checked
 * by real Python (`f(input) == output`, rows.py; an unparsable prediction fails).
 *
 * Output prediction: the session starts at the call of f (the entry's call state, from the
 * input) and the model runs it to f's return:
 *   step_return   one step_return from the call;
 *   breakpoint    a breakpoint on each of f's return lines in turn (one breakpoint per
 *                 action in the trace language); the model's landing it is surest of
 *                 (frame probability) among those on a line wins, or, if it says no
 *                 return line is reached, its likeliest exit; from a line, step on to the
 *                 return. An exit's value is f's return value too: f is the entry. (f
 *                 without a return statement: step_return.)
 * From wherever the first landing is, the session steps on (step_over in f, step_return
 * from a deeper frame) until f's return event or an exit, at most MAX_STEPS actions
 * (model-client/call-outcome.ts). Line by line (step_over, the default), a run that finds
 * no return within its steps is run again from the call by breakpoint (`jumped` in the JSON).
 * The prediction is the return value's repr.
 *
 * Input prediction: the session starts at f's return, knowing only the output (the real
 * return frame's locals would give the input away: the arguments are locals). The model
 * writes that frame's locals after a given start `<|inv_return_sep|><|loc_sep|>f:L<|src_sep|>
 * SRC<|arg_sep|>"OUTPUT"<|locals_sep|>` (model-client/partial-frame.ts). The return line L
 * is chosen by the model: each return statement of f is a candidate (f's last line when it
 * has none), and the one whose start (the line, then the output there) the model finds
 * likeliest wins. Then `inv_step_call`: the predicted call frame's locals are the arguments,
 * written in f's parameter order (`*args` spread, keyword-only ones as `name=value`). The
 * protocol is model-client/input-prediction.ts's, which the debugger's Predict Inputs shares.
 * Then, by default, the check (predictInput, model-client/input-check.ts): that answer, the
 * output as the only argument and the model's other answers are run forward by the model, the
 * first whose predicted return is the output wins; with none, the output itself where f
 * takes it as its only argument, else the model's own answer.
 *
 * Baselines, checked by the same code: output = the first argument unchanged; input = the
 * output itself as the only argument.
 */
import { NoPrediction, type OutputMethod, predictCall, predictCandidateCall } from '../model-client/call-outcome.js';
import type { NeuralPredictor } from '../model-client/neural-predictor.js';
import { type CallCandidate, callCandidates, INPUT_CANDIDATES, type InputQuestion } from '../model-client/input-prediction.js';
import { checkInputs } from '../model-client/input-check.js';
import type { PartialFrameDecoder } from '../model-client/partial-frame.js';
import { sourceLines } from '../python/source.js';
import { describeError, failureKind, type InternalError } from './failures.js';
import type { HeldoutRow } from './heldout.js';
import { checkRows, type Inspection, inspectRows } from './python-rows.js';
import { type CalibrationBand, calibration, formatCalibration, pct } from './calibration.js';

export type CruxTask = 'output' | 'input';

export interface Attempt {
  /** The predicted output (output task) or argument list (input task); null when there is none. */
  prediction: string | null;
  passed: boolean;
  /** The model's probability of exactly the predicted text (its value, or the product over the arguments). */
  confidence?: number;
  /** Why there is no prediction, or why the check failed to run. */
  error?: string;
  /** Input task: which answer it is and whether the model's run forward returned the output. */
  answer?: InputAnswer;
  /** Output task, line by line: the run found no return within its steps and was run again by breakpoint (call-outcome.ts). */
  jumped?: true;
}

/**
 * Which answer the input task gave: the model's own (`likeliest`), the output as the only
 * argument, another return line's or a drawn return state's (input-prediction.ts's
 * callCandidates); `confirmed`: the model's run of it returned the output (the forward check).
 */
export interface InputAnswer {
  source: CallCandidate['source'] | 'output';
  confirmed: boolean;
}

export interface CruxItem {
  id: string;
  model: Attempt;
  baseline: Attempt;
}

export interface CruxSummary {
  passed: number;
  total: number;
  /** passed / total; null for no rows. */
  passAt1: number | null;
  /** Rows without a prediction. */
  noPrediction: number;
  /** The model's only: bands at 90%+, 50-90%, below 50%. */
  calibration?: CalibrationBand[];
}

export interface CruxReport {
  task: CruxTask;
  /** How a call ran to its return: the output task's run, the input task's forward check (absent without one). */
  method?: OutputMethod;
  model: CruxSummary;
  baseline: CruxSummary & { name: string };
  items: CruxItem[];
  /** Rows whose prediction failed inside ndb (no prediction, counted as failed). */
  internalErrors: InternalError[];
}

type Shape = Extract<Inspection, { ok: true }>;

// ---- output ------------------------------------------------------------------------------

interface Predicted {
  text: string;
  /** The model's probability of it; absent for the output fed back unconfirmed (predictInput). */
  confidence?: number;
  /** Input task: which answer it is and whether the model's run forward returned the output (InputAnswer). */
  answer?: InputAnswer;
  /** Output task: the answer is a breakpoint run's (Attempt.jumped). */
  jumped?: true;
}

async function predictOutput(p: NeuralPredictor, row: HeldoutRow, shape: Shape, method: OutputMethod, samples?: number): Promise<Predicted> {
  const outcome = await predictCall(p, row.code, { entry: 'f', args: row.input }, { method, returns: shape.returns, ...(samples === undefined ? {} : { samples }) });
  if (outcome.kind === 'raised') throw new NoPrediction(`the model predicted exit error ${outcome.exception}`);
  return { text: outcome.value, confidence: outcome.confidence, ...(outcome.jumped ? { jumped: true as const } : {}) };
}

// ---- input -------------------------------------------------------------------------------

/** The call frame's locals as an argument list in f's parameter order; null when one is missing. */
function argumentList(locals: Readonly<Record<string, string>>, params: Shape['params']): string | null {
  const args: string[] = [];
  for (const [name, kind] of params) {
    const value = locals[name];
    if (value === undefined) return null;
    args.push(kind === 'positional' ? value : kind === 'var_positional' ? `*${value}` : kind === 'keyword' ? `${name}=${value}` : `**${value}`);
  }
  return args.join(', ');
}

/** The question the input task asks of the model: a call of f that returns the row's output. */
async function inputQuestion(p: NeuralPredictor, row: HeldoutRow, shape: Shape): Promise<InputQuestion> {
  // The program as a run of f sees it (cut to f's scope, as the forward run shows it); no
  // call frame: the arguments are what is asked.
  await p.show(row.code, 'f');
  return { program: row.code, lines: sourceLines(row.code), function: 'f', returnLines: shape.returns.length > 0 ? shape.returns : [shape.last], value: row.output, cut: p.programCut() };
}

/**
 * The model's argument lists for the row, its own answer first (input-prediction.ts's
 * callCandidates), each with the model's probability of its way back: the return frame's
 * locals it wrote, then the whole call frame (as the output's confidence is its way
 * forward, runToEnd). An answer without one of f's parameters is passed over; with none
 * left, a NoPrediction.
 */
/** One of the model's argument lists, with which answer it is. */
type Answer = Predicted & { answer: InputAnswer };

async function* inputAnswers(p: NeuralPredictor, frames: PartialFrameDecoder, q: InputQuestion, shape: Shape, opts: { samples?: number; candidates: number }): AsyncGenerator<Answer> {
  const answers = callCandidates(p, q, {
    complete: frames,
    fatal: (err) => failureKind(err) === 'internal',
    predict: opts.samples === undefined ? {} : { samples: opts.samples },
    samples: opts.candidates,
  });
  let given = 0;
  for await (const { returned, call, source } of answers) {
    const text = argumentList(call.state.locals, shape.params);
    if (text === null) continue;
    given++;
    yield { text, confidence: Math.exp(returned.restLogprob) * call.confidence.frame, answer: { source, confirmed: false } };
  }
  if (given === 0) throw new NoPrediction("no answer has all of f's parameters");
}

/**
 * Generate and check (`check`, the default): model-client/input-check.ts's rule, with the
 * model's forward runs by `method` (predictCall, the output task's protocol; nothing runs in
 * Python). A confirmed answer's confidence is its forward path's probability; the model's own
 * unconfirmed answer keeps its way back's; the output fed back unconfirmed has none (no
 * model put it forward).
 */
async function predictInput(p: NeuralPredictor, frames: PartialFrameDecoder, row: HeldoutRow, shape: Shape, opts: { samples?: number; check: boolean; method: OutputMethod; candidates: number }): Promise<Predicted> {
  const q = await inputQuestion(p, row, shape);
  const answers = inputAnswers(p, frames, q, shape, { ...opts, candidates: opts.check ? opts.candidates : 0 });
  if (!opts.check) {
    // Nothing checked it: no answer record. inputAnswers yields at least one answer or throws.
    const own = (await answers.next()).value as Answer;
    return { text: own.text, confidence: own.confidence };
  }
  const choice = await checkInputs(answers, {
    value: row.output,
    argsOf: (a) => a.text,
    run: (args) => predictCandidateCall(p, row.code, { entry: 'f', args }, shape.returns, opts.samples, opts.method),
    recoverable: (err) => failureKind(err) !== 'internal',
    // The checks ran the predictor forward: it is shown the question again for the rest.
    beforeRest: () => p.show(row.code, 'f'),
  });
  const confirmed = choice.confirmed ? choice.run.outcome!.confidence : undefined;
  if (choice.kind === 'value') return { text: choice.args, ...(confirmed === undefined ? {} : { confidence: confirmed }), answer: { source: 'output', confirmed: choice.confirmed } };
  const { answer } = choice.answer;
  return { text: choice.args, confidence: confirmed ?? choice.answer.confidence, answer: { ...answer, confirmed: choice.confirmed } };
}

// ---- both --------------------------------------------------------------------------------

export interface EvaluateCruxOptions {
  task: CruxTask;
  method?: OutputMethod;
  /** Frames sampled and voted on for each jump (the output's run to f's return, the input's inv_step_call); default greedy. */
  samples?: number;
  /** Input task: check candidate inputs by running them forward with the model (predictInput); default true. */
  check?: boolean;
  /** Input task's forward check: return states drawn for more answers when the model's own is not confirmed (default INPUT_CANDIDATES). */
  candidates?: number;
  onProgress?: (done: number, total: number) => void;
}

const BASELINE_NAMES: Record<CruxTask, string> = { output: 'first argument unchanged', input: 'the output as the only argument' };

export async function evaluateCruxEval(rows: readonly HeldoutRow[], p: NeuralPredictor, frames: PartialFrameDecoder, opts: EvaluateCruxOptions): Promise<CruxReport> {
  const method = opts.method ?? 'step_over';
  const shapes = await inspectRows(rows);
  const model: Attempt[] = [];
  const internalErrors: InternalError[] = [];
  for (const [i, row] of rows.entries()) {
    const shape = shapes[i]!;
    try {
      if (!shape.ok) throw new NoPrediction(`cannot read f: ${shape.error}`);
      const predicted = opts.task === 'output' ? await predictOutput(p, row, shape, method, opts.samples) : await predictInput(p, frames, row, shape, { ...(opts.samples === undefined ? {} : { samples: opts.samples }), check: opts.check ?? true, method, candidates: opts.candidates ?? INPUT_CANDIDATES });
      model.push({ prediction: predicted.text, passed: false, ...(predicted.confidence === undefined ? {} : { confidence: predicted.confidence }), ...(predicted.answer ? { answer: predicted.answer } : {}), ...(predicted.jumped ? { jumped: true } : {}) });
    } catch (err) {
      if (failureKind(err) === 'internal') internalErrors.push({ id: row.id, message: describeError(err) });
      model.push({ prediction: null, passed: false, error: describeError(err) });
    }
    opts.onProgress?.(i + 1, rows.length);
  }
  const baseline: Attempt[] = rows.map((row, i) => {
    const shape = shapes[i]!;
    if (opts.task === 'input') return { prediction: row.output, passed: false };
    const first = shape.ok ? shape.args[0] : undefined;
    return first === undefined ? { prediction: null, passed: false, error: 'no positional argument' } : { prediction: first, passed: false };
  });

  // One Python process checks every prediction, the model's and the baseline's.
  const pending = rows.flatMap((row, i) =>
    [model[i]!, baseline[i]!].flatMap((attempt) => {
      const prediction = attempt.prediction;
      if (prediction === null) return [];
      const check = opts.task === 'output' ? { code: row.code, input: row.input, output: prediction } : { code: row.code, input: prediction, output: row.output };
      return [{ attempt, check }];
    }),
  );
  const checks = await checkRows(pending.map((x) => x.check));
  pending.forEach(({ attempt }, j) => {
    const check = checks[j]!;
    attempt.passed = check.ok && check.passed;
    if (!check.ok) attempt.error = check.error;
  });

  const summary = (xs: Attempt[]): CruxSummary => {
    const passed = xs.filter((a) => a.passed).length;
    return { passed, total: xs.length, passAt1: xs.length === 0 ? null : passed / xs.length, noPrediction: xs.filter((a) => a.prediction === null).length };
  };
  return {
    task: opts.task,
    ...(opts.task === 'output' || (opts.check ?? true) ? { method } : {}),
    model: { ...summary(model), calibration: calibrationOf(model) },
    baseline: { name: BASELINE_NAMES[opts.task], ...summary(baseline) },
    items: rows.map((row, i) => ({ id: row.id, model: model[i]!, baseline: baseline[i]! })),
    internalErrors,
  };
}

export function calibrationOf(attempts: readonly Attempt[]): CalibrationBand[] {
  return calibration(attempts.map((a) => ({ ...(a.confidence === undefined ? {} : { confidence: a.confidence }), right: a.passed })));
}

/** `; 40 shown without a confidence (...)`: the input task's output fed back unconfirmed, left out of the bands. */
function unsure(report: CruxReport): string {
  const n = report.items.filter((i) => i.model.prediction !== null && i.model.confidence === undefined).length;
  return n === 0 ? '' : `; ${n} shown without a confidence (the output itself, which no run of the model confirmed)`;
}

/** The report as a short table; the last line is the model's `pass@1: X%`. */
export function formatCruxEval(report: CruxReport): string {
  const title = report.task === 'output' ? `output prediction (${report.method})` : `input prediction (${report.method ? `forward check by ${report.method}` : 'no forward check'})`;
  const row = (name: string, s: CruxSummary) => `${name.padEnd(42)}${`${s.passed}/${s.total}`.padStart(9)}${pct(s.passAt1).padStart(9)}${String(s.noPrediction).padStart(15)}`;
  return (
    [
      `cruxeval ${title}: ${report.model.total} rows`,
      `${'predictor'.padEnd(42)}${'passed'.padStart(9)}${'pass@1'.padStart(9)}${'no prediction'.padStart(15)}`,
      row('model', report.model),
      row(`baseline: ${report.baseline.name}`, report.baseline),
      ...(report.model.calibration ? [`calibration (the model's confidence in what it predicted) — ${formatCalibration(report.model.calibration)}${unsure(report)}`] : []),
      ...report.internalErrors.slice(0, 3).map((e) => `failed inside ndb (a bug; counted as no prediction): ${e.id}: ${e.message.slice(0, 200)}`),
      `pass@1: ${pct(report.model.passAt1)}`,
    ].join('\n') + '\n'
  );
}
