/**
 * `ndb`, the front door. One small function per command, its flags declared beside it (a
 * contract: see README); cli/command-line.ts turns the declarations into commander commands,
 * with the help of each, `--version`, and the one-line errors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { serializeTrajectory } from '../grammar/serialize.js';
import type { Trajectory } from '../grammar/state.js';
import { packageRoot } from '../model-client/model-folder.js';
import { StateTree } from '../state-tree/tree.js';
import { TraceFailure, traceFile } from '../tracer/run-tracer.js';
import { buildDataset, parseMix } from '../data-pipeline/build.js';
import { checkCorpus } from '../data-pipeline/check.js';
import { DataInputError, requireDatasetFiles } from '../data-pipeline/data-input.js';
import { tokenizeDataset } from '../data-pipeline/tokenize.js';
import { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import { EVAL_COMMANDS } from './eval.js';
import { addCommand, addGroup, defineCommand, type FlagSpecs, type Parsed, runProgram } from './command-line.js';
import { DAP_COMMAND } from './dap.js';
import { DEBUG_COMMAND } from './debug-repl.js';
import { LSP_COMMAND } from './lsp.js';
import { MCP_COMMAND } from './mcp.js';
import { VERIFY_COMMAND } from './verify.js';
import { PythonMissingError } from '../python/python-helper.js';
import { ProgressBar, formatSeconds } from '../util/progress.js';

/** An error the user can act on: printed as one line, exit code 2, never a stack dump. */
class UsageError extends Error {}

function intFlag(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`missing --${name}`);
    return fallback;
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
  return n;
}

const TRACE_FLAGS = {
  entry: { type: 'string', value: 'NAME', description: 'the function to call (default: the module\'s top level)' },
  args: { type: 'string', value: 'LITERALS', description: "its arguments as Python literals, e.g. \"'berry', 'r'\" (a value may start with -: --args -1)" },
  json: { type: 'boolean', description: "print the tracer's JSON records instead" },
  'max-events': { type: 'string', value: 'N', description: 'stop after N events (default 10000)' },
  timeout: { type: 'string', value: 'SECONDS', description: 'wall-clock limit (default 5)' },
} satisfies FlagSpecs;

const TRACE_COMMAND = defineCommand({
  name: 'trace',
  args: '<FILE>',
  summary: 'run FILE under the real tracer and print its trace',
  description: `Run FILE under the real tracer and print its trace in the trace language (or as JSON
events with --json). Without --entry, the module's top level is traced.`,
  flags: TRACE_FLAGS,
  run: traceCommand,
});

async function traceCommand({ values, positionals }: Parsed<typeof TRACE_FLAGS>): Promise<void> {
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError('usage: ndb trace FILE [--entry NAME --args LITERALS] [--json]');
  if (values.args !== undefined && values.entry === undefined) throw new UsageError('--args needs --entry (the function to call with them)');
  const trace = await traceFile({
    file,
    ...(values.entry === undefined ? {} : { entry: values.entry, args: values.args ?? '' }),
    limits: { maxEvents: intFlag(values['max-events'], 'max-events', 10_000), timeoutSeconds: intFlag(values.timeout, 'timeout', 5) },
  });
  if (values.json) {
    for (const e of trace.events) process.stdout.write(JSON.stringify(e) + '\n');
    process.stdout.write(JSON.stringify(trace.exit) + '\n');
    return;
  }
  // The real run, replayed: every state followed by step_into, then the exit.
  const tree = new StateTree(trace);
  const replay: Trajectory = {
    direction: 'forward',
    program: trace.program,
    steps: tree.states.map((state) => ({ state, action: { kind: 'step_into' } })),
    exit: tree.exit,
  };
  process.stdout.write(serializeTrajectory(replay) + '\n');
}

const DATA_CHECK_FLAGS = {
  origin: { type: 'string', value: 'humaneval|mbpp|stdlib|packages', description: 'the corpus' },
  limit: { type: 'string', value: 'N', description: 'the first N programs only' },
  json: { type: 'boolean', description: 'print the summary as JSON' },
} satisfies FlagSpecs;

