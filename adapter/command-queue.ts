/**
 * The runtime's command queue and the scheduler of its background work (adapter/runtime.ts
 * owns one; the runtime says what the background work is, this says when it runs).
 *
 * Commands run one at a time, in the order they arrive (a command that arrives during a
 * prediction waits for it); a failed one does not block the next.
 *
 * Background work: once a command is done and none waits, and the stop has had a few
 * milliseconds to reach the client, the runtime's background work runs through the same
 * queue: with prefetch on, guesses of the next key presses (adapter/prefetch.ts), one at a
 * time, each queued once the one before is done, until none is left to guess; with prefetch
 * off, the predictor's catch-up (Predictor.catchUp). No background turn starts while a
 * command waits, and a command that arrives aborts the guess in flight at its next forward
 * pass (the AbortSignal the guess is given), so a command waits at most for the one forward
 * pass in flight.
 */
import { RuntimeError } from './runtime-error.js';

/**
 * How long after a command's stop the background work (catch-up, guesses) begins: long
 * enough for the stopped event to reach the client (a fraction of a millisecond), short
 * against any pause a user makes.
 */
export const BACKGROUND_DELAY_MS = 5;

/** One background guess, chosen from the current stop. */
export interface BackgroundGuess {
  /** Makes the guess; `signal` aborts its decoding when a command arrives. Never rejects. */
  run(signal: AbortSignal): Promise<void>;
}

/** What the runtime does in the background. */
export interface BackgroundWork {
  /** Whether guesses are wanted now (prefetch on); asked when a guess is queued and again when it starts. */
  prefetching(): boolean;
  /** With prefetch off: the work the next command would otherwise do first (Predictor.catchUp); absent when there is none. */
  catchUp?: () => Promise<unknown> | undefined;
  /** The next guess to make from the current stop; null when there is none (nothing is queued after it). */
  nextGuess(): BackgroundGuess | null;
  /** A queued guess gave way to a waiting command before it began. */
  yielded(): void;
}

export class CommandQueue {
  private queue: Promise<unknown> = Promise.resolve();
  /** User commands queued or running: a background guess gives way while any is. */
  private waiting = 0;
  private guessQueued = false;
  /** Aborts the background guess being decoded, if any. */
  private guessInFlight: AbortController | null = null;
  /** The pause between a command's stop and the background work after it (see commandDone). */
  private backgroundTimer: NodeJS.Timeout | null = null;
  /** idle()'s waits for that pause to end. */
  private onBackgroundStart: (() => void)[] = [];
  private closedFlag = false;

  constructor(private readonly work: BackgroundWork) {}

  /** Closed (close()): no command runs any more and no background work starts. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /**
   * Runs `fn` after the commands before it; a failed one does not block the next. When the
   * last waiting command is done, the background work from its stop begins.
   */
  run<T>(fn: () => Promise<T>): Promise<T> {
    // A closed runtime (a new launch replaced it) must not touch the model again: the new
    // one's start resets the predictor, and a late step would decode on its cache.
    if (this.closedFlag) return Promise.reject(new RuntimeError('this run is over: a new launch replaced it'));
    this.waiting++;
    // A command overtakes a background guess: the guess stops at its next forward pass.
    this.guessInFlight?.abort();
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    // Registered before the caller's own reactions: the guess is queued before a command
    // the caller sends right after this one, which then finds it queued and makes it yield.
    run.then(
      () => this.commandDone(),
      () => this.commandDone(),
    );
    return run;
  }

  private commandDone(): void {
    this.waiting--;
    if (this.waiting > 0 || this.closedFlag || this.backgroundTimer) return;
    // The background work waits a moment: begun at once, it held the stop's message back
    // from the client by a whole forward pass (timestamps at both ends of the bench's pipe:
    // 2.3 against 0.3 ms from sending the stopped event to the client having it).
    this.backgroundTimer = setTimeout(() => {
      this.backgroundTimer = null;
      this.scheduleCatchUp();
      this.scheduleGuess();
      this.backgroundStarted();
    }, BACKGROUND_DELAY_MS);
  }

  /**
   * With prefetch off, queues the catch-up while the user looks at the stop; skipped when a
   * command waits (it runs the catch-up itself). With prefetch on, the first guess does it anyway.
   */
  private scheduleCatchUp(): void {
    if (this.waiting > 0 || this.closedFlag || this.work.prefetching() || !this.work.catchUp) return;
    const job = this.queue.then(() => (this.waiting > 0 || this.closedFlag ? undefined : this.work.catchUp?.()));
    this.queue = job.catch(() => undefined);
  }

  /** Queues the next background guess, unless one is queued or a command waits (it schedules again when done). */
  private scheduleGuess(): void {
    if (this.guessQueued || this.waiting > 0 || !this.work.prefetching()) return;
    this.guessQueued = true;
    const job = this.queue.then(() => {
      this.guessQueued = false;
      return this.guessOne();
    });
    this.queue = job.catch(() => undefined);
  }

  /** One guess, then the next is queued; nothing when a command waits or nothing is left to guess. */
  private async guessOne(): Promise<void> {
    if (!this.work.prefetching()) return;
    if (this.waiting > 0) {
      this.work.yielded();
      return;
    }
    const guess = this.work.nextGuess();
    if (!guess) return;
    const abort = new AbortController();
    this.guessInFlight = abort;
    try {
      await guess.run(abort.signal);
    } finally {
      this.guessInFlight = null;
    }
    this.scheduleGuess();
  }

  /** Stops the background work for good and resolves when the work in flight and the commands queued before are done. */
  async close(): Promise<void> {
    this.closedFlag = true;
    if (this.backgroundTimer) clearTimeout(this.backgroundTimer);
    this.backgroundTimer = null;
    this.backgroundStarted();
    // Commands queued before the close still run; wait until the queue stops growing.
    for (let q = this.queue; ; q = this.queue) {
      await q;
      if (q === this.queue) return;
    }
  }

  /** Resolves once no command and no background work is waiting, queued or running. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.backgroundTimer) await new Promise<void>((resolve) => this.onBackgroundStart.push(resolve));
      const q = this.queue;
      await q;
      if (q === this.queue && !this.guessQueued && !this.backgroundTimer) return;
    }
  }

  private backgroundStarted(): void {
    for (const resolve of this.onBackgroundStart.splice(0)) resolve();
  }
}
