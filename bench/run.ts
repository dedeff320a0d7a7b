/**
 * `npm run bench` (`node dist/bench/run.js [--quick] [--think MS] [--rows N] [--memory-steps N]
 * [--no-memory] [--jumps-only]`): how fast the neural debugger answers a key press, against two
 * baselines on the same model.
 *
 * Each program (bench/programs.ts) is debugged four times, one session right after the other,
 * in an order that changes from program to program (a balanced Latin square, stats.ts
 * balancedOrder: no configuration always runs right after another, and a busy machine weighs
 * on all alike). The configurations (bench/client.ts, bench/adapter.ts):
 *
 *   ours        our adapter as it ships: prefix cache, prefetch, drafts, grammar.
 *   noprefetch  the same, launched with `prefetch: false`: what a key press costs when no
 *               guess is ready (the issue's "a step without prefetch").
 *   baseline    baseline (2): the same adapter and model with every optimization off (no prefix
 *               cache: each prompt recomputed; no prefetch; no drafts). It gives the same
 *               states as ours.
 *   generate    baseline (1): what a user would write first: @huggingface/transformers'
 *               generate() on the prompt rebuilt from text each step, greedy, no grammar
 *               (bench/generate-predictor.ts). Its states may differ from ours; a frame it
 *               writes that does not parse is a failed key press.
 *
 * Each session is a fresh adapter process driven over DAP (bench/client.ts) through a fixed
 * plan of key presses, with a pause ("think time") after each stop.
 *
 * Reported per action: median and p95 latency (request to stopped event) per configuration,
 * prefetch hits, the ratios of medians (generate / noprefetch and generate / ours: the issue
 * asks a step without prefetch to be at least 3x faster than baseline (1); all-off / ours),
 * tokens, forward passes and prompt tokens run per step, and the floor: the weight bytes a
 * forward pass reads over the memory bandwidth measured in this run, times the forward passes
 * a step takes (one per chosen token, as the all-off baseline decodes; and noprefetch's own
 * passes), per step; noprefetch's figure is the median over its steps of each step's latency
 * over that step's floor (the memory bandwidth is the best of one and two copying threads,
 * bench/bandwidth.ts). Then noprefetch once more on every program with no
 * think time, against the same floor: a warm CPU (bench/pass-ramp.ts shows what a pause
 * costs the next passes). Per configuration: time to the first stop (cold), peak RSS, the
 * longest event-loop delay in the adapter during the steps (bench/event-loop.ts), failed key
 * presses; whether ours and the all-off baseline showed the same
 * stops (they must), and how far generate's agree with ours (informational). Then one long
 * run per configuration, ours and noprefetch (bench/long-run.ts: 40 presses on
 * examples/orders.py, 24 with --quick; the median of presses 1-20 against 21-40, and the
 * prompt tokens run per step in each half). Then Predict Inputs on the first rows of the
 * real-code held-out file (10, 4 with --quick), with the model's drawn answers and without
 * (bench/predict-inputs.ts). Then jumps over calls: a step over a call, a step out and a
 * continue to a breakpoint about 50 lines of run ahead, beside a single step, with prefetch and
 * without, on dev programs of the pdb corpus (bench/jumps.ts; `--jumps-only` runs only these and
 * writes bench/results/jumps.json). Then, unless
 * --no-memory, the memory of one long session: `npm run bench:memory` (bench/memory.ts),
 * --memory-steps key presses (default 2,000; 200 with --quick) in a child process.
 * Timings are noisy on a shared machine: compare the ratios, which come from one run.
 * Writes bench/results/latest.json and bench/results/latency.png.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultModelDir, loadModelFolder } from '../model-client/model-folder.js';
import { type ChartSeries, latencyChart } from './chart.js';
import type { MemoryResult } from './memory.js';
import { type BenchAction, CONFIGS, type Config, runSession, type SessionResult, type StepSample } from './client.js';
import { measureBandwidth } from './bandwidth.js';
import { benchPrograms } from './programs.js';
import { longRunLines, measureLongRun } from './long-run.js';
import { measurePredictInputs, predictInputsLines } from './predict-inputs.js';
import { jumpsLines, measureJumps } from './jumps.js';
import { balancedOrder, mean, percentile } from './stats.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ACTIONS: BenchAction[] = ['step_over', 'step_into', 'step_return', 'continue'];
/** What a user does: mostly stepping over, into calls now and then, out of them, then run to the end. */
const FULL_PLAN: BenchAction[] = ['step_over', 'step_into', 'step_over', 'step_over', 'step_into', 'step_over', 'step_return', 'step_over', 'step_into', 'step_over', 'step_over', 'step_over', 'continue'];
const QUICK_PLAN: BenchAction[] = ['step_over', 'step_into', 'step_over', 'step_return', 'step_over', 'continue'];

