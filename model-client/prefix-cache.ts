/**
 * The model's state after the last prompt, reused for the next one: a debugging session's
 * prompts share the program and most of the history, so each prompt only runs the tokens
 * after the longest prefix it shares with the one before (the new step after a step
 * forward; nothing new after a step back or an edit, only a rollback of the cache). After a
 * greedy prediction it also keeps the predicted frame (`remember`): the next prompt holds that
 * frame as history, so a step runs only its action's few tokens. The frame's last tokens
 * (its last choice and the source line and separators the grammar forced after it) were
 * never run, as decoding needed no logits after them; `catchUp` runs them while the debugger
 * waits for the user, so that the key press runs little more than the action.
 *
 * `reuse: false` turns the reuse off (every prompt runs from its first token): the baseline
 * that bench/ measures the cache against, never what a debugging session uses.
 */
import type { KvCache } from './kv-cache.js';
import type { ModelSession } from './onnx-session.js';

interface CachedPrompt {
  cache: KvCache;
  ids: readonly number[];
  /** Tokens run (or, unfed, to run) through the model for this prompt; the rest came from the cache. */
  prefilled: number;
}

/** A prompt run through the model: the cache and the logits after its last token. */
export interface PrefilledPrompt extends CachedPrompt {
  logits: Float32Array;
}

/** A prompt whose rest after the cached prefix is still to run (PromptState's `unfed`). */
export interface UnfedPrompt extends CachedPrompt {
  unfed: readonly number[];
}

export class PrefixCache {
  private ids: readonly number[] = [];
  private cache: KvCache | null = null;
  /** Tokens known to follow `ids` (the remembered frame's unrun rest), for catchUp. */
  private ahead: readonly number[] = [];

  constructor(
    private readonly session: ModelSession,
    private readonly reuse = true,
  ) {}

  /** Whether prompts reuse the cache (false: the benchmark's baseline, every prompt from its first token). */
  get reusing(): boolean {
    return this.reuse;
  }

  /** The cache and next-token logits after exactly `ids`. */
  async prompt(ids: readonly number[]): Promise<PrefilledPrompt> {
    const { cache: past, unfed, prefilled } = this.unfed(ids);
    const { logits, cache } = await this.session.prefill(unfed, past);
    this.ids = [...ids];
    this.ahead = [];
    this.cache = cache;
    return { cache, logits: logits.last(0), ids: this.ids, prefilled };
  }

  /**
   * The cache of the longest prefix of `ids` it holds and the rest, not run: decodeFrames
   * runs the rest in its first pass, with greedy decoding's first draft after it.
   */
  unfed(ids: readonly number[]): UnfedPrompt {
    if (ids.length === 0) throw new Error('an empty prompt');
    let common = 0;
    while (this.reuse && common < ids.length && common < this.ids.length && ids[common] === this.ids[common]) common++;
    // The logits after the last token are not kept: that token runs again, even when all is cached.
    const keep = Math.min(common, ids.length - 1);
    const cache = this.cache ? this.cache.truncate(keep) : this.session.emptyCache();
    // Held until decoding remembers more: the prefix stays good whatever is written after it.
    this.ids = ids.slice(0, keep);
    this.cache = cache;
    this.ahead = [];
    return { cache, unfed: ids.slice(keep), ids: [...ids], prefilled: ids.length - keep };
  }

  /**
   * Keeps the model's state after `ids` (a prompt and the frame decoded after it) for the
   * next prompt, and the tokens known to follow them (`ahead`, the frame's unrun rest).
   */
  remember(ids: readonly number[], cache: KvCache, ahead: readonly number[] = []): void {
    if (!this.reuse) return;
    if (cache.length !== ids.length) throw new Error(`internal: a cache of ${cache.length} positions for ${ids.length} tokens`);
    this.ids = [...ids];
    this.cache = cache;
    this.ahead = [...ahead];
  }

  /**
   * Runs the tokens known to follow the remembered ones (see remember), so that the next
   * prompt finds them cached; whatever that prompt is, the cache stays right (a prompt
   * keeps only the prefix it shares).
   */
  async catchUp(): Promise<void> {
    const ahead = this.ahead;
    if (!this.cache || ahead.length === 0 || this.ids.length + ahead.length > this.session.maxPositions) return;
    this.ahead = [];
    const { cache } = await this.session.prefill(ahead, this.cache);
    this.ids = [...this.ids, ...ahead];
    this.cache = cache;
  }
}
