/**
 * Training the model's tokenizer: byte-level BPE over the trace language, saved in the Hugging
 * Face format (tokenizer.json + tokenizer_config.json) so that `transformers` and
 * `@huggingface/transformers` load the folder as a `PreTrainedTokenizerFast`. The format,
 * the ids and the encoder are tokenizer/trace-tokenizer.ts's.
 *
 * Training uses the Rust trainer of the `tokenizers` package (a native binding: only the data
 * pipeline loads it, never the debugger). Its Node binding cannot
 * configure a trainer (`train` always uses BPE's default one: 30 000 tokens, no special
 * tokens, only the bytes seen), so we let it learn as many merges as it can and keep the
 * first ones: BPE training is greedy, so the first n merges of a long run are exactly what a
 * run stopped after n merges learns.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Tokenizer } from 'tokenizers';
import { z } from 'zod';
import { makeFolder } from '../util/make-folder.js';
import { TOKEN_PATTERN } from '../grammar/tokens.js';
import {
  BOS_TOKEN,
  BYTE_TO_CHAR,
  DEFAULT_MODEL_MAX_LENGTH,
  EOS_TOKEN,
  mergePair,
  PAD_TOKEN,
  PRE_TOKENIZER_PATTERN,
  isWholeLiteral,
  SPECIAL_TOKENS,
  STRING_LITERAL_PATTERN,
  TokenizerFileSchema,
} from '../tokenizer/trace-tokenizer.js';

// ---------------------------------------------------------------------------------------
// tokenizer.json

const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false } as const;

/** A tokenizer.json for this configuration (empty vocab and merges: the trainer's starting point). */
function tokenizerJson(vocab: Record<string, number>, merges: string[], specialTokens: readonly string[]) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specialTokens.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'Split', pattern: { Regex: PRE_TOKENIZER_PATTERN }, behavior: 'Isolated', invert: false }, BYTE_LEVEL],
    },
    // The texts carry their own <|begin_of_text|> / <|end_of_text|>: nothing is added.
    post_processor: null,
    decoder: BYTE_LEVEL,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      // The classic "a b" form: every loader reads it, and byte-level tokens hold no space.
      merges,
    },
  };
}

// ---------------------------------------------------------------------------------------
// Training

export interface TrainTokenizerOptions {
  /** Dataset files (JSON Lines with a `text` field). */
  files: string[];
  /** The folder to write tokenizer.json and tokenizer_config.json to. */
  out: string;
  /**
   * Total ids, special tokens and bytes included. Less when the texts run out of merges, and
   * at most about 30 000 (where the binding's trainer stops).
   */
  vocabSize: number;
  /** Train on the first maxDocs documents only (in file order). */
  maxDocs?: number;
  /** The `model_max_length` written to tokenizer_config.json. */
  modelMaxLength?: number;
  /** Encode string literals a character per piece (tokenizer_config.json's `ndb_split_strings`); no merges are learned inside them. */
  splitStrings?: boolean;
}

/**
 * Writes the trainer's input: each document's text with every special token turned into a
 * newline. Special tokens must not be learned as merges, and the text on either side of one
 * must not merge across it; a newline does both, because the pattern keeps every newline a
 * piece of its own (so it adds no pair to count).
 */
async function writeTrainingText(files: string[], maxDocs: number, out: string, splitStrings: boolean): Promise<number> {
  const literal = new RegExp(STRING_LITERAL_PATTERN, 'gu');
  // A literal's characters are pieces of their own when encoding: one per line here (and the
  // literal on lines of its own, as the encoder cuts the text around it), so that
  // no merge is spent on them (what the encoder leaves whole stays ordinary text).
  const unmerged = (text: string) => text.replace(literal, (lit) => (isWholeLiteral(lit) ? lit : `\n${[...lit].join('\n')}\n`));
  const texts: string[] = [];
  for (const file of files) {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (texts.length >= maxDocs) break;
      if (line.trim() === '') continue;
      const { text } = z.object({ text: z.string() }).parse(JSON.parse(line));
      // Payload text never holds `<|` (escape.ts): every match is a real token.
      const plain = text.replace(TOKEN_PATTERN, '\n');
      texts.push(splitStrings ? unmerged(plain) : plain);
    }
    if (texts.length >= maxDocs) break;
  }
  writeFileSync(out, texts.join('\n'));
  return texts.length;
}

export async function trainTokenizer(opts: TrainTokenizerOptions): Promise<void> {
  const minimum = SPECIAL_TOKENS.length + 256;
  if (opts.vocabSize < minimum) throw new Error(`tokenizer: vocabSize must be at least ${minimum} (special tokens and bytes)`);
  if (opts.vocabSize > 65536) throw new Error('tokenizer: vocabSize above 65536 does not fit the uint16 token files');

  const work = mkdtempSync(join(tmpdir(), 'ndb-tokenizer-'));
  let learned: [string, string][];
  try {
    const textFile = join(work, 'train.txt');
    const docs = await writeTrainingText(opts.files, opts.maxDocs ?? Infinity, textFile, opts.splitStrings ?? false);
    if (docs === 0) throw new Error('tokenizer: no documents to train on');
    const trainer = Tokenizer.fromString(JSON.stringify(tokenizerJson({}, [], [])));
    // (The Rust trainer prints a few empty lines to stdout; the binding cannot silence it.)
    trainer.train([textFile]);
    const trainedFile = join(work, 'trained.json');
    trainer.save(trainedFile);
    const trained = TokenizerFileSchema.pick({ model: true }).parse(JSON.parse(readFileSync(trainedFile, 'utf8')));
    learned = trained.model.merges.map(mergePair);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  const vocab: Record<string, number> = {};
  let size = 0;
  for (const token of [...SPECIAL_TOKENS, ...BYTE_TO_CHAR]) vocab[token] = size++;
  const merges: string[] = [];
  for (const [a, b] of learned) {
    if (size >= opts.vocabSize) break;
    merges.push(`${a} ${b}`);
    // Two merges can make the same string; it is one token.
    if (!Object.hasOwn(vocab, a + b)) vocab[a + b] = size++;
  }

  makeFolder(opts.out);
  const json = tokenizerJson(vocab, merges, SPECIAL_TOKENS);
  writeFileSync(join(opts.out, 'tokenizer.json'), JSON.stringify(json, null, 2) + '\n');
  const specialMap = { bos_token: BOS_TOKEN, eos_token: EOS_TOKEN, pad_token: PAD_TOKEN };
  const config = {
    ...specialMap,
    added_tokens_decoder: Object.fromEntries(json.added_tokens.map(({ id, ...token }) => [String(id), token])),
    clean_up_tokenization_spaces: false,
    model_input_names: ['input_ids', 'attention_mask'],
    model_max_length: opts.modelMaxLength ?? DEFAULT_MODEL_MAX_LENGTH,
    tokenizer_class: 'PreTrainedTokenizerFast',
    ...(opts.splitStrings ? { ndb_split_strings: true } : {}),
  };
  writeFileSync(join(opts.out, 'tokenizer_config.json'), JSON.stringify(config, null, 2) + '\n');
  writeFileSync(join(opts.out, 'special_tokens_map.json'), JSON.stringify(specialMap, null, 2) + '\n');
  // Check that the Rust loader (which `transformers` uses too) accepts the file.
  Tokenizer.fromFile(join(opts.out, 'tokenizer.json'));
}
