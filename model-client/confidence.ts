/**
 * How sure the model was of each predicted value.
 *
 * A value's confidence is the product of the probabilities of the tokens that wrote it (its
 * opening quote through its closing one; for the location, its digits and names and the
 * separator that ended it): the model's probability of exactly that text. Not the
 * geometric mean (exp of the mean log-probability): that is a per-token average, high for
 * a long repr with one doubtful digit, while the product falls with every doubtful token,
 * which is what "confidence 0.93 that x is [1, 2, 3]" should mean.
 *
 * Probabilities are the model's own (temperature 1), before the grammar masks invalid
 * tokens, so they never overstate: mass the model put on impossible text counts as doubt.
 * Tokens the grammar forced count as certain, and so do those of a value the rules fix
 * (a literal assigned, a kept immutable, a loop's next element: the state before decides
 * it), and a token shared by two values (BPE may merge `",` with the next key's quote)
 * counts for both. Such a value is also marked `decided`, with the rule that decided it, so
 * that a user can tell a value Python's semantics fixed from one the model was sure of.
 */
import type { DecodedFrame } from './decode.js';
import type { TokenSpan } from './segment.js';

export interface StateConfidence {
  /** The kind of stop (call, line, return, exception). */
  event: number;
  /** The location: the stack, or the line number. */
  location: number;
  /** Each written local's repr. A delta writes only what changed: unchanged locals have no entry. */
  locals: Record<string, number>;
  /** The return value or the exception. */
  value?: number;
  /** The whole frame: every token the model chose. */
  frame: number;
  /** Locals (and the return value) the symbolic stepper decided, each with its rule (semantics/rules/): not the model's. */
  decided?: { locals: Readonly<Record<string, string>>; value?: string };
}

export interface ExitConfidence {
  /** How the run ends (normal, error, never, entry). */
  kind: number;
  /** The return value or the exception. */
  value?: number;
  frame: number;
}

/** Certain: what came from the user's input or from the real tracer. */
export const CERTAIN_STATE = (locals: readonly string[], value: boolean): StateConfidence => ({
  event: 1,
  location: 1,
  locals: Object.fromEntries(locals.map((k) => [k, 1])),
  ...(value ? { value: 1 } : {}),
  frame: 1,
});

export const CERTAIN_EXIT = (value: boolean): ExitConfidence => ({ kind: 1, ...(value ? { value: 1 } : {}), frame: 1 });

function spanProbability(frame: DecodedFrame, span: TokenSpan): number {
  let sum = 0;
  for (let i = span.from; i <= span.to; i++) sum += frame.logprobs[i] ?? 0;
  return Math.exp(sum);
}

function frameProbability(frame: DecodedFrame): number {
  return Math.exp(frame.logprobs.reduce((a, b) => a + b, 0));
}

export function stateConfidence(frame: DecodedFrame): StateConfidence {
  const { spans } = frame;
  return {
    event: spanProbability(frame, { from: spans.head, to: spans.head }),
    location: spans.loc ? spanProbability(frame, spans.loc) : 1,
    locals: Object.fromEntries(spans.locals.map((e) => [e.key, spanProbability(frame, e.span)])),
    ...(spans.value ? { value: spanProbability(frame, spans.value) } : {}),
    frame: frameProbability(frame),
    ...(Object.keys(frame.decided.locals).length > 0 || frame.decided.value ? { decided: frame.decided } : {}),
  };
}

export function exitConfidence(frame: DecodedFrame): ExitConfidence {
  const { spans } = frame;
  return {
    kind: spanProbability(frame, { from: spans.head, to: spans.head }),
    ...(spans.value ? { value: spanProbability(frame, spans.value) } : {}),
    frame: frameProbability(frame),
  };
}
