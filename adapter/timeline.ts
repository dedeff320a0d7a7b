/**
 * The predicted run as a debugger walks it: the stops visited, in run order, each with the
 * action taken from it to the next one, and the predicted end of the run once reached.
 *
 * A timeline is what makes a neural session feel like a real one: stepping back to a stop
 * already seen shows the same state again (not a fresh guess), and stepping forward again
 * from it with the same action replays what was predicted. Asking for something new there
 * (another action, an edited variable, a resample) drops the stops after it: that future
 * was predicted from a past that no longer holds.
 *
 * The timeline also keeps the background guesses made from its stops (a cache, bounded by
 * GUESSED_STOPS_KEPT); adapter/prefetch.ts, which makes them, imports it, not the reverse.
 */
import type { Action, Exit, State } from '../grammar/state.js';
import type { ExitConfidence, StateConfidence } from '../model-client/confidence.js';
import type { HistoryEntry, Origin, Prediction, PredictionStats, Vote } from '../model-client/predictor.js';
import { RuntimeError } from './runtime-error.js';

/**
 * How many stops keep their guesses: the ones guessed from most recently (the current stop
 * and those just before it, where stepping back and taking another action is served too).
 */
export const GUESSED_STOPS_KEPT = 16;

/** A background guess stored on its stop (adapter/prefetch.ts makes it and decides when it may be used). */
export interface Prefetched {
  /** historyKey() of the history the guess was made from (a fingerprint, not the history). */
  history: string;
  /** The guess; absent when predicting it failed (the key press then predicts, and reports the error). */
  prediction?: Prediction;
}

/** Per stop: action key -> guess. */
export type PrefetchMap = Map<string, Prefetched>;

/** The key of `action` in a stop's PrefetchMap. */
export function actionKey(action: Action): string {
  return JSON.stringify(action);
}

export interface Stop {
  state: State;
  origin: Origin;
  confidence: StateConfidence;
  vote?: Vote;
  stats?: PredictionStats;
  /** The action taken from this stop to the next one of the timeline (or to the end). */
  action?: Action;
  /** Locals the user set at this stop (what-if debugging): their values are the user's. */
  edited: string[];
  /** Stops before the timeline's first that the model inferred by stepping back. */
  inferredBackward?: boolean;
  /**
   * Background guesses of the next actions from this stop (adapter/prefetch.ts); only the
   * stops guessed from most recently keep theirs (Timeline.storeGuess).
   */
  prefetched?: PrefetchMap;
}

export interface End {
  exit: Exit;
  origin: Origin;
  confidence: ExitConfidence;
  stats?: PredictionStats;
}

export function sameAction(a: Action | undefined, b: Action): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

export class Timeline {
  readonly stops: Stop[] = [];
  /** The predicted end, reached by the last stop's action. */
  end: End | null = null;
  /** Index of the current stop; with `atEnd`, the run has ended after the last stop. */
  position = 0;
  atEnd = false;
  /**
   * The stops holding guesses, the one guessed from least recently first: at most
   * GUESSED_STOPS_KEPT, so that guesses (a cache) do not pile up over a long session.
   */
  private readonly guessing: Stop[] = [];

  get current(): Stop {
    const stop = this.stops[this.position];
    if (!stop) throw new RuntimeError('the session has no current state: launch a program first');
    return stop;
  }

  /**
   * The model's probability of the predicted way to the end: the product of the frame
   * probabilities of the stops it predicted since the last one it did not (the input, a stop
   * with an edited value), the end's included. What "returned 1 (confidence …)" should say:
   * the end's own frame is nearly certain once the model has taken a wrong branch.
   */
  endConfidence(): number | null {
    if (!this.end || this.end.origin !== 'model') return null;
    let p = this.end.confidence.frame;
    for (let i = this.stops.length - 1; i >= 0; i--) {
      const stop = this.stops[i]!;
      if (stop.origin !== 'model' || stop.edited.length > 0) break;
      p *= stop.confidence.frame;
    }
    return p;
  }

  get started(): boolean {
    return this.stops.length > 0;
  }

  reset(first: Stop | null, end: End | null): void {
    this.stops.length = 0;
    this.guessing.length = 0;
    if (first) this.stops.push(first);
    this.end = end;
    this.position = 0;
    this.atEnd = first === null;
  }

  /**
   * Where `action` from the current stop leads, if the timeline already knows: the next stop
   * (index) or the end. Undefined when it must be predicted.
   */
  known(action: Action): number | 'end' | undefined {
    const stop = this.current;
    if (!sameAction(stop.action, action)) return undefined;
    if (this.position + 1 < this.stops.length) return this.position + 1;
    if (this.position === this.stops.length - 1 && this.end) return 'end';
    return undefined;
  }

  /**
   * Forgets the future after the current stop, so that a new one can be predicted. The
   * current stop's guesses stay (its past is unchanged): the stops dropped take theirs along.
   */
  truncate(): void {
    if (this.stops.length > this.position + 1) {
      const dropped = new Set(this.stops.slice(this.position + 1));
      this.forget((s) => dropped.has(s));
    }
    this.stops.length = this.position + 1;
    this.end = null;
    delete this.current.action;
  }

  /** Drops every stop's guesses: the past they were made from has changed (a stop put before the first). */
  dropPrefetches(): void {
    for (const stop of this.stops) delete stop.prefetched;
    this.guessing.length = 0;
  }

  /** Drops one stop's guesses (its state changed). */
  dropGuesses(stop: Stop): void {
    delete stop.prefetched;
    this.forget((s) => s === stop);
  }

  /**
   * Stores a guess (or a failed try) for `action` on `stop`. The stop becomes the latest one
   * guessed from; past GUESSED_STOPS_KEPT such stops, the one guessed from least recently
   * loses its guesses (a press there is then predicted, as without prefetch).
   */
  storeGuess(stop: Stop, action: Action, guess: Prefetched): void {
    (stop.prefetched ??= new Map()).set(actionKey(action), guess);
    this.forget((s) => s === stop);
    this.guessing.push(stop);
    while (this.guessing.length > GUESSED_STOPS_KEPT) delete this.guessing.shift()!.prefetched;
  }

  /** Stops holding guesses (bench/ and tests watch it stay small). */
  get stopsWithGuesses(): number {
    return this.guessing.length;
  }

  private forget(match: (s: Stop) => boolean): void {
    for (let i = this.guessing.length - 1; i >= 0; i--) if (match(this.guessing[i]!)) this.guessing.splice(i, 1);
  }

  /** The states from the first stop to the current one, with the actions taken between. */
  history(): HistoryEntry[] {
    return this.stops.slice(0, this.position + 1).map((s, i) => (i < this.position ? { state: s.state, action: s.action! } : { state: s.state }));
  }

  /** The actions from the first stop to stop `index` (what the real run replays in verify mode). */
  actionsTo(index: number): Action[] {
    return this.stops.slice(0, index).map((s) => s.action!);
  }
}
