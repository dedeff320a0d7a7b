/**
 * `ndb eval pdb`: ndb measured as users live it, stop by stop against the real pdb.
 *
 * The corpus (evaluation/pdb-corpus/, corpus.json) holds small programs of the kind people
 * debug, each with a fixed script of pdb commands (`s`, `n`, `r`, `c`, `b N`: set a
 * breakpoint at line N, continue to it, clear it). For each program:
 *
 *  1. The real pdb runs the script (`python3 -m pdb PROGRAM.py`, evaluation/pdb-driver.ts) and
 *     reports after every command where it stopped: event, line, function, stack, locals,
 *     return value or exception; or the program's end (finished, or an uncaught exception).
 *  2. ndb's debugger runtime (adapter/runtime.ts, what `ndb debug FILE` drives, at the
 *     module's top level, no prefetch) runs the same script on the predictor. Its first stop
 *     is the module's `call` event, which pdb never shows: one step into reaches the module's
 *     first line, where pdb starts (stop 0). Then each command in turn, on whatever ndb
 *     predicted before: there is no re-syncing after a divergence, as a user lives the
 *     predicted run. A command that fails (a prediction error) leaves ndb where it was.
 *  3. Re-synced: for each command, from the real states before it (pdb's, as the history),
 *     what the predictor predicts next, against pdb's next state (per-action next-state
 *     accuracy, as `ndb eval states` measures it on tracer runs).
 *
 * Compared per stop (stop 0 is the start, stop i the one after command i), on pdb's side:
 *   line right    ndb stopped on the same event, line and function
 *   state right   ... and every local is right (reprs as the tracer writes them, truncated
 *                 and address-masked as the model sees them; pdb's locals filtered as the
 *                 tracer filters them: no dunders, no modules, no hidden `.0`, and in a module
 *                 or class body no functions or classes)
 *   return right  at a `--Return--` stop: the line is right and so is the value
 * and per program: the end (the program finished, raised an uncaught exception of the same
 * type, or is still running after the last command) and the first divergence: the first stop
 * whose line is wrong (or whose end is: ndb ended where pdb did not, or the other way).
 *
 * Held-out programs are scored the same, but their report carries numbers only: never the
 * states ndb showed (no per-stop detail in --json, nothing in --misses), so that their
 * failures are not read and the programs stay held out.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Action, Exit, Frame, Locals, State } from '../grammar/state.js';
import { truncateLocals, truncateRepr, truncateState } from '../grammar/truncate.js';
import { NeuralRuntime, RuntimeError } from '../adapter/runtime.js';
import { packageRoot } from '../model-client/model-folder.js';
import type { HistoryEntry, Prediction, Predictor } from '../model-client/predictor.js';
import { sourceLines } from '../python/source.js';
import { describeError, failureKind, type InternalError } from './failures.js';
import { type ObservedScenario, observePdb, type PdbCommand, type PdbObservation } from './pdb-driver.js';

// ---- the corpus ---------------------------------------------------------------------------------

export const SPLITS = ['dev', 'heldout'] as const;
export type Split = (typeof SPLITS)[number];

/** A command of a script as a user types it: s, n, r, c, or `b N`. */
const ScriptCommandSchema = z.string().regex(/^(s|n|r|c|b [1-9]\d*)$/, 'a command is s, n, r, c or "b LINE"');

export const CorpusProgramSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]*$/),
    file: z.string().regex(/^[a-z][a-z0-9_]*\.py$/),
    split: z.enum(SPLITS),
    /** The uncaught exception the script ends in, if it does (its type's name). */
    raises: z.string().regex(/^[A-Za-z_]\w*$/).optional(),
    commands: z.array(ScriptCommandSchema).min(12).max(30),
  })
  .strict();

export const CorpusSchema = z
  .object({ programs: z.array(CorpusProgramSchema).min(1) })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    for (const p of c.programs) {
      if (seen.has(p.name)) ctx.addIssue({ code: 'custom', message: `the program name ${p.name} is used twice` });
      seen.add(p.name);
    }
  });

