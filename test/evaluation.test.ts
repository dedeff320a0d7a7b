/**
 * Evaluation: the committed held-out sets hold in real Python, the held-out maker's filters,
 * the states evaluation on the baseline (no model needed), and `ndb eval states` /
 * `ndb eval cruxeval` end to end on the model folder at models/default (or $NDB_TEST_MODEL;
 * skipped, saying so, without one). Only consistency is checked, never accuracy.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NextLineBaseline } from '../evaluation/baselines.js';
import { failureKind } from '../evaluation/failures.js';
import { NoPrediction } from '../model-client/call-outcome.js';
import { FrameBudgetError } from '../model-client/decode.js';
import { ContextOverflowError } from '../model-client/onnx-session.js';
import { CutError } from '../program-analysis/cut.js';
import { type Attempt, calibrationOf, type CruxReport, type CruxSummary } from '../evaluation/cruxeval.js';
import { makeHeldout, readHeldout, realPrograms, renameEntry } from '../evaluation/heldout.js';
import { packageCallsFile, stdlibCallsFile } from '../data-pipeline/corpora/module-calls.js';
import { splitOf } from '../data-pipeline/split.js';
import { checkRows } from '../evaluation/python-rows.js';
import { ACTION_KINDS, evaluateStates, type StateMiss, type StatesReport } from '../evaluation/states.js';
import { HAS_MODEL, MODEL_DIR, ROOT, warnWithoutModel } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const HELDOUT = join(ROOT, 'evaluation', 'heldout.jsonl');
const HELDOUT_REAL = join(ROOT, 'evaluation', 'heldout-real.jsonl');
const HELDOUT_MODULES = join(ROOT, 'evaluation', 'heldout-modules.jsonl');
warnWithoutModel('ndb eval tests');

function ndb(...args: string[]) {
  const r = spawnSync(process.execPath, [NDB, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the held-out set', () => {
  it('holds in real Python: f(input) == output for every row', async () => {
    const rows = await readHeldout(HELDOUT);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(300);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    for (const r of rows) expect(r.id).toMatch(/^synthetic\//);
    const checks = await checkRows(rows);
    const failed = rows.filter((_, i) => !(checks[i]!.ok && checks[i]!.passed)).map((r) => r.id);
    expect(failed).toEqual([]);
  });

  it('real code: 300+ HumanEval and MBPP calls, none from a training group, each holding in real Python', async () => {
    const rows = await readHeldout(HELDOUT_REAL);
    expect(rows.length).toBeGreaterThanOrEqual(300);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    for (const r of rows) {
      expect(r.id).toMatch(/^(humaneval|mbpp)\/\d+#\d+$/);
      expect(splitOf(r.id.split('#')[0]!), r.id).not.toBe('train');
    }
    // The file is what make-heldout --real writes today: every candidate call, no more.
    expect((await realPrograms()).map((c) => c.id).sort()).toEqual(rows.map((r) => r.id).sort());
    const checks = await checkRows(rows);
    expect(rows.filter((_, i) => !(checks[i]!.ok && checks[i]!.passed)).map((r) => r.id)).toEqual([]);
  });

  it('library modules: 200+ calls of modules no build trains on, each holding in real Python', async () => {
    const rows = await readHeldout(HELDOUT_MODULES);
    expect(rows.length).toBeGreaterThanOrEqual(200);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    // Modules the training corpora sample (their calls files), by top-level package.
    const trained = new Set<string>();
    for (const file of [stdlibCallsFile, packageCallsFile]) {
      for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) trained.add((JSON.parse(line) as { module: string }).module.split('.')[0]!);
    }
    for (const r of rows) {
      const [, origin, module] = /^(stdlib|packages|modules)\/([\w.]+?)\.\w+#\d+$/.exec(r.id) ?? [];
      expect(origin, r.id).toBeDefined();
      const top = module!.split('.')[0]!;
      if (origin === 'modules') expect(trained.has(top), r.id).toBe(false);
      else expect(splitOf(`${origin}/${top}`), r.id).not.toBe('train');
      expect(r.code, r.id).toMatch(/^def f\(/m);
    }
    const checks = await checkRows(rows);
    expect(rows.filter((_, i) => !(checks[i]!.ok && checks[i]!.passed)).map((r) => r.id)).toEqual([]);
  });

  it('renames the entry, not an f-string prefix or a method of the same name', () => {
    expect(renameEntry("def split(s):\n    return s.split(',') + [f'{s}']\n", 'split')).toBe("def f(s):\n    return s.split(',') + [f'{s}']\n");
    expect(renameEntry('def g(f):\n    return f\n', 'g')).toBeNull();
  });

  it('keeps test-split synthetic rows whose output reads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ndb-heldout-'));
    const program = (id: string, split: string, body: string, exit = 'normal') => ({ id, origin: 'synthetic', split, status: 'ok', exit, entry: 'g', args: '3', program: `def g(x):\n    ${body}\n` });
    const records = [
      program('synthetic/1', 'test', 'return [x, {x}]'),
      program('synthetic/2', 'train', 'return x'),
      program('synthetic/3', 'test', 'return object()'), // a repr that does not read back
      program('synthetic/4', 'test', "return float('nan')"), // repr nan: no such name in Python
      program('synthetic/5', 'test', 'return 1 / 0', 'error'),
    ];
    writeFileSync(join(dir, 'programs.jsonl'), records.map((r) => JSON.stringify(r) + '\n').join(''));
    const summary = await makeHeldout({ data: dir, out: join(dir, 'heldout.jsonl') });
    expect(summary).toMatchObject({ candidates: 3, rows: 1 });
    expect(await readHeldout(join(dir, 'heldout.jsonl'))).toEqual([{ code: 'def f(x):\n    return [x, {x}]\n', input: '3', output: '[3, {3}]', id: 'synthetic/1' }]);
  });
});

const COMPONENTS = ['exact', 'event', 'line', 'locals', 'value'] as const;

/** Every count adds up and every rate is a share. */
function expectConsistentStates(report: StatesReport, predictors: string[]): void {
  expect(report.traced + report.skipped.length).toBe(report.programs);
  for (const name of predictors) {
    const rows = report.results.filter((r) => r.predictor === name);
    expect(rows.map((r) => r.action)).toEqual(['all', ...ACTION_KINDS]);
    const [all, ...actions] = rows;
    expect(all!.steps).toBeGreaterThan(0);
    const sum = (f: (r: (typeof rows)[number]) => number) => actions.reduce((s, r) => s + f(r), 0);
    expect(sum((r) => r.steps)).toBe(all!.steps);
    expect(sum((r) => r.errors)).toBe(all!.errors);
    expect(sum((r) => r.impossible)).toBe(all!.impossible);
    for (const c of COMPONENTS) {
      expect(sum((r) => r[c].n)).toBe(all![c].n);
      expect(sum((r) => r[c].match)).toBe(all![c].match);
    }
    for (const r of rows) {
      expect(r.exact.n).toBe(r.steps);
      expect(r.event.n).toBe(r.steps);
      expect(r.locals.n).toBe(r.line.n);
      expect(r.line.n).toBeLessThanOrEqual(r.steps);
      expect(r.value.n).toBeLessThanOrEqual(r.steps);
      for (const c of COMPONENTS) {
        const s = r[c];
        expect(s.match).toBeGreaterThanOrEqual(0);
        expect(s.match).toBeLessThanOrEqual(s.n);
        if (s.n === 0) expect(s.rate).toBeNull();
        else expect(s.rate).toBeCloseTo(s.match / s.n, 12);
      }
    }
  }
}

