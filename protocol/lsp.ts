/**
 * The custom messages between ndb's language server and its editor client, beyond LSP.
 *
 * Plain JSON shapes with no imports: the language server (lsp/) and the VS Code extension
 * (extension/src/debug-state.ts, extension.ts) compile this one file, each in its own build
 * (see protocol/dap.ts).
 *
 * Client → server, `ndb/debugState` (notification): the neural debug session's current stop,
 * so that hovers show the session's predictions instead of the example run's. `null` params
 * (or `stop: null`) end it.
 *
 * Server → client, `ndb/predictionStatus` (notification): the progress of each example
 * call's background prediction, for a status bar item (the tests wait on it too).
 */

export const DEBUG_STATE_NOTIFICATION = 'ndb/debugState';
export const PREDICTION_STATUS_NOTIFICATION = 'ndb/predictionStatus';

/** A local at the current stop: its predicted repr and the model's confidence, 0..1. */
export interface DebugValue {
  value: string;
  confidence: number;
}

export interface DebugStop {
  /** 1-based line of the current stop in the document. */
  line: number;
  /** The innermost frame's function (`<module>` at the top level). */
  function: string;
  locals: Record<string, DebugValue>;
}

/** One earlier stop of the session, oldest first. */
export interface DebugHistoryEntry {
  line: number;
  /** The innermost frame's function, when the client knows it. */
  function?: string;
  /** name → predicted repr. */
  locals: Record<string, string>;
}

/** One session's state in one document. */
export interface DebugState {
  /** The document the session debugs, as an LSP document URI. */
  uri: string;
  /** The current stop; null: the session for this document ended. */
  stop: DebugStop | null;
  /** The stops before the current one, oldest first (may be empty). */
  history: DebugHistoryEntry[];
}

/** The params of `ndb/debugState`: one session's state in one document, or null (all sessions ended). */
export type DebugStateParams = DebugState | null;

export type PredictionStatus = 'queued' | 'started' | 'done' | 'skipped' | 'failed' | 'cancelled';

export interface PredictionStatusParams {
  uri: string;
  /** The document version the prediction is for: a later version cancels it. */
  version: number;
  /** The example call as written, e.g. `count('berry', 'r')`. */
  call: string;
  /** 1-based line of the example call. */
  line: number;
  status: PredictionStatus;
  /** Why it was skipped or failed; for done, how the predicted run ended. */
  message?: string;
}
