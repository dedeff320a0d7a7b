/**
 * The messages between the language server's main thread and its prediction worker
 * (prediction-worker.ts). Jobs carry the document's uri and version so that a cancel can
 * name "everything of this document older than version N" without the worker knowing why.
 */
import type { PredictedEnd, PredictedStep } from './predicted-run.js';

export interface WorkerOptions {
  /** A model folder; default: the embedded model. */
  model?: string;
  /** cpu (default) or cuda. */
  device?: string;
  /** Most steps predicted per example run. */
  maxSteps: number;
}

export interface PredictJob {
  job: number;
  uri: string;
  version: number;
  /** The document's text (the program; it is never run). */
  program: string;
  entry: string;
  args: string;
}

export type ToWorker =
  | ({ type: 'predict' } & PredictJob)
  /** Drop the jobs of `uri` older than `beforeVersion` (all of them when null), queued or running. */
  | { type: 'cancel'; uri: string; beforeVersion: number | null }
  /** Cancel everything, release the model and end the thread (after the forward pass in flight). */
  | { type: 'stop' };

export type FromWorker =
  | { type: 'ready' }
  /** The model could not be loaded: no prediction will be made. */
  | { type: 'fatal'; message: string }
  | { type: 'warning'; message: string }
  | { type: 'started'; job: number }
  | { type: 'step'; job: number; step: PredictedStep }
  /** The run is over: its end, or null when the step cap came first. */
  | { type: 'done'; job: number; end: PredictedEnd | null }
  /** The call cannot be predicted (arguments Python refuses, a program too long for the model): the user can act on it. */
  | { type: 'skipped'; job: number; reason: string }
  | { type: 'failed'; job: number; message: string }
  | { type: 'cancelled'; job: number };