function expectConsistentSummary(s: CruxSummary, attempts: { prediction: string | null; passed: boolean }[]): void {
  expect(s.total).toBe(attempts.length);
  expect(s.passed).toBe(attempts.filter((a) => a.passed).length);
  expect(s.noPrediction).toBe(attempts.filter((a) => a.prediction === null).length);
  expect(s.passAt1).toBeGreaterThanOrEqual(0);
  expect(s.passAt1).toBeLessThanOrEqual(1);
  expect(s.passAt1).toBeCloseTo(s.passed / s.total, 12);
  for (const a of attempts) if (a.prediction === null) expect(a.passed).toBe(false);
}

function expectConsistentCrux(report: CruxReport, task: 'output' | 'input', rows: number): void {
  expect(report.task).toBe(task);
  expect(report.items).toHaveLength(rows);
  expectConsistentSummary(report.model, report.items.map((i) => i.model));
  expectConsistentSummary(report.baseline, report.items.map((i) => i.baseline));
  expect(report.baseline.name).toBeTruthy();
}

describe('failure kinds', () => {
  it("counts the model's limits as its failures and anything else as ndb's", () => {
    expect(failureKind(new CutError('f alone takes 550 tokens, more than the 491 the model has'))).toBe('model');
    expect(failureKind(new ContextOverflowError(1100, 1024))).toBe('model');
    expect(failureKind(new FrameBudgetError(512, 'x'))).toBe('model');
    expect(failureKind(new NoPrediction('exit never'))).toBe('model');
    expect(failureKind(new TypeError('x is undefined'))).toBe('internal');
  });
});

