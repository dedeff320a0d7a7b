/**
 * Prefetch: while the user looks at a stop, the runtime predicts where the likely next key
 * presses (step over, step into, step out) lead, so that the press is answered at once.
 *
 * This module holds what the runtime (adapter/runtime.ts) needs for it apart from the
 * scheduling (adapter/command-queue.ts, which runs the guesses one at a time between the
 * user's commands): which actions to guess from which stop, making a guess and storing it on
 * its stop, and when a stored guess may stand in for a prediction.
 *
 * A guess may stand in only for the very prediction it replaces: greedy decoding is
 * deterministic, so a guess made from the same history with the same action is what a
 * prediction now would give. Each guess therefore carries a fingerprint of the history it
 * was made from (a hash of its text: a few bytes, however long the run) and is used only
 * while the stop's history still has exactly that fingerprint: an edited variable, a state
 * inferred before the first stop, or anything else that changes the past makes it stale
 * without any bookkeeping having to remember to say so.
 *
 * Guesses are a cache, not part of the run: only the stops guessed from most recently keep
 * theirs (GUESSED_STOPS_KEPT, adapter/timeline.ts), so that a long session's memory does not
 * grow with guesses nobody will use; the stops themselves (what step back shows) all stay.
 * The timeline stores the guesses (Stop.prefetched, Timeline.storeGuess) and knows nothing
 * of this module: it imports the timeline and the command queue, neither imports it.
 */
import { createHash } from 'node:crypto';
import type { Action, ForwardAction, State } from '../grammar/state.js';
import { DecodeAbortedError } from '../model-client/decode.js';
import type { HistoryEntry, Prediction, Predictor } from '../model-client/predictor.js';
import type { BackgroundGuess } from './command-queue.js';
import { actionKey, type PrefetchMap, type Timeline } from './timeline.js';

/**
 * The key presses guessed, likeliest first: a guess runs at a time, the first matters most.
 * Step out comes last, and not at a module's top level (guessable).
 */
export const PREFETCH_ACTIONS: readonly ForwardAction[] = [{ kind: 'step_over' }, { kind: 'step_into' }, { kind: 'step_return' }];

/**
 * Whether a press of `action` at a stop in `state` is guessed. Step out is, except in a
 * module's top-level frame: there it means the rest of the whole run, a rarely wanted guess
 * that would cost a prediction at every stop. In the debugged function's own frame it runs
 * to that function's return (its value: what a user most often wants to see next), and
 * inside a call, to the caller.
 */
export function guessable(action: Action, state: State): boolean {
  if (!isPrefetchAction(action)) return false;
  return action.kind !== 'step_return' || state.stack.length > 1 || state.stack[0]?.function !== '<module>';
}

/** How prefetch went in a session (bench/ reports them). */
export interface PrefetchCounters {
  /** Guesses predicted in the background. */
  predicted: number;
  /** Key presses guessable at their stop (guessable) served from a guess. */
  hits: number;
  /** Key presses guessable at their stop that had to be predicted (no guess yet, or a stale or dropped one). */
  misses: number;
  /** Background turns given up because a user command was waiting. */
  yielded: number;
}

export function newCounters(): PrefetchCounters {
  return { predicted: 0, hits: 0, misses: 0, yielded: 0 };
}

/**
 * A fingerprint of a history: the SHA-256 of its JSON text (equal texts, equal keys; a
 * collision is out of reach). Stored with each guess instead of the text, which grows with
 * the run: kept per guess, it made memory grow with the square of the session's length.
 */
export function historyKey(history: readonly HistoryEntry[]): string {
  return createHash('sha256').update(JSON.stringify(history)).digest('base64');
}

/** Whether `action` is of a kind ever guessed (from some stops only: see guessable). */
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

/** A background guess: `start` when it begins, `end` when it is stored (`ok`: not failed). The runtime's 'prefetch' event. */
export interface PrefetchEvent {
  phase: 'start' | 'end';
  action: ForwardAction['kind'];
  /** Stop index in the timeline the guess is made from. */
  position: number;
  ok?: boolean;
  milliseconds?: number;
}

/**
 * The next guess from the timeline's current stop: the first of PREFETCH_ACTIONS guessable
 * there that the timeline does not know and that was not tried from this history; null when
 * there is none. Making it stores the prediction on the stop (or, when it fails, that it
 * failed: it is not retried, and the key press predicts and reports the error); a guess
 * overtaken by a command stores nothing and may be made again later.
 */
export function nextGuess(t: Timeline, predictor: Predictor, counters: PrefetchCounters, emit: (event: PrefetchEvent) => void): BackgroundGuess | null {
  if (!t.started || t.atEnd) return null;
  const stop = t.current;
  const history = t.history();
  const key = historyKey(history);
  const action = PREFETCH_ACTIONS.find((a) => guessable(a, stop.state) && t.known(a) === undefined && !tried(stop.prefetched, a, key));
  if (!action) return null;
  const position = t.position;
  return {
    async run(signal: AbortSignal): Promise<void> {
      emit({ phase: 'start', action: action.kind, position });
      const started = performance.now();
      let ok = true;
      try {
        const prediction = await predictor.predict(history, action, { signal });
        t.storeGuess(stop, action, { history: key, prediction });
        counters.predicted++;
      } catch (err) {
        ok = false;
        if (err instanceof DecodeAbortedError) counters.yielded++;
        else t.storeGuess(stop, action, { history: key });
      }
      emit({ phase: 'end', action: action.kind, position, ok, milliseconds: performance.now() - started });
    },
  };
}

/** The current stop's valid guess for `action`, counted as a hit or a miss where the action is guessable there. */
export function takeGuess(t: Timeline, action: Action, counters: PrefetchCounters): Prediction | undefined {
  const stop = t.current;
  if (!guessable(action, stop.state)) return undefined;
  const guess = validGuess(stop.prefetched, action, historyKey(t.history()));
  if (guess) counters.hits++;
  else counters.misses++;
  return guess;
}
