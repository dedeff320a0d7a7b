/**
 * The exported decoder on onnxruntime-node: one forward pass at a time, the attention cache
 * carried between passes (kv-cache.ts).
 *
 * ONNX signature, the step layout (training/export_onnx.py): input_ids [b, s], attention_mask
 * [b, past + s], position_ids [b, s] (int64), past_key_values.{i}.key/.value [b, heads, past,
 * head_dim] -> logits [b, s, vocab], new_key_values.{i}.key/.value [b, heads, s, head_dim].
 * `past` here is the cache's whole buffer, its spare capacity masked out (kv-cache.ts). Rows
 * never carry padding: every row of a batch has the same length (decode.ts keeps its samples
 * in lock-step), so positions continue from the cache's length.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { KvCache, kvNames } from './kv-cache.js';
import { type KvShape, type ModelFolder, ModelFolderError } from './model-folder.js';

export type Provider = 'cpu' | 'cuda';

export interface ModelSessionOptions {
  /** Where to run (default cpu). cuda falls back to cpu, with a warning, when it cannot start. */
  provider?: Provider;
  /** Threads for one operator (ORT's intra-op threads); default: ORT's choice (the cores). */
  threads?: number;
  /** Gets one-line warnings (the CUDA fallback); default: none shown. */
  onWarning?: (message: string) => void;
  /**
   * Most prompt tokens one pass runs (default PREFILL_CHUNK); 0 runs a whole prompt in one
   * pass, as the benchmark's all-optimizations-off baseline does.
   */
  prefillChunk?: number;
}

/** A prompt that does not fit the model's context. */
export class ContextOverflowError extends Error {
  constructor(
    readonly needed: number,
    readonly limit: number,
  ) {
    super(`the model's context holds ${limit} tokens; this needs ${needed}`);
    this.name = 'ContextOverflowError';
  }
}

/**
 * The CUDA provider is a separate library that onnxruntime-node downloads at install time
 * (skipped by ONNXRUNTIME_NODE_INSTALL=skip). Without it, asking ORT for cuda fails, after
 * ORT prints its own multi-line error; checking first keeps the fallback to one line.
 */
function cudaLibraryPresent(): boolean {
  try {
    const pkg = dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
    const bin = join(pkg, 'bin');
    return readdirSync(bin).some((napi) => existsSync(join(bin, napi, process.platform, process.arch, 'libonnxruntime_providers_cuda.so')));
  } catch {
    return false;
  }
}

/** An ORT session on `path`, on CUDA when asked and possible, else on the CPU. Never throws for a missing GPU. */
export async function createInferenceSession(path: string, opts: ModelSessionOptions = {}): Promise<{ session: InferenceSession; provider: Provider }> {
  const base: InferenceSession.SessionOptions = {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    ...(opts.threads ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : {}),
  };
  if (opts.provider === 'cuda') {
    if (!cudaLibraryPresent()) {
      opts.onWarning?.('ndb: CUDA requested but onnxruntime-node has no CUDA provider installed; running on the CPU');
    } else {
      try {
        return { session: await InferenceSession.create(path, { ...base, executionProviders: ['cuda'] }), provider: 'cuda' };
      } catch (err) {
        const reason = String((err as Error).message ?? err).split('\n')[0];
        opts.onWarning?.(`ndb: CUDA requested but it could not start (${reason}); running on the CPU`);
      }
    }
  }
  return { session: await InferenceSession.create(path, { ...base, executionProviders: ['cpu'] }), provider: 'cpu' };
}

/** Logits of a forward pass, [batch, seq, vocab]. */
export class Logits {
  constructor(
    readonly data: Float32Array,
    readonly batch: number,
    readonly seq: number,
    readonly vocab: number,
  ) {}

  /** The logits after position `pos` of row `row` (a view, not a copy). */
  at(row: number, pos: number): Float32Array {
    const start = (row * this.seq + pos) * this.vocab;
    return this.data.subarray(start, start + this.vocab);
  }

  last(row: number): Float32Array {
    return this.at(row, this.seq - 1);
  }
}

export interface ForwardResult {
  logits: Logits;
  cache: KvCache;
}

/**
 * The most prompt tokens one pass runs, by default. onnxruntime-node runs a pass
 * synchronously on the main thread, so a whole program's prompt in one pass would hold the
 * adapter's event loop for its whole prefill (a 600-token pass: about 100 ms); in chunks of
 * 64 (5-10 ms each) it is free between them.
 */
const PREFILL_CHUNK = 64;

const int64 = (values: readonly number[], dims: number[]) => new Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);

export class ModelSession {
  /** Forward passes run so far (every prediction's stats report its share; bench/ reads them). */
  passes = 0;

  private readonly pastNames: string[];
  private readonly fetches: string[];

