/**
 * Decoding one frame of the trace language under the grammar (frame-constraint.ts).
 *
 * At each step the model's logits rank the tokens; the chosen token is the first in that
 * order that keeps the frame a valid prefix (greedy), or a draw among the valid tokens of the
 * top-p set at the given temperature (sampling; when none of the set is valid, the most
 * likely valid token). Where the grammar fixes what comes next (the source line once its
 * number is written, the separator after a closed locals object), those tokens are appended
 * without asking the model and fed to it in the same forward pass as the token before them.
 *
 * n samples decode together: the prompt's cache is expanded to n rows, and every pass feeds
 * each unfinished row the same number of tokens (the fewest any row has waiting, so a row
 * with a forced run takes a few passes to feed it), finished rows a pad token. Each row has
 * its own seeded random stream, so a sample does not depend on how many others ran beside it.
 *
 * Greedy decoding of one sample (what a debugging session runs) drafts: each pass also feeds
 * a guess at the tokens that follow (prompt lookup, draft.ts) and keeps the longest prefix of
 * it that greedy decoding confirms (decodeDrafted), so a frame that mostly repeats the state
 * before it takes a few passes, not one per token. The frame is exactly the undrafted one.
 *
 * Every token's log-probability under the model (temperature 1, before the grammar's mask) is
 * kept for confidences (confidence.ts); forced tokens count as certain (0), and so do tokens
 * of a value the rules fix (FrameConstraint.pinned: a literal assigned, a kept immutable, a
 * loop's next element), whatever the model thought of it.
 *
 * Besides the grammar, a loop guard (loop-guard.ts) refuses a token that would go on with a
 * short period the frame has repeated many times and the prompt does not show: the model's
 * next choice is taken, so a loop ends instead of eating the frame's token budget.
 */
