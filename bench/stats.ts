/**
 * Small numbers for the benchmark: percentiles, means, and the machine's memory bandwidth
 * (the floor of a memory-bound forward pass: every weight read once).
 */

/** The p-th percentile (0..100) by linear interpolation; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

/**
 * Memory bandwidth in bytes per second: the best of several copies of a 128 MiB
 * Float32Array (well past the caches), counting the bytes read and written. Best, not mean:
 * the machine is shared, and the floor is what the memory can do when it gets the chance.
 */
export function measureBandwidth(bytes = 128 * 2 ** 20, rounds = 8): number {
  const src = new Float32Array(bytes / 4);
  const dst = new Float32Array(bytes / 4);
  for (let i = 0; i < src.length; i += 1024) src[i] = i; // touch every page first
  dst.set(src);
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    dst.set(src);
    best = Math.min(best, performance.now() - t);
  }
  return (2 * bytes) / (best / 1000);
}