const DATA_CHECK = defineCommand({
  name: 'check',
  summary: "trace a corpus's programs with their test inputs",
  description: 'Trace every program of a corpus with its test inputs and report how the runs ended.',
  flags: DATA_CHECK_FLAGS,
  run: dataCheckCommand,
});

async function dataCheckCommand({ values }: Parsed<typeof DATA_CHECK_FLAGS>): Promise<void> {
  const origin = values.origin;
  if (origin !== 'humaneval' && origin !== 'mbpp' && origin !== 'stdlib' && origin !== 'packages') throw new UsageError('--origin must be one of humaneval, mbpp, stdlib, packages');
  const limit = values.limit === undefined ? undefined : intFlag(values.limit, 'limit');
  let bar: ProgressBar | undefined;
  const s = await checkCorpus(origin, (done, total) => (bar ??= new ProgressBar(origin, total)).update(done), limit);
  if (values.json) {
    process.stdout.write(JSON.stringify(s, null, 2) + '\n');
    return;
  }
  const traced = s.exits.normal + s.exits.error + s.exits.never;
  const pct = (n: number) => `${((100 * n) / Math.max(s.inputs, 1)).toFixed(1)}%`;
  const failures = Object.entries(s.failures).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  process.stdout.write(
    [
      `${origin}: ${s.programs} programs, ${s.inputs} inputs, ${formatSeconds(s.seconds)}`,
      `traced without error  ${traced}/${s.inputs} (${pct(traced)})`,
      `  returned normally   ${s.exits.normal} (${pct(s.exits.normal)})`,
      `  raised              ${s.exits.error} (${pct(s.exits.error)})`,
      `  cut by a limit      ${s.exits.never} (${pct(s.exits.never)})`,
      `tracer failures       ${failures}`,
      ...s.examples.map((e) => `  ${e}`),
    ].join('\n') + '\n',
  );
}

const DATA_TOKENIZER_FLAGS = {
  data: { type: 'string', value: 'DIR', description: 'the dataset (ndb data build)' },
  out: { type: 'string', value: 'MODEL_DIR', description: 'where tokenizer.json goes' },
  vocab: { type: 'string', value: 'N', description: 'vocabulary size (default 2048)' },
  'split-strings': { type: 'boolean', description: 'encode string literals a character per token' },
} satisfies FlagSpecs;

const DATA_TOKENIZER = defineCommand({
  name: 'tokenizer',
  summary: 'train the tokenizer on a dataset',
  description: "Train the byte-level BPE tokenizer on a dataset's train split (trace tokens stay whole).",
  flags: DATA_TOKENIZER_FLAGS,
  run: dataTokenizerCommand,
});

async function dataTokenizerCommand({ values }: Parsed<typeof DATA_TOKENIZER_FLAGS>): Promise<void> {
  if (!values.data || !values.out) throw new UsageError('usage: ndb data tokenizer --data DIR --out MODEL_DIR [--vocab N] [--split-strings]');
  requireDatasetFiles(values.data, ['train.jsonl']);
  const started = Date.now();
  // Loaded here only: training needs the `tokenizers` native binding, which no other command
  // (the debugger above all) loads.
  const { trainTokenizer } = await import('../data-pipeline/train-tokenizer.js');
  await trainTokenizer({ files: [join(values.data, 'train.jsonl')], out: values.out, vocabSize: intFlag(values.vocab, 'vocab', 2048), splitStrings: values['split-strings'] ?? false });
  const tokenizer = await TraceTokenizer.load(values.out);
  process.stdout.write(`tokenizer     ${tokenizer.vocabSize} ids, written to ${values.out} in ${formatSeconds((Date.now() - started) / 1000)}\n`);
}

const DATA_TOKENIZE_FLAGS = {
  data: { type: 'string', value: 'DIR', description: 'the dataset (ndb data build)' },
  tokenizer: { type: 'string', value: 'MODEL_DIR', description: 'the folder with tokenizer.json' },
  out: { type: 'string', value: 'DIR', description: 'where the token files go' },
  context: { type: 'string', value: 'N', description: 'context length in tokens (default 1024)' },
} satisfies FlagSpecs;

