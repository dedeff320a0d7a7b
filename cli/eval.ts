/**
 * `ndb eval ...`: make the held-out set, measure next-state prediction, run CruxEval's
 * tasks. Each subcommand's flags are declared here (cli/command-line.ts); cli/ndb.ts adds
 * them and owns the one-line usage error (passed in as `usage`). The measuring is
 * evaluation/'s; this file is only its command line, so evaluation/ never imports cli/.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineCommand, type FlagSpecs, type Parsed, type UsageErrorFactory } from './command-line.js';
import { requireDatasetFiles } from '../data-pipeline/data-input.js';
import { isPolicy, POLICIES } from '../data-pipeline/trajectories.js';
import { ProgressBar } from '../util/progress.js';
import { defaultModelDir, isPrecision, ModelFolderError, packageRoot, type Precision } from '../model-client/model-folder.js';
import { isOutputMethod, OUTPUT_METHODS } from '../model-client/call-outcome.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { ROLLOUT_STEPS } from '../model-client/rollout.js';
import { PartialFrameDecoder } from '../model-client/partial-frame.js';
import { NextLineBaseline } from '../evaluation/baselines.js';
import { evaluateCruxEval, formatCruxEval } from '../evaluation/cruxeval.js';
import { INPUT_CANDIDATES } from '../model-client/input-prediction.js';
import { HeldoutFileError, makeHeldout, readHeldout } from '../evaluation/heldout.js';
import { evaluateStates, formatStates, type StateMiss } from '../evaluation/states.js';
import { evaluateVerify, formatVerifyEval, modelJudge } from '../evaluation/verify-eval.js';
import { mcpJudge } from '../evaluation/verify-mcp.js';
import { CorpusFileError, defaultCorpusDir, evaluatePdb, formatPdbEval, missLines, readCorpus, SPLITS, type Split } from '../evaluation/pdb-eval.js';
import { defaultEnvCorpusDir, evaluateEnvironment, formatEnvEval } from '../evaluation/env-eval.js';
import { VERIFY_METHOD } from '../evaluation/verify.js';
import { ALL_RULES, NO_RULES, parseRuleSelection, RULE_FAMILIES, type RuleSelection } from '../semantics/rule.js';
import { commandOf, END, figuresTable, MarkerError, readReports, reportFile, tableBetweenMarkers, withTable, type EvalName } from './figures.js';



const defaultData = () => join(packageRoot(), 'evaluation', 'heldout.jsonl');

function limitOf(value: string | undefined, usage: UsageErrorFactory, flag = '--limit'): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usage(`${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

function countOf(value: string | undefined, usage: UsageErrorFactory, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw usage(`${flag} must be a whole number (0 or more), got ${JSON.stringify(value)}`);
  return n;
}

async function loadRows(file: string | undefined, limit: number | undefined, usage: UsageErrorFactory) {
  const path = file ?? defaultData();
  if (!existsSync(path)) throw usage(`no such file: ${path}`);
  try {
    return (await readHeldout(path)).slice(0, limit);
  } catch (err) {
    throw err instanceof HeldoutFileError ? usage(err.message) : err;
  }
}

function precisionOf(value: string | undefined, usage: UsageErrorFactory): Precision {
  if (value === undefined) return 'fp32';
  if (isPrecision(value)) return value;
  throw usage(`--precision must be fp32 or int8, got ${JSON.stringify(value)}`);
}

/** `--report FILE`: the report as JSON, with its command and commit, for `ndb eval tables` (cli/figures.ts). */
const REPORT_FLAG = { type: 'string', value: 'FILE.json', description: 'also write the report as JSON to FILE, with the command and the commit it ran at (ndb eval tables reads reports/*.json)' } as const;

/** Where `ndb eval tables` looks for reports by default: reports/ at the package root (gitignored). */
const defaultReportsDir = () => join(packageRoot(), 'reports');

/** Fails now, not after an hour of evaluation, when the report cannot be written. */
function checkReportPath(file: string | undefined): void {
  if (file !== undefined) writeFileSync(file, '');
}

function writeReport(file: string | undefined, evalName: EvalName, flags: object, values: Record<string, unknown>, modelDir: string, report: unknown): void {
  if (file === undefined) return;
  const command = commandOf(evalName, Object.keys(flags), values, packageRoot());
  writeFileSync(file, JSON.stringify(reportFile(evalName, command, modelDir, report, packageRoot()), null, 2) + '\n');
}