  private constructor(
    private readonly session: InferenceSession,
    readonly provider: Provider,
    readonly kvShape: KvShape,
    readonly vocabSize: number,
    /** The context length the model was trained with: positions 0 .. maxPositions - 1. */
    readonly maxPositions: number,
    /** Fed to rows that have finished while others decode on. */
    readonly padId: number,
    private readonly prefillChunk: number,
  ) {
    const names = kvNames(kvShape.layers);
    this.pastNames = names.map(([past]) => past);
    this.fetches = ['logits', ...names.map(([, added]) => added)];
  }

  static async open(folder: ModelFolder, opts: ModelSessionOptions = {}): Promise<ModelSession> {
    let opened;
    try {
      opened = await createInferenceSession(folder.onnxPath, opts);
    } catch (err) {
      // The manifest's hashes matched (or were not checked): the file itself is broken (a
      // truncated download, a manifest rewritten after it), not ndb.
      const reason = String((err as Error)?.message ?? err).split('\n')[0];
      throw new ModelFolderError(folder.dir, `${basename(folder.onnxPath)} is corrupt: onnxruntime cannot load it (${reason}); reinstall or re-export the model`);
    }
    const { session, provider } = opened;
    const inputs = ['input_ids', 'attention_mask', 'position_ids', ...kvNames(folder.kvShape.layers).map(([past]) => past)];
    const outputs = ['logits', ...kvNames(folder.kvShape.layers).map(([, added]) => added)];
    const missing = [...inputs.filter((n) => !session.inputNames.includes(n)), ...outputs.filter((n) => !session.outputNames.includes(n))];
    if (missing.length > 0) {
      await session.release();
      const hint = missing.every((n) => n.startsWith('new_key_values.')) ? ' (the standard layout? ndb runs the step layout: re-export with training/export_onnx.py)' : ' (not a decoder exported by training/export_onnx.py?)';
      throw new Error(`model folder ${folder.dir}: ${folder.onnxPath} lacks ${missing.join(', ')}${hint}`);
    }
    const { config } = folder;
    const chunk = opts.prefillChunk ?? PREFILL_CHUNK;
    return new ModelSession(session, provider, folder.kvShape, config.vocab_size, config.max_position_embeddings, config.pad_token_id, chunk > 0 ? chunk : Infinity);
  }

  emptyCache(batch = 1): KvCache {
    return KvCache.empty(this.kvShape, batch);
  }

  /** One pass over `rows` (equal lengths, one per cache row) after the cached positions. */
  async forward(rows: readonly (readonly number[])[], past: KvCache): Promise<ForwardResult> {
    const batch = rows.length;
    const seq = rows[0]?.length ?? 0;
    if (batch !== past.batch) throw new Error(`${batch} rows for a cache of ${past.batch}`);
    if (seq === 0 || rows.some((r) => r.length !== seq)) throw new Error('forward needs rows of one, non-zero length');
    const total = past.length + seq;
    if (total > this.maxPositions) throw new ContextOverflowError(total, this.maxPositions);
    const positions = Array.from({ length: seq }, (_, j) => past.length + j);
    this.passes++;
    const out = await this.session.run(
      {
        input_ids: int64(rows.flat(), [batch, seq]),
        attention_mask: past.attentionMask(seq),
        position_ids: int64(new Array<number[]>(batch).fill(positions).flat(), [batch, seq]),
        ...past.feeds(this.pastNames),
      },
      this.fetches,
    );
    const [logits, ...added] = this.fetches.map((name) => {
      const t = out[name];
      if (!t) throw new Error(`the model returned no ${name}`);
      return t;
    });
    return { logits: new Logits(logits!.data as Float32Array, batch, seq, this.vocabSize), cache: past.append(added, seq) };
  }

  /**
   * Tokens of one sequence, after `past` (default: from the start), in passes of at most
   * `prefillChunk` tokens; the logits of every position, as one pass would give them.
   */
  async prefill(ids: readonly number[], past: KvCache = this.emptyCache()): Promise<ForwardResult> {
    if (ids.length <= this.prefillChunk) return this.forward([ids], past);
    const logits = new Float32Array(ids.length * this.vocabSize);
    let cache = past;
    for (let start = 0; start < ids.length; start += this.prefillChunk) {
      const chunk = await this.forward([ids.slice(start, start + this.prefillChunk)], cache);
      logits.set(chunk.logits.data.subarray(0, chunk.logits.seq * this.vocabSize), start * this.vocabSize);
      cache = chunk.cache;
    }
    return { logits: new Logits(logits, 1, ids.length, this.vocabSize), cache };
  }

  /** One token per row. */
  decodeStep(ids: readonly number[], past: KvCache): Promise<ForwardResult> {
    return this.forward(
      ids.map((id) => [id]),
      past,
    );
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
