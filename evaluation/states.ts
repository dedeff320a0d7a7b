/**
 * `ndb eval states`: next-state prediction on real runs of held-out programs, per action and
 * per component, for any Predictor (the model, the baseline).
 *
 * For each row the real tracer runs `f(input)`; trajectories are sampled from its state tree
 * with the data pipeline's policy (trajectories.ts), one forward and one inverse, from a
 * fixed seed forked by the row's id (as build.ts does), so every run and every predictor
 * sees the same steps. At each step the predictor gets the true history up to the current
 * state and the action taken, and its next state is compared with the real one, truncated
 * and normalized as training data is (truncateState).
 *
 * Scores, each a share of the steps it applies to:
 *   exact   the whole next state (or exit) is right: event, stack, line, locals, value
 *   event   the kind of stop; an exit counts as a stop of its kind (exit_normal, ...)
 *   line    the line, where the real next is a state
 *   locals  all locals, in any order, where the real next is a state
 *   value   the return value or exception (of a return or exception state, or of an exit
 *           normal or error), where the real next has one
 * Beside the scores, `impossible` counts predicted stops that no run of the program could
 * make from where the step starts, as the control-flow constraint (program-analysis/control-flow.ts)
 * judges them: a line outside the frame's function, a landing the action cannot reach. Under
 * that constraint it is zero by construction; `--compare-unconstrained` adds the model decoding
 * with the grammar alone, to show how many there were before it.
 * The last action of a trajectory cut at 48 states has no sampled next state and is not
 * scored. A prediction that fails (no frame within the token budget, a prompt too long for
 * the context; or a bug, see failures.ts) counts as wrong on every score, and as an error.
 */
import { Rng } from '../util/rng.js';
import { TRACE_LIMITS } from '../data-pipeline/check.js';
import { type Policy, sampleTrajectory } from '../data-pipeline/trajectories.js';
import { type Action, type ActionKind, type Exit, FORWARD_ACTION_KINDS, INVERSE_ACTION_KINDS, type Locals, type State, type Trajectory } from '../grammar/state.js';
import { truncateRepr, truncateState } from '../grammar/truncate.js';
import type { Prediction, Predictor } from '../model-client/predictor.js';
import { sameState } from './tracer-predictor.js';
import { StateTree } from '../state-tree/tree.js';
import { ControlFlow } from '../program-analysis/control-flow.js';
import { impossibleMove, type ProgramFlow } from './control-flow-check.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { sourceLines } from '../python/source.js';
import { TraceFailure, traceSource } from '../tracer/run-tracer.js';
import { describeError, failureKind, type InternalError } from './failures.js';
import type { HeldoutRow } from './heldout.js';
import { type CalibrationBand, type ConfidencePoint, calibration, formatCalibration } from './calibration.js';

export const ACTION_KINDS: readonly ActionKind[] = [...FORWARD_ACTION_KINDS, ...INVERSE_ACTION_KINDS];
export const DEFAULT_SEED = 0;
/** The pipeline's trajectory length (build.ts). */
const MAX_STEPS = 48;

type Outcome = { kind: 'state'; state: State } | { kind: 'exit'; exit: Exit };

export interface Score {
  /** Steps the score applies to. */
  n: number;
  match: number;
  /** match / n; null when n is 0. */
  rate: number | null;
}

const COMPONENTS = ['exact', 'event', 'line', 'locals', 'value'] as const;
type Component = (typeof COMPONENTS)[number];

export interface StatesResult extends Record<Component, Score> {
  predictor: string;
  action: ActionKind | 'all';
  /** Steps scored. */
  steps: number;
  /** Predictions that failed (counted as wrong). */
  errors: number;
  /** Predicted stops the program's control flow rules out (not counted where it cannot be read). */
  impossible: number;
}

export interface StatesReport {
  seed: number;
  policy: Policy;
  /** Rows given. */
  programs: number;
  /** Rows traced and scored. */
  traced: number;
  trajectories: number;
  /** Rows the tracer could not run, and why. */
  skipped: { id: string; reason: string }[];
  /** Per predictor: all actions, then each action. */
  results: StatesResult[];
  /**
   * Per predictor whose predictions carry the model's confidence: each value it wrote (a
   * local a frame sets, a return value or exception) banded by the confidence shown beside it
   * (what the Variables view and the hovers show), and each next state by its frame's
   * confidence, against how often they are right.
   */
  calibration: Record<string, { values: CalibrationBand[]; states: CalibrationBand[] }>;
  /** Predictions that failed inside ndb (counted among the errors too). */
  internalErrors: InternalError[];
}

