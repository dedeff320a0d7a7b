/**
 * Bounded resources in `ndb dap --port` (issue 48), the short form of bench/soak.ts against a
 * real server process, its RSS read from /proc:
 *
 * - unauthenticated slow connections (an unfinished 8 MB body a chunk at a time, or nothing at
 *   all) are closed: past 64 KiB, past --auth-timeout, or past the connection cap;
 * - sessions abandoned mid-launch or after their first stop release what they held;
 * - pipelined `evaluate` requests of one session queue for one Python evaluator, never more
 *   (past 256 waiting, one is refused at once as busy), and it ends with the session;
 * - the server's RSS at the end is within 50 MB of its RSS after its first wave of sessions
 *   (a fresh server has not loaded the model runtime yet: that first load stays).
 *
 * The full form (100 slow connections, 100 abandoned sessions, 1,000 evaluates) takes minutes:
 * `node dist/bench/soak.js` (docs/security.md has its figures). NDB_SOAK_FULL=1 runs it here.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DapReader, MAX_MESSAGE_BYTES } from '../adapter/transport.js';
import { soak } from '../bench/soak.js';
import { HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const BUILT = existsSync(join(ROOT, 'dist', 'adapter', 'debug-session.js'));
const FULL = process.env.NDB_SOAK_FULL === '1';

describe('DapReader', () => {
  it('reads an 8 MiB message that comes in 4 KiB chunks in linear time', () => {
    const body = JSON.stringify({ seq: 1, type: 'request', command: 'evaluate', arguments: { expression: 'x'.repeat(MAX_MESSAGE_BYTES - 200) } });
    const bytes = Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    const messages: unknown[] = [];
    const reader = new DapReader('strict', { message: (m) => messages.push(m), malformed: () => undefined, fatal: () => undefined });
    const started = performance.now();
    for (let at = 0; at < bytes.length; at += 4096) reader.push(bytes.subarray(at, at + 4096));
    expect(messages).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(reader.buffered).toBe(0);
  });
});

describe.skipIf(!HAS_EMBEDDED_MODEL || !BUILT || !existsSync('/proc/self/status'))('ndb dap --port under load', () => {
  it(
    FULL ? '100 slow connections, 100 abandoned sessions, 1,000 pipelined evaluates' : '24 slow connections, 6 abandoned sessions, 300 pipelined evaluates',
    async () => {
      const r = await soak({
        slow: FULL ? 100 : 24,
        abandoned: FULL ? 100 : 6,
        evaluates: FULL ? 1000 : 300,
        authTimeoutS: 3,
        log: process.env.NDB_SOAK_SHOW ? (line) => console.error(line) : undefined,
      });
      if (process.env.NDB_SOAK_SHOW) console.error(r);
      expect(r.serverAlive).toBe(true);
      expect(r.evaluatesAnswered).toBe(r.evaluatesSent);
      expect(r.maxEvaluatorProcesses).toBeLessThanOrEqual(1);
      expect(r.evaluatorProcessesAtEnd).toBe(0);
      expect(r.evaluatesRefusedBusy).toBeGreaterThan(0);
      // Measured from the server after its first wave of sessions (bench/soak.ts: a fresh one has
      // not loaded the model runtime yet; that first load stays, as in any server that served once).
      expect(r.rssEndMiB - r.rssWarmMiB, JSON.stringify(r)).toBeLessThan(50);
    },
    FULL ? 1_800_000 : 240_000,
  );
});

describe('the DAP request budget (adapter/server.ts)', () => {
  it('answers a read request past its budget with an error, and drops the late answer', async () => {
    const { answerWithinBudget } = await import('../adapter/server.js');
    const sent: { request_seq: number; success: boolean; message?: string }[] = [];
    const session = { sendResponse: (r: { request_seq: number; success: boolean; message?: string }) => sent.push(r) };
    const budget = answerWithinBudget(session as never, 100);
    budget.started({ type: 'request', seq: 1, command: 'evaluate' });
    budget.started({ type: 'request', seq: 2, command: 'next' });
    budget.started({ type: 'request', seq: 3, command: 'variables' });
    (session.sendResponse as (r: object) => void)({ request_seq: 3, success: true, command: 'variables' });
    await new Promise((r) => setTimeout(r, 300));
    (session.sendResponse as (r: object) => void)({ request_seq: 1, success: true, command: 'evaluate' });
    (session.sendResponse as (r: object) => void)({ request_seq: 2, success: true, command: 'next' });
    expect(sent.map((r) => [r.request_seq, r.success])).toEqual([
      [3, true],
      [1, false],
      [2, true],
    ]);
    expect(sent[1]!.message).toBe("ndb did not answer evaluate within 0.1 s (it is busy with this session's earlier requests); try again");
    budget.stop();
  });
});
