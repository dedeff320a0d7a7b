/**
 * The model's tokenizer at run time: load a tokenizer.json, encode, decode. The debugger and
 * the evaluation use only this file; training a tokenizer (data-pipeline/train-tokenizer.ts,
 * with the `tokenizers` native binding) is the data pipeline's, as llama2.c keeps its encoder
 * beside run.c and the trainer apart.
 *
 * Ids:
 *   0 .. K-1      the trace-language tokens, in ALL_TOKENS order (`<|begin_of_text|>` is 0)
 *   K             `<|pad|>`
 *   K+1 .. K+256  the 256 bytes, in byte order (byte b is id K+1+b)
 *   then          the learned merges, in the order they were learned
 * Every special token is an added token and is never split; the text between them is cut by
 * PRE_TOKENIZER_PATTERN, each piece mapped to bytes and merged.
 *
 * Encoding is done here in TypeScript (TraceTokenizer), because the binding only encodes
 * asynchronously; training/bpe.py is the same algorithm in Python. Both follow the Rust BPE
 * model step for step (test/tokenizer.test.ts checks that all three agree).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ALL_TOKENS, TOKENS } from '../grammar/tokens.js';

export const PAD_TOKEN = '<|pad|>';
export const BOS_TOKEN = TOKENS.beginOfText;
export const EOS_TOKEN = TOKENS.endOfText;
/** All special tokens, in id order. */
export const SPECIAL_TOKENS: readonly string[] = [...ALL_TOKENS, PAD_TOKEN];
export const DEFAULT_MODEL_MAX_LENGTH = 2048;

/**
 * Pre-tokenization, tuned for code and traces (<bl> = the blanks space, \t, \v, \f, \r):
 *   [0-9]                   every digit alone (line numbers, ints in reprs)
 *    ?[A-Za-z_]+            a word or identifier, with at most one leading space
 *    ?[^0-9A-Za-z_<bl>\n]+  a run of anything else (punctuation, non-ASCII), same
 *   \n                      every newline alone
 *   <bl>+(?![^<bl>\n])      a run of blanks, all of it before a newline or the end, else all
 *                           but the last, which goes to the next piece: indentation stays one
 *                           mergeable run (`        return` -> 7 spaces + ` return`, as GPT-2)
 *   <bl>+                   a blank left alone (before a digit, say)
 * It uses only explicit ASCII classes (no \s, \w or \p{..}), so the Rust (Oniguruma),
 * JavaScript and Python `re` engines split every string identically.
 *
 * A newline never joins another character; the trainer reads its files line by line, and
 * this keeps its words the same as the encoder's (see writeTrainingText).
 */
export const PRE_TOKENIZER_PATTERN =
  '[0-9]| ?[A-Za-z_]+| ?[^0-9A-Za-z_\\t\\n\\v\\f\\r ]+|\\n|[\\t\\v\\f\\r ]+(?![^\\t\\n\\v\\f\\r ])|[\\t\\v\\f\\r ]+';

/**
 * String literals, for tokenizers that split them into characters (tokenizer_config.json's
 * `ndb_split_strings`): a one-line single-quoted literal, or one left open at the end of the
 * text (a value being written; `(?![\s\S])` is the end in every engine, Python's `$` is not).
 * Single quotes only: that is how Python writes a str's repr, and every value in the trace is
 * a repr inside a JSON string (`{"name": "['ab', 'c']"}`), whose double quotes, and keys (the
 * names), stay ordinary text. Matched first and left whole, so that an apostrophe in them
 * pairs with nothing: triple-quoted literals (docstrings: prose) and, inside JSON, a repr that
 * Python wrote in double quotes because the str holds a single quote (`\"it's\"`).
 * Execution models fail most on string values; as digits are single pieces, a str's
 * characters then are too, so `'AsDf'.swapcase()` is four one-character steps rather than a
 * guess about two subword tokens. training/bpe.py has the same pattern.
 */
export const STRING_LITERAL_PATTERN = String.raw`"""[\s\S]*?"""|'''[\s\S]*?'''|\\"(?:[^"\\\n]|\\[^"\n])*\\"|'(?:[^'\\\n]|\\[^\n])*(?:'|(?![\s\S]))`;

/** Whether a STRING_LITERAL_PATTERN match stays ordinary text: all but a single-quoted literal. */
export function isWholeLiteral(literal: string): boolean {
  return literal[0] !== "'" || literal.startsWith("'''");
}

/** GPT-2's map of the 256 bytes to printable characters (byte-level BPE works on these). */
function byteToChar(): string[] {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const chars: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) chars.push(String.fromCharCode(printable(b) ? b : next++));
  return chars;
}
export const BYTE_TO_CHAR = byteToChar();

