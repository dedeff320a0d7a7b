/**
 * The main thread's side of the prediction worker: it starts the worker, hands it jobs and
 * collects each run as its stops arrive, so the language server never waits on the model
 * while it answers the editor.
 *
 * The worker's stdout is kept apart (`stdout: true`): with `--stdio`, the process's stdout
 * is the LSP channel, and a stray line there would break the protocol.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PredictedRun } from './predicted-run.js';
import type { FromWorker, PredictJob, ToWorker, WorkerOptions } from './worker-protocol.js';

export type Outcome =
  | { kind: 'done' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'cancelled' };

/** A submitted job: its run grows as stops arrive; `settled` resolves once no more will. */
export interface JobHandle {
  readonly job: number;
  readonly run: PredictedRun;
  readonly settled: Promise<Outcome>;
  outcome: Outcome | null;
}

export interface PredictionEvents {
  /** The model could not be loaded, or the worker died: no prediction will come. */
  onFatal(message: string): void;
  onWarning(message: string): void;
  /** Text the worker wrote to its stdout (for the client's log, never the protocol channel). */
  onLog(text: string): void;
  onStarted(handle: JobHandle): void;
}

interface Pending {
  handle: JobHandle;
  settle: (outcome: Outcome) => void;
}

export class PredictionClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly tmpDir: string;
  private nextJob = 1;
  private fatal: string | null = null;
  private stopping = false;
  private exited = false;

  constructor(options: WorkerOptions, private readonly events: PredictionEvents) {
    this.tmpDir = mkdtempSync(join(tmpdir(), 'ndb-lsp-'));
    // Also when the process ends without stop() (an `exit` without `shutdown`).
    process.once('exit', () => rmSync(this.tmpDir, { recursive: true, force: true }));
    this.worker = new Worker(new URL('./prediction-worker.js', import.meta.url), { workerData: { ...options, tmpDir: this.tmpDir }, stdout: true });
    this.worker.stdout.setEncoding('utf8').on('data', (text: string) => events.onLog(text));
    this.worker.on('message', (message: FromWorker) => this.receive(message));
    this.worker.on('error', (err) => this.die(`the prediction worker failed: ${err.message}`));
    this.worker.on('exit', (code) => {
      this.exited = true;
      this.die(`the prediction worker stopped (exit code ${code})`);
    });
  }

  submit(job: Omit<PredictJob, 'job'>, call: string): JobHandle {
    if (this.stopping) this.fatal ??= 'the language server is shutting down';
    const id = this.nextJob++;
    let settle!: (outcome: Outcome) => void;
    const settled = new Promise<Outcome>((resolve) => (settle = resolve));
    const handle: JobHandle = { job: id, run: { call, steps: [], end: null, complete: false }, settled, outcome: null };
    if (this.fatal) {
      handle.run.complete = true;
      handle.outcome = { kind: 'failed', reason: this.fatal };
      settle(handle.outcome);
      return handle;
    }
    this.pending.set(id, { handle, settle });
    this.send({ type: 'predict', job: id, ...job });
    return handle;
  }

  /** Cancels the jobs of `uri` older than `beforeVersion` (all with null), in the worker too. */
  cancel(uri: string, beforeVersion: number | null): void {
    if (!this.exited) this.send({ type: 'cancel', uri, beforeVersion });
  }

  /**
   * Stops the worker gently (see prediction-worker.ts: terminating it mid-pass would abort
   * the process) and waits for it, `timeoutMs` at most.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    if (!this.exited) {
      this.stopping = true;
      this.send({ type: 'stop' });
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    }
    rmSync(this.tmpDir, { recursive: true, force: true });
  }

  private send(message: ToWorker): void {
    this.worker.postMessage(message);
  }

  private receive(message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        return;
      case 'fatal':
        return this.die(message.message);
      case 'warning':
        return this.events.onWarning(message.message);
      default:
        break;
    }
    const pending = this.pending.get(message.job);
    if (!pending) return;
    const { handle } = pending;
    switch (message.type) {
      case 'started':
        return this.events.onStarted(handle);
      case 'step':
        handle.run.steps.push(message.step);
        return;
      case 'done':
        handle.run.end = message.end;
        return this.finish(message.job, { kind: 'done' });
      case 'skipped':
        return this.finish(message.job, { kind: 'skipped', reason: message.reason });
      case 'failed':
        return this.finish(message.job, { kind: 'failed', reason: message.message });
      case 'cancelled':
        return this.finish(message.job, { kind: 'cancelled' });
    }
  }

  private finish(job: number, outcome: Outcome): void {
    const pending = this.pending.get(job);
    if (!pending) return;
    this.pending.delete(job);
    pending.handle.run.complete = true;
    pending.handle.outcome = outcome;
    pending.settle(outcome);
  }

  /** No prediction will come: every waiting job fails with the reason, said once. */
  private die(message: string): void {
    if (this.fatal) return;
    this.fatal = message;
    for (const job of [...this.pending.keys()]) this.finish(job, { kind: 'failed', reason: message });
    // Stopped on purpose (shutdown): nothing to tell the user.
    if (!this.stopping) this.events.onFatal(message);
  }
}
