import { describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.js';

describe('Rng', () => {
  it('is reproducible from its seed', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    for (let i = 0; i < 100; i++) expect(a.next()).toBe(b.next());
  });

  it('forks streams that depend on both the seed and the label', () => {
    // Regression: a fork that XORed the label into the seed gave seed 1 / label "5…" the
    // same stream as seed 5 / label "1…", so builds with other seeds shared programs.
    const first = (seed: number, label: number) => new Rng(seed).fork(label).next();
    const seen = new Set<number>();
    for (let seed = 0; seed < 20; seed++) for (let label = 0; label < 500; label++) seen.add(first(seed, label));
    expect(seen.size).toBe(20 * 500);
  });

  it('draws weighted keys in proportion', () => {
    const rng = new Rng(3);
    let a = 0;
    for (let i = 0; i < 10_000; i++) if (rng.weighted({ a: 3, b: 1 }) === 'a') a++;
    expect(a / 10_000).toBeGreaterThan(0.72);
    expect(a / 10_000).toBeLessThan(0.78);
  });
});
