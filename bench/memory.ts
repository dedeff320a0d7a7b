/**
 * Does memory stay flat over one long debugging session? (`npm run bench:memory`, the CLI
 * in bench/memory-cli.ts; bench/run.ts calls measureMemory too.)
 *
 * One runtime on the shipped model walks ONE predicted run of examples/ticks.py
 * (`tick(1000)`: a `while True` loop whose real run is 4,004 states long, ended by a
 * division by zero at the thousandth tick) for N key presses, alternating step over and
 * step into, with prefetch on as in a real session: after each stop the user "looks" at it
 * until the background guesses are done (runtime.idle()), so every stop gets its guesses and
 * the next press is served from one. The timeline grows by one stop per press, so the last
 * sample holds a timeline of about N stops.
 *
 * Why this program: the small shipped model ends the loops it sees with a visible exit
 * (`for i in range(1000)`, `while n > 0`, `if ...: break`) after an iteration or two, so a
 * run of those restarts every few presses and no long timeline is ever measured. A loop
 * with no exit in sight is one the model sees as long, as the real run is.
 *
 * The model predicts every state and may drift from the real run (a user would keep
 * stepping); only when the predicted run ends before N presses does the session restart
 * (counted: the aim is none). A press that fails (a frame the model cannot finish) is
 * counted too, and the run restarts: under greedy decoding the same press would fail again.
 *
 * The resident set size is sampled every 100 presses after a GC (when node runs with
 * --expose-gc). `growth` is the last quarter's mean over the second quarter's (the first
 * holds the model's warm-up).
 */
import { join } from 'node:path';
import { loadPredictor } from '../adapter/load-predictor.js';
import { NeuralRuntime } from '../adapter/runtime.js';
import type { PrefetchCounters } from '../adapter/prefetch.js';

export interface MemoryResult {
  steps: number;
  restarts: number;
  failures: number;
  seconds: number;
  rssMiB: { first: number; second_quarter: number; last_quarter: number; max: number };
  growth: number;
}

export interface MemorySample {
  step: number;
  rssMiB: number;
  heapUsedMiB: number;
  /**
   * ArrayBuffers alive (the KV caches among them): a sample taken while a prediction (the
   * press's own or a background guess) decodes the 4-sample fallback after a greedy loop
   * holds that prediction's 4-row cache too.
   */
  arrayBuffersMiB: number;
  /** Stops in the timeline at the sample (one long run: about `step`). */
  stops: number;
  /** Stops holding background guesses at the sample. */
  stopsWithGuesses: number;
}

/** MemoryResult and what the CLI writes beside it. */
export interface MemoryReport {
  result: MemoryResult;
  program: string;
  gc: boolean;
  /** The longest single timeline walked (stops). */
  longestTimeline: number;
  prefetch: PrefetchCounters;
  samples: MemorySample[];
}

/** The program: one call whose real run is a long loop (`ndb trace examples/ticks.py --entry tick --args 1000`: 4,004 states). */
const PROGRAM = { file: join('examples', 'ticks.py'), entry: 'tick', args: '1000' };
const SAMPLE_EVERY = 100;
const MiB = 1024 * 1024;

export async function measureMemory(root: string, opts: { steps: number }): Promise<MemoryResult> {
  return (await measureMemoryReport(root, opts)).result;
}

export async function measureMemoryReport(root: string, opts: { steps: number; onSample?: (s: MemorySample) => void }): Promise<MemoryReport> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const predictor = await loadPredictor({ model: join(root, 'models', 'default') });
  const runtime = new NeuralRuntime(predictor);
  const samples: MemorySample[] = [];
  let restarts = 0;
  let failures = 0;
  let longestTimeline = 0;
  const started = performance.now();
  try {
    await runtime.launch({ program: join(root, PROGRAM.file), entry: PROGRAM.entry, args: PROGRAM.args });
    for (let step = 1; step <= opts.steps; step++) {
      // The user looks at the stop: the background guesses run to the end.
      await runtime.idle();
      let failed = false;
      try {
        await (step % 2 === 1 ? runtime.stepOver() : runtime.stepIn());
      } catch {
        failures++;
        failed = true;
      }
      longestTimeline = Math.max(longestTimeline, runtime.timeline.stops.length);
      if (failed || runtime.ended) {
        await runtime.restart();
        restarts++;
      }
      if (step % SAMPLE_EVERY === 0) {
        gc?.();
        const mem = process.memoryUsage();
        const sample = {
          step,
          rssMiB: mem.rss / MiB,
          heapUsedMiB: mem.heapUsed / MiB,
          arrayBuffersMiB: mem.arrayBuffers / MiB,
          stops: runtime.timeline.stops.length,
          stopsWithGuesses: runtime.timeline.stops.filter((s) => s.prefetched !== undefined).length,
        };
        samples.push(sample);
        opts.onSample?.(sample);
      }
    }
  } finally {
    await runtime.close();
    await predictor.release();
  }

  const rss = samples.map((s) => s.rssMiB);
  const quarter = (k: number) => {
    const part = rss.slice(Math.floor((k * rss.length) / 4), Math.floor(((k + 1) * rss.length) / 4));
    return part.length ? part.reduce((a, b) => a + b, 0) / part.length : NaN;
  };
  const result: MemoryResult = {
    steps: opts.steps,
    restarts,
    failures,
    seconds: (performance.now() - started) / 1000,
    rssMiB: { first: rss[0] ?? NaN, second_quarter: quarter(1), last_quarter: quarter(3), max: rss.length ? Math.max(...rss) : NaN },
    growth: quarter(3) / quarter(1),
  };
  return {
    result,
    program: `${PROGRAM.file} ${PROGRAM.entry}(${PROGRAM.args})`,
    gc: gc !== undefined,
    longestTimeline,
    prefetch: { ...runtime.prefetchCounters },
    samples,
  };
}