export type CorpusEntry = z.infer<typeof CorpusProgramSchema>;

export interface CorpusProgram extends CorpusEntry {
  /** The program file, absolute. */
  path: string;
}

export function defaultCorpusDir(): string {
  return join(packageRoot(), 'evaluation', 'pdb-corpus');
}

export class CorpusFileError extends Error {}

/** The corpus's programs, checked (corpus.json in `dir`). */
export function readCorpus(dir = defaultCorpusDir()): CorpusProgram[] {
  const file = join(dir, 'corpus.json');
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CorpusFileError(`${file}: ${(err as Error).message}`);
  }
  const parsed = CorpusSchema.safeParse(json);
  if (!parsed.success) throw new CorpusFileError(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data.programs.map((p) => ({ ...p, path: resolve(dir, p.file) }));
}

/** A script command as the driver takes it. */
export function pdbCommandOf(command: string): PdbCommand {
  switch (command) {
    case 's':
      return 'step';
    case 'n':
      return 'next';
    case 'r':
      return 'return';
    case 'c':
      return 'continue';
  }
  const m = /^b ([1-9]\d*)$/.exec(command);
  if (!m) throw new Error(`not a script command: ${JSON.stringify(command)}`);
  return `break ${Number(m[1])}`;
}

/** The forward action the predictor is asked for (pdb's `b N` + continue is ndb's breakpoint(N)). */
function actionOf(command: string, lines: readonly string[]): Action {
  switch (command) {
    case 's':
      return { kind: 'step_into' };
    case 'n':
      return { kind: 'step_over' };
    case 'r':
      return { kind: 'step_return' };
    case 'c':
      return { kind: 'continue' };
  }
  const line = Number(command.slice(2));
  return { kind: 'breakpoint', line, source: lines[line - 1] ?? '' };
}

// ---- views: what each debugger shows ------------------------------------------------------------

/** How a run ends: `running` when it has not ended after the last command. */
export type EndView = { kind: 'normal' } | { kind: 'error'; type: string } | { kind: 'never' } | { kind: 'running' };

export type StopView =
  | { at: 'stop'; event: State['event']; line: number; function: string; stack: Frame[]; locals: Locals; value?: string }
  | { at: 'end'; end: EndView }
  /** pdb in a frame outside the program (library code); the scripts never lead there. */
  | { at: 'outside'; file: string; line: number; function: string }
  /** ndb's command failed (a prediction error): it stays where it was. */
  | { at: 'error'; message: string };

/** The exception's type from its repr: `ValueError('x')` -> ValueError. */
function exceptionType(repr: string | undefined): string {
  return /^([\w.]+)/.exec(repr ?? '')?.[1] ?? '?';
}

function endOfExit(exit: Exit): EndView {
  if (exit.kind === 'normal') return { kind: 'normal' };
  if (exit.kind === 'error') return { kind: 'error', type: exceptionType(exit.value) };
  return { kind: 'never' };
}

/** pdb's runner: a stop there means the module has returned. */
const PDB_RUNNER = /^<string>$|\/bdb\.py$/;

/** The classes of the program: their bodies are namespaces, whose locals the tracer keeps as a module's. */
function classNames(lines: readonly string[]): Set<string> {
  return new Set(lines.flatMap((l) => /^\s*class\s+([A-Za-z_]\w*)/.exec(l)?.[1] ?? []));
}

/** What pdb showed, as the tracer would record it (see the file comment). */
export function pdbView(obs: PdbObservation, classes: ReadonlySet<string>): StopView {
  if (obs.at === 'exit') return { at: 'end', end: obs.kind === 'normal' ? { kind: 'normal' } : { kind: 'error', type: exceptionType(obs.value) } };
  if (obs.at === 'outside') return PDB_RUNNER.test(obs.file) ? { at: 'end', end: { kind: 'normal' } } : { ...obs };
  const namespace = obs.function === '<module>' || classes.has(obs.function);
  const locals: Locals = {};
  for (const l of obs.locals) {
    if (l.name.startsWith('__') || !/^[A-Za-z_]\w*$/.test(l.name) || l.kind === 'module') continue;
    if (namespace && l.kind === 'def') continue;
    locals[l.name] = l.repr;
  }
  return {
    at: 'stop',
    event: obs.event,
    line: obs.line,
    function: obs.function,
    stack: obs.stack.map((f) => ({ function: f.function, line: f.line })),
    locals: truncateLocals(locals),
    ...(obs.value === undefined ? {} : { value: truncateRepr(obs.value) }),
  };
}