import type { Head } from '../grammar/layout.js';
import type { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import { Rng } from '../util/rng.js';
import { type Decisions, FrameConstraint, type FrameRules, type FrameSpans } from './frame-constraint.js';
import type { KvCache } from './kv-cache.js';
import type { Logits, ModelSession } from './onnx-session.js';
import { lookupDraft, structuralDraft } from './draft.js';
import { LoopGuard } from './loop-guard.js';
import type { TokenTable } from './token-table.js';

export interface SamplingOptions {
  /** 0 (default) decodes greedily. */
  temperature?: number;
  /** The nucleus: the most likely tokens whose probabilities add up to this (default 0.95). */
  topP?: number;
  /** Seed of the random streams (default 0): equal seeds give equal samples. */
  seed?: number;
  /** The most tokens one frame may take, forced ones included (default 512). */
  maxNewTokens?: number;
  /** Stops decoding between two forward passes (a background guess the user overtook). */
  signal?: AbortSignal;
  /**
   * Greedy decoding of one sample drafts up to this many tokens per forward pass by prompt
   * lookup (draft.ts) and keeps what the model confirms: the same frame in fewer passes.
   * Default 12; 0 decodes one chosen token per pass (the baseline the drafting is checked against).
   */
  draftTokens?: number;
  /**
   * With drafts: a guess at the frame (frame-guess.ts). `start`, its first tokens
   * (after any given ones), is the first pass's draft instead of the lookup's when the
   * grammar allows some of it; `whole`, the whole guessed frame, is where later drafts are
   * looked up first. A guess only changes how many passes the frame takes, never the frame.
   */
  guess?: { start: readonly number[]; whole: readonly number[] };
}

/** Decoding stopped by its signal: nothing was predicted. */
export class DecodeAbortedError extends Error {
  constructor() {
    super('the prediction was cancelled');
    this.name = 'DecodeAbortedError';
  }
}

/**
 * Where decoding starts: the prompt's cache (one row) and the logits after its last token;
 * or (`unfed`) the cache of the prompt's first tokens and the rest, not yet run, which greedy
 * decoding with drafts runs in its first pass together with a draft of the frame's start
 * (one pass fewer per frame) and any other decoding runs first.
 */
export type PromptState = {
  cache: KvCache;
  /** The prompt's tokens, where drafts are looked up (draft.ts); without them only the frame's own tokens are. */
  ids?: readonly number[];
} & ({ logits: Float32Array; unfed?: undefined } | { logits?: undefined; unfed: readonly number[] });

export interface DecodeContext {
  session: ModelSession;
  tokenizer: TraceTokenizer;
  table: TokenTable;
}

export interface DecodedFrame {
  ids: number[];
  /** The frame's text, from its head to `<|action_sep|>` or `<|trace_end|>`. */
  text: string;
  /** Per token: its log-probability under the model; 0 for forced tokens. */
  logprobs: number[];
  forced: boolean[];
  head: Head;
  spans: FrameSpans;
  /** The values the symbolic stepper decided, not the model (FrameConstraint.decisions). */
  decided: Decisions;
  /**
   * Greedy decoding with drafts only: the prompt and the frame tokens the model has run, with
   * the cache after them, and the frame's rest that it has not run (`ahead`: the last choice
   * and the forced tokens after it). The predicted state's frame then opens the next prompt,
   * so keeping this (prefix-cache.ts) saves running it again.
   */
  fed?: { ids: readonly number[]; cache: KvCache; ahead: readonly number[] };
}

/** A frame that did not end within its token budget (a model that rambles, or a context too short). */
export class FrameBudgetError extends Error {
  constructor(maxNewTokens: number, text: string) {
    super(`no complete frame within ${maxNewTokens} new tokens (the model wrote ${JSON.stringify(text.slice(0, 120))}…)`);
    this.name = 'FrameBudgetError';
  }
}

export type DecodeOutcome = { ok: true; frame: DecodedFrame } | { ok: false; error: Error };

interface Row {
  constraint: FrameConstraint;
  rng: Rng;
  ids: number[];
  logprobs: number[];
  forced: boolean[];
  /** Tokens written but not yet fed to the model. */
  pending: number[];
  /** Logits for the next choice, once everything written has been fed. */
  logits: Float32Array | null;
  done: boolean;
  error?: Error;
  /** Keeps the row out of loops (loop-guard.ts). */
  guard: LoopGuard;
}

const DEFAULTS = { temperature: 0, topP: 0.95, seed: 0, maxNewTokens: 512, draftTokens: 12 };

/**
 * `samples` frames after a prompt, each valid by the grammar; a failed sample reports its
 * error. `prefix`: the frame's first tokens, given (already part of the prompt).
 */
export async function decodeFrames(
  ctx: DecodeContext,
  prompt: PromptState,
  rules: FrameRules,
  samples: number,
  options: SamplingOptions = {},
  prefix: readonly number[] = [],
): Promise<DecodeOutcome[]> {
  const opts = { ...DEFAULTS, ...options };
  const { session } = ctx;
  const base = new Rng(opts.seed);
  if (samples === 1 && opts.temperature <= 0 && opts.draftTokens > 0) return [await decodeDrafted(ctx, prompt, newRow(ctx, rules, null, prefix, base.fork(0), prompt.ids), prefix.length, opts)];
  const ran = prompt.unfed ? await session.prefill(prompt.unfed, prompt.cache) : null;
  const logits = ran ? ran.logits.last(0) : prompt.logits!;
  const rows: Row[] = Array.from({ length: samples }, (_, i) => newRow(ctx, rules, logits, prefix, base.fork(i), prompt.ids));
  let cache = (ran ? ran.cache : prompt.cache).expand(samples);
  const active = () => rows.filter((r) => !r.done && !r.error);

  while (active().length > 0) {
    if (opts.signal?.aborted) throw new DecodeAbortedError();
    for (const row of active()) {
      const logits = row.logits;
      if (!logits) continue; // still feeding what it wrote
      const pinned = row.constraint.pinned;
      const id = chooseToken(ctx.table, row, logits, opts);
      // The grammar accepts only prefixes of valid frames, so some token always fits.
      if (id === undefined) throw new Error(`internal: the frame grammar left no valid token after ${JSON.stringify(ctx.tokenizer.decode(row.ids))}`);
      row.logits = null;
      write(ctx.table, row, id, pinned ? 0 : logProbability(logits, id), false);
      writeForced(ctx, row);
      if (!row.done && row.ids.length >= opts.maxNewTokens) row.error = new FrameBudgetError(opts.maxNewTokens, ctx.tokenizer.decode(row.ids));
    }
    const feeding = active();
    if (feeding.length === 0) break;
    const width = Math.min(...feeding.map((r) => r.pending.length));
    const inputs = rows.map((r) => (feeding.includes(r) ? r.pending.splice(0, width) : new Array<number>(width).fill(session.padId)));
    let result;
    try {
      result = await session.forward(inputs, cache);
    } catch (err) {
      for (const r of feeding) r.error = err as Error;
      break;
    }
    cache = result.cache;
    rows.forEach((r, i) => {
      if (feeding.includes(r) && r.pending.length === 0) r.logits = result.logits.last(i);
    });
  }

  return rows.map((row) => outcome(ctx, row));
}

/** `promptIds`: what the frame may copy runs of equal items from (the loop guard's exception). */
function newRow(ctx: DecodeContext, rules: FrameRules, logits: Float32Array | null, prefix: readonly number[], rng: Rng, promptIds: readonly number[] = []): Row {
  const constraint = new FrameConstraint(rules);
  const guard = new LoopGuard(() => textBytes(ctx.table, promptIds));
  for (const id of prefix) {
    if (!accept(constraint, ctx.table, id)) throw new Error(`the given start of the frame is not valid: ${JSON.stringify(ctx.tokenizer.decode([...prefix]))}`);
    guard.wrote(writtenBytes(ctx.table, id));
  }
  return { constraint, rng, ids: [...prefix], logprobs: prefix.map(() => 0), forced: prefix.map(() => true), pending: [], logits, done: false, guard };
}

/** What a token writes, for the loop guard: its bytes, or the special token it is. */
function writtenBytes(table: TokenTable, id: number): Uint8Array | { special: string } {
  const special = table.special(id);
  return special === undefined ? table.bytes(id) : { special };
}

/** Tokens' bytes end to end, a special token as a zero byte (which no frame text holds). */
function textBytes(table: TokenTable, ids: readonly number[]): Buffer {
  return Buffer.concat(ids.map((id) => (table.special(id) === undefined ? table.bytes(id) : ZERO_BYTE)));
}
const ZERO_BYTE = new Uint8Array(1);

function outcome(ctx: DecodeContext, row: Row, fed?: DecodedFrame['fed']): DecodeOutcome {
  if (row.error) return { ok: false, error: row.error };
  return {
    ok: true,
    frame: {
      ids: row.ids,
      text: ctx.tokenizer.decode(row.ids),
      logprobs: row.logprobs,
      forced: row.forced,
      head: row.constraint.frameHead!,
      spans: row.constraint.frameSpans,
      decided: row.constraint.decisions,
      ...(fed ? { fed } : {}),
    },
  };
}

/** What a guessed frame start says after the frame's tokens written so far; nothing when they already differ from it. */
function guessedRest(guess: readonly number[], written: readonly number[]): readonly number[] {
  if (written.length > guess.length || written.some((id, i) => guess[i] !== id)) return [];
  return guess.slice(written.length);
}

/** A guessed frame start (`guess.start`) may be this many times as long as a lookup draft. */
const START_DRAFT_FACTOR = 2;

/** What the last forward pass of decodeDrafted fed after the tokens written before it. */
interface DraftPass {
  logits: Logits;
  /** Tokens it fed first, known to be right: the prompt's unfed rest, or what the frame wrote since the pass before. */
  written: number;
  /** The draft after them. */
  draft: number[];
  /** Draft tokens greedy decoding has written too, so far. */
  matched: number;
}

/**
 * Greedy decoding of one frame with drafts (speculative decoding, the draft from prompt
 * lookup, draft.ts). Each pass feeds what was written but not yet fed (a chosen token and
 * the forced run after it) and then a draft of what may follow. The pass's logits at each
 * draft position are what a pass after the draft's earlier tokens would have given, so the
 * choice there is made exactly as plain greedy decoding makes it (chooseToken, under the
 * grammar); while the choices (and the forced tokens after them) equal the draft, they are
 * already fed and the next choice's logits are already there. At the first difference, the
 * cache drops the rest of the draft (KvCache.truncate) and the next pass feeds the model's
 * own token. The frame is token for token plain greedy decoding's; only the number of
 * passes changes (and logits by float noise: positions computed in one pass, not several).
 * A prompt with unfed tokens runs them in the first pass, before the first draft.
 */
async function decodeDrafted(ctx: DecodeContext, prompt: PromptState, row: Row, given: number, opts: typeof DEFAULTS & SamplingOptions): Promise<DecodeOutcome> {
  const { session } = ctx;
  const promptIds = prompt.ids ?? [];
  let cache = prompt.cache;
  let pass: DraftPass | null = null;
  let next: Float32Array | null = prompt.logits ?? null;
  let unfed = prompt.unfed ?? [];
  for (;;) {
    if (opts.signal?.aborted) throw new DecodeAbortedError();
    // Choose while the logits after everything written are known.
    while (next) {
      const pinned = row.constraint.pinned;
      const id = chooseToken(ctx.table, row, next, opts);
      if (id === undefined) throw new Error(`internal: the frame grammar left no valid token after ${JSON.stringify(ctx.tokenizer.decode(row.ids))}`);
      write(ctx.table, row, id, pinned ? 0 : logProbability(next, id), false);
      writeForced(ctx, row);
      if (!row.done && row.ids.length >= opts.maxNewTokens) row.error = new FrameBudgetError(opts.maxNewTokens, ctx.tokenizer.decode(row.ids));
      if (row.error) return outcome(ctx, row);
      if (row.done) {
        // The cache holds the prompt, the frame's tokens fed so far and the last draft's unconfirmed rest.
        const kept = cache.length - (pass ? pass.draft.length - pass.matched : 0);
        const runFrame = row.ids.slice(given, given + kept - promptIds.length);
        const whole = prompt.ids !== undefined && prompt.cache.length + (prompt.unfed?.length ?? 0) === promptIds.length;
        const ahead = row.ids.slice(given + runFrame.length);
        return outcome(ctx, row, whole ? { ids: [...promptIds, ...runFrame], cache: cache.truncate(kept), ahead } : undefined);
      }
      next = null;
      if (pass) {
        // What the draft already fed is not pending.
        while (row.pending.length > 0 && pass.matched < pass.draft.length && row.pending[0] === pass.draft[pass.matched]) {
          row.pending.shift();
          pass.matched++;
        }
        if (row.pending.length === 0) next = pass.logits.at(0, pass.written - 1 + pass.matched);
      }
    }
    // The rejected rest of the last draft leaves the cache.
    if (pass) cache = cache.truncate(cache.length - (pass.draft.length - pass.matched));
    const written = unfed.length + row.pending.length;
    // No draft past the context or the frame's budget: those positions could never be kept.
    const space = Math.min(session.maxPositions - cache.length - written, opts.maxNewTokens - row.ids.length);
    const room = Math.min(opts.draftTokens, space);
    // The guessed frame sits between the prompt and the frame so far: the latest text a lookup finds.
    const context = [...promptIds, ...(opts.guess?.whole ?? []), ...row.ids.slice(prompt.ids ? given : 0)];
    // A guessed start may run longer: a whole short frame in the first pass.
    const startRoom = Math.min(START_DRAFT_FACTOR * opts.draftTokens, space);
    let draft: number[] = pass === null && opts.guess ? grammatical(ctx, row.constraint, guessedRest(opts.guess.start, row.ids.slice(given)).slice(0, startRoom)) : [];
    if (draft.length === 0) draft = grammatical(ctx, row.constraint, lookupDraft(context, room));
    if (draft.length === 0) draft = grammatical(ctx, row.constraint, structuralDraft(context, room, (id) => ctx.table.special(id) !== undefined));
    let result;
    try {
      result = await session.forward([[...unfed, ...row.pending, ...draft]], cache);
    } catch (err) {
      return { ok: false, error: err as Error };
    }
    cache = result.cache;
    unfed = [];
    row.pending = [];
    pass = { logits: result.logits, written, draft, matched: 0 };
    next = result.logits.at(0, written - 1);
  }
}

function write(table: TokenTable, row: Row, id: number, logprob: number, forced: boolean): void {
  row.guard.wrote(writtenBytes(table, id));
  row.ids.push(id);
  row.logprobs.push(logprob);
  row.forced.push(forced);
  if (row.constraint.done) row.done = true;
  else row.pending.push(id);
}

/** Appends what the grammar fixes from here (the constraint has already accepted the last token). */
function writeForced(ctx: DecodeContext, row: Row): void {
  for (let f = row.constraint.forced(); f && !row.done; f = row.constraint.forced()) {
    for (const id of forcedIds(ctx, f)) {
      if (!accept(row.constraint, ctx.table, id)) throw new Error(`internal: the grammar forced ${JSON.stringify(f.text)} ${f.special} but refused it`);
      write(ctx.table, row, id, 0, true);
    }
  }
}

/** The tokens of what the grammar forces (FrameConstraint.forced): the text, then its special token. */
function forcedIds(ctx: DecodeContext, forced: { text: string; special: string }): number[] {
  return [...ctx.tokenizer.encode(forced.text), ctx.tokenizer.tokenId(forced.special)];
}

/**
 * The draft's longest prefix that the grammar allows after what is written (`constraint`,
 * not changed): a token the grammar refuses can never be chosen, so it and whatever follows
 * it would only be wasted positions of the pass and a rollback of the cache. It also ends
 * where the grammar fixes the rest of the frame (the source line and `<|action_sep|>` after
 * the locals): no choice needs logits after that, and those tokens run after the stop is
 * shown (PrefixCache.catchUp), not while the user waits.
 */
function grammatical(ctx: DecodeContext, constraint: FrameConstraint, draft: readonly number[]): number[] {
  const c = constraint.clone();
  let n = 0;
  while (n < draft.length && !c.done && accept(c, ctx.table, draft[n]!)) {
    n++;
    if (forcedToEnd(ctx, c)) break;
  }
  return draft.slice(0, n);
}

/** Whether the grammar fixes every token from here to the frame's end (`constraint` not changed). */
function forcedToEnd(ctx: DecodeContext, constraint: FrameConstraint): boolean {
  if (!constraint.forced()) return false;
  const c = constraint.clone();
  for (let f = c.forced(); f && !c.done; f = c.forced()) {
    for (const id of forcedIds(ctx, f)) if (!accept(c, ctx.table, id)) return false;
  }
  return c.done;
}

function accept(constraint: FrameConstraint, table: TokenTable, id: number): boolean {
  const special = table.special(id);
  return special !== undefined ? constraint.pushSpecial(special) : constraint.pushBytes(table.bytes(id));
}

/** Whether `id` may come next; if so the row's constraint moves on past it. */
function tryToken(row: Row, table: TokenTable, id: number): boolean {
  const next = row.constraint.clone();
  if (!accept(next, table, id)) return false;
  row.constraint = next;
  return true;
}

/** The row's next token under the grammar and the loop guard; the guard gives way when it would leave no token. */
function chooseToken(table: TokenTable, row: Row, logits: Float32Array, opts: typeof DEFAULTS): number | undefined {
  const banned = row.guard.bans();
  if (banned) {
    const id = chooseAmong(table, row, logits, opts, (id) => !(table.special(id) === undefined && banned(table.bytes(id))));
    if (id !== undefined) return id;
  }
  return chooseAmong(table, row, logits, opts, () => true);
}

function chooseAmong(table: TokenTable, row: Row, logits: Float32Array, opts: typeof DEFAULTS, allowed: (id: number) => boolean): number | undefined {
  const fits = (id: number) => allowed(id) && tryToken(row, table, id);
  if (opts.temperature <= 0) {
    const best = argmax(logits);
    if (fits(best)) return best;
    for (const id of byLogit(logits)) if (id !== best && fits(id)) return id;
  } else {
    const order = sortedByLogit(logits);
    const max = logits[order[0]!]!;
    let total = 0;
    for (let i = 0; i < logits.length; i++) total += Math.exp((logits[i]! - max) / opts.temperature);
    // The top-p set at this temperature.
    const nucleus: number[] = [];
    const weights: number[] = [];
    let mass = 0;
    for (const id of order) {
      if (mass >= opts.topP) break;
      const weight = Math.exp((logits[id]! - max) / opts.temperature);
      nucleus.push(id);
      weights.push(weight);
      mass += weight / total;
    }
    // A draw from the set with its invalid members masked out: draw, and if the token does
    // not fit, take it out and draw again (checking only what is drawn, not the whole set).
    for (let k = draw(weights, row.rng.next()); k >= 0; k = draw(weights, row.rng.next())) {
      if (fits(nucleus[k]!)) return nucleus[k]!;
      weights[k] = 0;
    }
    // None of the set fits: the most likely token that does.
    for (const id of order) if (fits(id)) return id;
  }
  return undefined;
}

/** An index drawn with probability proportional to its weight (u uniform in [0, 1)); -1 when all are 0. */
function draw(weights: readonly number[], u: number): number {
  let r = u * weights.reduce((a, b) => a + b, 0);
  let last = -1;
  for (let k = 0; k < weights.length; k++) {
    if (weights[k]! <= 0) continue;
    last = k;
    if ((r -= weights[k]!) < 0) return k;
  }
  return last; // rounding left r a hair above 0: the last candidate
}

function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i]! > logits[best]!) best = i;
  return best;
}

