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

/**
 * The order of `items` in round `round`, from a balanced Latin square (a Williams design):
 * for an even count, over any `items.length` consecutive rounds each item comes first once
 * and follows every other item exactly once, so that none always runs right after the same
 * one (after its teardown, on its warmed caches). Two items alternate.
 */
export function balancedOrder<T>(items: readonly T[], round: number): T[] {
  const n = items.length;
  // The first row: 0, 1, n-1, 2, n-2, ...; row r adds r to each, modulo n.
  const first: number[] = [];
  for (let i = 0, lo = 1, hi = n - 1; i < n; i++) first.push(i === 0 ? 0 : i % 2 === 1 ? lo++ : hi--);
  return first.map((k) => items[(k + round) % n]!);
}