const { values } = parseArgs({
  options: { quick: { type: 'boolean' }, think: { type: 'string' }, rows: { type: 'string' }, 'memory-steps': { type: 'string' }, 'no-memory': { type: 'boolean' }, 'jumps-only': { type: 'boolean' } },
});
const quick = values.quick === true;
const thinkMs = Number(values.think ?? 500);
const rows = Number(values.rows ?? (quick ? 2 : 5));
const plan = quick ? QUICK_PLAN : FULL_PLAN;
const memorySteps = values['no-memory'] ? 0 : Number(values['memory-steps'] ?? (quick ? 200 : 2000));

const log = (line: string) => process.stderr.write(`${line}\n`);

// --jumps-only: the jumps over calls alone (bench/jumps.ts), written to bench/results/jumps.json.
if (values['jumps-only']) {
  const jumps = await measureJumps(ROOT, { thinkMs, quick, log });
  process.stdout.write(jumpsLines(jumps).join('\n') + '\n');
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(join(ROOT, 'bench', 'results', 'jumps.json'), JSON.stringify({ date: new Date().toISOString(), quick, thinkMs, jumps }, null, 2) + '\n');
  log('wrote bench/results/jumps.json');
  process.exit(0);
}

/** One thread and two (where there are two cores): the best is the floor's bandwidth, what the memory can do. */
const bestBandwidth = async () => Math.max(await measureBandwidth(1), await measureBandwidth(Math.min(2, availableParallelism())));
const bandwidthBefore = await bestBandwidth();
const folder = await loadModelFolder(defaultModelDir());
const weightBytes = statSync(folder.onnxPath).size;
const dir = await mkdtemp(join(tmpdir(), 'ndb-bench-'));
const programs = await benchPrograms(ROOT, dir, rows, quick ? 1 : 3);
const sessions: SessionResult[] = [];
const started = performance.now();
for (const [i, program] of programs.entries()) {
  for (const config of balancedOrder(CONFIGS, i)) {
    const r = await runSession(ROOT, program, config, plan, thinkMs);
    sessions.push(r);
    const failed = r.failedSteps.length ? `, ${r.failedSteps.length} failed key presses` : '';
    log(`${config.padEnd(10)} ${program.name.padEnd(22)} cold ${r.coldMs.toFixed(0)} ms, ${r.steps.length} steps${failed}${r.error ? `, ERROR ${r.error}` : ''}`);
  }
}
// No prefetch once more with no think time: the next key press comes while the CPU is still
// busy from the last (bench/pass-ramp.ts: a pass right after a pause costs several times one
// in a tight loop). The difference to noprefetch is the CPU waking up, not ndb.
const warmSessions: SessionResult[] = [];
for (const program of programs) warmSessions.push(await runSession(ROOT, program, 'noprefetch', plan, 0));
// A long run (bench/long-run.ts): do presses 21-40 cost what presses 1-20 do, with and without prefetch?
const longRun = await measureLongRun(ROOT, { presses: quick ? 24 : 40, thinkMs });
// Predict Inputs with the model's drawn answers and without (bench/predict-inputs.ts).
const inputs = await measurePredictInputs(ROOT, dir, quick ? 4 : 10);
// A step over a call, a step out and a continue ~50 lines ahead, beside a single step (bench/jumps.ts).
const jumps = await measureJumps(ROOT, { thinkMs, quick, log });
// Bandwidth again at the end: the best of both (the floor is what the memory can do).
const bandwidth = Math.max(bandwidthBefore, await bestBandwidth());
const msPerPass = (weightBytes / bandwidth) * 1000;