const DATA_TOKENIZE = defineCommand({
  name: 'tokenize',
  summary: 'encode a dataset to token files',
  description: 'Encode a dataset to uint16 token files for training, fitting trajectories to the context.',
  flags: DATA_TOKENIZE_FLAGS,
  run: dataTokenizeCommand,
});

async function dataTokenizeCommand({ values }: Parsed<typeof DATA_TOKENIZE_FLAGS>): Promise<void> {
  if (!values.data || !values.tokenizer || !values.out) throw new UsageError('usage: ndb data tokenize --data DIR --tokenizer MODEL_DIR --out DIR [--context N]');
  const s = await tokenizeDataset({ data: values.data, tokenizer: values.tokenizer, out: values.out, contextLength: intFlag(values.context, 'context', 1024) });
  const lines = Object.entries(s.splits).map(([split, x]) => `${split.padEnd(13)} ${x.documents} documents, ${x.tokens} tokens (${x.shortened} shortened, ${x.dropped} dropped)`);
  process.stdout.write(
    [
      ...lines,
      `per trajectory ${s.meanTokensPerTrajectory.toFixed(0)} tokens (program ${s.meanContextTokens.toFixed(0)}, ${s.meanTokensPerFrame.toFixed(1)} per step)`,
      `programs      ${s.programTokens.p50} / ${s.programTokens.p95} / ${s.programTokens.p99} / ${s.programTokens.max} tokens (median / 95th / 99th percentile / longest of the training documents)`,
      `time          ${formatSeconds(s.seconds)} (${(s.tokensPerSecond / 1e6).toFixed(2)}M tokens/s)`,
    ].join('\n') + '\n',
  );
}

const DATA_BUILD_FLAGS = {
  out: { type: 'string', value: 'DIR', description: 'the dataset folder to write' },
  programs: { type: 'string', value: 'N', description: 'how many programs' },
  seed: { type: 'string', value: 'S', description: 'the seed (default 0): the same seed, the same dataset' },
  concurrency: { type: 'string', value: 'K', description: 'tracers run at once' },
  mix: { type: 'string', value: 'ORIGIN=SHARE,...', description: "each source's share" },
  jumps: { type: 'string', value: 'SHARE', description: 'share of trajectories sampled with the jump-weighted policy (default 0)' },
  walks: { type: 'string', value: 'SHARE', description: 'share of trajectories that step line by line, step_into and step_over only (default 0)' },
  trajectories: { type: 'string', value: 'N', description: 'trajectories sampled per trace, half forward and half inverse (default 4)' },
  variants: { type: 'string', value: 'K', description: 'argument variants per HumanEval and MBPP test call, added to those corpora (default 0)' },
} satisfies FlagSpecs;

const DATA_BUILD = defineCommand({
  name: 'build',
  summary: 'build a training dataset',
  description: `Build a training dataset: programs, real traces, sampled trajectories, split by program.
--mix sets each source's share (synthetic, semantics, mbpp, humaneval, stdlib, packages;
default synthetic=0.5,mbpp=0.2,humaneval=0.1,stdlib=0.2). --jumps sets the share of trajectories
that use the jump-weighted policy (step_return, breakpoint, continue, inv_step_call from the
entry's call and return), --walks the share that step line by line (step_into and step_over,
forward or inverse, up to 48 states), the rest the paper's. --variants K adds K calls per HumanEval and
MBPP test call with its literal arguments mutated a little (same function, same split).`,
  flags: DATA_BUILD_FLAGS,
  run: dataBuildCommand,
});

