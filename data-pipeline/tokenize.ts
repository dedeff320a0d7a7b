/**
 * Dataset (JSON Lines of trajectories) -> token files for training.
 *
 * Output folder:
 *   train.bin, validation.bin, test.bin   uint16 little-endian ids, documents back to back; each
 *                                         starts with <|begin_of_text|> and ends with <|end_of_text|>
 *   meta.json                             vocabulary size, context length, special token ids,
 *                                         counts per split, the training documents' program
 *                                         lengths (export_onnx.py declares their 95th
 *                                         percentile in the model's config.json)
 * An open trajectory (no exit: its text ends with `<|frame_sep|>`) gets `<|end_of_text|>`
 * appended. A document longer than the context is shortened to its longest prefix of whole
 * steps that fits (an open trajectory again); one that does not fit with even one step is
 * dropped and counted.
 */
import { closeSync, createReadStream, existsSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { parseTrajectory } from '../grammar/parse.js';
import { serializeTrajectory } from '../grammar/serialize.js';
import { TOKENS } from '../grammar/tokens.js';
import { makeFolder } from '../util/make-folder.js';
import { requireDatasetFiles, loadTokenizer } from './data-input.js';
import { type Split, SPLITS } from './split.js';
import { BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, SPECIAL_TOKENS } from '../tokenizer/trace-tokenizer.js';

export interface TokenizeOptions {
  /** The dataset folder (train.jsonl, validation.jsonl, optionally test.jsonl). */
  data: string;
  /** The tokenizer folder (tokenizer.json). */
  tokenizer: string;
  out: string;
  /** The most tokens a document may have. */
  contextLength: number;
}

export interface SplitSummary {
  /** Documents written. */
  documents: number;
  /** Tokens written. */
  tokens: number;
  /** Documents written shortened to fit the context. */
  shortened: number;
  /** Documents too long to fit the context even with one step, not written. */
  dropped: number;
}

export interface TokenizeSummary {
  vocabSize: number;
  contextLength: number;
  splits: Partial<Record<Split, SplitSummary>>;
  /** Over every trajectory as built (before fitting to the context), with its <|end_of_text|>. */
  meanTokensPerTrajectory: number;
  /** The prompt before the first frame: <|begin_of_text|><|trace_context_start|>PROGRAM. */
  meanContextTokens: number;
  /** A step: <|frame_sep|> FRAME <|action_sep|> ACTION (what the model writes, and the action it is given). */
  meanTokensPerFrame: number;
  /** The training documents' program lengths as written: tokens before the first frame (what the inference cut measures). */
  programTokens: ProgramTokens;
  seconds: number;
  /** Tokens of the trajectories as built, per second of the whole run (reading, encoding, fitting, writing). */
  tokensPerSecond: number;
}

export interface ProgramTokens {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Percentiles of the lengths (nearest rank), 0 for none. */
function programTokens(lengths: number[]): ProgramTokens {
  const sorted = [...lengths].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}

/** snake_case name of a special token (`<|frame_sep|>` -> frame_sep). */
function tokenName(token: string): string {
  return token.slice(2, -2);
}

/** Writes uint16 little-endian ids to a file, a buffer at a time. */
class TokenWriter {
  private readonly fd: number;
  private readonly buffer = Buffer.alloc(1 << 20);
  private used = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  write(ids: readonly number[]): void {
    for (const id of ids) {
      if (this.used === this.buffer.length) this.flush();
      this.used = this.buffer.writeUInt16LE(id, this.used);
    }
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    writeSync(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }
}

/** Accumulates the length statistics over the trajectories as built. */
class LengthStats {
  trajectories = 0;
  tokens = 0;
  contextTokens = 0;
  steps = 0;
  stepTokens = 0;

  constructor(private readonly frameSep: number) {}

  add(ids: readonly number[]): void {
    const seps: number[] = [];
    for (let i = 0; i < ids.length; i++) if (ids[i] === this.frameSep) seps.push(i);
    this.trajectories++;
    this.tokens += ids.length;
    this.contextTokens += seps[0] ?? ids.length;
    // Every <|frame_sep|> but the last opens a step; the last one opens the exit (or nothing yet).
    if (seps.length > 1) {
      this.steps += seps.length - 1;
      this.stepTokens += seps[seps.length - 1]! - seps[0]!;
    }
  }
}

const DocumentSchema = z.object({ text: z.string() });

export async function tokenizeDataset(opts: TokenizeOptions): Promise<TokenizeSummary> {
  const started = Date.now();
  requireDatasetFiles(opts.data, ['train.jsonl', 'validation.jsonl']);
  const tok = await loadTokenizer(opts.tokenizer);
  if (tok.vocabSize > 65536) throw new Error(`tokenize: ${tok.vocabSize} ids do not fit uint16`);
  const eos = tok.tokenId(EOS_TOKEN);
  const stats = new LengthStats(tok.tokenId(TOKENS.frameSep));

  /** The ids of a document: the text, closed with <|end_of_text|> if it is still open. */
  const encodeDocument = (text: string): number[] => {
    const ids = tok.encode(text);
    if (ids[ids.length - 1] !== eos) ids.push(eos);
    return ids;
  };

  /**
   * The longest prefix of whole steps that fits the context, as an open trajectory, or null
   * when not even one step fits. A shorter prefix's text is a prefix of a longer one's, so
   * its length grows with k: binary search.
   */
  const shorten = (text: string): number[] | null => {
    const t = parseTrajectory(text);
    const withSteps = (k: number) => encodeDocument(serializeTrajectory({ ...t, steps: t.steps.slice(0, k), exit: null }));
    let best: number[] | null = null;
    let [lo, hi] = [1, t.steps.length];
    while (lo <= hi) {
      const k = (lo + hi) >> 1;
      const ids = withSteps(k);
      if (ids.length <= opts.contextLength) {
        best = ids;
        lo = k + 1;
      } else {
        hi = k - 1;
      }
    }
    return best;
  };

  makeFolder(opts.out);
  const splits: TokenizeSummary['splits'] = {};
  const frameSep = tok.tokenId(TOKENS.frameSep);
  const programLengths: number[] = [];
  for (const split of SPLITS) {
    const file = join(opts.data, `${split}.jsonl`);
    if (!existsSync(file)) continue; // the test split may be missing; the others were checked above
    const summary: SplitSummary = { documents: 0, tokens: 0, shortened: 0, dropped: 0 };
    const writer = new TokenWriter(join(opts.out, `${split}.bin`));
    try {
      for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
        if (line.trim() === '') continue;
        const { text } = DocumentSchema.parse(JSON.parse(line));
        let ids = encodeDocument(text);
        stats.add(ids);
        if (ids.length > opts.contextLength) {
          const fitted = shorten(text);
          if (!fitted) {
            summary.dropped++;
            continue;
          }
          ids = fitted;
          summary.shortened++;
        }
        writer.write(ids);
        if (split === 'train') programLengths.push(ids.indexOf(frameSep));
        summary.documents++;
        summary.tokens += ids.length;
      }
    } finally {
      writer.close();
    }
    splits[split] = summary;
  }

  const specialIds: Record<string, number> = {
    bos: tok.tokenId(BOS_TOKEN),
    eos,
    pad: tok.tokenId(PAD_TOKEN),
    ...Object.fromEntries(SPECIAL_TOKENS.map((t) => [tokenName(t), tok.tokenId(t)])),
  };
  const programs = programTokens(programLengths);
  writeFileSync(
    join(opts.out, 'meta.json'),
    JSON.stringify(
      {
        vocab_size: tok.vocabSize,
        context_length: opts.contextLength,
        dtype: 'uint16',
        byte_order: 'little',
        special_token_ids: specialIds,
        splits,
        program_tokens: programs,
      },
      null,
      2,
    ) + '\n',
  );

  const seconds = (Date.now() - started) / 1000;
  return {
    vocabSize: tok.vocabSize,
    contextLength: opts.contextLength,
    splits,
    meanTokensPerTrajectory: stats.tokens / Math.max(stats.trajectories, 1),
    meanContextTokens: stats.contextTokens / Math.max(stats.trajectories, 1),
    meanTokensPerFrame: stats.stepTokens / Math.max(stats.steps, 1),
    programTokens: programs,
    seconds,
    tokensPerSecond: stats.tokens / Math.max(seconds, 1e-3),
  };
}