const ok = sessions.filter((s) => !s.error);
const of = (config: Config) => ok.filter((s) => s.config === config);
const steps = (config: Config, action?: BenchAction) => of(config).flatMap((s) => s.steps.filter((x) => !x.replayed && (!action || x.action === action)));
const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);
const perConfig = <T>(fn: (c: Config) => T) => Object.fromEntries(CONFIGS.map((c) => [c, fn(c)])) as Record<Config, T>;

interface Latency {
  /** Steps measured (failed key presses and replayed stops are not). */
  n: number;
  median: number;
  p95: number;
}

interface Row {
  action: string;
  latency: Record<Config, Latency>;
  /** Steps of ours answered from a prefetched guess. */
  hits: number;
  /** Ratios of medians, same run: how many times faster the second is. */
  ratios: { generateOverNoprefetch: number; generateOverOurs: number; baselineOverOurs: number; baselineOverNoprefetch: number };
  /** Tokens of the frame per step (chosen by the model and fixed by the grammar; generate: all generated). */
  tokensPerStep: Record<Config, number>;
  /** Forward passes per step: ours and noprefetch with drafts; baseline one chosen token per pass (tokens the grammar fixes may share one); generate one token per pass. */
  passesPerStep: Record<Config, number>;
  /** Prompt tokens run through the model per step (the rest came from the cache). */
  promptTokensRun: Record<Config, number>;
  /**
   * The floor of each step, weight bytes / bandwidth x passes: one chosen token per pass
   * (the step's chosen tokens: what the all-off client's passes are), and noprefetch's own
   * passes; the median over the action's noprefetch steps.
   */
  floorMs: { onePerPass: number; noprefetch: number };
  /** The median over noprefetch's steps of each step's latency over its own floor (the issue's target: within 2x). */
  noprefetchOverFloor: { onePerPass: number; noprefetch: number };
}

/** A step's latency over its floor: `passes` forward passes at the floor's cost each. */
const overFloor = (s: StepSample, passes: number | undefined) => (passes ? s.ms / (passes * msPerPass) : NaN);
const medianOf = (values: number[]) => percentile(values.filter(Number.isFinite), 50);

function row(action: string, pick: (c: Config) => StepSample[]): Row {
  const samples = perConfig(pick);
  const latency = perConfig((c): Latency => {
    const ms = samples[c].map((x) => x.ms);
    return { n: ms.length, median: percentile(ms, 50), p95: percentile(ms, 95) };
  });
  const avg = (key: 'tokens' | 'passes' | 'prefilled') => perConfig((c) => mean(defined(samples[c].map((x) => x[key]))));
  const passesPerStep = avg('passes');
  const med = (c: Config) => latency[c].median;
  const nopf = samples.noprefetch;
  const floorMs = { onePerPass: medianOf(nopf.map((s) => (s.sampled ?? NaN) * msPerPass)), noprefetch: medianOf(nopf.map((s) => (s.passes ?? NaN) * msPerPass)) };
  return {
    action,
    latency,
    hits: samples.ours.filter((x) => x.prefetched).length,
    ratios: {
      generateOverNoprefetch: med('generate') / med('noprefetch'),
      generateOverOurs: med('generate') / med('ours'),
      baselineOverOurs: med('baseline') / med('ours'),
      baselineOverNoprefetch: med('baseline') / med('noprefetch'),
    },
    tokensPerStep: avg('tokens'),
    passesPerStep,
    promptTokensRun: avg('prefilled'),
    floorMs,
    noprefetchOverFloor: { onePerPass: medianOf(nopf.map((s) => overFloor(s, s.sampled))), noprefetch: medianOf(nopf.map((s) => overFloor(s, s.passes))) },
  };
}

const table: Row[] = [...ACTIONS.map((a) => row(a, (c) => steps(c, a))), row('all steps', (c) => steps(c))];