/** `--rules`: which of the symbolic stepper's rule families decode with the model (semantics/rule.ts). */
const RULES_FLAG = {
  type: 'string',
  value: 'all|none|LIST',
  description: `the symbolic stepper's rules the model decodes with (default all; none: the grammar alone; or a comma-separated list of ${RULE_FAMILIES.join(', ')})`,
} as const;

function rulesOf(value: string | undefined, usage: UsageErrorFactory): RuleSelection {
  if (value === undefined) return ALL_RULES;
  try {
    return parseRuleSelection(value);
  } catch (err) {
    throw usage(`--rules: ${(err as Error).message}`);
  }
}

/** The model, on one intra-op thread: at this size a second one is no faster (README, fast stepping). */
/** `--rollout N`: jumps worked out step by step within N steps (model-client/rollout.ts); 0: in one frame. */
const ROLLOUT_FLAG = { type: 'string', value: 'N', description: `jumps (a step over a call, a step out, a breakpoint, continue) worked out step by step within N steps, else by the model in one frame (0: always in one frame; default ${ROLLOUT_STEPS} for states, as the debugger; 0 for cruxeval and verify, whose runs are many calls long)` } as const;

async function loadModel(dir: string, precision: Precision, usage: UsageErrorFactory, rules: RuleSelection = ALL_RULES, rolloutSteps?: number): Promise<NeuralPredictor> {
  try {
    return await NeuralPredictor.load(dir, { threads: 1, precision, rules, ...(rolloutSteps === undefined ? {} : { rolloutSteps }) });
  } catch (err) {
    throw err instanceof ModelFolderError ? usage(err.message) : err;
  }
}

const MAKE_HELDOUT_FLAGS = {
  data: { type: 'string', value: 'DATASET_DIR', description: 'a dataset folder (ndb data build): its test split' },
  real: { type: 'boolean', description: 'the HumanEval and MBPP problems of the validation and test splits instead' },
  modules: { type: 'boolean', description: 'with --real: calls of library modules no build trains on instead' },
  out: { type: 'string', value: 'FILE.jsonl', description: 'the file to write' },
  limit: { type: 'string', value: 'N', description: 'the first N rows only' },
} satisfies FlagSpecs;

const MAKE_HELDOUT_COMMAND = defineCommand({
  name: 'make-heldout',
  summary: 'write a CruxEval-format held-out set',
  description: `Write a CruxEval-format held-out set (code, input, output, id), entry renamed to f,
outputs confirmed by real Python: from a dataset's test split (synthetic programs), or
with --real from the HumanEval and MBPP problems of the validation and test splits,
which no build trains on (evaluation/heldout-real.jsonl), or with --real --modules from
calls of library functions no build trains on (evaluation/heldout-modules.jsonl: the
stdlib and packages modules of the validation and test splits, and the modules of
evaluation/heldout-modules-calls.jsonl, which no corpus samples), each cut to the
entry's scope. One of --data and --real.`,
  flags: MAKE_HELDOUT_FLAGS,
  run: makeHeldoutCommand,
});

async function makeHeldoutCommand({ values }: Parsed<typeof MAKE_HELDOUT_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  if (!values.out || (values.data === undefined) === !values.real || (values.modules && !values.real)) {
    throw usage('usage: ndb eval make-heldout (--data DATASET_DIR | --real [--modules]) --out FILE.jsonl [--limit N]');
  }
  if (values.data !== undefined) requireDatasetFiles(values.data, ['programs.jsonl']);
  const limit = limitOf(values.limit, usage);
  const s = await makeHeldout({ out: values.out, ...(values.data === undefined ? {} : { data: values.data }), modules: values.modules === true, ...(limit === undefined ? {} : { limit }) });
  const dropped = Object.entries(s.dropped).map(([why, n]) => `${why} ${n}`).join(', ') || 'none';
  process.stdout.write(
    [
      `candidates    ${s.candidates} ${values.modules ? 'calls of held-out library modules' : values.real ? 'HumanEval and MBPP calls of the validation and test splits' : 'test-split synthetic programs that returned normally'}`,
      `examined      ${s.examined}; left out: ${dropped}`,
      `rows          ${s.rows}, written to ${values.out}`,
    ].join('\n') + '\n',
  );
}

