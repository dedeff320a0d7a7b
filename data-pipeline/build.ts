/**
 * `ndb data build`: programs -> real traces -> state trees -> sampled trajectories in the
 * trace language, split by program, written as JSON Lines. Reproducible from (programs, seed).
 *
 * Output folder:
 *   train.jsonl, validation.jsonl, test.jsonl   one trajectory a line: {id, group, origin, direction, text}
 *   programs.jsonl                              one program a line: its spec, split and how tracing went
 *   splits.json                                 group -> split, for every group in the build
 *   manifest.json                               options, counts, sizes and timings
 */
import { createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { serializeTrajectory } from '../grammar/serialize.js';
import type { Direction } from '../grammar/state.js';
import { truncateTrajectory } from '../grammar/truncate.js';
import { StateTree } from '../state-tree/tree.js';
import { TraceFailure } from '../tracer/run-tracer.js';
import { traceSpec } from './check.js';
import { loadCorpus } from './corpora/index.js';
import { argumentVariants } from './corpora/support.js';
import { excerptTrace } from './excerpt.js';
import type { ProgramOrigin, ProgramSpec } from './program.js';
import { runPool } from './pool.js';
import { makeFolder } from '../util/make-folder.js';
import { Rng } from '../util/rng.js';
import { type Split, SPLITS, splitOf } from './split.js';
import { generateSemanticsProgram } from './semantics.js';
import { generateSyntheticProgram } from './synthetic.js';
import { type Policy, sampleTrajectory } from './trajectories.js';

export interface BuildOptions {
  out: string;
  programs: number;
  seed: number;
  concurrency?: number;
  /** Trajectories sampled per trace, half forward and half inverse (reference §5: 50/50). */
  trajectoriesPerTrace?: number;
  maxSteps?: number;
  /** Argument variants per HumanEval and MBPP test call (corpora/vary_args.py), added to those corpora. */
  variants?: number;
  /** Share of trajectories sampled with the jump-weighted policy (trajectories.ts)… */
  jumps?: number;
  /** …and with the walk policy (line by line); the rest use the paper's. jumps + walks <= 1. */
  walks?: number;
  /** Share of each source among the programs; a source with too few programs leaves the rest to synthetic. */
  mix?: Partial<Record<ProgramOrigin, number>>;
  onProgress?: (done: number, total: number) => void;
}

export const DEFAULT_MIX: Record<ProgramOrigin, number> = { synthetic: 0.5, semantics: 0, mbpp: 0.2, humaneval: 0.1, stdlib: 0.2, packages: 0 };

/** `semantics=0.4,synthetic=0.3` -> a mix; origins not named keep DEFAULT_MIX's share only if none is named. */
export function parseMix(text: string): Record<ProgramOrigin, number> {
  const mix = Object.fromEntries(Object.keys(DEFAULT_MIX).map((k) => [k, 0])) as Record<ProgramOrigin, number>;
  for (const part of text.split(',')) {
    const [name, share] = part.split('=');
    if (!name || !(name in mix) || share === undefined || !(Number(share) >= 0)) {
      throw new Error(`--mix: ${JSON.stringify(part)} is not ORIGIN=SHARE with ORIGIN one of ${Object.keys(mix).join(', ')}`);
    }
    mix[name as ProgramOrigin] = Number(share);
  }
  return mix;
}

export interface BuildSummary {
  programs: number;
  failed: Record<string, number>;
  traces: number;
  trajectories: Record<Split, number>;
  directions: Record<Direction, number>;
  characters: number;
  /** Trace-language special tokens written (payload text is not counted: no tokenizer yet). */
  specialTokens: number;
  seconds: number;
  programsPerSecond: number;
}

/** Chooses the build's programs: each source's share, drawn with the seed, synthetic fills the rest. */
export async function choosePrograms(count: number, seed: number, mix: Record<ProgramOrigin, number>, variants = 0): Promise<ProgramSpec[]> {
  const rng = new Rng(seed);
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  const chosen: ProgramSpec[] = [];
  for (const origin of ['humaneval', 'mbpp', 'stdlib', 'packages'] as const) {
    const want = Math.floor((count * mix[origin]) / total);
    if (want === 0) continue;
    const all = await loadCorpus(origin);
    if (origin === 'humaneval' || origin === 'mbpp') all.push(...(await argumentVariants(all, variants, seed)));
    chosen.push(...rng.fork(origin).shuffle([...all]).slice(0, want));
  }
  const semantics = Math.floor((count * mix.semantics) / total);
  for (let i = 0; i < semantics; i++) chosen.push(generateSemanticsProgram(seed, i));
  for (let i = 0; chosen.length < count; i++) chosen.push(generateSyntheticProgram(seed, i));
  return chosen;
}

const SPECIAL_TOKEN = /<\|[a-z_]+\|>/g;

interface ProgramRecord {
  id: string;
  group: string;
  origin: ProgramOrigin;
  split: Split;
  entry: string;
  args: string;
  status: 'ok' | 'failed';
  exit?: string;
  events?: number;
  /** The program the trajectories show (for a real module: the excerpt). */
  program?: string;
  error?: string;
  message?: string;
}

interface ProgramResult {
  split: Split;
  record: ProgramRecord;
  trajectories: { id: string; direction: Direction; text: string }[];
}

/** A trajectory's policy: one draw against the shares, so a build without walks samples as before they existed. */
export function policyOf(draw: number, jumps: number, walks: number): Policy {
  if (draw < jumps) return 'jumps';
  return draw < jumps + walks ? 'walk' : 'paper';
}

/** Traces one program and samples its trajectories; a tracing failure is a result, not an error. */
async function processProgram(spec: ProgramSpec, seed: number, perTrace: number, maxSteps: number, jumps: number, walks: number): Promise<ProgramResult> {
  const split = splitOf(spec.group);
  const record: ProgramRecord = { id: spec.id, group: spec.group, origin: spec.origin, split, entry: spec.entry, args: spec.args, status: 'ok' };
  try {
    const traced = await traceSpec(spec);
    // A real module is cut to the call's scope, as NeuralPredictor cuts a long program (program-analysis/cut.ts).
    const trace = traced.exit.scope && spec.path ? await excerptTrace(traced, spec.entry) : traced;
    if (trace.events.length === 0) throw new TraceFailure('internal', 'the entry produced no traced events');
    if (trace.exit.reason === 'trace_lost') throw new TraceFailure('internal', 'Python dropped the trace function before the end: the trace is incomplete');
    const tree = new StateTree(trace);
    const rng = new Rng(seed).fork(spec.id);
    const trajectories: ProgramResult['trajectories'] = [];
    for (let k = 0; k < perTrace; k++) {
      const direction: Direction = k % 2 === 0 ? 'forward' : 'inverse';
      const policy = jumps + walks > 0 ? policyOf(rng.fork(`policy~${k}`).next(), jumps, walks) : 'paper';
      const text = serializeTrajectory(truncateTrajectory(sampleTrajectory(tree, direction, rng, { maxSteps, policy })));
      trajectories.push({ id: `${spec.id}~${k}`, direction, text });
    }
    Object.assign(record, { exit: trace.exit.exit, events: trace.events.length, program: trace.program });
    return { split, record, trajectories };
  } catch (err) {
    const error = err instanceof TraceFailure ? err.kind : 'internal';
    Object.assign(record, { status: 'failed', error, message: (err as Error).message });
    return { split, record, trajectories: [] };
  }
}

export async function buildDataset(opts: BuildOptions): Promise<BuildSummary> {
  const started = Date.now();
  const perTrace = opts.trajectoriesPerTrace ?? 4;
  const maxSteps = opts.maxSteps ?? 48;
  const specs = await choosePrograms(opts.programs, opts.seed, { ...DEFAULT_MIX, ...opts.mix }, opts.variants ?? 0);

  makeFolder(opts.out);
  const files = Object.fromEntries(SPLITS.map((s) => [s, createWriteStream(join(opts.out, `${s}.jsonl`))])) as Record<Split, WriteStream>;
  const programsFile = createWriteStream(join(opts.out, 'programs.jsonl'));
  const summary: BuildSummary = {
    programs: specs.length,
    failed: {},
    traces: 0,
    trajectories: { train: 0, validation: 0, test: 0 },
    directions: { forward: 0, inverse: 0 },
    characters: 0,
    specialTokens: 0,
    seconds: 0,
    programsPerSecond: 0,
  };
  const splits: Record<string, Split> = {};

  // Results are written in program order, whatever order they finish in, so that a build is
  // byte-for-byte reproducible from its options.
  const finished = new Map<number, ProgramResult>();
  let nextToWrite = 0;
  const flush = () => {
    for (let r = finished.get(nextToWrite); r; r = finished.get(++nextToWrite)) {
      finished.delete(nextToWrite);
      for (const t of r.trajectories) {
        files[r.split].write(JSON.stringify({ id: t.id, group: r.record.group, origin: r.record.origin, direction: t.direction, text: t.text }) + '\n');
      }
      programsFile.write(JSON.stringify(r.record) + '\n');
    }
  };

  let done = 0;
  await runPool(
    specs,
    opts.concurrency ?? availableParallelism(),
    (spec) => processProgram(spec, opts.seed, perTrace, maxSteps, opts.jumps ?? 0, opts.walks ?? 0),
    (result, index) => {
      splits[result.record.group] = result.split;
      if (result.record.status === 'ok') {
        summary.traces++;
        for (const { direction, text } of result.trajectories) {
          summary.trajectories[result.split]++;
          summary.directions[direction]++;
          summary.characters += text.length;
          summary.specialTokens += text.match(SPECIAL_TOKEN)?.length ?? 0;
        }
      } else {
        summary.failed[result.record.error!] = (summary.failed[result.record.error!] ?? 0) + 1;
      }
      finished.set(index, result);
      flush();
      opts.onProgress?.(++done, specs.length);
    },
  );

  await Promise.all([...Object.values(files), programsFile].map((f) => new Promise((resolve) => f.end(resolve))));
  summary.seconds = (Date.now() - started) / 1000;
  summary.programsPerSecond = specs.length / Math.max(summary.seconds, 1e-3);
  const sortedSplits = Object.fromEntries(Object.entries(splits).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(join(opts.out, 'splits.json'), JSON.stringify(sortedSplits, null, 1) + '\n');
  writeFileSync(join(opts.out, 'manifest.json'), JSON.stringify({ options: { programs: opts.programs, seed: opts.seed, trajectoriesPerTrace: perTrace, maxSteps, jumps: opts.jumps ?? 0, walks: opts.walks ?? 0, variants: opts.variants ?? 0, mix: { ...DEFAULT_MIX, ...opts.mix } }, summary }, null, 2) + '\n');
  return summary;
}
