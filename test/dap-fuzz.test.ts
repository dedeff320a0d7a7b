/**
 * The short form of the DAP fuzz (test/dap-fuzz.ts): seeded, bounded, over stdio and TCP,
 * against a real `ndb dap`. Longer: NDB_FUZZ_MESSAGES=10000 NDB_FUZZ_SEED=2 npx vitest run
 * test/dap-fuzz.test.ts (README, "Security").
 */
import { describe, expect, it } from 'vitest';
import { fuzzStdio, fuzzTcp } from './dap-fuzz.js';

const MESSAGES = Number(process.env.NDB_FUZZ_MESSAGES ?? 2000);
const SEED = Number(process.env.NDB_FUZZ_SEED ?? 15);
/** A loaded 2-core machine: a launch of count.py loads the model; each evaluate starts a Python. */
const TIMEOUT_MS = Math.max(240_000, MESSAGES * 200);

describe('the DAP fuzz', () => {
  it(`stdio: ${MESSAGES} random and malformed inputs (seed ${SEED}), zero exits, hangs and stack traces`, async () => {
    const r = await fuzzStdio(SEED, MESSAGES);
    if (process.env.NDB_FUZZ_SHOW) console.error('stdio', { ...r, stderr: r.stderr.length });
    expect(r.sent).toBe(MESSAGES);
    expect(r.malformed).toBeGreaterThan(MESSAGES / 10);
    expect(r.responses).toBeGreaterThan(MESSAGES / 2);
    expect({ exits: r.exits, hangs: r.hangs, stackTraces: r.stackTraces, internalErrors: r.internalErrors }).toEqual({ exits: 0, hangs: 0, stackTraces: [], internalErrors: [] });
  }, TIMEOUT_MS);

  it(`tcp: ${MESSAGES} random and malformed inputs (seed ${SEED}), zero exits, hangs and stack traces`, async () => {
    const r = await fuzzTcp(SEED + 1, MESSAGES);
    if (process.env.NDB_FUZZ_SHOW) console.error('tcp', { ...r, stderr: r.stderr.length });
    expect(r.sent).toBe(MESSAGES);
    expect(r.responses).toBeGreaterThan(MESSAGES / 4);
    expect({ exits: r.exits, hangs: r.hangs, stackTraces: r.stackTraces, internalErrors: r.internalErrors }).toEqual({ exits: 0, hangs: 0, stackTraces: [], internalErrors: [] });
    // Some connections were closed for not speaking DAP, and the server went on.
    expect(r.stderr).toMatch(/closed a connection from .*: not DAP framing/);
  }, TIMEOUT_MS);
});