const STATES_FLAGS = {
  data: { type: 'string', value: 'FILE.jsonl', description: 'the held-out set (default evaluation/heldout.jsonl)' },
  limit: { type: 'string', value: 'N', description: 'the first N rows only' },
  json: { type: 'boolean', description: 'print the report as JSON' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: models/default)' },
  precision: { type: 'string', value: 'fp32|int8', description: "the model's weights (default fp32; int8: the folder's int8 file)" },
  rules: RULES_FLAG,
  rollout: ROLLOUT_FLAG,
  'compare-unconstrained': { type: 'boolean', description: 'also score the model decoding with the grammar alone (--rules none beside the rules chosen)' },
  misses: { type: 'string', value: 'FILE.jsonl', description: "write every step the model got wrong (the state before, the action, the truth, the prediction) to FILE" },
  policy: { type: 'string', value: POLICIES.join('|'), description: "how trajectories are sampled: the paper's mix (default), walk (line by line: step_into and step_over, forward and back, as a user presses F10 and F11), jumps" },
  report: REPORT_FLAG,
} satisfies FlagSpecs;

const STATES_COMMAND = defineCommand({
  name: 'states',
  summary: 'next-state prediction on real runs, model vs baseline',
  description: `Next-state prediction on real runs of the held-out programs, per action and per
component, for the model and the baseline (same locals, next line).`,
  flags: STATES_FLAGS,
  run: statesCommand,
});

async function statesCommand({ values }: Parsed<typeof STATES_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  const policy = values.policy ?? 'paper';
  if (!isPolicy(policy)) throw usage(`--policy must be one of ${POLICIES.join(', ')}`);
  const rows = await loadRows(values.data, limitOf(values.limit, usage), usage);
  const dir = values.model ?? defaultModelDir();
  const precision = precisionOf(values.precision, usage);
  const model = await loadModel(dir, precision, usage, rulesOf(values.rules, usage), countOf(values.rollout, usage, '--rollout'));
  const unconstrained = values['compare-unconstrained'] ? await loadModel(dir, precision, usage, NO_RULES) : null;
  const misses: string[] = [];
  if (values.misses) writeFileSync(values.misses, ''); // an unwritable path fails now, not after the run
  checkReportPath(values.report);
  const keepModelMiss = (miss: StateMiss) => {
    if (miss.predictor === 'model') misses.push(JSON.stringify(miss));
  };
  try {
    const bar = new ProgressBar('programs', rows.length);
    const report = await evaluateStates(
      rows,
      [
        { name: 'model', predictor: model, probabilities: true },
        ...(unconstrained ? [{ name: 'unconstrained', predictor: unconstrained, probabilities: true }] : []),
        { name: 'baseline', predictor: new NextLineBaseline() },
      ],
      { policy, onProgress: (done) => bar.update(done), ...(values.misses ? { onMiss: keepModelMiss } : {}) },
    );
    if (values.misses) writeFileSync(values.misses, misses.map((m) => m + '\n').join(''));
    const labels = { model: `model (${dir})`, unconstrained: `model (${dir}) with the grammar alone`, baseline: 'baseline: same locals, next line' };
    writeReport(values.report, 'states', STATES_FLAGS, values, dir, { modelDir: dir, ...report });
    process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, ...report }, null, 2) + '\n' : formatStates(report, labels));
  } finally {
    await model.release();
    await unconstrained?.release();
  }
}

const CRUXEVAL_FLAGS = {
  task: { type: 'string', value: 'output|input', description: 'predict the output from the input, or the input from the output' },
  data: { type: 'string', value: 'FILE.jsonl', description: 'the held-out set (default evaluation/heldout.jsonl)' },
  method: { type: 'string', value: OUTPUT_METHODS.join('|'), description: "how a call is run to its return: the output task's run and the input task's forward check (default step_over, the better method for both on real code)" },
  limit: { type: 'string', value: 'N', description: 'the first N rows only' },
  json: { type: 'boolean', description: 'print the report as JSON' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: models/default)' },
  precision: { type: 'string', value: 'fp32|int8', description: "the model's weights (default fp32; int8: the folder's int8 file)" },
  samples: { type: 'string', value: 'N', description: 'vote over N sampled frames per jump (default 1: greedy)' },
  check: { type: 'string', value: 'forward|none', description: "input task: run the model's answer and the output-as-argument forward with the model, keep one that returns the output (default forward)" },
  candidates: { type: 'string', value: 'N', description: `input task's forward check: then N more answers from return states the model draws, checked the same way (default ${INPUT_CANDIDATES}; 0: none)` },
  rules: RULES_FLAG,
  rollout: ROLLOUT_FLAG,
  report: REPORT_FLAG,
} satisfies FlagSpecs;