function stateView(s: State): StopView {
  return {
    at: 'stop',
    event: s.event,
    line: s.line,
    function: s.stack[s.stack.length - 1]!.function,
    stack: s.stack,
    locals: truncateLocals(s.locals),
    ...(s.value === undefined ? {} : { value: truncateRepr(s.value) }),
  };
}

/** What ndb's runtime shows now. */
function runtimeView(runtime: NeuralRuntime): StopView {
  const end = runtime.ended;
  if (end) return { at: 'end', end: endOfExit(end.exit) };
  const stop = runtime.current;
  if (!stop) return { at: 'end', end: { kind: 'never' } };
  return stateView(stop.state);
}

/** The state pdb showed, as a history entry for the predictor. */
function stateOf(view: StopView & { at: 'stop' }, lines: readonly string[]): State {
  return truncateState({
    event: view.event,
    line: view.line,
    source: lines[view.line - 1] ?? '',
    stack: view.stack,
    locals: view.locals,
    ...(view.value === undefined ? {} : { value: view.value }),
  });
}

const sameLocals = (a: Locals, b: Locals) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
const sameStack = (a: readonly Frame[], b: readonly Frame[]) => a.length === b.length && a.every((f, i) => f.function === b[i]!.function && f.line === b[i]!.line);
const sameEnd = (a: EndView, b: EndView) => a.kind === b.kind && (a.kind !== 'error' || a.type === (b as { type: string }).type);

export interface StopScore {
  /** Event, line and function. */
  line: boolean;
  /** ... and every local. */
  state: boolean;
  /** ... and the stack and the value too: everything pdb showed. */
  exact: boolean;
}

/** How `ndb` compares with `pdb` at one stop (where pdb has ended: whether ndb has, the same way). */
export function scoreStop(pdb: StopView, ndb: StopView): StopScore {
  if (pdb.at === 'end') {
    const same = endMatches(pdb, ndb);
    return { line: same, state: same, exact: same };
  }
  if (pdb.at !== 'stop' || ndb.at !== 'stop') return { line: false, state: false, exact: false };
  const line = pdb.event === ndb.event && pdb.line === ndb.line && pdb.function === ndb.function;
  const state = line && sameLocals(pdb.locals, ndb.locals);
  return { line, state, exact: state && sameStack(pdb.stack, ndb.stack) && pdb.value === ndb.value };
}

/** Where pdb has ended (or is outside the program), whether ndb agrees. */
function endMatches(pdb: StopView, ndb: StopView): boolean {
  return pdb.at === 'end' && ndb.at === 'end' && sameEnd(pdb.end, ndb.end);
}

function finalEnd(view: StopView | undefined): EndView {
  return view?.at === 'end' ? view.end : { kind: 'running' };
}

// ---- running the two sides ----------------------------------------------------------------------

/** pdb's stops for a program: stop 0 is where pdb starts, stop i the one after command i. */
export async function observeProgram(program: CorpusProgram): Promise<ObservedScenario> {
  const [observed] = await observePdb(program.path, [program.commands.map(pdbCommandOf)]);
  return observed!;
}

/** A command that failed: a stop no pdb shows; a bug of ndb's (not the model's failure, not a refusal) is listed too. */
function failure(err: unknown, errors: InternalError[], id: string): StopView {
  if (failureKind(err) === 'internal' && !(err instanceof RuntimeError)) errors.push({ id, message: describeError(err) });
  return { at: 'error', message: describeError(err) };
}

