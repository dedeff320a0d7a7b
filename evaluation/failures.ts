/**
 * Why a prediction failed, for scoring: the model's failures count as wrong answers; any
 * other error is ndb's own (a bug), also counted as wrong so that one bad row does not
 * throw away a long evaluation, but listed in the report and shown, so it is not missed.
 */
import { isModelFailure } from '../model-client/call-outcome.js';

/** The model's doing (no frame within the token budget, a prompt past its context, no usable answer), or ndb's. */
export function failureKind(err: unknown): 'model' | 'internal' {
  return isModelFailure(err) ? 'model' : 'internal';
}

/** An error in one line: its class and message. */
export function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** A prediction that failed inside ndb. */
export interface InternalError {
  id: string;
  message: string;
}