const CRUXEVAL_COMMAND = defineCommand({
  name: 'cruxeval',
  summary: "CruxEval's output and input tasks, pass@1",
  description: `CruxEval's protocol with the neural debugger, checked by real Python; pass@1 for the
model and a trivial baseline, and its calibration. --data defaults to
evaluation/heldout.jsonl (evaluation/heldout-real.jsonl: real code).`,
  flags: CRUXEVAL_FLAGS,
  run: cruxevalCommand,
});

async function cruxevalCommand({ values }: Parsed<typeof CRUXEVAL_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  const task = values.task;
  if (task !== 'output' && task !== 'input') throw usage('--task must be output or input');
  // Line by line is the better method on real code since the eleventh session's rules, for
  // the output task's run and the input task's forward check alike (README, "Held-out results").
  const method = values.method ?? 'step_over';
  if (!isOutputMethod(method)) throw usage(`--method must be one of ${OUTPUT_METHODS.join(', ')}`);
  const check = values.check ?? 'forward';
  if (check !== 'forward' && check !== 'none') throw usage('--check must be forward or none');
  if (values.method !== undefined && task === 'input' && check === 'none') throw usage('--method applies to the output task and the input task\'s forward check, not to --check none');
  if (values.check !== undefined && task === 'output') throw usage('--check applies to --task input only');
  if (values.candidates !== undefined && (task === 'output' || check === 'none')) throw usage("--candidates applies to --task input's forward check only");
  const rows = await loadRows(values.data, limitOf(values.limit, usage), usage);
  checkReportPath(values.report);
  const dir = values.model ?? defaultModelDir();
  // Each row's run is many calls long: a rollout's every jump costs steps (--rollout N opts in).
  const model = await loadModel(dir, precisionOf(values.precision, usage), usage, rulesOf(values.rules, usage), countOf(values.rollout, usage, '--rollout') ?? 0);
  try {
    const frames = await PartialFrameDecoder.load(model, dir);
    const bar = new ProgressBar(`cruxeval ${task}`, rows.length);
    const samples = limitOf(values.samples, usage, '--samples');
    const candidates = countOf(values.candidates, usage, '--candidates');
    const report = await evaluateCruxEval(rows, model, frames, { task, method, check: check === 'forward', ...(samples === undefined ? {} : { samples }), ...(candidates === undefined ? {} : { candidates }), onProgress: (done) => bar.update(done) });
    writeReport(values.report, 'cruxeval', CRUXEVAL_FLAGS, values, dir, { modelDir: dir, ...report });
    process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, ...report }, null, 2) + '\n' : formatCruxEval(report));
  } finally {
    await model.release();
  }
}

const VERIFY_EVAL_FLAGS = {
  data: { type: 'string', value: 'FILE.jsonl', description: 'the held-out problems (default evaluation/heldout-real.jsonl)' },
  limit: { type: 'string', value: 'POOLS', description: 'the first POOLS pools only' },
  k: { type: 'string', value: '4-8', description: 'solutions per pool (default 5)' },
  cases: { type: 'string', value: 'N', description: 'test cases per problem (default 3)' },
  seed: { type: 'string', value: 'S', description: 'the seed of the mutants and the random choice (default 0)' },
  samples: { type: 'string', value: 'N', description: 'vote over N sampled frames per jump (default 1: greedy)' },
  method: { type: 'string', value: OUTPUT_METHODS.join('|'), description: 'how a call is run to its return (default step_over: line by line, the better method on real code)' },
  json: { type: 'boolean', description: 'print the report as JSON' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: models/default)' },
  precision: { type: 'string', value: 'fp32|int8', description: "the model's weights (default fp32; int8: the folder's int8 file)" },
  rules: RULES_FLAG,
  rollout: ROLLOUT_FLAG,
  via: { type: 'string', value: 'cli|mcp', description: "where the predictions are made: this process (default), or mcp: ndb mcp's verify_tests tool, asked by the MCP SDK's client over stdio (its server's own rollout)" },
  report: REPORT_FLAG,
} satisfies FlagSpecs;

