/**
 * `npm run bench` (`node dist/bench/run.js [--quick] [--think MS] [--rows N]`): how fast the
 * neural debugger answers a key press, against a baseline on the same model.
 *
 * Each program (bench/programs.ts) is debugged twice, one session right after the other, in
 * alternating order (so that a busy machine weighs on both alike): by our adapter, and by the baseline, the same adapter
 * with every optimization off (no prefix cache: each prompt recomputed; no prefetch; no drafts). Each
 * session is a fresh adapter process driven over DAP (bench/client.ts) through a fixed plan
 * of key presses, with a pause ("think time") after each stop.
 *
 * Reported per action: median and p95 latency (request to stopped event), tokens and forward
 * passes per step, prompt tokens run per step, prefetch hits; per session: time to the first
 * stop (cold) and peak RSS; and the floor: the weight bytes a forward pass reads over the
 * memory bandwidth measured in this run, times the forward passes a step takes. Timings are
 * noisy on a shared machine: compare the ratios, which come from one run.
 * Writes bench/results/latest.json and bench/results/latency.png.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultModelDir, loadModelFolder } from '../model-client/model-folder.js';
import { latencyChart } from './chart.js';
import { type BenchAction, runSession, type SessionResult, type StepSample } from './client.js';
import { benchPrograms } from './programs.js';
import { mean, measureBandwidth, percentile } from './stats.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ACTIONS: BenchAction[] = ['step_over', 'step_into', 'step_return', 'continue'];
/** What a user does: mostly stepping over, into calls now and then, out of them, then run to the end. */
const FULL_PLAN: BenchAction[] = ['step_over', 'step_into', 'step_over', 'step_over', 'step_into', 'step_over', 'step_return', 'step_over', 'step_into', 'step_over', 'step_over', 'step_over', 'continue'];
const QUICK_PLAN: BenchAction[] = ['step_over', 'step_into', 'step_over', 'step_return', 'step_over', 'continue'];

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, think: { type: 'string' }, rows: { type: 'string' } } });
const quick = values.quick === true;
const thinkMs = Number(values.think ?? 500);
const rows = Number(values.rows ?? (quick ? 2 : 5));
const plan = quick ? QUICK_PLAN : FULL_PLAN;

const log = (line: string) => process.stderr.write(`${line}\n`);

const bandwidthBefore = measureBandwidth();
const folder = await loadModelFolder(defaultModelDir());
const weightBytes = statSync(folder.onnxPath).size;
const dir = await mkdtemp(join(tmpdir(), 'ndb-bench-'));
const programs = await benchPrograms(ROOT, dir, rows, quick ? 1 : 2);
const sessions: SessionResult[] = [];
const started = performance.now();
for (const [i, program] of programs.entries()) {
  // Alternating which goes first, so that neither always follows the other's teardown.
  for (const config of i % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const)) {
    const r = await runSession(ROOT, program, config, plan, thinkMs);
    sessions.push(r);
    log(`${config.padEnd(8)} ${program.name.padEnd(22)} cold ${r.coldMs.toFixed(0)} ms, ${r.steps.length} steps${r.error ? `, ERROR ${r.error}` : ''}`);
  }
}
// Bandwidth again at the end: the best of both (the floor is what the memory can do).
const bandwidth = Math.max(bandwidthBefore, measureBandwidth());

const ok = sessions.filter((s) => !s.error);
const steps = (config: string, action?: BenchAction) => ok.filter((s) => s.config === config).flatMap((s) => s.steps.filter((x) => !x.replayed && (!action || x.action === action)));
const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);

interface Row {
  action: string;
  n: number;
  ours: { median: number; p95: number };
  baseline: { median: number; p95: number };
  /** baseline / ours: how many times faster. */
  speedup: { median: number; p95: number };
  hits: number;
  tokensPerStep: number;
  /** Forward passes per step, ours (with drafts) and baseline (one token per pass). */
  passesPerStep: { ours: number; baseline: number };
  promptTokensRun: { ours: number; baseline: number };
  /** Floor latency: weight bytes / bandwidth * passes per step. */
  floorMs: number;
}

function row(action: string, ours: StepSample[], base: StepSample[]): Row {
  const lat = (xs: StepSample[]) => ({ median: percentile(xs.map((x) => x.ms), 50), p95: percentile(xs.map((x) => x.ms), 95) });
  const o = lat(ours);
  const b = lat(base);
  const passes = mean(defined(base.map((x) => x.passes)));
  const oursPasses = mean(defined(ours.map((x) => x.passes)));
  return {
    action,
    n: ours.length,
    ours: o,
    baseline: b,
    speedup: { median: b.median / o.median, p95: b.p95 / o.p95 },
    hits: ours.filter((x) => x.prefetched).length,
    tokensPerStep: mean(defined(base.map((x) => x.tokens))),
    passesPerStep: { ours: oursPasses, baseline: passes },
    promptTokensRun: { ours: mean(defined(ours.map((x) => x.prefilled))), baseline: mean(defined(base.map((x) => x.prefilled))) },
    // The floor of a step as the baseline decodes it (one chosen token per pass).
    floorMs: ((weightBytes / bandwidth) * passes) * 1000,
  };
}