/** noprefetch with no think time, over all steps, against the same one-token floor. */
const warm = (() => {
  const warmSteps = warmSessions.filter((s) => !s.error).flatMap((s) => s.steps.filter((x) => !x.replayed));
  const ms = warmSteps.map((x) => x.ms);
  return { thinkMs: 0, n: ms.length, median: percentile(ms, 50), p95: percentile(ms, 95), overFloorOnePerPass: medianOf(warmSteps.map((x) => overFloor(x, x.sampled))) };
})();

/** Sessions of one program under two configs whose stops the client saw alike: all of them, and how many stops before the first difference. */
function agreement(a: Config, b: Config) {
  const pairs = programs.map((p) => [ok.find((s) => s.program === p.name && s.config === a), ok.find((s) => s.program === p.name && s.config === b)] as const);
  const compared = pairs.filter((x): x is readonly [SessionResult, SessionResult] => x[0] !== undefined && x[1] !== undefined);
  let stops = 0;
  let agreed = 0;
  for (const [x, y] of compared) {
    let k = 0;
    while (k < x.states.length && x.states[k] === y.states[k]) k++;
    agreed += k;
    stops += x.states.length;
  }
  const identical = compared.filter(([x, y]) => JSON.stringify(x.states) === JSON.stringify(y.states)).length;
  return { identical, compared: compared.length, stopsBeforeFirstDifference: agreed, stops };
}

const coldMedian = (c: Config) => percentile(of(c).map((s) => s.coldMs), 50);
const peakRss = (c: Config) => Math.max(...of(c).map((s) => s.peakRss));
/** The adapter's event loop during the steps, over the config's sessions: the longest delay, and the median session's 99th percentile. */
const eventLoop = (c: Config) => {
  const reports = of(c).flatMap((s) => (s.eventLoop ? [s.eventLoop] : []));
  return { sessions: reports.length, maxMs: Math.max(...reports.map((r) => r.maxMs)), p99Ms: percentile(reports.map((r) => r.p99Ms), 50) };
};

// ---- memory of one long session (bench/memory.ts) ------------------------------------------

/**
 * `npm run bench:memory`'s measurement (bench/memory-cli.ts, which writes
 * bench/results/memory.json), in a child node process with --expose-gc: so that its RSS is
 * one session's alone (not this process's, which holds the bandwidth test's buffers and every
 * session's results) and is sampled after a GC.
 */
async function measureMemoryInChild(steps: number): Promise<(MemoryResult & { ok: true }) | { ok: false; skipped: string }> {
  const cli = fileURLToPath(new URL('./memory-cli.js', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', cli, '--steps', String(steps)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  if (code !== 0) return { ok: false, skipped: `bench:memory failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}` };
  return { ...(JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'memory.json'), 'utf8')) as MemoryResult), ok: true };
}

let memory: (MemoryResult & { ok: true }) | { ok: false; skipped: string } = { ok: false, skipped: '--no-memory' };
if (memorySteps > 0) {
  log(`memory: one session of ${memorySteps} key presses (bench/memory.ts) ...`);
  memory = await measureMemoryInChild(memorySteps);
}

// ---- the summary -------------------------------------------------------------------------