export interface NamedPredictor {
  name: string;
  predictor: Predictor;
  /** Its predictions carry the model's probabilities, to band for calibration (a rule's have none). */
  probabilities?: boolean;
}

const sameLocals = (a: Locals, b: Locals) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
const eventOf = (o: Outcome) => (o.kind === 'state' ? o.state.event : `exit_${o.exit.kind}`);
const valueOf = (o: Outcome) => (o.kind === 'state' ? o.state.value : 'value' in o.exit ? o.exit.value : undefined);

/** Which scores apply to a step with this real next, and whether `predicted` gets each right. */
function compare(truth: Outcome, predicted: Outcome | null): Partial<Record<Component, boolean>> {
  const p = predicted;
  const out: Partial<Record<Component, boolean>> = {
    exact:
      p !== null &&
      (truth.kind === 'state'
        ? p.kind === 'state' && sameState(p.state, truth.state)
        : p.kind === 'exit' && p.exit.kind === truth.exit.kind && valueOf(p) === valueOf(truth)),
    event: p !== null && eventOf(p) === eventOf(truth),
  };
  if (truth.kind === 'state') {
    out.line = p?.kind === 'state' && p.state.line === truth.state.line;
    out.locals = p?.kind === 'state' && sameLocals(p.state.locals, truth.state.locals);
  }
  if (valueOf(truth) !== undefined) out.value = p !== null && valueOf(p) === valueOf(truth);
  return out;
}

const truncateExit = (e: Exit): Exit => ('value' in e ? { ...e, value: truncateRepr(e.value) } : e);

/** The real next of step i, normalized as training data; null past the end of a cut trajectory. */
function truthAt(t: Trajectory, i: number): Outcome | null {
  const next = t.steps[i + 1];
  if (next) return { kind: 'state', state: truncateState(next.state) };
  if (!t.exit) return null;
  return { kind: 'exit', exit: truncateExit(t.exit) };
}

/** A prediction, normalized as the truth is (a delta frame takes its unchanged locals from the untruncated history). */
function outcomeOf(p: Prediction): Outcome {
  if (p.kind === 'state') return { kind: 'state', state: truncateState(p.state) };
  return { kind: 'exit', exit: truncateExit(p.exit) };
}

class Tally {
  private readonly counts = new Map<string, { steps: number; errors: number; impossible: number } & Record<Component, { n: number; match: number }>>();

  add(predictor: string, action: ActionKind, scores: Partial<Record<Component, boolean>>, error: boolean, impossible: boolean): void {
    for (const key of [`${predictor}\u0000all`, `${predictor}\u0000${action}`]) {
      const c = this.counts.get(key) ?? this.empty();
      this.counts.set(key, c);
      c.steps++;
      if (error) c.errors++;
      if (impossible) c.impossible++;
      for (const comp of COMPONENTS) {
        const hit = scores[comp];
        if (hit === undefined) continue;
        c[comp].n++;
        if (hit) c[comp].match++;
      }
    }
  }

  result(predictor: string, action: ActionKind | 'all'): StatesResult {
    const c = this.counts.get(`${predictor}\u0000${action}`) ?? this.empty();
    const score = ({ n, match }: { n: number; match: number }): Score => ({ n, match, rate: n === 0 ? null : match / n });
    return {
      predictor,
      action,
      steps: c.steps,
      errors: c.errors,
      impossible: c.impossible,
      exact: score(c.exact),
      event: score(c.event),
      line: score(c.line),
      locals: score(c.locals),
      value: score(c.value),
    };
  }

  private empty() {
    const zero = () => ({ n: 0, match: 0 });
    return { steps: 0, errors: 0, impossible: 0, exact: zero(), event: zero(), line: zero(), locals: zero(), value: zero() };
  }
}

