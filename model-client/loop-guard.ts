/**
 * A guard against decoding's loops: a small model sometimes writes the same few characters
 * over and over (`'apple: 3, 3, 3, 3, …` for `'apple: 3'`) until the frame's token budget
 * runs out, and the user's key press then gets an error instead of a state.
 *
 * The rule: once the frame's text ends in a short period repeated many times
 * (FIRST_LOOP: 16 times and 64 bytes at least), a token that would write that
 * period once more is not chosen (the model's next choice is), unless the prompt holds the
 * repeated text followed by that token's text: then the frame is copying a long run of equal
 * items that really is there (a `[0] * 40` list from the state before). Bytes, not tokens:
 * a loop may change how it is split into tokens (`, 3` as one token or two) and go on.
 *
 * A value that really is a long new run (`'-' * 40` on the line that builds it) is cut
 * short; the model would have had to count the run to get it right, and a loop that eats the
 * budget loses the whole state. A stack is left alone (a recursion repeats `f:4` as deep
 * as it goes), and the guard never leaves a choice without a token (decode.ts then takes the
 * model's choice as if there were no guard).
 */

import { TOKENS } from '../grammar/tokens.js';

/** The longest period looked for, in bytes. */
const MAX_PERIOD = 32;
/** A run counts as a loop when its period repeats this many times and it is this many bytes long at least… */
const FIRST_LOOP = { repeats: 16, bytes: 64 };
/** …and, once the frame has looped, when it repeats far fewer: a model out of one loop tends to fall into the next (`3, 3, 3` → `3: 3, 3: 3`). */
const LATER_LOOP = { repeats: 3, bytes: 12 };
/** Bytes of the frame's text kept for the check: the longest loop looked for. */
const TAIL_BYTES = MAX_PERIOD * FIRST_LOOP.repeats;

export class LoopGuard {
  private tail: number[] = [];
  private promptText: Buffer | null = null;
  private looped = false;
  /** In a field the guard leaves alone. */
  private off = false;

  /** `prompt`: the bytes the frame may copy from (built only when a loop is first seen). */
  constructor(private readonly prompt: () => Buffer) {}

  /** The frame wrote a special token (which ends any run) or these bytes. */
  wrote(written: { special: string } | Uint8Array): void {
    if (!(written instanceof Uint8Array)) {
      this.tail = [];
      // A stack repeats by nature (`f:4 f:4 f:4 …`, a recursion): no guard there.
      this.off = written.special === TOKENS.locSep;
      return;
    }
    if (this.off) return;
    for (const b of written) this.tail.push(b);
    if (this.tail.length > 2 * TAIL_BYTES) this.tail = this.tail.slice(-TAIL_BYTES);
  }

  /**
   * A test for candidate tokens' bytes (true: the token goes on with the loop and the
   * prompt does not show the run going on like that), or null when the text is not looping.
   * Called once per choice, before its candidates are tried.
   */
  bans(): ((bytes: Uint8Array) => boolean) | null {
    const loop = this.looped ? LATER_LOOP : FIRST_LOOP;
    const period = this.loopPeriod(loop);
    if (period === 0) return null;
    const t = this.tail;
    const n = t.length;
    // The whole periodic run, as far back as it goes: a copy must be as long in the prompt.
    let start = n - period;
    while (start > 0 && t[start - 1] === t[start - 1 + period]) start--;
    const run = Buffer.from(t.slice(start));
    return (bytes) => {
      if (bytes.length === 0) return false;
      for (let i = 0; i < bytes.length; i++) {
        const want = i < period ? t[n - period + i]! : bytes[i - period]!;
        if (bytes[i] !== want) return false;
      }
      this.promptText ??= this.prompt();
      if (this.promptText.indexOf(Buffer.concat([run, bytes])) >= 0) return false;
      this.looped = true;
      return true;
    };
  }

  /** The shortest period the text's end repeats as a loop; 0 when none. */
  private loopPeriod(loop: { repeats: number; bytes: number }): number {
    const t = this.tail;
    const n = t.length;
    for (let p = 1; p <= MAX_PERIOD; p++) {
      const span = Math.max(loop.bytes, p * loop.repeats);
      if (span > n) break;
      let k = 1;
      while (k <= span - p && t[n - k] === t[n - k - p]) k++;
      if (k > span - p) return p;
    }
    return 0;
  }
}
