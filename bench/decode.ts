/**
 * `node dist/bench/decode.js [--prompts N] [--draft K] [--threads T] [--precision fp32|int8]`: greedy decoding of
 * one frame, plain (one chosen token per forward pass) against drafted (speculative
 * decoding, decode.ts) and against drafted with the first draft guessed from the program
 * (frame-guess.ts, as the debugger decodes), on the same prompts in the same run,
 * taking turns on each prompt so that a busy machine weighs on all alike. No adapter, no
 * prefetch: the decoder alone.
 *
 * Prompts come from real traces of the benchmark's programs (bench/programs.ts), cut after a
 * random number of steps, as training's trajectories are; each prompt's cache is computed
 * once and shared by both. Reports per frame: forward passes, milliseconds (median, mean),
 * and how many frames came out identical (they all must: drafts only save passes).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Rng } from '../util/rng.js';
import { sampleTrajectory } from '../data-pipeline/trajectories.js';
import { serializeTrajectory } from '../grammar/serialize.js';
import { truncateTrajectory } from '../grammar/truncate.js';
import { decodeFrames, type SamplingOptions } from '../model-client/decode.js';
import { guessFrame } from '../model-client/frame-guess.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { defaultModelDir } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { PrefixCache } from '../model-client/prefix-cache.js';
import { programInfo } from '../program-analysis/program-info.js';
import { TokenTable } from '../model-client/token-table.js';
import { StateTree } from '../state-tree/tree.js';
import { sourceLines } from '../python/source.js';
import { traceSource } from '../tracer/run-tracer.js';
import { benchPrograms } from './programs.js';
import { mean, percentile } from './stats.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const { values } = parseArgs({ options: { prompts: { type: 'string' }, draft: { type: 'string' }, threads: { type: 'string' }, precision: { type: 'string' } } });
const count = Number(values.prompts ?? 24);
const draftTokens = Number(values.draft ?? 12);

const precision = values.precision === 'int8' ? 'int8' : 'fp32';
const predictor = await NeuralPredictor.load(defaultModelDir(), { threads: Number(values.threads ?? 1), precision });
const { session, tokenizer } = predictor;
const ctx = { session, tokenizer, table: await TokenTable.load(defaultModelDir(), tokenizer) };
const programs = await benchPrograms(ROOT, await mkdtemp(join(tmpdir(), 'ndb-decode-')), 5, 2);
const rng = new Rng(7);
type Variant = 'plain' | 'drafted' | 'guessed';
const VARIANTS: readonly Variant[] = ['plain', 'drafted', 'guessed'];
const runs = Object.fromEntries(VARIANTS.map((v) => [v, { ms: [] as number[], passes: [] as number[] }])) as Record<Variant, { ms: number[]; passes: number[] }>;
let identical = 0;
let guessed = 0;
let tokens = 0;
for (let k = 0; k < count; k++) {
  const p = programs[k % programs.length]!;
  const program = await readFile(p.path, 'utf8');
  const tree = new StateTree(await traceSource(program, { entry: p.entry, args: p.args }));
  const t = truncateTrajectory(sampleTrajectory(tree, k % 4 === 3 ? 'inverse' : 'forward', rng, { maxSteps: 12 }));
  const history = t.steps.slice(0, rng.int(1, t.steps.length));
  const last = history[history.length - 1]!;
  const lines = sourceLines(program);
  const rules = { action: last.action, lines, names: FrameNames.ofProgram(lines), prevFunction: last.state.stack[last.state.stack.length - 1]!.function };
  const ids = tokenizer.encode(serializeTrajectory({ ...t, steps: history, exit: null }));
  if (ids.length + 256 > session.maxPositions) continue;
  const prompt = await new PrefixCache(session).prompt(ids);
  const guess = guessFrame(t.direction, history, last.action, await programInfo(program), lines);
  if (guess) guessed++;
  const options: Record<Variant, SamplingOptions> = {
    plain: { draftTokens: 0 },
    drafted: { draftTokens },
    guessed: { draftTokens, ...(guess ? { guess: { start: tokenizer.encode(guess.start), whole: tokenizer.encode(guess.whole) } } : {}) },
  };
  const texts: string[] = [];
  // Each variant first on a third of the prompts: a busy machine weighs on all alike.
  for (const name of VARIANTS.map((_, i) => VARIANTS[(i + k) % VARIANTS.length]!)) {
    const passes = session.passes;
    const t0 = performance.now();
    const [out] = await decodeFrames(ctx, prompt, rules, 1, { maxNewTokens: 256, ...options[name] });
    runs[name].ms.push(performance.now() - t0);
    runs[name].passes.push(session.passes - passes);
    texts.push(out!.ok ? out!.frame.text : out!.error.message);
    if (name === 'plain' && out!.ok) tokens += out!.frame.ids.length;
  }
  if (texts.every((x) => x === texts[0])) identical++;
}
const f = (x: number, d = 1) => x.toFixed(d);
const n = runs.plain.ms.length;
const line = (name: Variant) => `${name.padEnd(8)} passes/frame ${f(mean(runs[name].passes)).padStart(5)}  ms/frame p50 ${f(percentile(runs[name].ms, 50)).padStart(6)} mean ${f(mean(runs[name].ms)).padStart(6)}  ms/pass ${f(mean(runs[name].ms) / mean(runs[name].passes), 2)}`;
const ratio = (name: Variant) => `plain/${name}: passes ${f(mean(runs.plain.passes) / mean(runs[name].passes), 2)}x, mean ms ${f(mean(runs.plain.ms) / mean(runs[name].ms), 2)}x, median ms ${f(percentile(runs.plain.ms, 50) / percentile(runs[name].ms, 50), 2)}x`;
process.stdout.write(
  [
    `${precision}, ${values.threads ?? 1} thread(s): greedy decoding of ${n} frames (${f(tokens / n)} tokens each), drafts of up to ${draftTokens} tokens; guessed: the first draft from frame-guess.ts (${guessed} of ${n} frames had a guess)`,
    ...VARIANTS.map(line),
    `ratio ${ratio('drafted')}; ${ratio('guessed')}; identical frames ${identical}/${n}`,
  ].join('\n') + '\n',
);
await predictor.release();