/** The row's real run and its trajectories (one forward, one inverse), or why there are none. */
async function sampleRow(row: HeldoutRow, seed: number, policy: Policy): Promise<Trajectory[] | string> {
  let trace;
  try {
    trace = await traceSource(row.code, { entry: 'f', args: row.input, limits: TRACE_LIMITS });
  } catch (err) {
    if (err instanceof TraceFailure) return err.message;
    throw err;
  }
  if (trace.events.length === 0) return 'no traced events';
  const tree = new StateTree(trace);
  const rng = new Rng(seed).fork(row.id);
  return (['forward', 'inverse'] as const).map((d) => sampleTrajectory(tree, d, rng, { maxSteps: MAX_STEPS, policy }));
}

/** Every step of the trajectories, predicted from the true history and scored. */
async function scoreRow(
  row: HeldoutRow,
  trajectories: readonly Trajectory[],
  predictor: Predictor,
  flow: ProgramFlow | null,
  score: (action: ActionKind, scores: Partial<Record<Component, boolean>>, error: boolean, impossible: boolean) => void,
  failed: (err: unknown) => void,
  shown: (points: { values: ConfidencePoint[]; state: ConfidencePoint }) => void,
  missed?: (miss: Omit<StateMiss, 'predictor'>) => void,
): Promise<void> {
  // A start that fails (a program past the model's context) fails every step.
  let started = true;
  try {
    await predictor.start(row.code, { entry: 'f', args: row.input });
  } catch (err) {
    failed(err);
    started = false;
  }
  for (const t of trajectories) {
    for (let i = 0; i < t.steps.length; i++) {
      const truth = truthAt(t, i);
      if (!truth) continue;
      const action = t.steps[i]!.action;
      let predicted: Outcome | null = null;
      let prediction: Prediction | null = null;
      if (started) {
        try {
          prediction = await predictor.predict(t.steps.slice(0, i + 1), action);
          predicted = outcomeOf(prediction);
        } catch (err) {
          failed(err);
        }
      }
      const impossible = flow !== null && predicted !== null && (await impossibleMove(flow, t.direction, t.steps[i]!.state, action, predicted.kind === 'state' ? { state: predicted.state } : { exit: predicted.exit })) !== null;
      const scores = compare(truth, predicted);
      score(action.kind, scores, predicted === null, impossible);
      if (prediction?.origin === 'model' && predicted) shown(confidencePoints(prediction, predicted, truth, scores.exact === true));
      if (!scores.exact) missed?.({ id: row.id, direction: t.direction, step: i, action, before: t.steps[i]!.state, truth, predicted });
    }
  }
}

/** What a model prediction showed with a confidence, and whether each is right. */
function confidencePoints(prediction: Prediction, predicted: Outcome, truth: Outcome, exact: boolean): { values: ConfidencePoint[]; state: ConfidencePoint } {
  const values: ConfidencePoint[] = [];
  const { confidence } = prediction;
  if (prediction.kind === 'state' && predicted.kind === 'state') {
    for (const [name, c] of Object.entries(prediction.confidence.locals)) {
      values.push({ confidence: c, right: truth.kind === 'state' && truth.state.locals[name] === predicted.state.locals[name] });
    }
  }
  if (confidence.value !== undefined) values.push({ confidence: confidence.value, right: valueOf(truth) !== undefined && valueOf(truth) === valueOf(predicted) });
  return { values, state: { confidence: confidence.frame, right: exact } };
}

/** The row's control flow for the impossible-stop count; null when it cannot be read (the count then stays 0). */
async function programFlow(code: string): Promise<ProgramFlow | null> {
  const flow = await ControlFlow.of(code).catch(() => null);
  if (!flow) return null;
  const lines = sourceLines(code);
  return { flow, lines, names: FrameNames.ofProgram(lines) };
}

/** A step a predictor got wrong (or failed on: `predicted` null), for reading what goes wrong. */
export interface StateMiss {
  predictor: string;
  id: string;
  direction: Trajectory['direction'];
  /** The step's index in its trajectory. */
  step: number;
  action: Action;
  before: State;
  truth: Outcome;
  predicted: Outcome | null;
}

export interface EvaluateStatesOptions {
  seed?: number;
  /**
   * How trajectories are sampled (data-pipeline/trajectories.ts): the paper's mix (default),
   * `walk` (line by line, step_into and step_over or their inverses, as a user presses F10 and
   * F11), or `jumps`.
   */
  policy?: Policy;
  onProgress?: (done: number, total: number) => void;
  /** Called for every step a predictor does not get exactly right. */
  onMiss?: (miss: StateMiss) => void;
}