/** ndb's stops for the script, without re-syncing: each command runs where ndb's own run stands. */
export async function runNdb(program: CorpusProgram, predictor: Predictor, errors: InternalError[] = []): Promise<StopView[]> {
  const runtime = new NeuralRuntime(predictor);
  const views: StopView[] = [];
  const act = async (index: number, command: () => Promise<unknown>) => {
    try {
      await command();
      views.push(runtimeView(runtime));
    } catch (err) {
      views.push(failure(err, errors, `${program.name} stop ${index}`));
    }
  };
  try {
    try {
      await runtime.launch({ program: program.path, prefetch: false });
    } catch (err) {
      const failed = failure(err, errors, `${program.name} launch`);
      return [failed, ...program.commands.map(() => failed)];
    }
    // ndb starts at the module's call event; pdb at the module's first line, one step on.
    await act(0, () => (runtime.ended ? Promise.resolve() : runtime.stepIn()));
    for (const [i, command] of program.commands.entries()) {
      await act(i + 1, async () => {
        switch (command) {
          case 's':
            return runtime.stepIn();
          case 'n':
            return runtime.stepOver();
          case 'r':
            return runtime.stepOut();
          case 'c':
            return runtime.continue();
        }
        // `b N`: set, continue, clear (as the driver does with pdb).
        const line = Number(command.slice(2));
        const [view] = await runtime.setBreakpoints([line]);
        if (!view?.verified) throw new RuntimeError(view?.message ?? `no breakpoint at line ${line}`);
        try {
          return await runtime.continue();
        } finally {
          await runtime.setBreakpoints([]);
        }
      });
    }
    return views;
  } finally {
    await runtime.close();
  }
}

/** One re-synced step: from pdb's history, the predictor's next state against pdb's. */
export interface ResyncStep {
  /** The step's stop index (0: from the module's call to pdb's first stop). */
  stop: number;
  command: string;
  exact: boolean;
  line: boolean;
  predicted: StopView;
}

function predictionView(p: Prediction): StopView {
  return p.kind === 'exit' ? { at: 'end', end: endOfExit(p.exit) } : stateView(p.state);
}

/**
 * Per action, re-synced: the history is pdb's (the module's call, then every stop pdb showed),
 * and each next state is predicted from it. Stops where pdb has ended (the last one, if any).
 */
export async function resyncProgram(program: CorpusProgram, pdb: readonly StopView[], predictor: Predictor, errors: InternalError[] = []): Promise<ResyncStep[]> {
  const source = readFileSync(program.path, 'utf8');
  const lines = sourceLines(source);
  let start: Prediction;
  try {
    start = await predictor.start(source, null);
  } catch (err) {
    failure(err, errors, `${program.name} resync start`);
    return [];
  }
  if (start.kind !== 'state') return [];
  const history: HistoryEntry[] = [{ state: start.state }];
  const commands = ['(start)', ...program.commands];
  const steps: ResyncStep[] = [];
  for (const [i, truth] of pdb.entries()) {
    const command = commands[i]!;
    const action: Action = i === 0 ? { kind: 'step_into' } : actionOf(command, lines);
    history[history.length - 1]!.action = action;
    let predicted: StopView;
    try {
      predicted = predictionView(await predictor.predict(history, action));
    } catch (err) {
      predicted = failure(err, errors, `${program.name} resync ${i}`);
    }
    const score = scoreStop(truth, predicted);
    steps.push({ stop: i, command, exact: score.exact, line: score.line, predicted });
    if (truth.at !== 'stop') break;
    history.push({ state: stateOf(truth, lines) });
  }
  return steps;
}

// ---- scoring --------------------------------------------------------------------------------------

export interface Count {
  n: number;
  right: number;
}

export interface StopDetail {
  stop: number;
  command: string;
  pdb: StopView;
  ndb: StopView;
  score: StopScore;
}

