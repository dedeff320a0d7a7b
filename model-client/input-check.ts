/**
 * The input task's forward check: which argument list to show for "a call of f that returns
 * VALUE", one rule for the debugger's Predict Inputs (adapter/queries.ts) and `ndb eval
 * cruxeval --task input` (evaluation/cruxeval.ts).
 *
 * The candidates, in this order: the model's own answer (callCandidates' first), the value
 * itself as the only argument, then the model's other answers. The model runs each forward
 * from its call (predictCandidateCall; nothing runs in Python but the binding of literal
 * arguments) and the first whose predicted return is the value is shown, confirmed.
 *
 * When no run confirms any, the value itself as the only argument is shown where the function
 * takes it (the call binds), else the model's own answer. An unconfirmed answer of the model
 * is rarely right: on the real-code file 11 of 204 were (README, "The model"), fewer than the
 * value fed back (18 of the same rows), the trivial answer that functions returning what they
 * are given, changed or not, make right.
 */
import type { CandidateRun } from './call-outcome.js';

/** The answer shown: one of the model's (`answer`), or the value itself as the only argument. */
export type InputChoice<A> = ({ kind: 'answer'; answer: A } | { kind: 'value' }) & {
  args: string;
  /** The model's run forward of `args`. */
  run: CandidateRun;
  /** The model's run of `args` returns the value. */
  confirmed: boolean;
};

export interface CheckOptions<A> {
  /** The return value asked for, a Python repr. */
  value: string;
  /** An answer as an argument list (`'berry', 'r'`). */
  argsOf(answer: A): string;
  /** The model's run of the function called with `args`. */
  run(args: string): Promise<CandidateRun>;
  /** A failure of the model's own answer after which the value itself is still checked (the model's doing, not a bug). */
  recoverable(err: unknown): boolean;
  /** Before the other answers are drawn, once the first two checks ran (a predictor shared with the checks is shown the question again). */
  beforeRest?(): Promise<void>;
}

/** The model's run of `args` ends in a return of `value`. */
export const returnsValue = (run: CandidateRun, value: string): boolean => run.outcome?.kind === 'returned' && run.outcome.value === value;

/**
 * Runs the forward check over `answers` (the model's own first, then the others, as
 * callCandidates gives them) and says which to show. Throws the own answer's failure when
 * there is nothing to show: no answer of the model's and a value the function cannot take.
 */
export async function checkInputs<A>(answers: AsyncIterator<A>, opts: CheckOptions<A>): Promise<InputChoice<A>> {
  const runs = new Map<string, CandidateRun>();
  const check = async (args: string): Promise<CandidateRun> => {
    let run = runs.get(args);
    if (!run) {
      run = await opts.run(args);
      runs.set(args, run);
    }
    return run;
  };
  const own: { ok: true; answer: A } | { ok: false; error: unknown } = await answers.next().then(
    (next) => (next.done ? { ok: false as const, error: new Error('no answer') } : { ok: true as const, answer: next.value }),
    (error: unknown) => {
      if (!opts.recoverable(error)) throw error;
      return { ok: false as const, error };
    },
  );
  const answer = (a: A, run: CandidateRun): InputChoice<A> => ({ kind: 'answer', answer: a, args: opts.argsOf(a), run, confirmed: returnsValue(run, opts.value) });
  const ownChoice = own.ok ? answer(own.answer, await check(opts.argsOf(own.answer))) : null;
  if (ownChoice?.confirmed) return ownChoice;
  const valueRun = await check(opts.value);
  const value: InputChoice<A> = { kind: 'value', args: opts.value, run: valueRun, confirmed: returnsValue(valueRun, opts.value) };
  if (value.confirmed) return value;
  if (own.ok) {
    await opts.beforeRest?.();
    const rest: A[] = [];
    for (let next = await answers.next(); !next.done; next = await answers.next()) rest.push(next.value);
    for (const other of rest) {
      const args = opts.argsOf(other);
      if (runs.has(args)) continue;
      const run = await check(args);
      if (returnsValue(run, opts.value)) return answer(other, run);
    }
  }
  // The model's own answer may be the value itself: shown as its own.
  if (valueRun.binds && ownChoice?.args !== opts.value) return value;
  if (!own.ok) throw own.error;
  return ownChoice!;
}