const summary = {
  date: new Date().toISOString(),
  quick,
  thinkMs,
  plan,
  programs: programs.map((p) => p.name),
  configs: CONFIGS,
  /** Which config ran when, per program (balancedOrder). */
  order: programs.map((p, i) => ({ program: p.name, configs: balancedOrder(CONFIGS, i) })),
  model: { onnx: folder.onnxPath.replace(ROOT + '/', ''), weightBytes },
  bandwidthBytesPerSecond: bandwidth,
  secondsPerForwardPassFloor: weightBytes / bandwidth,
  actions: table,
  cold: { median: perConfig(coldMedian), generateOverOurs: coldMedian('generate') / coldMedian('ours'), baselineOverOurs: coldMedian('baseline') / coldMedian('ours') },
  peakRssBytes: perConfig(peakRss),
  eventLoopDelay: perConfig(eventLoop),
  /** noprefetch again with no think time (a warm CPU), all steps. */
  warmNoprefetch: warm,
  /** One long run per config (ours, noprefetch): the first half of the presses against the second (bench/long-run.ts). */
  longRun,
  /** Predict Inputs with the model's drawn answers against without (bench/predict-inputs.ts). */
  predictInputs: inputs,
  /** Step over a call, step out, continue ~50 lines ahead, and a single step, on pdb-corpus dev programs (bench/jumps.ts). */
  jumps,
  /** The floor's one-token-per-pass count is a step's chosen tokens: all-off's steps, whose passes they should equal. */
  floorPassesCheck: (() => {
    const offSteps = steps('baseline').filter((x) => x.passes !== undefined && x.sampled !== undefined);
    return { steps: offSteps.length, equal: offSteps.filter((x) => x.passes === x.sampled).length };
  })(),
  failedKeyPresses: perConfig((c) => sessions.filter((s) => s.config === c).reduce((a, s) => a + s.failedSteps.length, 0)),
  sameStates: {
    /** Must be all identical: the same model and greedy choices, the optimizations only change speed. */
    oursVsBaseline: agreement('ours', 'baseline'),
    oursVsNoprefetch: agreement('ours', 'noprefetch'),
    /** Informational: generate has no grammar, and nothing fixes a frame's known start. */
    oursVsGenerate: agreement('ours', 'generate'),
  },
  memory,
  errors: sessions.filter((s) => s.error).map((s) => ({ config: s.config, program: s.program, error: s.error })),
  failedSteps: sessions.flatMap((s) => s.failedSteps.map((f) => ({ config: s.config, program: s.program, ...f }))),
  sessions,
  wallSeconds: (performance.now() - started) / 1000,
};