export async function evaluateStates(rows: readonly HeldoutRow[], predictors: readonly NamedPredictor[], opts: EvaluateStatesOptions = {}): Promise<StatesReport> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const policy = opts.policy ?? 'paper';
  const tally = new Tally();
  const skipped: StatesReport['skipped'] = [];
  const internalErrors: InternalError[] = [];
  const failed = (id: string, err: unknown) => {
    if (failureKind(err) === 'internal') internalErrors.push({ id, message: describeError(err) });
  };
  const shown = new Map<string, { values: ConfidencePoint[]; states: ConfidencePoint[] }>();
  const keepShown = (name: string) => (points: { values: ConfidencePoint[]; state: ConfidencePoint }) => {
    const kept = shown.get(name) ?? { values: [], states: [] };
    shown.set(name, kept);
    kept.values.push(...points.values);
    kept.states.push(points.state);
  };
  let traced = 0;
  let trajectories = 0;
  for (const [index, row] of rows.entries()) {
    const sampled = await sampleRow(row, seed, policy);
    if (typeof sampled === 'string') skipped.push({ id: row.id, reason: sampled });
    else {
      traced++;
      trajectories += sampled.length;
      const flow = await programFlow(row.code);
      for (const { name, predictor, probabilities } of predictors) {
        await scoreRow(row, sampled, predictor, flow, (action, scores, error, impossible) => tally.add(name, action, scores, error, impossible), (err) => failed(`${name} ${row.id}`, err), probabilities ? keepShown(name) : () => {}, opts.onMiss && ((miss) => opts.onMiss!({ predictor: name, ...miss })));
      }
    }
    opts.onProgress?.(index + 1, rows.length);
  }
  const results = predictors.flatMap(({ name }) => (['all', ...ACTION_KINDS] as const).map((a) => tally.result(name, a)));
  const bands = Object.fromEntries([...shown].map(([name, p]) => [name, { values: calibration(p.values), states: calibration(p.states) }]));
  return { seed, policy, programs: rows.length, traced, trajectories, skipped, results, calibration: bands, internalErrors };
}

const pct = (s: Score) => (s.rate === null ? '—' : `${(100 * s.rate).toFixed(1)}%`);

/** The report as a table: a block per predictor, a row per action. */
export function formatStates(report: StatesReport, labels: Readonly<Record<string, string>>): string {
  const header = `${'action'.padEnd(16)}${'steps'.padStart(7)}${COMPONENTS.map((c) => c.padStart(9)).join('')}${'errors'.padStart(8)}${'impossible'.padStart(12)}`;
  const lines = [
    `next-state prediction: ${report.traced} of ${report.programs} programs traced, ${report.trajectories} trajectories (seed ${report.seed}${report.policy === 'paper' ? '' : `, policy ${report.policy}`})`,
    ...report.skipped.map((s) => `  skipped ${s.id}: ${s.reason}`),
  ];
  for (const name of new Set(report.results.map((r) => r.predictor))) {
    lines.push('', labels[name] ?? name, header);
    for (const r of report.results.filter((x) => x.predictor === name)) {
      lines.push(`${r.action.padEnd(16)}${String(r.steps).padStart(7)}${COMPONENTS.map((c) => pct(r[c]).padStart(9)).join('')}${String(r.errors).padStart(8)}${String(r.impossible).padStart(12)}`);
    }
  }
  for (const [name, bands] of Object.entries(report.calibration)) {
    lines.push('', `calibration of ${labels[name] ?? name}:`);
    lines.push(`  each value written, by the confidence shown beside it — ${formatCalibration(bands.values)}`);
    lines.push(`  each next state, by its frame's confidence — ${formatCalibration(bands.states)}`);
  }
  if (report.internalErrors.length > 0) {
    lines.push('', `${report.internalErrors.length} predictions failed inside ndb (a bug; counted as errors), e.g.:`);
    for (const e of report.internalErrors.slice(0, 3)) lines.push(`  ${e.id}: ${e.message.slice(0, 200)}`);
  }
  return lines.join('\n') + '\n';
}