describe('next-state evaluation', () => {
  it('scores the baseline with the same code (no model needed)', async () => {
    const rows = (await readHeldout(HELDOUT)).slice(0, 1);
    const report = await evaluateStates(rows, [{ name: 'baseline', predictor: new NextLineBaseline() }]);
    expect(report.trajectories).toBe(2);
    expectConsistentStates(report, ['baseline']);
    // A rule has no probabilities to band.
    expect(report.calibration).toEqual({});
  });

  it('walks line by line with --policy walk: step_into and step_over, forward and back, and no jump', async () => {
    const rows = (await readHeldout(HELDOUT_REAL)).slice(0, 4);
    const report = await evaluateStates(rows, [{ name: 'baseline', predictor: new NextLineBaseline() }], { policy: 'walk' });
    expect(report.policy).toBe('walk');
    const steps = (action: string) => report.results.find((r) => r.predictor === 'baseline' && r.action === action)!.steps;
    for (const jump of ['step_return', 'breakpoint', 'continue', 'inv_step_call']) expect(steps(jump), jump).toBe(0);
    expect(steps('step_into') + steps('step_over')).toBeGreaterThan(0);
    expect(steps('inv_step_into') + steps('inv_step_over')).toBeGreaterThan(0);
    expect(steps('all')).toBe(['step_into', 'step_over', 'inv_step_into', 'inv_step_over'].reduce((n, a) => n + steps(a), 0));
  });

  it('counts impossible stops: the next-line baseline makes some (real moves are never impossible: test/control-flow.test.ts)', async () => {
    const rows = (await readHeldout(HELDOUT_REAL)).slice(0, 6);
    const report = await evaluateStates(rows, [{ name: 'baseline', predictor: new NextLineBaseline() }]);
    const all = report.results.find((r) => r.predictor === 'baseline' && r.action === 'all')!;
    // The next line after a return or a loop's last line is often no line control can reach.
    expect(all.impossible).toBeGreaterThan(0);
    expect(all.impossible).toBeLessThanOrEqual(all.steps - all.errors);
  });

  it.skipIf(!HAS_MODEL)('ndb eval states --json --compare-unconstrained --misses: no impossible stop under the constraint, counts that add up, a miss line per wrong step', () => {
    const missFile = join(mkdtempSync(join(tmpdir(), 'ndb-misses-')), 'misses.jsonl');
    const r = ndb('eval', 'states', '--limit', '2', '--json', '--model', MODEL_DIR, '--compare-unconstrained', '--misses', missFile);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as StatesReport;
    expect(report.programs).toBe(2);
    expectConsistentStates(report, ['model', 'unconstrained', 'baseline']);
    for (const x of report.results.filter((x) => x.predictor === 'model')) expect(x.impossible, x.action).toBe(0);
    const model = report.results.find((x) => x.predictor === 'model' && x.action === 'all')!;
    // Calibration: every next state the model wrote is in one band, and the right ones are the exact ones.
    expect(Object.keys(report.calibration).sort()).toEqual(['model', 'unconstrained']);
    const states = report.calibration.model!.states;
    expect(states.map((b) => b.from)).toEqual([0.9, 0.5, 0]);
    expect(states.reduce((n, b) => n + b.predictions, 0)).toBe(model.steps - model.errors);
    expect(states.reduce((n, b) => n + b.passed, 0)).toBe(model.exact.match);
    const values = report.calibration.model!.values;
    expect(values.reduce((n, b) => n + b.predictions, 0)).toBeGreaterThan(0);
    for (const b of [...states, ...values]) {
      expect(b.passed).toBeLessThanOrEqual(b.predictions);
      if (b.meanConfidence !== null) expect(b.meanConfidence >= b.from && b.meanConfidence <= (b.from === 0.9 ? 1 : b.from === 0.5 ? 0.9 : 0.5)).toBe(true);
    }
    const misses = readFileSync(missFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as StateMiss);
    expect(misses).toHaveLength(model.steps - model.exact.match);
    for (const m of misses) {
      expect(m.predictor).toBe('model');
      expect(ACTION_KINDS).toContain(m.action.kind);
      expect(m.predicted).not.toEqual(m.truth);
    }
    rmSync(dirname(missFile), { recursive: true, force: true });
  });
});