const VERIFY_EVAL_COMMAND = defineCommand({
  name: 'verify',
  summary: 'the model as a verifier: agreement, Best@k and repair feedback',
  description: `The model as a verifier (ndb verify) on held-out HumanEval/MBPP problems: pools of the
reference solution and mutants that really fail; per-case agreement of predicted and
real verdicts, Best@k against a random choice and the oracle (real execution), and how
often the repair feedback's first wrong line is the real run's (the tracer). With --via mcp
the predictions come from ndb mcp's verify_tests tool over stdio.`,
  flags: VERIFY_EVAL_FLAGS,
  run: verifyEvalCommand,
});

async function verifyEvalCommand({ values }: Parsed<typeof VERIFY_EVAL_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  const k = limitOf(values.k ?? '5', usage)!;
  if (k < 4 || k > 8) throw usage(`--k must be from 4 to 8, got ${k}`);
  const maxCases = limitOf(values.cases ?? '3', usage)!;
  const seed = Number(values.seed ?? '0');
  if (!Number.isInteger(seed)) throw usage(`--seed must be an integer, got ${JSON.stringify(values.seed)}`);
  const samples = limitOf(values.samples, usage, '--samples');
  const method = values.method ?? VERIFY_METHOD;
  if (!isOutputMethod(method)) throw usage(`--method must be one of ${OUTPUT_METHODS.join(', ')}`);
  const limit = limitOf(values.limit, usage);
  const rows = await loadRows(values.data ?? join(packageRoot(), 'evaluation', 'heldout-real.jsonl'), undefined, usage);
  checkReportPath(values.report);
  const dir = values.model ?? defaultModelDir();
  const via = values.via ?? 'cli';
  if (via !== 'cli' && via !== 'mcp') throw usage(`--via must be cli or mcp, got ${JSON.stringify(via)}`);
  if (via === 'mcp' && values.rollout !== undefined) throw usage('--rollout goes with --via cli: ndb mcp predicts with its own rollout');
  const precision = precisionOf(values.precision, usage);
  const rules = values.rules;
  if (rules !== undefined) rulesOf(rules, usage);
  const server = via === 'mcp' ? await mcpJudge([process.execPath, join(packageRoot(), 'bin', 'ndb.js'), 'mcp', '--model', dir, '--precision', precision, ...(rules === undefined ? [] : ['--rules', rules])], { method, ...(samples === undefined ? {} : { samples }) }) : null;
  const model = server ? null : await loadModel(dir, precision, usage, rulesOf(rules, usage), countOf(values.rollout, usage, '--rollout') ?? 0);
  try {
    const bar = limit === undefined ? undefined : new ProgressBar('verify pools', limit);
    const judge = server ? server.judge : modelJudge(model!, { method, ...(samples === undefined ? {} : { samples }) });
    const report = await evaluateVerify(rows, judge, { k, maxCases, seed, method, via, ...(limit === undefined ? {} : { limit }), ...(samples === undefined ? {} : { samples }), onProgress: (pools) => bar?.update(pools) });
    writeReport(values.report, 'verify', VERIFY_EVAL_FLAGS, values, dir, { modelDir: dir, ...report });
    process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, ...report }, null, 2) + '\n' : formatVerifyEval(report));
  } finally {
    await server?.close();
    await model?.release();
  }
}

const PDB_FLAGS = {
  split: { type: 'string', value: 'dev|heldout|all', description: 'the corpus programs to run (default dev)' },
  limit: { type: 'string', value: 'N', description: 'the first N programs of the split only' },
  json: { type: 'boolean', description: 'print the report as JSON, every program (each stop of the dev programs)' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: models/default)' },
  precision: { type: 'string', value: 'fp32|int8', description: "the model's weights (default fp32; int8: the folder's int8 file)" },
  rules: RULES_FLAG,
  corpus: { type: 'string', value: 'DIR', description: 'a corpus folder with corpus.json (default evaluation/pdb-corpus)' },
  misses: { type: 'string', value: 'FILE.jsonl', description: "write the dev programs' misses to FILE: each program's first wrong stop (pdb's and ndb's), each re-synced step missed (held-out programs never)" },
  report: REPORT_FLAG,
} satisfies FlagSpecs;