export interface ProgramResult {
  name: string;
  split: Split;
  commands: number;
  /** Stops where pdb stood in the program (stop 0 included). */
  stops: number;
  lineRight: number;
  stateRight: number;
  exactRight: number;
  /** pdb's `--Return--` stops, and those where ndb showed the same line and value. */
  returns: Count;
  end: { pdb: EndView; ndb: EndView; right: boolean };
  /** The first stop whose line (or end) is wrong; null: none. */
  firstDivergence: number | null;
  /** The first stop where anything ndb shows differs (line, locals, stack, value, end); null: none. */
  firstWrongState: number | null;
  /** Re-synced next-state prediction (from pdb's history, each step). */
  resync: { steps: number; exact: number; line: number };
  seconds: number;
  /** Why the program could not be scored (pdb failed on it). */
  error?: string;
  /** Dev programs only: every stop, both sides. */
  detail?: StopDetail[];
  /** Dev programs only: the re-synced steps ndb got wrong. */
  resyncMisses?: (ResyncStep & { truth: StopView })[];
}

/** Scores one program from both sides' stops. */
export function scoreProgram(program: CorpusProgram, pdb: readonly StopView[], ndb: readonly StopView[], resync: readonly ResyncStep[], seconds: number): ProgramResult {
  const commands = ['(start)', ...program.commands];
  const detail: StopDetail[] = pdb.map((p, i) => ({ stop: i, command: commands[i]!, pdb: p, ndb: ndb[i]!, score: scoreStop(p, ndb[i]!) }));
  let stops = 0;
  let lineRight = 0;
  let stateRight = 0;
  let exactRight = 0;
  const returns: Count = { n: 0, right: 0 };
  let firstDivergence: number | null = null;
  let firstWrongState: number | null = null;
  for (const d of detail) {
    const isStop = d.pdb.at === 'stop';
    if (isStop) {
      stops++;
      if (d.score.line) lineRight++;
      if (d.score.state) stateRight++;
      if (d.score.exact) exactRight++;
      if (d.pdb.at === 'stop' && d.pdb.event === 'return') {
        returns.n++;
        if (d.score.line && d.ndb.at === 'stop' && d.ndb.value === d.pdb.value) returns.right++;
      }
    }
    if (!d.score.line && firstDivergence === null) firstDivergence = d.stop;
    if (!d.score.exact && firstWrongState === null) firstWrongState = d.stop;
  }
  const pdbEnd = finalEnd(pdb[pdb.length - 1]);
  const ndbEnd = finalEnd(ndb[ndb.length - 1]);
  const result: ProgramResult = {
    name: program.name,
    split: program.split,
    commands: program.commands.length,
    stops,
    lineRight,
    stateRight,
    exactRight,
    returns,
    end: { pdb: pdbEnd, ndb: ndbEnd, right: sameEnd(pdbEnd, ndbEnd) },
    firstDivergence,
    firstWrongState,
    resync: { steps: resync.length, exact: resync.filter((s) => s.exact).length, line: resync.filter((s) => s.line).length },
    seconds,
  };
  if (program.split === 'dev') {
    result.detail = detail;
    result.resyncMisses = resync.filter((s) => !s.exact).map((s) => ({ ...s, truth: pdb[s.stop]! }));
  }
  return result;
}

export interface SplitTotals {
  programs: number;
  /** Programs pdb failed on (not scored). */
  failed: number;
  stops: number;
  lineRight: number;
  stateRight: number;
  exactRight: number;
  returns: Count;
  ends: Count;
  /** Lower median of the first divergence over the programs; null: the median program never diverged. */
  firstDivergenceMedian: number | null;
  /** Programs that never diverged. */
  neverDiverged: number;
  firstWrongStateMedian: number | null;
  resync: { steps: number; exact: number; line: number };
}

/** The lower median, a null (never) counting as past every number; null when that is where it falls. */
function lowerMedian(values: readonly (number | null)[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => (a === null ? 1 : b === null ? -1 : a - b));
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? null;
}