async function dataBuildCommand({ values }: Parsed<typeof DATA_BUILD_FLAGS>): Promise<void> {
  if (!values.out) throw new UsageError('missing --out DIR');
  let mix;
  try {
    mix = values.mix === undefined ? undefined : parseMix(values.mix);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const programs = intFlag(values.programs, 'programs');
  const seed = intFlag(values.seed, 'seed', 0);
  const jumps = values.jumps === undefined ? 0 : Number(values.jumps);
  if (!(jumps >= 0 && jumps <= 1)) throw new UsageError(`--jumps: ${JSON.stringify(values.jumps)} is not a share between 0 and 1`);
  const walks = values.walks === undefined ? 0 : Number(values.walks);
  if (!(walks >= 0 && walks <= 1)) throw new UsageError(`--walks: ${JSON.stringify(values.walks)} is not a share between 0 and 1`);
  if (jumps + walks > 1) throw new UsageError(`--jumps ${jumps} and --walks ${walks} add up to more than 1`);
  const bar = new ProgressBar('programs', programs);
  const summary = await buildDataset({
    out: values.out,
    programs,
    seed,
    ...(values.concurrency === undefined ? {} : { concurrency: intFlag(values.concurrency, 'concurrency') }),
    ...(mix ? { mix } : {}),
    jumps,
    walks,
    ...(values.variants === undefined ? {} : { variants: intFlag(values.variants, 'variants') }),
    ...(values.trajectories === undefined ? {} : { trajectoriesPerTrace: intFlag(values.trajectories, 'trajectories') }),
    onProgress: (done, total) => bar.update(done, `of ${total}`),
  });
  const t = summary.trajectories;
  const failed = Object.entries(summary.failed).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  process.stdout.write(
    [
      `programs      ${summary.programs} (traced ${summary.traces}; failed: ${failed})`,
      `traces        ${summary.traces}`,
      `trajectories  ${t.train + t.validation + t.test} (train ${t.train}, validation ${t.validation}, test ${t.test}; forward ${summary.directions.forward}, inverse ${summary.directions.inverse})`,
      `tokens        ${summary.specialTokens} trace-language tokens, ${summary.characters} characters in all`,
      `time          ${formatSeconds(summary.seconds)} (${summary.programsPerSecond.toFixed(1)} programs/s)`,
      `written to    ${values.out}`,
    ].join('\n') + '\n',
  );
}

/** The version in package.json. */
function version(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

function program(usage: (message: string) => Error): Command {
  const ndb = new Command('ndb')
    .usage('COMMAND [options]')
    .description('ndb — the neural debugger for Python: a small language model predicts what pdb would show; the program never runs.')
    .version(version(), '-V, --version', 'print the version');
  addCommand(ndb, TRACE_COMMAND, usage);
  const data = addGroup(ndb, 'data', 'training data: build, tokenizer, tokenize, check');
  for (const c of [DATA_BUILD, DATA_TOKENIZER, DATA_TOKENIZE, DATA_CHECK]) addCommand(data, c, usage);
  const evaluation = addGroup(ndb, 'eval', 'measure the model: make-heldout, states, cruxeval, verify');
  for (const c of EVAL_COMMANDS) addCommand(evaluation, c, usage);
  for (const c of [VERIFY_COMMAND, DEBUG_COMMAND, DAP_COMMAND, LSP_COMMAND, MCP_COMMAND]) addCommand(ndb, c, usage);
  return ndb;
}

/** What the system says when it refuses a path the user gave (an --out under a read-only or missing folder). */
const PATH_REFUSALS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  ENOTDIR: 'part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  ENOENT: 'no such file or folder',
};

/** A file-system refusal of a path, said as one line; null for any other error. */
function pathRefusal(err: unknown): string | null {
  const e = err as NodeJS.ErrnoException;
  const reason = err instanceof Error && typeof e.path === 'string' ? PATH_REFUSALS[e.code ?? ''] : undefined;
  return reason === undefined ? null : `cannot ${e.syscall ?? 'open'} ${e.path}: ${reason}`;
}

const usage = (message: string) => new UsageError(message);
runProgram(program(usage), process.argv.slice(2), usage).catch((err: unknown) => {
  const refusal = pathRefusal(err);
  // A missing Python is the machine's (what to install is in its message), not a bug in ndb.
  const known = err instanceof UsageError || err instanceof TraceFailure || err instanceof DataInputError || err instanceof PythonMissingError || refusal !== null;
  process.stderr.write(`ndb: error: ${refusal ?? (err as Error).message}\n`);
  if (!known) process.stderr.write('ndb: this is a bug in ndb; please report it with the command you ran\n');
  process.exitCode = 2;
});