const PDB_COMMAND = defineCommand({
  name: 'pdb',
  summary: 'ndb against the real pdb, stop by stop, on scripted debugging sessions',
  description: `Debug each program of the pdb corpus (evaluation/pdb-corpus) with its fixed script of
pdb commands (s, n, r, c, b N), once under the real pdb (python3 -m pdb) and once under ndb's
debugger (the model's run, at the module's top level, as ndb debug FILE), and compare every
stop: the line (event, line, function), the line and every local, the return values, the
run's end; with no re-syncing after a divergence, as a user lives the predicted run. Also each
command predicted from pdb's real history (re-synced next-state accuracy). Held-out programs
are reported as numbers only (docs/evaluation-pdb.md).`,
  flags: PDB_FLAGS,
  run: pdbCommand,
});

async function pdbCommand({ values }: Parsed<typeof PDB_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  const split = values.split ?? 'dev';
  if (split !== 'all' && !(SPLITS as readonly string[]).includes(split)) throw usage(`--split must be dev, heldout or all, got ${JSON.stringify(split)}`);
  const limit = limitOf(values.limit, usage);
  const corpusDir = values.corpus ?? defaultCorpusDir();
  if (!existsSync(join(corpusDir, 'corpus.json'))) throw usage(`no corpus.json in ${corpusDir}`);
  let programs;
  try {
    programs = readCorpus(corpusDir).filter((p) => split === 'all' || p.split === split);
  } catch (err) {
    throw err instanceof CorpusFileError ? usage(err.message) : err;
  }
  programs = programs.slice(0, limit);
  const rules = rulesOf(values.rules, usage);
  if (values.misses) writeFileSync(values.misses, ''); // an unwritable path fails now, not after the run
  checkReportPath(values.report);
  const dir = values.model ?? defaultModelDir();
  const model = await loadModel(dir, precisionOf(values.precision, usage), usage, rules);
  try {
    const bar = new ProgressBar('programs', programs.length);
    const report = await evaluatePdb(programs, model, split as Split | 'all', { onProgress: (done) => bar.update(done) });
    if (values.misses) writeFileSync(values.misses, missLines(report).map((m) => m + '\n').join(''));
    writeReport(values.report, 'pdb', PDB_FLAGS, values, dir, { modelDir: dir, rules: values.rules ?? 'all', ...report });
    process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, rules: values.rules ?? 'all', ...report }, null, 2) + '\n' : formatPdbEval(report, `model ${dir}${values.rules ? `, rules ${values.rules}` : ''}`));
  } finally {
    await model.release();
  }
}

const ENV_FLAGS = {
  split: PDB_FLAGS.split,
  limit: PDB_FLAGS.limit,
  json: { type: 'boolean', description: 'print the report as JSON, every program (each stop of the dev programs; held-out programs as numbers only)' },
  model: PDB_FLAGS.model,
  precision: PDB_FLAGS.precision,
  rules: RULES_FLAG,
  corpus: { type: 'string', value: 'DIR', description: 'a corpus folder with corpus.json, files/ and www/ (default evaluation/env-corpus)' },
  'skip-resync': { type: 'boolean', description: 'skip the re-synced predictions (about half the time)' },
  report: REPORT_FLAG,
} satisfies FlagSpecs;

const ENV_COMMAND = defineCommand({
  name: 'environment',
  summary: 'values from libraries, the network, files, the clock: their type and value, stop by stop against pdb',
  description: `Debug each program of the environment corpus (evaluation/env-corpus) with its fixed script of
pdb commands, once under the real pdb in a harness where its dependencies exist (a temporary
folder with the corpus's files, a local HTTP server with fixed responses, the real clock and
randomness) and once under ndb's debugger where none of it exists (ndb never runs the program).
Reports, per value pdb shows at the stops where ndb stands where pdb does, the share whose
predicted repr has the real value's type and the share exactly right; then the stops as
ndb eval pdb counts them. Held-out programs are reported as numbers only
(docs/evaluation-environment.md).`,
  flags: ENV_FLAGS,
  run: envCommand,
});

