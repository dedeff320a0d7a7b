/**
 * `ndb`, the front door. One small function per command; each command's flags are a
 * contract (see README).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serializeTrajectory } from '../grammar/serialize.js';
import type { Trajectory } from '../grammar/state.js';
import { StateTree } from '../state-tree/tree.js';
import { TraceFailure, traceFile } from '../tracer/run-tracer.js';
import { buildDataset, parseMix } from '../data-pipeline/build.js';
import { checkCorpus } from '../data-pipeline/check.js';
import { tokenizeDataset } from '../data-pipeline/tokenize.js';
import { TraceTokenizer, trainTokenizer } from '../data-pipeline/tokenizer.js';
import { EVAL_USAGE, evalCommand } from '../evaluation/cli.js';
import { DAP_USAGE, dapCommand } from './dap.js';
import { DEBUG_USAGE, debugCommand } from './debug-repl.js';
import { LSP_USAGE, lspCommand } from './lsp.js';
import { VERIFY_USAGE, verifyCommand } from './verify.js';
import { ProgressBar, formatSeconds } from './progress.js';

const USAGE = `ndb — the neural debugger for Python

usage:
  ndb trace FILE [--entry NAME --args 'PYTHON LITERALS'] [--json] [--max-events N] [--timeout SECONDS]
      Run FILE under the real tracer and print its trace in the trace language
      (or as JSON events with --json). Without --entry, the module's top level is traced.
  ndb data build --out DIR --programs N --seed S [--concurrency K] [--mix ORIGIN=SHARE,...]
      Build a training dataset: programs, real traces, sampled trajectories, split by program.
      --mix sets each source's share (synthetic, semantics, mbpp, humaneval, stdlib; default
      synthetic=0.5,mbpp=0.2,humaneval=0.1,stdlib=0.2).
  ndb data tokenizer --data DIR --out MODEL_DIR [--vocab N]
      Train the byte-level BPE tokenizer on a dataset's train split (trace tokens stay whole).
  ndb data tokenize --data DIR --tokenizer MODEL_DIR --out DIR [--context N]
      Encode a dataset to uint16 token files for training, fitting trajectories to the context.
  ndb data check --origin humaneval|mbpp|stdlib [--limit N] [--json]
      Trace every program of a corpus with its test inputs and report how the runs ended.
${EVAL_USAGE}${VERIFY_USAGE}${DEBUG_USAGE}${DAP_USAGE}${LSP_USAGE}  ndb help
`;

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

async function traceCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      entry: { type: 'string' },
      args: { type: 'string' },
      json: { type: 'boolean', default: false },
      'max-events': { type: 'string' },
      timeout: { type: 'string' },
    },
  });
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

async function dataCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'build') return dataBuildCommand(rest);
  if (sub === 'check') return dataCheckCommand(rest);
  if (sub === 'tokenizer') return dataTokenizerCommand(rest);
  if (sub === 'tokenize') return dataTokenizeCommand(rest);
  throw new UsageError(`unknown data command ${JSON.stringify(sub ?? '')}; try: ndb data build --out DIR --programs N --seed S`);
}

async function dataCheckCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { origin: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const origin = values.origin;
  if (origin !== 'humaneval' && origin !== 'mbpp' && origin !== 'stdlib') throw new UsageError('--origin must be one of humaneval, mbpp, stdlib');
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

async function dataTokenizerCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { data: { type: 'string' }, out: { type: 'string' }, vocab: { type: 'string' } } });
  if (!values.data || !values.out) throw new UsageError('usage: ndb data tokenizer --data DIR --out MODEL_DIR [--vocab N]');
  const started = Date.now();
  await trainTokenizer({ files: [join(values.data, 'train.jsonl')], out: values.out, vocabSize: intFlag(values.vocab, 'vocab', 2048) });
  const tokenizer = await TraceTokenizer.load(values.out);
  process.stdout.write(`tokenizer     ${tokenizer.vocabSize} ids, written to ${values.out} in ${formatSeconds((Date.now() - started) / 1000)}\n`);
}

async function dataTokenizeCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { data: { type: 'string' }, tokenizer: { type: 'string' }, out: { type: 'string' }, context: { type: 'string' } } });
  if (!values.data || !values.tokenizer || !values.out) throw new UsageError('usage: ndb data tokenize --data DIR --tokenizer MODEL_DIR --out DIR [--context N]');
  const s = await tokenizeDataset({ data: values.data, tokenizer: values.tokenizer, out: values.out, contextLength: intFlag(values.context, 'context', 1024) });
  const lines = Object.entries(s.splits).map(([split, x]) => `${split.padEnd(13)} ${x.documents} documents, ${x.tokens} tokens (${x.shortened} shortened, ${x.dropped} dropped)`);
  process.stdout.write(
    [
      ...lines,
      `per trajectory ${s.meanTokensPerTrajectory.toFixed(0)} tokens (program ${s.meanContextTokens.toFixed(0)}, ${s.meanTokensPerFrame.toFixed(1)} per step)`,
      `time          ${formatSeconds(s.seconds)} (${(s.tokensPerSecond / 1e6).toFixed(2)}M tokens/s)`,
    ].join('\n') + '\n',
  );
}

async function dataBuildCommand(rest: string[]): Promise<void> {  const { values } = parseArgs({
    args: rest,
    options: { out: { type: 'string' }, programs: { type: 'string' }, seed: { type: 'string' }, concurrency: { type: 'string' }, mix: { type: 'string' } },
  });
  if (!values.out) throw new UsageError('missing --out DIR');
  let mix;
  try {
    mix = values.mix === undefined ? undefined : parseMix(values.mix);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const programs = intFlag(values.programs, 'programs');
  const seed = intFlag(values.seed, 'seed', 0);
  const bar = new ProgressBar('programs', programs);
  const summary = await buildDataset({
    out: values.out,
    programs,
    seed,
    ...(values.concurrency === undefined ? {} : { concurrency: intFlag(values.concurrency, 'concurrency') }),
    ...(mix ? { mix } : {}),
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

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'trace':
      return traceCommand(rest);
    case 'data':
      return dataCommand(rest);
    case 'eval':
      return evalCommand(rest, (message) => new UsageError(message));
    case 'debug':
      return debugCommand(rest, (message) => new UsageError(message));
    case 'dap':
      return dapCommand(rest, (message) => new UsageError(message));
    case 'lsp':
      return lspCommand(rest, (message) => new UsageError(message));
    case 'verify':
      return verifyCommand(rest, (message) => new UsageError(message));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}; run \`ndb help\``);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const known = err instanceof UsageError || err instanceof TraceFailure || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`ndb: error: ${(err as Error).message}\n`);
  if (!known) process.stderr.write('ndb: this is a bug in ndb; please report it with the command you ran\n');
  process.exitCode = 2;
});
