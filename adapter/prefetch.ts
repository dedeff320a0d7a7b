/**
 * Prefetch: while the user looks at a stop, the runtime predicts where the likely next key
 * presses (step over, step into) lead, so that the press is answered at once.
 *
 * This module holds what the runtime (adapter/runtime.ts) needs for it apart from the
 * scheduling: which actions to guess, how a guess is stored on its stop, and when a stored
 * guess may stand in for a prediction.
 *
 * A guess may stand in only for the very prediction it replaces: greedy decoding is
 * deterministic, so a guess made from the same history with the same action is what a
 * prediction now would give. Each guess therefore carries the history it was made from (as
 * text) and is used only while the stop's history is still exactly that: an edited variable,
 * a state inferred before the first stop, or anything else that changes the past makes it
 * stale without any bookkeeping having to remember to say so.
 */
import type { Action, ForwardAction } from '../grammar/state.js';
import type { HistoryEntry, Prediction } from '../model-client/predictor.js';

/** The key presses guessed, likeliest first: a guess runs at a time, the first matters most. */
export const PREFETCH_ACTIONS: readonly ForwardAction[] = [{ kind: 'step_over' }, { kind: 'step_into' }];

export interface Prefetched {
  /** historyKey() of the history the guess was made from. */
  history: string;
  /** The guess; absent when predicting it failed (the key press then predicts, and reports the error). */
  prediction?: Prediction;
}

/** Per stop: action key -> guess. */
export type PrefetchMap = Map<string, Prefetched>;

/** How prefetch went in a session (bench/ reports them). */
export interface PrefetchCounters {
  /** Guesses predicted in the background. */
  predicted: number;
  /** Key presses of a guessed kind served from a guess. */
  hits: number;
  /** Key presses of a guessed kind that had to be predicted (no guess yet, or a stale one). */
  misses: number;
  /** Background turns given up because a user command was waiting. */
  yielded: number;
}

export function newCounters(): PrefetchCounters {
  return { predicted: 0, hits: 0, misses: 0, yielded: 0 };
}

export function actionKey(action: Action): string {
  return JSON.stringify(action);
}

export function historyKey(history: readonly HistoryEntry[]): string {
  return JSON.stringify(history);
}

export function isPrefetchAction(action: Action): boolean {
  return PREFETCH_ACTIONS.some((a) => a.kind === action.kind);
}

/** The stored guess for `action` that is still valid for `history`, if any. */
export function validGuess(map: PrefetchMap | undefined, action: Action, history: string): Prediction | undefined {
  const entry = map?.get(actionKey(action));
  return entry && entry.history === history ? entry.prediction : undefined;
}

/** Whether a guess (or a failed try) for `action` from `history` is already stored. */
export function tried(map: PrefetchMap | undefined, action: Action, history: string): boolean {
  return map?.get(actionKey(action))?.history === history;
}
