/**
 * The language server's prediction worker (a worker_thread): it loads the model once and
 * predicts example runs one after another, off the thread that answers the editor.
 *
 * Each job is a NeuralRuntime on a temporary copy of the document's text, launched at the
 * example's function with its arguments, then stepped into until the predicted end or the
 * step cap; every stop is posted as soon as it is predicted, so a hover that cannot wait
 * can show the part already known. A cancel drops queued jobs and stops the running one
 * between two predictions (a forward pass itself cannot be interrupted).
 *
 * The thread is never terminated from outside while the model runs: onnxruntime-node aborts
 * the whole process when a forward pass completes into a torn-down thread. `stop` ends it
 * gently instead: jobs cancelled, the pass in flight awaited, the model released.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { loadPredictor } from '../adapter/load-predictor.js';
import { NeuralRuntime, RuntimeError } from '../adapter/runtime.js';
import type { Stop } from '../adapter/timeline.js';
import { EntryError } from '../program-analysis/entry-state.js';
import type { NeuralPredictor } from '../model-client/neural-predictor.js';
import { ContextOverflowError } from '../model-client/onnx-session.js';
import type { PredictedStep } from './predicted-run.js';
import type { FromWorker, PredictJob, ToWorker, WorkerOptions } from './worker-protocol.js';

interface Job extends PredictJob {
  cancelled: boolean;
}

const port = parentPort!;
const options = workerData as WorkerOptions & { tmpDir: string };
const queue: Job[] = [];
let running: Job | null = null;
let predictor: NeuralPredictor | null = null;
let fatal: string | null = null;
let draining = false;
let stopping = false;

function post(message: FromWorker): void {
  port.postMessage(message);
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'stop') return void stop();
  if (message.type === 'predict') {
    queue.push({ ...message, cancelled: false });
    void drain();
    return;
  }
  const stale = (job: Job) => job.uri === message.uri && (message.beforeVersion === null || job.version < message.beforeVersion);
  for (const job of queue.filter(stale)) post({ type: 'cancelled', job: job.job });
  queue.splice(0, queue.length, ...queue.filter((job) => !stale(job)));
  if (running && stale(running)) running.cancelled = true;
});

/** Cancels every job and, once the one running has stopped, releases the model and lets the thread end. */
async function stop(): Promise<void> {
  stopping = true;
  for (const job of queue.splice(0)) post({ type: 'cancelled', job: job.job });
  if (running) running.cancelled = true;
  if (draining) return; // drain() comes back here when the running job has stopped
  const model = predictor;
  predictor = null;
  await model?.release().catch(() => undefined);
  port.close();
}

async function start(): Promise<void> {
  try {
    predictor = await loadPredictor({ ...options, onWarning: (message) => post({ type: 'warning', message }) });
    post({ type: 'ready' });
  } catch (err) {
    fatal = (err as Error).message;
    post({ type: 'fatal', message: fatal });
  }
  if (stopping) return void stop();
  void drain();
}

/** Runs the queued jobs one at a time (one model, one forward pass at a time). */
async function drain(): Promise<void> {
  if (draining || stopping || (!predictor && !fatal)) return;
  draining = true;
  try {
    for (let job = queue.shift(); job; job = queue.shift()) {
      if (fatal) {
        post({ type: 'failed', job: job.job, message: fatal });
        continue;
      }
      running = job;
      await predict(job, predictor!);
      running = null;
    }
  } finally {
    draining = false;
  }
  if (stopping) await stop();
}

async function predict(job: Job, model: NeuralPredictor): Promise<void> {
  post({ type: 'started', job: job.job });
  // The runtime reads the program from a file; the text is the document's, saved or not.
  const file = join(options.tmpDir, `example-${job.job}.py`);
  const runtime = new NeuralRuntime(model);
  try {
    await writeFile(file, job.program);
    await runtime.launch({ program: file, entry: job.entry, args: job.args, prefetch: false });
    let steps = 0;
    while (!runtime.ended && runtime.current) {
      post({ type: 'step', job: job.job, step: stepOf(runtime.current) });
      if (++steps >= options.maxSteps) break;
      if (job.cancelled) return post({ type: 'cancelled', job: job.job });
      await runtime.stepIn();
    }
    if (job.cancelled) return post({ type: 'cancelled', job: job.job });
    const end = runtime.ended;
    post({ type: 'done', job: job.job, end: end ? { exit: end.exit, origin: end.origin, confidence: end.confidence.frame } : null });
  } catch (err) {
    const userCanFix = err instanceof EntryError || err instanceof RuntimeError || err instanceof ContextOverflowError;
    post(userCanFix ? { type: 'skipped', job: job.job, reason: (err as Error).message } : { type: 'failed', job: job.job, message: (err as Error).message });
  } finally {
    await runtime.close().catch(() => undefined);
    await rm(file, { force: true }).catch(() => undefined);
  }
}

/** A stop as plain data for the main thread (no guesses, no stats). */
function stepOf(stop: Stop): PredictedStep {
  const { locals, value, frame, decided } = stop.confidence;
  return { state: stop.state, origin: stop.origin, confidence: { locals, ...(value === undefined ? {} : { value }), frame, ...(decided ? { decided: decided.locals } : {}) } };
}

void start();