/** What TraceTokenizer and bpe.py rely on: checked on load, so another configuration fails loudly. */
export const TokenizerFileSchema = z.object({
  added_tokens: z.array(z.object({ id: z.number().int().nonnegative(), content: z.string().min(1) })),
  normalizer: z.null(),
  pre_tokenizer: z.object({
    type: z.literal('Sequence'),
    pretokenizers: z.tuple([
      z.object({ type: z.literal('Split'), pattern: z.object({ Regex: z.string() }), behavior: z.literal('Isolated'), invert: z.literal(false) }),
      z.object({ type: z.literal('ByteLevel'), add_prefix_space: z.literal(false), use_regex: z.literal(false) }),
    ]),
  }),
  decoder: z.object({ type: z.literal('ByteLevel') }),
  model: z.object({
    type: z.literal('BPE'),
    dropout: z.null(),
    continuing_subword_prefix: z.null(),
    end_of_word_suffix: z.null(),
    ignore_merges: z.literal(false),
    vocab: z.record(z.string(), z.number().int().nonnegative()),
    merges: z.array(z.union([z.string(), z.tuple([z.string(), z.string()])])),
  }),
});

/** What TraceTokenizer reads of tokenizer_config.json (Hugging Face keeps unknown keys as init arguments). */
export const TokenizerConfigSchema = z.object({ ndb_split_strings: z.boolean().default(false) });

export function mergePair(merge: string | [string, string]): [string, string] {
  if (typeof merge !== 'string') return merge;
  const [a, b, ...rest] = merge.split(' ');
  if (a === undefined || b === undefined || rest.length > 0) throw new Error(`tokenizer: bad merge "${merge}"`);
  return [a, b];
}

// ---------------------------------------------------------------------------------------
// Encoding

/** A min-heap of numbers (the BPE merge queue). */
class NumberHeap {
  private readonly items: number[] = [];

  push(x: number): void {
    const a = this.items;
    let i = a.push(x) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= x) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = x;
  }

  pop(): number | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const c = l + 1 < a.length && a[l + 1]! < a[l]! ? l + 1 : l;
      if (a[c]! >= last) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = last;
    return top;
  }
}

/** Heap keys: rank * POS_RANGE + position, so the lowest rank comes first, then the leftmost. */
const POS_RANGE = 2 ** 32;
const pairKey = (left: number, right: number) => left * 2 ** 21 + right;
const WORD_CACHE_LIMIT = 100_000;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Encodes and decodes like the Rust tokenizer loaded from the same tokenizer.json. */
export class TraceTokenizer {
  readonly vocabSize: number;
  private readonly idOf = new Map<string, number>();
  private readonly bytesOf: Uint8Array[] = [];
  private readonly specialOf = new Map<string, number>();
  private readonly specialSplit: RegExp;
  private readonly pieceSplit: RegExp;
  /** STRING_LITERAL_PATTERN where string literals are split into characters, else null. */
  private readonly stringSplit: RegExp | null;
  /** pairKey(left, right) -> rank; newIdOfRank[rank] is the merged token. */
  private readonly rankOf = new Map<number, number>();
  private readonly newIdOfRank: number[] = [];
  private readonly cache = new Map<string, number[]>();