async function envCommand({ values }: Parsed<typeof ENV_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  const split = values.split ?? 'dev';
  if (split !== 'all' && !(SPLITS as readonly string[]).includes(split)) throw usage(`--split must be dev, heldout or all, got ${JSON.stringify(split)}`);
  const limit = limitOf(values.limit, usage);
  const corpusDir = resolve(values.corpus ?? defaultEnvCorpusDir());
  if (!existsSync(join(corpusDir, 'corpus.json'))) throw usage(`no corpus.json in ${corpusDir}`);
  let programs;
  try {
    programs = readCorpus(corpusDir).filter((p) => split === 'all' || p.split === split);
  } catch (err) {
    throw err instanceof CorpusFileError ? usage(err.message) : err;
  }
  programs = programs.slice(0, limit);
  const rules = rulesOf(values.rules, usage);
  checkReportPath(values.report);
  const dir = values.model ?? defaultModelDir();
  const model = await loadModel(dir, precisionOf(values.precision, usage), usage, rules);
  try {
    const bar = new ProgressBar('programs', programs.length);
    const report = await evaluateEnvironment(programs, model, split as Split | 'all', corpusDir, { resync: !values['skip-resync'], onProgress: (done) => bar.update(done) });
    const full = { modelDir: dir, rules: values.rules ?? 'all', ...report };
    // Not one of the README's figures (cli/figures.ts): the report file carries the command and commit all the same.
    writeReport(values.report, 'environment' as EvalName, ENV_FLAGS, values, dir, full);
    process.stdout.write(values.json ? JSON.stringify(full, null, 2) + '\n' : formatEnvEval(report, `model ${dir}${values.rules ? `, rules ${values.rules}` : ''}`));
  } finally {
    await model.release();
  }
}

const TABLES_FLAGS = {
  reports: { type: 'string', value: 'DIR', description: 'the folder of report files (default reports/ at the package root)' },
  readme: { type: 'string', value: 'FILE', description: 'the file whose figures table to rewrite (default README.md at the package root)' },
  check: { type: 'boolean', description: 'change nothing; exit with an error when the table is not what the reports give' },
} satisfies FlagSpecs;

const TABLES_COMMAND = defineCommand({
  name: 'tables',
  summary: "regenerate the README's figures table from the latest reports",
  description: `Rewrite the README's figures table (between its figures markers) from the latest
report of each row's command: reports are what ndb eval states|cruxeval|verify|pdb write with
--report FILE (put them in reports/, which git ignores). A row whose command has no report
keeps the README's row. The rows and their commands are listed in cli/figures.ts.`,
  flags: TABLES_FLAGS,
  run: tablesCommand,
});

async function tablesCommand({ values }: Parsed<typeof TABLES_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  const readme = resolve(values.readme ?? join(packageRoot(), 'README.md'));
  if (!existsSync(readme)) throw usage(`no such file: ${readme}`);
  const text = readFileSync(readme, 'utf8');
  const dir = resolve(values.reports ?? defaultReportsDir());
  let current: string;
  try {
    current = tableBetweenMarkers(text, readme);
  } catch (err) {
    throw err instanceof MarkerError ? usage(err.message) : err;
  }
  const { table, sources } = figuresTable(readReports(dir), current);
  const next = withTable(text, table, readme);
  for (const s of sources) {
    const from = s.from === 'report' ? `report of ${s.commit ?? 'no commit'}, ${s.date}` : s.from === 'kept' ? 'no report: kept as it was' : 'no report and no row: not measured yet';
    process.stdout.write(`${s.measure}: ${from}\n`);
  }
  if (values.check) {
    if (next !== text) throw usage(`${readme}: the figures table is not what the reports in ${dir} give; run ndb eval tables`);
    process.stdout.write(`${readme}: the figures table matches the reports\n`);
    return;
  }
  if (next !== text) writeFileSync(readme, next);
  process.stdout.write(`${next === text ? 'unchanged' : 'rewrote'} the figures table of ${readme} (up to ${END})\n`);
}

/** `ndb eval`'s subcommands, in the order its help lists them. */
export const EVAL_COMMANDS = [MAKE_HELDOUT_COMMAND, STATES_COMMAND, CRUXEVAL_COMMAND, VERIFY_EVAL_COMMAND, PDB_COMMAND, ENV_COMMAND, TABLES_COMMAND] as const;
