/**
 * `node dist/bench/pass-ramp.js [--pause MS] [--bursts N] [--past P] [--seq S]`: what a
 * forward pass of S tokens (default 1) costs by its place in a burst that follows an idle
 * pause, the way a key press follows the user's look at a stop. Each burst is 10 passes at a
 * fixed cache of P positions after a pause of MS; printed: the median cost of the 1st, 2nd,
 * ... pass over N bursts, for the pause given and for none (a timer hop only), in turns.
 *
 * Why: `npm run bench` measures a step after 500 ms of "think time", and on the shared 2-core
 * VM of the README a pass right after a pause costs several times a pass in a tight loop;
 * the cost comes down over the next several passes (CPU frequency and caches waking up, not
 * anything ndb does between passes). This separates that from the passes themselves.
 */
import { parseArgs } from 'node:util';
import { defaultModelDir } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { percentile } from './stats.js';

const { values } = parseArgs({ options: { pause: { type: 'string' }, bursts: { type: 'string' }, past: { type: 'string' }, seq: { type: 'string' } } });
const pauseMs = Number(values.pause ?? 500);
const bursts = Number(values.bursts ?? 12);
const past = Number(values.past ?? 350);
const tokens = new Array<number>(Number(values.seq ?? 1)).fill(50);
const PASSES = 10;

const predictor = await NeuralPredictor.load(defaultModelDir(), { threads: 1 });
const { session } = predictor;
const { cache } = await session.prefill(Array.from({ length: past }, (_, i) => 40 + (i % 100)));
const costs = { [pauseMs]: [] as number[][], 0: [] as number[][] };
for (let b = 0; b < bursts; b++) {
  for (const pause of b % 2 ? [pauseMs, 0] : [0, pauseMs]) {
    await new Promise((r) => setTimeout(r, pause));
    const burst: number[] = [];
    for (let k = 0; k < PASSES; k++) {
      const t = performance.now();
      await session.forward([tokens], cache); // the same positions each time: the cache view is kept
      burst.push(performance.now() - t);
    }
    costs[pause]!.push(burst);
  }
}
const line = (pause: number) =>
  `after ${String(pause).padStart(4)} ms idle: ` +
  Array.from({ length: PASSES }, (_, k) => percentile(costs[pause]!.map((b) => b[k]!), 50).toFixed(2)).join('  ') +
  ' ms';
process.stdout.write(`${tokens.length}-token pass at ${past} cached positions, median over ${bursts} bursts, by place in the burst:\n${line(pauseMs)}\n${line(0)}\n`);
await predictor.release();