const table: Row[] = [...ACTIONS.map((a) => row(a, steps('ours', a), steps('baseline', a))), row('all steps', steps('ours'), steps('baseline'))];
const cold = (config: string) => ok.filter((s) => s.config === config).map((s) => s.coldMs);
const rss = (config: string) => Math.max(...ok.filter((s) => s.config === config).map((s) => s.peakRss));
const pairs = programs.map((p) => [ok.find((s) => s.program === p.name && s.config === 'ours'), ok.find((s) => s.program === p.name && s.config === 'baseline')] as const);
const compared = pairs.filter(([o, b]) => o && b);
const identical = compared.filter(([o, b]) => JSON.stringify(o!.states) === JSON.stringify(b!.states)).length;

const summary = {
  date: new Date().toISOString(),
  quick,
  thinkMs,
  plan,
  programs: programs.map((p) => p.name),
  model: { onnx: folder.onnxPath.replace(ROOT + '/', ''), weightBytes },
  bandwidthBytesPerSecond: bandwidth,
  secondsPerForwardPassFloor: weightBytes / bandwidth,
  actions: table,
  cold: { ours: { median: percentile(cold('ours'), 50) }, baseline: { median: percentile(cold('baseline'), 50) }, speedup: percentile(cold('baseline'), 50) / percentile(cold('ours'), 50) },
  peakRssBytes: { ours: rss('ours'), baseline: rss('baseline'), ratio: rss('ours') / rss('baseline') },
  sameStates: { identical, compared: compared.length },
  errors: sessions.filter((s) => s.error).map((s) => ({ config: s.config, program: s.program, error: s.error })),
  failedSteps: sessions.flatMap((s) => s.failedSteps.map((f) => ({ config: s.config, program: s.program, ...f }))),
  sessions,
  wallSeconds: (performance.now() - started) / 1000,
};

const f = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const lines = [
  `ndb bench${quick ? ' (quick)' : ''}: ${programs.length} programs x 2 configs, think ${thinkMs} ms, ${summary.wallSeconds.toFixed(0)} s`,
  `ours = prefix cache + prefetch + drafts; baseline = same model and client, all off. speedup = baseline / ours (same run).`,
  '',
  `action       n  ours p50  p95 | base p50  p95 | speedup p50  p95 | hits | tok/step pass/step ours/base | prompt tok run ours/base | floor ms`,
  ...table.map(
    (r) =>
      `${r.action.padEnd(11)} ${String(r.n).padStart(3)} ${f(r.ours.median).padStart(8)} ${f(r.ours.p95).padStart(4)} | ${f(r.baseline.median).padStart(8)} ${f(r.baseline.p95).padStart(4)} | ${`${f(r.speedup.median, 1)}x`.padStart(11)} ${`${f(r.speedup.p95, 1)}x`.padStart(5)} | ${`${r.hits}/${r.n}`.padStart(5)} | ${f(r.tokensPerStep, 1).padStart(8)} ${`${f(r.passesPerStep.ours, 1)}/${f(r.passesPerStep.baseline, 1)}`.padStart(19)} | ${`${f(r.promptTokensRun.ours)}/${f(r.promptTokensRun.baseline)}`.padStart(24)} | ${f(r.floorMs, 1).padStart(8)}`,
  ),
  '',
  `first stop after launch (cold: process, model load, program prefill): ours ${f(summary.cold.ours.median)} ms, baseline ${f(summary.cold.baseline.median)} ms (speedup ${f(summary.cold.speedup, 2)}x)`,
  `peak RSS of the adapter: ours ${f(summary.peakRssBytes.ours / 2 ** 20, 1)} MiB, baseline ${f(summary.peakRssBytes.baseline / 2 ** 20, 1)} MiB (ratio ${f(summary.peakRssBytes.ratio, 2)})`,
  `floor: ${f(weightBytes / 2 ** 20, 1)} MiB of weights per forward pass / ${f(bandwidth / 1e9, 1)} GB/s measured = ${f((weightBytes / bandwidth) * 1000, 2)} ms per pass`,
  `states: ${identical}/${compared.length} sessions showed identical stops with and without the optimizations${summary.errors.length ? `; ${summary.errors.length} sessions failed (see errors in the JSON)` : ''}${summary.failedSteps.length ? `; ${summary.failedSteps.length} key presses answered with a model error (failedSteps in the JSON)` : ''}`,
];
process.stdout.write(lines.join('\n') + '\n');

const out = join(ROOT, 'bench', 'results');
await mkdir(out, { recursive: true });
await writeFile(join(out, 'latest.json'), JSON.stringify(summary, null, 2) + '\n');
const chart = latencyChart(
  `ndb latency per action (median, p95 tick), think ${thinkMs} ms`,
  table.map((r) => ({ label: r.action, ours: r.ours, baseline: r.baseline })),
);
await writeFile(join(out, 'latency.png'), chart);
log(`wrote bench/results/latest.json and bench/results/latency.png`);
