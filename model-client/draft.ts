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
 * before. An occurrence close to the end is read on into the draft itself, i.e. the text
 * is taken to repeat with that period (a list of equal items, a loop's states), so the
 * draft is not cut short where the context ends.
 */
export function lookupDraft(context: readonly number[], max: number): number[] {
  const n = context.length;
  if (max <= 0 || n < 2) return [];
  for (let k = Math.min(MAX_NGRAM, n - 1); k >= 1; k--) {
    // Latest first: the previous state is the likeliest model of the next one.
    for (let i = n - k - 1; i >= 0; i--) {
      let j = 0;
      while (j < k && context[i + j] === context[n - k + j]) j++;
      if (j === k) {
        const draft: number[] = [];
        for (let p = i + k; draft.length < max; p++) draft.push(p < n ? context[p]! : draft[p - n]!);
        return draft;
      }
    }
  }
  return [];
}

/**
 * A draft by the frame's structure, for when lookupDraft's continuation does not fit: the
 * writing is inside a field (a line number, a value) that no earlier text continues. The
 * latest earlier occurrence of the last special token (the field's separator) is followed by
 * that field's earlier content and then the next separator: the draft is what follows from
 * that next separator on, i.e. the guess that the field is complete and the rest of the
 * frame repeats the one before. Empty when the last token is itself special or none such
 * occurred before.
 */
export function structuralDraft(context: readonly number[], max: number, isSpecial: (id: number) => boolean): number[] {
  const n = context.length;
  if (max <= 0 || n < 2 || isSpecial(context[n - 1]!)) return [];
  let sep = n - 1;
  while (sep >= 0 && !isSpecial(context[sep]!)) sep--;
  if (sep < 0) return [];
  for (let i = sep - 1; i >= 0; i--) {
    if (context[i] !== context[sep]) continue;
    let next = i + 1;
    while (next < sep && !isSpecial(context[next]!)) next++;
    return next < sep ? context.slice(next, Math.min(next + max, n)) : [];
  }
  return [];
}
