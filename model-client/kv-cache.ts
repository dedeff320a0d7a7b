/**
 * The attention cache of a decoder run: per layer a key and a value buffer
 * [batch, heads, capacity, head_dim] float32 that this client owns. A forward pass reads the
 * buffer as its `past` (positions past the cache's length masked out) and returns only its
 * own positions (`new_key_values.*`, the step layout of training/export_onnx.py), which are
 * appended in place. The standard layout's `present` instead writes the whole cache anew
 * each pass, and copying it out of onnxruntime cost as much again: at a long context those
 * copies took as long as the rest of the pass.
 *
 * A KvCache is a view: a buffer and how many of its positions it holds. Views are values
 * (nothing here changes one), so a cache is kept to come back to by keeping the view:
 * `truncate` rolls back to a prefix (a step back, a rejected draft) without copying, and
 * appending after a prefix writes over what a longer view held. That longer view is then
 * stale; using it throws (each position remembers when it was last written), rather than
 * silently reading another branch's keys. Every holder in ndb keeps only prefixes of what it
 * decodes next (prefix-cache.ts, decode.ts), so none goes stale in use.
 */
import { Tensor } from 'onnxruntime-node';
import type { KvShape } from './model-folder.js';

/** Capacity grows in steps of this many positions: a copy every 128 tokens, at most 127 masked ones read per pass. */
const CAPACITY_STEP = 128;

class KvBuffer {
  /** key, value of layer 0, then of layer 1, ... each [batch, heads, capacity, headDim]. */
  readonly data: Float32Array[];
  /** The same buffers as model inputs. */
  readonly tensors: Tensor[];
  /** Per position: the write (epoch) that last filled it. */
  readonly writtenAt: Int32Array;
  epoch = 0;

  constructor(
    readonly shape: KvShape,
    readonly batch: number,
    readonly capacity: number,
  ) {
    const dims = [batch, shape.heads, capacity, shape.headDim];
    this.data = Array.from({ length: 2 * shape.layers }, () => new Float32Array(batch * shape.heads * capacity * shape.headDim));
    this.tensors = this.data.map((d) => new Tensor('float32', d, dims));
    this.writtenAt = new Int32Array(capacity);
  }

  /** Copies positions [0, length) of every row from `src` (rows repeated when `src` has one and this has more). */
  copyFrom(src: KvBuffer, length: number): void {
    const { heads, headDim } = this.shape;
    this.data.forEach((dst, i) => {
      for (let b = 0; b < this.batch; b++) {
        const sb = src.batch === 1 ? 0 : b;
        for (let h = 0; h < heads; h++) {
          const from = (sb * heads + h) * src.capacity * headDim;
          dst.set(src.data[i]!.subarray(from, from + length * headDim), (b * heads + h) * this.capacity * headDim);
        }
      }
    });
    this.writtenAt.fill(++this.epoch, 0, length);
  }
}

export class KvCache {
  private constructor(
    readonly shape: KvShape,
    private readonly buffer: KvBuffer,
    readonly length: number,
    /** The buffer's epoch when this view was made: its positions must not have been written since. */
    private readonly epoch: number,
  ) {}

  static empty(shape: KvShape, batch = 1): KvCache {
    return new KvCache(shape, new KvBuffer(shape, batch, 0), 0, 0);
  }

  get batch(): number {
    return this.buffer.batch;
  }

  /** Positions the buffer holds room for; a pass reads them all, those past `length` masked out. */
  get capacity(): number {
    return this.buffer.capacity;
  }

  /** Model inputs `past_key_values.{i}.key/.value`: the whole buffer (pair with attentionMask). */
  feeds(names: readonly string[]): Record<string, Tensor> {
    this.assertCurrent();
    const feeds: Record<string, Tensor> = {};
    names.forEach((name, i) => (feeds[name] = this.buffer.tensors[i]!));
    return feeds;
  }

  /** The attention mask of a pass of `seq` new positions per row: the cache's positions, not the spare capacity, then the new ones. */
  attentionMask(seq: number): Tensor {
    const width = this.capacity + seq;
    const mask = new BigInt64Array(this.batch * width);
    for (let b = 0; b < this.batch; b++) {
      mask.fill(1n, b * width, b * width + this.length);
      mask.fill(1n, b * width + this.capacity, (b + 1) * width);
    }
    return new Tensor('int64', mask, [this.batch, width]);
  }

  /**
   * This cache followed by a pass's `new_key_values` outputs (in cache order, each
   * [batch, heads, seq, headDim]), written in place after `length` (a bigger buffer when full).
   */
  append(outputs: readonly Tensor[], seq: number): KvCache {
    this.assertCurrent();
    const { heads, headDim } = this.shape;
    const end = this.length + seq;
    let buffer = this.buffer;
    if (end > buffer.capacity) {
      buffer = new KvBuffer(this.shape, this.batch, Math.ceil(end / CAPACITY_STEP) * CAPACITY_STEP);
      buffer.copyFrom(this.buffer, this.length);
    }
    const epoch = ++buffer.epoch;
    outputs.forEach((t, i) => {
      const src = t.data as Float32Array;
      const dst = buffer.data[i]!;
      for (let bh = 0; bh < this.batch * heads; bh++) {
        dst.set(src.subarray(bh * seq * headDim, (bh + 1) * seq * headDim), (bh * buffer.capacity + this.length) * headDim);
      }
    });
    buffer.writtenAt.fill(epoch, this.length, end);
    return new KvCache(this.shape, buffer, end, epoch);
  }

  /** The cache of the first `length` positions (no copy). */
  truncate(length: number): KvCache {
    if (length === this.length) return this;
    if (length < 0 || length > this.length) throw new RangeError(`cannot truncate a cache of ${this.length} positions to ${length}`);
    return new KvCache(this.shape, this.buffer, length, this.epoch);
  }

  /** A one-row cache repeated into `batch` rows (a new buffer: the rows then decode apart). */
  expand(batch: number): KvCache {
    if (this.batch !== 1) throw new Error(`only a one-row cache expands (this one has ${this.batch} rows)`);
    if (batch === 1) return this;
    this.assertCurrent();
    const buffer = new KvBuffer(this.shape, batch, this.capacity);
    buffer.copyFrom(this.buffer, this.length);
    return new KvCache(this.shape, buffer, this.length, buffer.epoch);
  }

  /** Throws when a position of this view has been written since it was made (see the header). */
  private assertCurrent(): void {
    const written = this.buffer.writtenAt;
    for (let p = 0; p < this.length; p++) {
      if (written[p]! > this.epoch) throw new Error(`internal: a stale KV cache: position ${p} of its ${this.length} was overwritten after it was made`);
    }
  }
}

/** [input, new-positions output] names of every cache tensor, in the cache's order. */
export function kvNames(layers: number): [past: string, added: string][] {
  const names: [string, string][] = [];
  for (let i = 0; i < layers; i++) {
    for (const kind of ['key', 'value']) names.push([`past_key_values.${i}.${kind}`, `new_key_values.${i}.${kind}`]);
  }
  return names;
}