/** Token ids, most likely first (equal logits: the lower id first). */
function sortedByLogit(logits: Float32Array): Uint32Array {
  const order = new Uint32Array(logits.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  return order.sort((a, b) => logits[b]! - logits[a]! || a - b);
}

/** How many of byLogit's ids are found by scanning before it sorts the whole vocabulary. */
const SCANNED_CHOICES = 8;

/**
 * sortedByLogit's order, lazily: greedy decoding whose top token the grammar refuses almost
 * always takes one of the next few, so those come from a scan each (microseconds) and the
 * whole vocabulary is sorted (a third of a millisecond) only when they all fail.
 */
function* byLogit(logits: Float32Array): Generator<number> {
  let lastLogit = Infinity;
  let lastId = -1;
  for (let k = 0; k < SCANNED_CHOICES; k++) {
    let best = -1;
    for (let i = 0; i < logits.length; i++) {
      const l = logits[i]!;
      if (l > lastLogit || (l === lastLogit && i <= lastId)) continue; // already given
      if (best < 0 || l > logits[best]!) best = i;
    }
    if (best < 0) return;
    yield best;
    lastLogit = logits[best]!;
    lastId = best;
  }
  const order = sortedByLogit(logits);
  for (let k = SCANNED_CHOICES; k < order.length; k++) yield order[k]!;
}

/** log softmax(logits)[id], at temperature 1 (indexed loops: twice as fast as for-of over a Float32Array here). */
export function logProbability(logits: Float32Array, id: number): number {
  const n = logits.length;
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (logits[i]! > max) max = logits[i]!;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(logits[i]! - max);
  return logits[id]! - max - Math.log(sum);
}

/**
 * Plain greedy continuation, no grammar: what PyTorch's generate_greedy does (training/model.py),
 * for checking the ONNX export token for token. Stops after a stop id, after `maxNewTokens`,
 * or when the next input would sit past the context.
 */
export async function generateGreedy(session: ModelSession, prompt: readonly number[], maxNewTokens: number, stopIds: readonly number[]): Promise<number[]> {
  let { logits, cache } = await session.prefill(prompt);
  const out: number[] = [];
  for (let i = 0; i < maxNewTokens; i++) {
    const token = argmax(logits.last(0));
    out.push(token);
    if (stopIds.includes(token) || prompt.length + out.length - 1 >= session.maxPositions) break;
    ({ logits, cache } = await session.decodeStep([token], cache));
  }
  return out;
}
