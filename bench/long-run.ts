/**
 * Does a step late in a long run cost what an early one does? (bench/run.ts calls this; on
 * its own: `node dist/bench/long-run.js [--steps N] [--think MS]`.)
 *
 * One session per configuration (ours, then noprefetch) over DAP, as bench/client.ts drives
 * every session, on the bench's longer file (examples/orders.py, 330 tokens of context: its
 * history outgrows the 1,024-token context after about 20 presses), N key presses (default
 * 40) alternating step over and step into. Eight order lines: since the loop rules
 * (semantics/rules/loop.ts) the predicted run follows the real one, and with four the
 * run ended after 27 presses.
 * Reported: the median latency of the first half of the presses (1-20) and of the second
 * (21-40), their ratio (late / early), and the prompt tokens run per step in each half: a
 * history window that slid every step would rebuild the cache each step, and the late half
 * would run hundreds of prompt tokens a step.
 */
import { join } from 'node:path';
import { type BenchAction, type Config, runSession, type StepSample } from './client.js';
import { mean, percentile } from './stats.js';

export const LONG_RUN_PROGRAM = { name: 'examples/orders.py', entry: 'summarise', args: "['apple: 3', 'Fig:10', 'plum', 'pear:2', 'kiwi: 4', 'fig', 'Apple:12', 'grape:1']" };
export const LONG_RUN_CONFIGS: readonly Config[] = ['ours', 'noprefetch'];

export interface LongRunHalf {
  /** Presses measured in this half (failed ones are not). */
  n: number;
  median: number;
  p95: number;
  /** Mean prompt tokens run per step (the rest came from the cache). */
  promptTokensRun: number;
  /** Mean forward passes per step (for a hit: the guess's, in the background). */
  passes: number;
  /** Steps answered from a prefetched guess. */
  hits: number;
}

export interface LongRunConfig {
  config: Config;
  early: LongRunHalf;
  late: LongRunHalf;
  /** late median / early median (the issue's target: no more than about 1). */
  lateOverEarly: number;
  restarts: number;
  failedSteps: number;
  error?: string;
  /** Each press: latency, prompt tokens run, hit. */
  steps: { ms: number; prefilled?: number; passes?: number; prefetched: boolean }[];
}

export interface LongRunResult {
  program: string;
  presses: number;
  thinkMs: number;
  configs: LongRunConfig[];
}

function half(steps: StepSample[]): LongRunHalf {
  const ms = steps.map((s) => s.ms);
  return {
    n: ms.length,
    median: percentile(ms, 50),
    p95: percentile(ms, 95),
    promptTokensRun: mean(steps.flatMap((s) => (s.prefilled === undefined ? [] : [s.prefilled]))),
    passes: mean(steps.flatMap((s) => (s.passes === undefined ? [] : [s.passes]))),
    hits: steps.filter((s) => s.prefetched).length,
  };
}

export async function measureLongRun(root: string, opts: { presses?: number; thinkMs?: number } = {}): Promise<LongRunResult> {
  const presses = opts.presses ?? 40;
  const thinkMs = opts.thinkMs ?? 500;
  const plan: BenchAction[] = Array.from({ length: presses }, (_, i) => (i % 2 === 0 ? 'step_over' : 'step_into'));
  const program = { ...LONG_RUN_PROGRAM, path: join(root, LONG_RUN_PROGRAM.name) };
  const configs: LongRunConfig[] = [];
  for (const config of LONG_RUN_CONFIGS) {
    const r = await runSession(root, program, config, plan, thinkMs);
    const steps = r.steps.filter((s) => !s.replayed);
    const mid = Math.floor(presses / 2);
    const early = half(steps.slice(0, mid));
    const late = half(steps.slice(mid));
    configs.push({
      config,
      early,
      late,
      lateOverEarly: late.median / early.median,
      restarts: r.restarts,
      failedSteps: r.failedSteps.length,
      ...(r.error ? { error: r.error } : {}),
      steps: steps.map((s) => ({ ms: s.ms, ...(s.prefilled !== undefined ? { prefilled: s.prefilled } : {}), ...(s.passes !== undefined ? { passes: s.passes } : {}), prefetched: s.prefetched })),
    });
  }
  return { program: `${LONG_RUN_PROGRAM.name} ${LONG_RUN_PROGRAM.entry}(${LONG_RUN_PROGRAM.args})`, presses, thinkMs, configs };
}

/** The report's lines. */
export function longRunLines(r: LongRunResult): string[] {
  const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const mid = Math.floor(r.presses / 2);
  return [
    `long run: ${r.presses} presses (step over / into) on one run of ${r.program}, think ${r.thinkMs} ms; early = presses 1-${mid}, late = ${mid + 1}-${r.presses}`,
    `config     | early p50   p95  prompt tok passes | late p50   p95  prompt tok passes | late / early (medians)`,
    ...r.configs.map(
      (c) =>
        `${c.config.padEnd(10)} | ${f(c.early.median).padStart(9)} ${f(c.early.p95, 0).padStart(5)} ${f(c.early.promptTokensRun, 0).padStart(11)} ${f(c.early.passes).padStart(6)} | ${f(c.late.median).padStart(8)} ${f(c.late.p95, 0).padStart(5)} ${f(c.late.promptTokensRun, 0).padStart(11)} ${f(c.late.passes).padStart(6)} | ${f(c.lateOverEarly, 2).padStart(21)}x` +
        `${c.config === 'ours' ? ` (hits ${c.early.hits}/${c.early.n} early, ${c.late.hits}/${c.late.n} late)` : ''}${c.restarts ? `, ${c.restarts} restarts` : ''}${c.failedSteps ? `, ${c.failedSteps} failed` : ''}${c.error ? `, ERROR ${c.error}` : ''}`,
    ),
  ];
}

// The CLI, when run directly.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import('node:util');
  const { packageRoot } = await import('../model-client/model-folder.js');
  const { values } = parseArgs({ options: { steps: { type: 'string' }, think: { type: 'string' }, json: { type: 'string' } } });
  const result = await measureLongRun(packageRoot(), { presses: Number(values.steps ?? 40), thinkMs: Number(values.think ?? 500) });
  process.stdout.write(longRunLines(result).join('\n') + '\n');
  if (values.json) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(values.json, JSON.stringify(result, null, 2) + '\n');
  }
  process.exit(0);
}
