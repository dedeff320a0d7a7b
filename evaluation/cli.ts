/**
 * `ndb eval ...`: make the held-out set, measure next-state prediction, run CruxEval's
 * tasks. cli/ndb.ts dispatches here and owns the one-line usage error (passed in as `usage`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ProgressBar } from '../cli/progress.js';
import { defaultModelDir, isPrecision, ModelFolderError, packageRoot, type Precision } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { PartialFrameDecoder } from '../model-client/partial-frame.js';
import { NextLineBaseline } from './baselines.js';
import { evaluateCruxEval, formatCruxEval } from './cruxeval.js';
import { makeHeldout, readHeldout } from './heldout.js';
import { evaluateStates, formatStates } from './states.js';
import { evaluateVerify, formatVerifyEval } from './verify-eval.js';

export const EVAL_USAGE = `  ndb eval make-heldout (--data DATASET_DIR | --real) --out FILE.jsonl [--limit N]
      Write a CruxEval-format held-out set (code, input, output, id), entry renamed to f,
      outputs confirmed by real Python: from a dataset's test split (synthetic programs), or
      with --real from the HumanEval and MBPP problems of the validation and test splits,
      which no build trains on (evaluation/heldout-real.jsonl).
  ndb eval states [--data FILE.jsonl] [--limit N] [--json] [--model DIR] [--precision fp32|int8]
      Next-state prediction on real runs of the held-out programs, per action and per
      component, for the model and the baseline (same locals, next line).
  ndb eval cruxeval --task output|input [--data FILE.jsonl] [--limit N] [--json] [--model DIR]
                    [--method breakpoint|step_return] [--precision fp32|int8] [--samples N]
      CruxEval's protocol with the neural debugger, checked by real Python; pass@1 for the
      model and a trivial baseline, and its calibration. --data defaults to
      evaluation/heldout.jsonl (evaluation/heldout-real.jsonl: real code), --method to
      breakpoint (the better output method), --model to models/default, --precision to fp32
      (int8: the model folder's int8 file); --samples N votes over N sampled frames per jump.
  ndb eval verify [--data FILE.jsonl] [--limit POOLS] [--k 4-8] [--cases N] [--seed S] [--json]
                  [--method breakpoint|step_return] [--model DIR] [--precision fp32|int8] [--samples N]
      The model as a verifier (ndb verify) on held-out HumanEval/MBPP problems: pools of the
      reference solution and mutants that really fail; per-case agreement of predicted and
      real verdicts, Best@k against a random choice and the oracle (real execution).
      --data defaults to evaluation/heldout-real.jsonl, --k to 5, --cases to 3.
`;

type UsageErrorFactory = (message: string) => Error;


const defaultData = () => join(packageRoot(), 'evaluation', 'heldout.jsonl');

function limitOf(value: string | undefined, usage: UsageErrorFactory): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usage(`--limit must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

async function loadRows(file: string | undefined, limit: number | undefined, usage: UsageErrorFactory) {
  const path = file ?? defaultData();
  if (!existsSync(path)) throw usage(`no such file: ${path}`);
  return (await readHeldout(path)).slice(0, limit);
}

function precisionOf(value: string | undefined, usage: UsageErrorFactory): Precision {
  if (value === undefined) return 'fp32';
  if (isPrecision(value)) return value;
  throw usage(`--precision must be fp32 or int8, got ${JSON.stringify(value)}`);
}

/** The model, on one intra-op thread: at this size a second one is no faster (README, fast stepping). */
async function loadModel(dir: string, precision: Precision, usage: UsageErrorFactory): Promise<NeuralPredictor> {
  try {
    return await NeuralPredictor.load(dir, { threads: 1, precision });
  } catch (err) {
    throw err instanceof ModelFolderError ? usage(err.message) : err;
  }
}

async function makeHeldoutCommand(argv: string[], usage: UsageErrorFactory): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { data: { type: 'string' }, out: { type: 'string' }, limit: { type: 'string' }, real: { type: 'boolean', default: false } } });
  if (!values.out || (values.data === undefined) === !values.real) {
    throw usage('usage: ndb eval make-heldout (--data DATASET_DIR | --real) --out FILE.jsonl [--limit N]');
  }
  if (values.data !== undefined && !existsSync(join(values.data, 'programs.jsonl'))) throw usage(`${values.data} is not a dataset folder (no programs.jsonl; see ndb data build)`);
  const limit = limitOf(values.limit, usage);
  const s = await makeHeldout({ out: values.out, ...(values.data === undefined ? {} : { data: values.data }), ...(limit === undefined ? {} : { limit }) });
  const dropped = Object.entries(s.dropped).map(([why, n]) => `${why} ${n}`).join(', ') || 'none';
  process.stdout.write(
    [
      `candidates    ${s.candidates} ${values.real ? 'HumanEval and MBPP calls of the validation and test splits' : 'test-split synthetic programs that returned normally'}`,
      `examined      ${s.examined}; left out: ${dropped}`,
      `rows          ${s.rows}, written to ${values.out}`,
    ].join('\n') + '\n',
  );
}

