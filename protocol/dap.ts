/**
 * ndb's own Debug Adapter Protocol messages, beyond DAP: the custom requests the VS Code
 * extension sends (`ndb/predictInputs`, `ndb/resample`, `ndb/trace`), the custom event
 * (`ndb/stats`), and what ndb adds to DAP's own messages (the `ndbEvents` flag of initialize
 * and launch, the `ndb` field of a stopped event). Names as constants, payloads as types.
 *
 * The adapter (adapter/debug-session.ts, adapter/queries.ts) sends them and the extension
 * (extension/src/) reads them, each from this one file: it imports nothing, so the root
 * build (ESM, tsconfig.json) and the extension's (extension/tsconfig.json, bundled to
 * CommonJS by esbuild) both compile it. protocol/lsp.ts is the same for the language server.
 */

/** Request `ndb/predictInputs` (PredictInputsArguments → PredictedInputs): the entry's arguments for a return value. */
export const PREDICT_INPUTS_REQUEST = 'ndb/predictInputs';
/** Request `ndb/resample` (no arguments; a `threadId` is ignored): predict the current stop again, with sampling; answered, then a stopped event. */
export const RESAMPLE_REQUEST = 'ndb/resample';
/** Request `ndb/trace` (no arguments → PredictedTrace): the timeline so far. */
export const TRACE_REQUEST = 'ndb/trace';
/** Event `ndb/stats` (StatsEventBody), after each stop, to clients that asked for ndb's events (`ndbEvents`). */
export const STATS_EVENT = 'ndb/stats';

/**
 * `ndbEvents: true` in initialize's arguments or in the launch configuration: send this
 * client ndb's own events (`ndb/stats`). Other clients never get them (they would log each
 * unknown event). ndb's extension sets it on every launch.
 */
export const NDB_EVENTS_FLAG = 'ndbEvents';

export interface PredictInputsArguments {
  /** The return value, as a Python expression (`2`, `'abc'`). */
  value: string;
  /**
   * Return states the model draws for more answers when its run forward confirms neither its
   * own answer nor the value itself as the only argument (default 4; 0: the fastest, those two
   * only; at most MAX_INPUT_CANDIDATES).
   */
  candidates?: number;
}

/** The most `candidates` a Predict Inputs request may ask for. */
export const MAX_INPUT_CANDIDATES = 16;

/** How much work one prediction was (the stopped event's `ndb.stats`, `ndb/predictInputs`' answer). */
export interface PredictionStats {
  /** Tokens of the prompt (program and history). */
  promptTokens: number;
  /** Prompt tokens run through the model for this prediction (the rest came from the cache). */
  prefilledTokens: number;
  /** Tokens of the chosen frame, chosen by the model. */
  sampledTokens: number;
  /** Tokens of the chosen frame that the grammar fixed (source lines, separators). */
  forcedTokens: number;
  milliseconds: number;
  /** Forward passes of the model this prediction ran (prompt and frame; the model only). */
  forwardPasses?: number;
  /** Every frame of the first try ran out of tokens (the model looped); this one is from sampled retries. */
  fallback?: boolean;
  /** A jump worked out step by step (a rollout): how many steps it took; the other figures are its last step's, but milliseconds the whole rollout's. */
  rolledSteps?: number;
  /** Steps the symbolic stepper decided whole, with no forward pass (model-client/decided-step.ts): 1 for such a step; of a rollout's steps, how many. */
  decidedSteps?: number;
}

/** The answer to `ndb/predictInputs`: the entry's arguments for a return value. */
export interface PredictedInputs {
  function: string;
  value: string;
  /** Where `args` come from: the model's inverse step (`inverse`), or the value itself as the only argument (`value`). */
  from: 'inverse' | 'value';
  /** The return line the model's inverse step started from (`value`: the function's first return line). */
  returnLine: number;
  /** The call frame's parameters as a positional argument list, e.g. `'berry', 'r'`. */
  args: string;
  locals: Record<string, string>;
  /** The model's confidence in each local; none for the value itself fed back unconfirmed (no model put it forward). */
  confidence: Record<string, number>;
  /**
   * The forward check: the model ran the call with `args` to its end. `returns`: it predicts
   * that call returns `value`; `outcome`: what it predicts instead (a return value's repr or
   * `raises E(...)`), when it does not; `confidence`: its probability of that whole path.
   * Absent when the run gave no answer (arguments that are not literals, the model's failure)
   * or did not run (a predictor without a sibling). Which answer is shown:
   * model-client/input-check.ts.
   */
  check?: { returns: boolean; outcome?: string; confidence: number };
  stats?: PredictionStats;
}

/** One stop of the timeline, in `ndb/trace`'s answer. */
export interface TraceStep {
  index: number;
  /** The state's event: call, line, return, exception (grammar/state.ts). */
  event: string;
  line: number;
  function: string;
  depth: number;
  source: string;
  locals: Record<string, string>;
  /** Locals new or different since the stop before in the same frame (all, after a frame change). */
  changed: string[];
  confidence: Record<string, number>;
  value?: string;
  /** Where the state came from: model, input (the user's arguments), tracer. */
  origin: string;
  /** The action taken from this stop to the next. */
  action?: string;
  current: boolean;
}

/** The answer to `ndb/trace`: every stop so far and the predicted end, if reached. */
export interface PredictedTrace {
  program: string;
  steps: TraceStep[];
  end: { exit: string; confidence: number; current: boolean } | null;
}

/** The body of `ndb/stats`: the model, the device, and how long the stop's prediction took. */
export interface StatsEventBody {
  model: string;
  device: string;
  /** null: nothing was predicted for this stop (replayed from the timeline, or the user's input). */
  milliseconds: number | null;
  /** The stop was a background guess made while the user looked at the one before. */
  prefetched?: boolean;
  /** The stop was already in the timeline: shown again, not predicted again. */
  replayed?: boolean;
}

/** The `ndb` field of a stopped event's body (clients that do not know it ignore it; bench/ reads it). */
export interface NdbStopInfo {
  prefetched?: boolean;
  replayed?: boolean;
  /** The predicted end of the run (DAP has no stop reason for it). */
  end?: boolean;
  stats?: PredictionStats;
}
