/**
 * The attention cache of a decoder run: per layer a key and a value tensor
 * [batch, heads, length, head_dim] float32, kept as the ORT tensors the model returned so
 * that the next forward pass takes them as they are.
 *
 * A cache is immutable (ORT never writes to its inputs, and every operation here copies),
 * so it is shared freely: keeping one to come back to is the clone. `truncate` rolls back to
 * a prefix (a step back, an edited history), `expand` turns a prompt's cache into b rows
 * that decode b samples in one pass.
 */
import { Tensor } from 'onnxruntime-node';
import type { KvShape } from './model-folder.js';

export class KvCache {
  private constructor(
    readonly shape: KvShape,
    readonly batch: number,
    readonly length: number,
    /** key, value of layer 0, then of layer 1, ... */
    private readonly tensors: readonly Tensor[],
  ) {}

  static empty(shape: KvShape, batch = 1): KvCache {
    const dims = [batch, shape.heads, 0, shape.headDim];
    const tensors = Array.from({ length: 2 * shape.layers }, () => new Tensor('float32', new Float32Array(0), dims));
    return new KvCache(shape, batch, 0, tensors);
  }

  /** The `present.{i}.key/.value` outputs of a forward pass. */
  static fromOutputs(shape: KvShape, outputs: Readonly<Record<string, Tensor>>): KvCache {
    const tensors = kvNames(shape.layers).map(([, present]) => {
      const t = outputs[present];
      if (!t) throw new Error(`the model returned no ${present}`);
      return t;
    });
    const dims = tensors[0]!.dims;
    return new KvCache(shape, dims[0]!, dims[2]!, tensors);
  }

  /** Model inputs `past_key_values.{i}.key/.value`. */
  feeds(): Record<string, Tensor> {
    const feeds: Record<string, Tensor> = {};
    kvNames(this.shape.layers).forEach(([past], i) => (feeds[past] = this.tensors[i]!));
    return feeds;
  }

  /** The cache of the first `length` positions. */
  truncate(length: number): KvCache {
    if (length === this.length) return this;
    if (length < 0 || length > this.length) throw new RangeError(`cannot truncate a cache of ${this.length} positions to ${length}`);
    const { heads, headDim } = this.shape;
    const tensors = this.tensors.map((t) => {
      const src = t.data as Float32Array;
      const out = new Float32Array(this.batch * heads * length * headDim);
      for (let bh = 0; bh < this.batch * heads; bh++) {
        out.set(src.subarray(bh * this.length * headDim, (bh * this.length + length) * headDim), bh * length * headDim);
      }
      return new Tensor('float32', out, [this.batch, heads, length, headDim]);
    });
    return new KvCache(this.shape, this.batch, length, tensors);
  }

  /** A one-row cache repeated into `batch` rows. */
  expand(batch: number): KvCache {
    if (this.batch !== 1) throw new Error(`only a one-row cache expands (this one has ${this.batch} rows)`);
    if (batch === 1) return this;
    const tensors = this.tensors.map((t) => {
      const src = t.data as Float32Array;
      const out = new Float32Array(src.length * batch);
      for (let b = 0; b < batch; b++) out.set(src, b * src.length);
      return new Tensor('float32', out, [batch, ...t.dims.slice(1)]);
    });
    return new KvCache(this.shape, batch, this.length, tensors);
  }
}

/** [input name, output name] of every cache tensor, in the cache's order. */
export function kvNames(layers: number): [string, string][] {
  const names: [string, string][] = [];
  for (let i = 0; i < layers; i++) {
    for (const kind of ['key', 'value']) names.push([`past_key_values.${i}.${kind}`, `present.${i}.${kind}`]);
  }
  return names;
}