async function statesCommand(argv: string[], usage: UsageErrorFactory): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { data: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false }, model: { type: 'string' }, precision: { type: 'string' } },
  });
  const rows = await loadRows(values.data, limitOf(values.limit, usage), usage);
  const dir = values.model ?? defaultModelDir();
  const model = await loadModel(dir, precisionOf(values.precision, usage), usage);
  try {
    const bar = new ProgressBar('programs', rows.length);
    const report = await evaluateStates(
      rows,
      [
        { name: 'model', predictor: model },
        { name: 'baseline', predictor: new NextLineBaseline() },
      ],
      { onProgress: (done) => bar.update(done) },
    );
    const labels = { model: `model (${dir})`, baseline: 'baseline: same locals, next line' };
    process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, ...report }, null, 2) + '\n' : formatStates(report, labels));
  } finally {
    await model.release();
  }
}

async function cruxevalCommand(argv: string[], usage: UsageErrorFactory): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string' },
      task: { type: 'string' },
      method: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      model: { type: 'string' },
      precision: { type: 'string' },
      samples: { type: 'string' },
    },
  });
  const task = values.task;
  if (task !== 'output' && task !== 'input') throw usage('--task must be output or input');
  const method = values.method ?? 'breakpoint';
  if (method !== 'step_return' && method !== 'breakpoint') throw usage('--method must be step_return or breakpoint');
  if (values.method !== undefined && task === 'input') throw usage('--method applies to --task output only');
  const rows = await loadRows(values.data, limitOf(values.limit, usage), usage);
  const dir = values.model ?? defaultModelDir();
  const model = await loadModel(dir, precisionOf(values.precision, usage), usage);
  try {
    const frames = await PartialFrameDecoder.load(model, dir);
    const bar = new ProgressBar(`cruxeval ${task}`, rows.length);
    const samples = limitOf(values.samples, usage);
    const report = await evaluateCruxEval(rows, model, frames, { task, method, ...(samples === undefined ? {} : { samples }), onProgress: (done) => bar.update(done) });
    process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, ...report }, null, 2) + '\n' : formatCruxEval(report));
  } finally {
    await model.release();
  }
}

async function verifyEvalCommand(argv: string[], usage: UsageErrorFactory): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string' },
      limit: { type: 'string' },
      k: { type: 'string' },
      cases: { type: 'string' },
      seed: { type: 'string' },
      samples: { type: 'string' },
      method: { type: 'string' },
      json: { type: 'boolean', default: false },
      model: { type: 'string' },
      precision: { type: 'string' },
    },
  });
  const k = limitOf(values.k ?? '5', usage)!;
  if (k < 4 || k > 8) throw usage(`--k must be from 4 to 8, got ${k}`);
  const maxCases = limitOf(values.cases ?? '3', usage)!;
  const seed = Number(values.seed ?? '0');
  if (!Number.isInteger(seed)) throw usage(`--seed must be an integer, got ${JSON.stringify(values.seed)}`);
  const samples = limitOf(values.samples, usage);
  const method = values.method ?? 'breakpoint';
  if (method !== 'step_return' && method !== 'breakpoint') throw usage('--method must be step_return or breakpoint');
  const limit = limitOf(values.limit, usage);
  const rows = await loadRows(values.data ?? join(packageRoot(), 'evaluation', 'heldout-real.jsonl'), undefined, usage);
  const dir = values.model ?? defaultModelDir();
  const model = await loadModel(dir, precisionOf(values.precision, usage), usage);
  try {
    const bar = limit === undefined ? undefined : new ProgressBar('verify pools', limit);
    const report = await evaluateVerify(rows, model, { k, maxCases, seed, method, ...(limit === undefined ? {} : { limit }), ...(samples === undefined ? {} : { samples }), onProgress: (pools) => bar?.update(pools) });
    process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, ...report }, null, 2) + '\n' : formatVerifyEval(report));
  } finally {
    await model.release();
  }
}

export async function evalCommand(argv: string[], usage: UsageErrorFactory): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'make-heldout') return makeHeldoutCommand(rest, usage);
  if (sub === 'states') return statesCommand(rest, usage);
  if (sub === 'cruxeval') return cruxevalCommand(rest, usage);
  if (sub === 'verify') return verifyEvalCommand(rest, usage);
  throw usage(`unknown eval command ${JSON.stringify(sub ?? '')}; try: ndb eval states --limit 10`);
}
