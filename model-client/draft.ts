/**
 * Drafts for speculative greedy decoding (decode.ts), without a second model: prompt lookup.
 *
 * A debugger state is mostly the state before it: the same stack, most locals' reprs
 * unchanged, source lines that appear earlier in the prompt. So the tokens that follow the
 * last few written tokens, at their latest earlier occurrence in the prompt (or in the frame
 * so far), are a good guess at what the model will write next. The guess costs nothing to
 * check: the model verifies a whole draft in one forward pass, and only the longest prefix
 * that greedy decoding would have written anyway is kept (decode.ts), so a bad draft only
 * wastes a few positions of that pass, never changes the frame.
 */

/** The longest n-gram tried first: a longer match is a likelier continuation. */
const MAX_NGRAM = 4;

/**
 * Up to `max` tokens that followed the latest earlier occurrence of the longest suffix
 * (MAX_NGRAM tokens down to one) of `context`; empty when even its last token never occurred
 * before.
 */
export function lookupDraft(context: readonly number[], max: number): number[] {
  const n = context.length;
  if (max <= 0 || n < 2) return [];
  for (let k = Math.min(MAX_NGRAM, n - 1); k >= 1; k--) {
    // Latest first: the previous state is the likeliest model of the next one.
    for (let i = n - k - 1; i >= 0; i--) {
      let j = 0;
      while (j < k && context[i + j] === context[n - k + j]) j++;
      if (j === k) return context.slice(i + k, Math.min(i + k + max, n));
    }
  }
  return [];
}
