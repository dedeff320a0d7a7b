/** Small numbers for the benchmark: percentiles, means, the order of configurations. */

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
