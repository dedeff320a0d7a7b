/**
 * A program to trace: where its source comes from and which call is its entry point.
 */
export type ProgramOrigin = 'synthetic' | 'semantics' | 'humaneval' | 'mbpp' | 'stdlib' | 'packages';

export interface ProgramSpec {
  /** Unique and stable across builds, e.g. `synthetic/000123`, `mbpp/7#1`, `stdlib/textwrap.dedent#2`. */
  id: string;
  /**
   * The program's identity for the train/validation/test split: every spec of one group
   * (the same code with other inputs) lands in the same split, so no program leaks.
   * E.g. `mbpp/7`, `humaneval/12`, `stdlib/textwrap`, `synthetic/000123`.
   */
  group: string;
  origin: ProgramOrigin;
  /** The full program text (for stdlib: the module's text, for reference). */
  source: string;
  /** Set when the program must run in place (stdlib modules with package-relative imports). */
  path?: string;
  /** The function called as the entry point. */
  entry: string;
  /** The call's arguments as Python literal source, e.g. `[1, 2], 'x', k=3`. */
  args: string;
}
