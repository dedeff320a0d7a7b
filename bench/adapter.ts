/**
 * The debug adapter as the benchmark runs it: `ndb dap` on stdin/stdout (adapter/server.ts),
 * one process per session so that each launch is cold and its peak memory is its own.
 *
 * No flag: our adapter as it ships (the bench's 'ours', and 'noprefetch', which it launches
 * with `prefetch: false`).
 *
 * `--baseline` (baseline 2) opens the model with the prefix cache off (every prompt
 * recomputed from its first token, in one pass: no prefill chunks) and no drafts (one chosen
 * token per forward pass, decode.ts); the bench also launches it with `prefetch: false`. Both use the same model
 * file, the same greedy choices and one thread, so the two give the same predictions.
 *
 * `--generate` (baseline 1) runs the session on GeneratePredictor (bench/generate-predictor.ts):
 * @huggingface/transformers' generate() on a prompt rebuilt from text each step, no grammar;
 * the bench launches it with `prefetch: false` too.
 *
 * Every configuration also watches its own event loop during the steps (bench/event-loop.ts).
 */
import { loadPredictor } from '../adapter/load-predictor.js';
import { NeuralDebugSession, type DebugSessionOptions } from '../adapter/debug-session.js';
import { defaultModelDir } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { watchEventLoop } from './event-loop.js';

const baseline = process.argv.includes('--baseline');
const generate = process.argv.includes('--generate');
if (baseline && generate) throw new Error('bench/adapter.ts: --baseline or --generate, not both');
// stdout carries the protocol.
console.log = console.error;
const options: DebugSessionOptions = baseline
  ? // One intra-op thread, as load-predictor.ts opens the model for a real session.
    { loadPredictor: async () => NeuralPredictor.load(defaultModelDir(), { threads: 1, reusePrefix: false, draftTokens: 0, prefillChunk: 0 }) }
  : generate
    ? // Imported only here: transformers.js would otherwise load (and count in the peak RSS) in every configuration.
      { loadPredictor: async () => (await import('./generate-predictor.js')).GeneratePredictor.load(defaultModelDir(), { threads: 1 }) }
    : { loadPredictor };
const session = new NeuralDebugSession(options);
watchEventLoop(session);
process.on('SIGTERM', () => session.shutdown());
session.start(process.stdin, process.stdout);