export function totalsOf(results: readonly ProgramResult[]): SplitTotals {
  const scored = results.filter((r) => r.error === undefined);
  const sum = (f: (r: ProgramResult) => number) => scored.reduce((s, r) => s + f(r), 0);
  return {
    programs: results.length,
    failed: results.length - scored.length,
    stops: sum((r) => r.stops),
    lineRight: sum((r) => r.lineRight),
    stateRight: sum((r) => r.stateRight),
    exactRight: sum((r) => r.exactRight),
    returns: { n: sum((r) => r.returns.n), right: sum((r) => r.returns.right) },
    ends: { n: scored.length, right: scored.filter((r) => r.end.right).length },
    firstDivergenceMedian: lowerMedian(scored.map((r) => r.firstDivergence)),
    neverDiverged: scored.filter((r) => r.firstDivergence === null).length,
    firstWrongStateMedian: lowerMedian(scored.map((r) => r.firstWrongState)),
    resync: { steps: sum((r) => r.resync.steps), exact: sum((r) => r.resync.exact), line: sum((r) => r.resync.line) },
  };
}

export interface PdbEvalReport {
  corpus: string;
  split: Split | 'all';
  /** Per split evaluated, and `all` when both were. */
  totals: Partial<Record<Split | 'all', SplitTotals>>;
  programs: ProgramResult[];
  /** Predictions that failed inside ndb on dev programs (a bug; each counted as a wrong stop). */
  internalErrors: InternalError[];
  /** How many failed so on held-out programs (where, and how, is not said). */
  heldoutInternalErrors: number;
  seconds: number;
}

export interface EvaluatePdbOptions {
  onProgress?: (done: number, total: number) => void;
  /** Also re-synced per-action prediction (default true). */
  resync?: boolean;
}

/** Runs pdb and ndb on each program and scores them. */
export async function evaluatePdb(programs: readonly CorpusProgram[], predictor: Predictor, split: Split | 'all', opts: EvaluatePdbOptions = {}): Promise<PdbEvalReport> {
  const started = performance.now();
  const internalErrors: InternalError[] = [];
  let heldoutInternalErrors = 0;
  const results: ProgramResult[] = [];
  for (const [index, program] of programs.entries()) {
    const t0 = performance.now();
    let pdb: StopView[];
    try {
      const observed = await observeProgram(program);
      const classes = classNames(sourceLines(readFileSync(program.path, 'utf8')));
      pdb = [observed.start, ...observed.after].map((o) => pdbView(o, classes));
    } catch (err) {
      results.push({ ...scoreProgram(program, [], [], [], 0), error: `pdb: ${describeError(err).split('\n')[0]}` });
      opts.onProgress?.(index + 1, programs.length);
      continue;
    }
    const errors: InternalError[] = [];
    const ndb = await runNdb(program, predictor, errors);
    const resync = opts.resync === false ? [] : await resyncProgram(program, pdb, predictor, errors);
    if (program.split === 'dev') internalErrors.push(...errors);
    else heldoutInternalErrors += errors.length;
    results.push(scoreProgram(program, pdb, ndb, resync, (performance.now() - t0) / 1000));
    opts.onProgress?.(index + 1, programs.length);
  }
  const totals: PdbEvalReport['totals'] = {};
  for (const s of SPLITS) {
    const of = results.filter((r) => r.split === s);
    if (of.length > 0) totals[s] = totalsOf(of);
  }
  if (split === 'all') totals.all = totalsOf(results);
  const corpus = programs[0] ? dirname(programs[0].path) : '';
  return { corpus, split, totals, programs: results, internalErrors, heldoutInternalErrors, seconds: (performance.now() - started) / 1000 };
}

// ---- the report -------------------------------------------------------------------------------------

const pct = (right: number, n: number) => (n === 0 ? '—' : `${((100 * right) / n).toFixed(1)}%`);
const ratio = (c: Count) => `${c.right}/${c.n}`;
const median = (m: number | null) => (m === null ? 'never' : String(m));

