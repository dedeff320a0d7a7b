/**
 * `npm run bench:memory [-- --steps N]` (node --expose-gc dist/bench/memory-cli.js): one
 * long session of N presses (default 2,000) on the shipped model, RSS sampled every 100
 * (bench/memory.ts). Writes bench/results/memory.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../model-client/model-folder.js';
import { measureMemoryReport } from './memory.js';

const { values } = parseArgs({ options: { steps: { type: 'string' } } });
const steps = Number(values.steps ?? 2000);
if (!Number.isInteger(steps) || steps < 1) throw new Error(`--steps must be a positive integer, not ${values.steps}`);
const root = packageRoot();

const report = await measureMemoryReport(root, {
  steps,
  onSample: (s) => process.stderr.write(`step ${s.step}: RSS ${s.rssMiB.toFixed(1)} MiB, heap ${s.heapUsedMiB.toFixed(1)} MiB, array buffers ${s.arrayBuffersMiB.toFixed(1)} MiB, ${s.stops} stops (${s.stopsWithGuesses} with guesses)\n`),
});
const { result, ...details } = report;
await mkdir(join(root, 'bench', 'results'), { recursive: true });
await writeFile(join(root, 'bench', 'results', 'memory.json'), JSON.stringify({ ...result, ...details }, null, 2) + '\n');
const f = (x: number) => x.toFixed(1);
process.stdout.write(
  [
    `ndb bench:memory: ${steps} presses (step over/into, prefetch on) on one run of ${report.program}: longest timeline ${report.longestTimeline} stops, ${result.restarts} restarts, ${result.failures} failed steps, ${result.seconds.toFixed(0)} s`,
    `prefetch: ${report.prefetch.predicted} guesses, ${report.prefetch.hits} hits, ${report.prefetch.misses} misses`,
    `RSS (after GC: ${report.gc ? 'yes' : 'no'}): first ${f(result.rssMiB.first)} MiB, second quarter ${f(result.rssMiB.second_quarter)} MiB, last quarter ${f(result.rssMiB.last_quarter)} MiB (ratio ${result.growth.toFixed(3)}), max ${f(result.rssMiB.max)} MiB`,
    'wrote bench/results/memory.json',
    '',
  ].join('\n'),
);
