/**
 * Train / validation / test split by program group, never by trajectory. The split of a
 * group depends only on its name (a hash), not on the build's seed or size, so a program
 * stays in the same split across every dataset ever built and cannot leak.
 */
import { createHash } from 'node:crypto';

export type Split = 'train' | 'validation' | 'test';
export const SPLITS: readonly Split[] = ['train', 'validation', 'test'];

/** Shares of validation and test; the rest is train. */
export const VALIDATION_SHARE = 0.05;
export const TEST_SHARE = 0.05;

export function splitOf(group: string): Split {
  const h = createHash('sha256').update(group).digest().readUInt32BE(0) / 2 ** 32;
  if (h < TEST_SHARE) return 'test';
  if (h < TEST_SHARE + VALIDATION_SHARE) return 'validation';
  return 'train';
}