/** The report as tables: one row per split, then the dev programs one by one. */
export function formatPdbEval(report: PdbEvalReport, label: string): string {
  const columns = ['programs', 'stops', 'line', 'line+locals', 'returns', 'ends', 'diverges at', 'resync exact', 'resync line'];
  const widths = [9, 7, 9, 12, 10, 8, 12, 13, 12];
  const row = (name: string, cells: string[]) => name.padEnd(9) + cells.map((c, i) => c.padStart(widths[i]!)).join('');
  const lines = [
    `ndb eval pdb: ${label}, ${report.programs.length} programs of ${report.corpus}, ${report.seconds.toFixed(0)} s`,
    '',
    row('split', columns),
  ];
  for (const split of [...SPLITS, 'all'] as const) {
    const t = report.totals[split];
    if (!t) continue;
    lines.push(
      row(split, [
        String(t.programs - t.failed) + (t.failed ? `(-${t.failed})` : ''),
        String(t.stops),
        pct(t.lineRight, t.stops),
        pct(t.stateRight, t.stops),
        ratio(t.returns),
        ratio(t.ends),
        median(t.firstDivergenceMedian),
        pct(t.resync.exact, t.resync.steps),
        pct(t.resync.line, t.resync.steps),
      ]),
    );
  }
  lines.push(
    '',
    'line: ndb stops on the same event, line and function as pdb, the script run on its own predictions (no re-syncing);',
    'line+locals: and every local is right; returns: --Return-- stops with the right value; ends: the program finished,',
    "raised the same exception, or runs on, as pdb's; diverges at: the first stop whose line is wrong (lower median over",
    'the programs, stop 0 is the start); resync: each command predicted from the real history (pdb\'s), exact next state and line.',
  );
  const dev = report.programs.filter((r) => r.split === 'dev');
  if (dev.length > 0) {
    lines.push('', 'dev programs:', `${'program'.padEnd(20)}${'stops'.padStart(6)}${'line'.padStart(7)}${'locals'.padStart(8)}${'diverges at'.padStart(13)}${'end pdb/ndb'.padStart(24)}`);
    for (const r of dev) {
      if (r.error !== undefined) {
        lines.push(`${r.name.padEnd(20)}  not scored: ${r.error}`);
        continue;
      }
      const end = (e: EndView) => (e.kind === 'error' ? e.type : e.kind);
      lines.push(
        `${r.name.padEnd(20)}${String(r.stops).padStart(6)}${String(r.lineRight).padStart(7)}${String(r.stateRight).padStart(8)}${(r.firstDivergence === null ? 'never' : String(r.firstDivergence)).padStart(13)}${`${end(r.end.pdb)}/${end(r.end.ndb)}`.padStart(24)}`,
      );
    }
  }
  const failed = report.programs.filter((r) => r.split === 'heldout' && r.error !== undefined).length;
  if (failed > 0) lines.push('', `${failed} held-out programs could not be scored (pdb failed on them)`);
  if (report.internalErrors.length > 0) {
    lines.push('', `${report.internalErrors.length} predictions failed inside ndb on dev programs (a bug; counted as wrong stops), e.g.:`);
    for (const e of report.internalErrors.slice(0, 3)) lines.push(`  ${e.id}: ${e.message.slice(0, 200)}`);
  }
  if (report.heldoutInternalErrors > 0) lines.push('', `${report.heldoutInternalErrors} predictions failed inside ndb on held-out programs (a bug; counted as wrong stops)`);
  return lines.join('\n') + '\n';
}

/** The dev programs' misses, one JSON object a line: the first divergence, and each re-synced step missed. Held-out programs never appear. */
export function missLines(report: PdbEvalReport): string[] {
  const out: string[] = [];
  for (const r of report.programs) {
    if (r.split !== 'dev' || !r.detail) continue;
    const first = r.firstWrongState === null ? undefined : r.detail[r.firstWrongState];
    if (first) out.push(JSON.stringify({ program: r.name, kind: 'first-wrong-stop', ...first }));
    for (const m of r.resyncMisses ?? []) out.push(JSON.stringify({ program: r.name, kind: 'resync', ...m }));
  }
  return out;
}