  private constructor(file: z.infer<typeof TokenizerFileSchema>, config: z.infer<typeof TokenizerConfigSchema>) {
    const charToByte = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));
    for (const [token, id] of Object.entries(file.model.vocab)) {
      this.idOf.set(token, id);
      this.bytesOf[id] = Uint8Array.from(token, (c) => charToByte.get(c) ?? 0);
    }
    for (const { id, content } of file.added_tokens) {
      this.idOf.set(content, id);
      this.specialOf.set(content, id);
      this.bytesOf[id] = new TextEncoder().encode(content);
    }
    file.model.merges.forEach((merge, rank) => {
      const [a, b] = mergePair(merge);
      const [ia, ib, merged] = [this.idOf.get(a), this.idOf.get(b), this.idOf.get(a + b)];
      if (ia === undefined || ib === undefined || merged === undefined) throw new Error(`tokenizer: merge "${a} ${b}" uses a token not in the vocabulary`);
      this.rankOf.set(pairKey(ia, ib), rank);
      this.newIdOfRank.push(merged);
    });
    for (let id = 0; id < this.bytesOf.length; id++) {
      if (!this.bytesOf[id]) throw new Error(`tokenizer: no token has id ${id}`);
    }
    this.vocabSize = this.bytesOf.length;
    // Longest first: where two special tokens start at the same place, the longer wins (as in Rust).
    const specials = [...this.specialOf.keys()].sort((x, y) => y.length - x.length);
    this.specialSplit = new RegExp(specials.map(escapeRegExp).join('|'), 'gu');
    this.pieceSplit = new RegExp(file.pre_tokenizer.pretokenizers[0].pattern.Regex, 'gu');
    this.stringSplit = config.ndb_split_strings ? new RegExp(STRING_LITERAL_PATTERN, 'gu') : null;
  }

  /** Whether string literals are encoded a character per piece (tokenizer_config.json's `ndb_split_strings`). */
  get splitsStrings(): boolean {
    return this.stringSplit !== null;
  }

  static async load(folder: string): Promise<TraceTokenizer> {
    const raw: unknown = JSON.parse(await readFile(join(folder, 'tokenizer.json'), 'utf8'));
    // tokenizer_config.json is optional (Hugging Face's own files need not have it).
    const configText = await readFile(join(folder, 'tokenizer_config.json'), 'utf8').catch(() => '{}');
    let config: z.infer<typeof TokenizerConfigSchema>;
    try {
      config = TokenizerConfigSchema.parse(JSON.parse(configText));
    } catch (err) {
      throw new Error(`tokenizer_config.json beside it is not valid: ${(err as Error).message.split('\n')[0]}`);
    }
    return new TraceTokenizer(TokenizerFileSchema.parse(raw), config);
  }

  /** The id of a token (a special token, or a vocabulary entry in byte-level characters). */
  tokenId(token: string): number {
    const id = this.idOf.get(token);
    if (id === undefined) throw new Error(`tokenizer: no token ${JSON.stringify(token)}`);
    return id;
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    let last = 0;
    for (const m of text.matchAll(this.specialSplit)) {
      this.encodeOrdinary(text.slice(last, m.index), ids);
      ids.push(this.specialOf.get(m[0])!);
      last = m.index + m[0].length;
    }
    this.encodeOrdinary(text.slice(last), ids);
    return ids;
  }

  /** Invalid UTF-8 (a cut-off character) decodes to U+FFFD, as in Rust's `from_utf8_lossy`. */
  decode(ids: number[]): string {
    const parts = ids.map((id) => {
      const bytes = this.bytesOf[id];
      if (!bytes) throw new Error(`tokenizer: no token has id ${id}`);
      return bytes;
    });
    // ignoreBOM: keep a leading U+FEFF, which is text like any other here.
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.concat(parts));
  }

  /** Text without special tokens: string literals a character per piece where the tokenizer says so, the rest by encodePieces. */
  private encodeOrdinary(text: string, ids: number[]): void {
    if (!this.stringSplit) return this.encodePieces(text, ids);
    let last = 0;
    for (const m of text.matchAll(this.stringSplit)) {
      if (isWholeLiteral(m[0])) continue; // left in the ordinary text around it
      this.encodePieces(text.slice(last, m.index), ids);
      for (const char of m[0]) this.encodePiece(char, ids);
      last = m.index + m[0].length;
    }
    this.encodePieces(text.slice(last), ids);
  }

  /** The pre-tokenizer's pieces (matches and the gaps between them), each merged. */
  private encodePieces(text: string, ids: number[]): void {
    let last = 0;
    for (const m of text.matchAll(this.pieceSplit)) {
      if (m.index > last) this.encodePiece(text.slice(last, m.index), ids);
      if (m[0] !== '') this.encodePiece(m[0], ids);
      last = m.index + m[0].length;
    }
    if (last < text.length) this.encodePiece(text.slice(last), ids);
  }

  private encodePiece(piece: string, ids: number[]): void {
    let merged = this.cache.get(piece);
    if (!merged) {
      merged = this.merge(piece);
      if (this.cache.size >= WORD_CACHE_LIMIT) this.cache.clear();
      this.cache.set(piece, merged);
    }
    for (const id of merged) ids.push(id);
  }

  /**
   * The Rust BPE model's merge loop (`Word::merge_all`): a queue of adjacent pairs by
   * (rank, position); pop the best, skip it if the pair at that position has changed since,
   * else merge it and queue the new pairs it forms with its neighbours.
   */
  private merge(piece: string): number[] {
    const bytes = Buffer.from(piece, 'utf8');
    const n = bytes.length;
    const sym = Array.from(bytes, (b) => this.idOf.get(BYTE_TO_CHAR[b]!)!);
    const prev = Array.from({ length: n }, (_, i) => i - 1);
    const next = Array.from({ length: n }, (_, i) => (i + 1 < n ? i + 1 : -1));
    const alive = new Array<boolean>(n).fill(true);
    const queue = new NumberHeap();
    const enqueue = (pos: number, right: number) => {
      const rank = this.rankOf.get(pairKey(sym[pos]!, sym[right]!));
      if (rank !== undefined) queue.push(rank * POS_RANGE + pos);
    };
    for (let i = 0; i + 1 < n; i++) enqueue(i, i + 1);

    for (let key = queue.pop(); key !== undefined; key = queue.pop()) {
      const rank = Math.floor(key / POS_RANGE);
      const pos = key - rank * POS_RANGE;
      const right = next[pos]!;
      if (!alive[pos] || right === -1) continue;
      const current = this.rankOf.get(pairKey(sym[pos]!, sym[right]!));
      const newId = this.newIdOfRank[rank]!;
      if (current === undefined || this.newIdOfRank[current] !== newId) continue; // a stale entry
      sym[pos] = newId;
      alive[right] = false;
      next[pos] = next[right]!;
      if (next[pos] !== -1) prev[next[pos]!] = pos;
      if (prev[pos] !== -1) enqueue(prev[pos]!, pos);
      if (next[pos] !== -1) enqueue(pos, next[pos]!);
    }
    return sym.filter((_, i) => alive[i]);
  }
}
