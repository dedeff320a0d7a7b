/**
 * One payload segment of a frame (the text between two special tokens), validated one code
 * point at a time as the model writes it. Every implementation accepts exactly the prefixes
 * of valid segment texts, so a prefix it accepts can always be completed: greedy
 * constrained decoding never walks into a dead end.
 *
 * Code points arrive unescaped (escape.ts undone): a segment sees the text the parser sees.
 * `at` is the index of the frame token that carried the code point; segments that report
 * spans (which tokens wrote a value) record it.
 */
export interface Segment {
  /** Consumes one code point; false when no valid segment starts with the text so far plus it. */
  push(cp: number, at: number): boolean;
  /** Whether the segment may end here (the next special token may come). */
  canEnd(): boolean;
  /**
   * The rest of the segment's text when the grammar fixes it, else null: the whole text of
   * a segment fixed before anything is written (a source line once its number is known),
   * or '' once a segment is complete and nothing may be added (a closed locals object). A
   * part-written segment never forces the rest of its text: the text between two special
   * tokens is tokenized as a whole, so only whole segments keep training's tokens.
   */
  forced(): string | null;
  /** Whether the rules fix the rest of the value being written (json-constraint.ts): its tokens count as certain. */
  readonly pinned?: boolean;
  clone(): Segment;
}

/** A token span [from, to], both ends included, in frame token indices. */
export interface TokenSpan {
  from: number;
  to: number;
}

export const cp = (ch: string): number => ch.codePointAt(0)!;