const f = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)}x` : '-');
const slash = (r: Record<Config, number>, d: number) => CONFIGS.map((c) => f(r[c], d)).join('/');
const mib = (b: number) => f(b / 2 ** 20, 1);
const same = summary.sameStates;
const lines = [
  `ndb bench${quick ? ' (quick)' : ''}: ${programs.length} programs x ${CONFIGS.length} configs, think ${thinkMs} ms, ${summary.wallSeconds.toFixed(0)} s`,
  `ours = prefix cache + prefetch + drafts + grammar; nopf = ours with prefetch off; all-off = baseline (2), same client, all off;`,
  `gen = baseline (1), transformers.js generate(), prompt rebuilt each step, no grammar. Latency ms, request to stopped event; ratios of medians, same run.`,
  '',
  `action       n | ours p50   p95  hits | nopf p50   p95 | all-off p50 | gen p50 | gen/nopf gen/ours all-off/ours`,
  ...table.map((r) => {
    const l = r.latency;
    return `${r.action.padEnd(11)} ${String(l.ours.n).padStart(3)} | ${f(l.ours.median, 1).padStart(8)} ${f(l.ours.p95).padStart(5)} ${`${r.hits}/${l.ours.n}`.padStart(5)} | ${f(l.noprefetch.median, 1).padStart(8)} ${f(l.noprefetch.p95).padStart(5)} | ${f(l.baseline.median).padStart(11)} | ${f(l.generate.median).padStart(7)} | ${x(r.ratios.generateOverNoprefetch).padStart(8)} ${x(r.ratios.generateOverOurs).padStart(8)} ${x(r.ratios.baselineOverOurs).padStart(12)}`;
  }),
  '',
  `per step, ours/nopf/all-off/gen (means); a step's floor = weight bytes / bandwidth x passes: one per chosen token (all-off's passes), or nopf's own passes (drafts);`,
  `floor ms = the median of nopf's steps' floors; nopf / floor = the median over nopf's steps of each step's latency over its own floor:`,
  `action      |                 tokens |                 passes |      prompt tokens run | floor ms: 1 tok/pass  nopf passes |   nopf / floor: 1 tok/pass  nopf passes`,
  ...table.map(
    (r) =>
      `${r.action.padEnd(11)} | ${slash(r.tokensPerStep, 1).padStart(22)} | ${slash(r.passesPerStep, 1).padStart(22)} | ${slash(r.promptTokensRun, 0).padStart(22)} | ${f(r.floorMs.onePerPass, 1).padStart(20)} ${f(r.floorMs.noprefetch, 1).padStart(12)} | ${x(r.noprefetchOverFloor.onePerPass).padStart(28)} ${x(r.noprefetchOverFloor.noprefetch).padStart(12)}`,
  ),
  '',
  `nopf with no think time (the CPU still warm from the last key press), all steps: p50 ${f(warm.median, 1)} ms, p95 ${f(warm.p95)} ms (${warm.n} steps); median step ${x(warm.overFloorOnePerPass)} its 1 tok/pass floor`,
  `all-off's forward passes equal its chosen tokens (the 1 tok/pass floor's passes) in ${summary.floorPassesCheck.equal}/${summary.floorPassesCheck.steps} steps`,
  '',
  ...longRunLines(longRun),
  '',
  ...predictInputsLines(inputs),
  '',
  ...jumpsLines(jumps),
  '',
  `first stop after launch (cold: process, model load, program prefill), median ms: ${CONFIGS.map((c) => `${c} ${f(summary.cold.median[c])}`).join(', ')}`,
  `peak RSS of the adapter, MiB: ${CONFIGS.map((c) => `${c} ${mib(summary.peakRssBytes[c])}`).join(', ')}`,
  `event loop of the adapter during the steps, ms a timer waited (longest / median session's p99): ${CONFIGS.map((c) => `${c} ${f(summary.eventLoopDelay[c].maxMs, 1)} / ${f(summary.eventLoopDelay[c].p99Ms, 1)}`).join(', ')}`,
  `failed key presses (the model wrote no whole state): ${CONFIGS.map((c) => `${c} ${summary.failedKeyPresses[c]}`).join(', ')}${summary.errors.length ? `; ${summary.errors.length} sessions failed (see errors in the JSON)` : ''}`,
  `floor: ${mib(weightBytes)} MiB of weights per forward pass / ${f(bandwidth / 1e9, 1)} GB/s measured = ${f(msPerPass, 2)} ms per pass`,
  `states: ours vs all-off ${same.oursVsBaseline.identical}/${same.oursVsBaseline.compared} sessions identical${same.oursVsBaseline.identical === same.oursVsBaseline.compared ? '' : ' (MISMATCH: they must all be)'}; ours vs nopf ${same.oursVsNoprefetch.identical}/${same.oursVsNoprefetch.compared}; ours vs gen ${same.oursVsGenerate.identical}/${same.oursVsGenerate.compared} identical, ${same.oursVsGenerate.stopsBeforeFirstDifference}/${same.oursVsGenerate.stops} stops before the first difference (informational: gen has no grammar)`,
  memory.ok
    ? `memory: ${memory.steps} steps in one session, ${memory.restarts} restarts, ${memory.failures} failed, ${f(memory.seconds)} s; RSS MiB first ${f(memory.rssMiB.first, 1)}, second quarter ${f(memory.rssMiB.second_quarter, 1)}, last quarter ${f(memory.rssMiB.last_quarter, 1)}, max ${f(memory.rssMiB.max, 1)}; growth ${f(memory.growth, 3)} (last quarter / second)`
    : `memory: skipped (${memory.skipped})`,
];
process.stdout.write(lines.join('\n') + '\n');

const out = join(ROOT, 'bench', 'results');
await mkdir(out, { recursive: true });
await writeFile(join(out, 'latest.json'), JSON.stringify(summary, null, 2) + '\n');
const SERIES: Record<Config, ChartSeries> = {
  ours: { name: 'ours (all on)', color: [33, 113, 181] },
  noprefetch: { name: 'no prefetch', color: [107, 174, 214] },
  baseline: { name: 'all off (2)', color: [189, 189, 189] },
  generate: { name: 'generate() (1)', color: [230, 85, 13] },
};
const chart = latencyChart(
  `ndb latency per action (median, p95 tick), think ${thinkMs} ms`,
  CONFIGS.map((c) => SERIES[c]),
  table.map((r) => ({ label: r.action, values: CONFIGS.map((c) => r.latency[c]) })),
);
await writeFile(join(out, 'latency.png'), chart);
log(`wrote bench/results/latest.json and bench/results/latency.png`);
// A failed key press leaves DebugClient's wait for its stopped event behind, with a timer that
// would keep this process alive for up to two minutes: nothing is left to do.
process.exit(0);
