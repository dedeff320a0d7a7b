/**
 * `npm run bench:memory [-- --steps N]`: does memory stay flat over a long session?
 *
 * One runtime on the shipped model steps (step into, prefetch on) through examples/count.py
 * for N predicted stops (default 2,000), restarting the run whenever it ends, as a user who
 * keeps stepping would. The resident set size is sampled every 100 steps after a GC (when
 * node runs with --expose-gc); the report compares the last quarter with the second (the
 * first holds the model's warm-up). Writes bench/results/memory.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadPredictor } from '../adapter/load-predictor.js';
import { NeuralRuntime } from '../adapter/runtime.js';
import { packageRoot } from '../model-client/model-folder.js';

const { values } = parseArgs({ options: { steps: { type: 'string' } } });
const steps = Number(values.steps ?? 2000);
const root = packageRoot();
const MiB = 1024 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
const rss = () => {
  gc?.();
  return process.memoryUsage().rss / MiB;
};

const predictor = await loadPredictor();
const runtime = new NeuralRuntime(predictor);
const launch = { program: join(root, 'examples', 'count.py'), entry: 'count', args: "'strawberry raspberry', 'r'" };
await runtime.launch(launch);

const samples: { step: number; rssMiB: number }[] = [];
let restarts = 0;
let failures = 0;
const started = performance.now();
for (let step = 1; step <= steps; step++) {
  try {
    await runtime.stepIn();
  } catch {
    failures++; // a frame the model cannot finish: the session goes on, as in the debugger
  }
  if (runtime.ended) {
    await runtime.restart();
    restarts++;
  }
  if (step % 100 === 0) samples.push({ step, rssMiB: rss() });
}
await runtime.close();

const quarter = (k: number) => {
  const part = samples.slice(Math.floor((k * samples.length) / 4), Math.floor(((k + 1) * samples.length) / 4));
  return part.reduce((a, s) => a + s.rssMiB, 0) / Math.max(1, part.length);
};
const result = {
  steps,
  restarts,
  failures,
  seconds: (performance.now() - started) / 1000,
  gc: gc !== undefined,
  rssMiB: { second_quarter: quarter(1), last_quarter: quarter(3), max: Math.max(...samples.map((s) => s.rssMiB)) },
  growth: quarter(3) / quarter(1),
  samples,
};
await mkdir(join(root, 'bench', 'results'), { recursive: true });
await writeFile(join(root, 'bench', 'results', 'memory.json'), JSON.stringify(result, null, 2) + '\n');
process.stdout.write(
  [
    `ndb bench:memory: ${steps} predicted stops of examples/count.py (step into, prefetch on), ${restarts} restarts, ${failures} failed steps, ${result.seconds.toFixed(0)} s`,
    `RSS (after GC: ${result.gc ? 'yes' : 'no'}): second quarter ${result.rssMiB.second_quarter.toFixed(1)} MiB, last quarter ${result.rssMiB.last_quarter.toFixed(1)} MiB (ratio ${result.growth.toFixed(3)}), max ${result.rssMiB.max.toFixed(1)} MiB`,
    'wrote bench/results/memory.json',
    '',
  ].join('\n'),
);
