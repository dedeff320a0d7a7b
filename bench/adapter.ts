/**
 * The debug adapter as the benchmark runs it: `ndb dap` on stdin/stdout (adapter/server.ts),
 * one process per session so that each launch is cold and its peak memory is its own.
 *
 * `--baseline` opens the model with the prefix cache off (every prompt recomputed from its
 * first token) and no drafts (one chosen token per forward pass, decode.ts); the bench also
 * launches it with `prefetch: false`. Both use the same model file, the same greedy choices
 * and one thread, so the two give the same predictions.
 */
import { loadPredictor } from '../adapter/load-predictor.js';
import { NeuralDebugSession } from '../adapter/session.js';
import { defaultModelDir } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';

const baseline = process.argv.includes('--baseline');
// stdout carries the protocol.
console.log = console.error;
const session = new NeuralDebugSession(
  baseline
    ? // One intra-op thread, as load-predictor.ts opens the model for a real session.
      { loadPredictor: async () => NeuralPredictor.load(defaultModelDir(), { threads: 1, reusePrefix: false, draftTokens: 0 }) }
    : { loadPredictor },
);
process.on('SIGTERM', () => session.shutdown());
session.start(process.stdin, process.stdout);