describe.skipIf(!HAS_MODEL)('ndb eval cruxeval', () => {
  it('output task: JSON consistent, and the table ends with pass@1', () => {
    const r = ndb('eval', 'cruxeval', '--task', 'output', '--limit', '3', '--json', '--model', MODEL_DIR);
    expect(r.code, r.stderr).toBe(0);
    expectConsistentCrux(JSON.parse(r.stdout) as CruxReport, 'output', 3);
    const text = ndb('eval', 'cruxeval', '--task', 'output', '--limit', '1', '--method', 'breakpoint', '--model', MODEL_DIR);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.trimEnd().split('\n').pop()).toMatch(/^pass@1: \d+\.\d%$/);
    const stepped = ndb('eval', 'cruxeval', '--task', 'output', '--limit', '2', '--json', '--method', 'step_over', '--model', MODEL_DIR);
    expect(stepped.code, stepped.stderr).toBe(0);
    expectConsistentCrux(JSON.parse(stepped.stdout) as CruxReport, 'output', 2);
  });

  it("input task: JSON consistent; the forward check keeps the model's own answer, the output itself, or another answer of the model's that its run confirms", async () => {
    const r = ndb('eval', 'cruxeval', '--task', 'input', '--limit', '4', '--json', '--model', MODEL_DIR);
    expect(r.code, r.stderr).toBe(0);
    const checked = JSON.parse(r.stdout) as CruxReport;
    expectConsistentCrux(checked, 'input', 4);
    const plain = ndb('eval', 'cruxeval', '--task', 'input', '--limit', '4', '--json', '--model', MODEL_DIR, '--check', 'none');
    expect(plain.code, plain.stderr).toBe(0);
    const own = JSON.parse(plain.stdout) as CruxReport;
    const two = ndb('eval', 'cruxeval', '--task', 'input', '--limit', '4', '--json', '--model', MODEL_DIR, '--candidates', '0');
    expect(two.code, two.stderr).toBe(0);
    const ownOrOutput = JSON.parse(two.stdout) as CruxReport;
    const rows = (await readHeldout(HELDOUT)).slice(0, 4); // the default --data
    for (const [i, item] of checked.items.entries()) {
      const { prediction, answer } = item.model;
      if (prediction === null) continue;
      // Unchecked answers carry no record; checked ones say which they are.
      expect(own.items[i]!.model.answer).toBeUndefined();
      expect(answer).toBeDefined();
      // The model's own answer is the one shown unless another's run returned the output, or
      // none did and f takes the output as its only argument (shown without a confidence).
      if (answer!.source === 'likeliest') expect(prediction).toBe(own.items[i]!.model.prediction);
      else if (answer!.source !== 'output') expect(answer!.confirmed).toBe(true);
      if (answer!.source === 'output') expect(prediction).toBe(rows[i]!.output);
      if (answer!.source === 'output' && !answer!.confirmed) expect(item.model.confidence).toBeUndefined();
      else expect(item.model.confidence).toBeGreaterThan(0);
    }
    // Without drawn answers, only the model's own answer and the output are candidates.
    for (const item of ownOrOutput.items) expect(['likeliest', 'output', 'line', undefined]).toContain(item.model.answer?.source);
    const negative = ndb('eval', 'cruxeval', '--task', 'input', '--candidates', '-1', '--model', MODEL_DIR);
    expect(negative.code).not.toBe(0);
    expect(negative.stderr).toContain('--candidates must be a whole number');
    const outputTask = ndb('eval', 'cruxeval', '--task', 'output', '--candidates', '2', '--model', MODEL_DIR);
    expect(outputTask.code).not.toBe(0);
    expect(outputTask.stderr).toContain("--candidates applies to --task input's forward check only");
    const bad = ndb('eval', 'cruxeval', '--task', 'input', '--check', 'backward', '--model', MODEL_DIR);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--check must be forward or none');
  });
});

describe('calibration', () => {
  it('bands predictions by the confidence shown and counts the right ones', () => {
    const a = (confidence: number | undefined, passed: boolean): Attempt => ({ prediction: confidence === undefined ? null : 'x', passed, ...(confidence === undefined ? {} : { confidence }) });
    const bands = calibrationOf([a(0.99, true), a(0.95, false), a(0.9, true), a(0.7, true), a(0.2, false), a(undefined, false)]);
    expect(bands.map(({ meanConfidence, ...b }) => ({ ...b, meanConfidence: meanConfidence === null ? null : Number(meanConfidence.toFixed(4)) }))).toEqual([
      { from: 0.9, predictions: 3, passed: 2, meanConfidence: 0.9467 },
      { from: 0.5, predictions: 1, passed: 1, meanConfidence: 0.7 },
      { from: 0, predictions: 1, passed: 0, meanConfidence: 0.2 },
    ]);
  });
});

describe('ndb eval usage', () => {
  it('a bad flag is one line and exit code 2', () => {
    const r = ndb('eval', 'cruxeval', '--task', 'both');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('ndb: error: --task must be output or input');
  });

  it('make-heldout --modules only with --real', () => {
    const r = ndb('eval', 'make-heldout', '--modules', '--out', join(tmpdir(), 'ndb-never-written.jsonl'));
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('ndb: error: usage: ndb eval make-heldout (--data DATASET_DIR | --real [--modules]) --out FILE.jsonl [--limit N]');
  });
});
