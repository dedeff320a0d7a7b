/**
 * A TCP server's memory over many sessions: each connects, gives the token, launches
 * examples/count.py on the shipped model (so each loads a model and predicts), steps, and goes
 * away — half of them without `disconnect`. The session's model, runtime and listeners are
 * freed when its connection closes, so the server's RSS levels off instead of growing with
 * every session. NDB_SESSIONS=100 runs the long form (README, "Security").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectTcp, ROOT, spawnTcp } from './dap-raw.js';
import { COUNT_PY, HAS_EMBEDDED_MODEL } from './fixtures.js';

const BUILT = existsSync(join(ROOT, 'dist', 'adapter', 'debug-session.js'));
const SESSIONS = Number(process.env.NDB_SESSIONS ?? 16);
const INIT = { adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' };

function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

describe.skipIf(!HAS_EMBEDDED_MODEL || !BUILT || !existsSync('/proc/self/status'))('ndb dap --port over many sessions', () => {
  it(`frees each session when its connection closes (${SESSIONS} sessions, half without disconnect)`, async () => {
    const server = await spawnTcp();
    try {
      const samples: number[] = [];
      for (let i = 0; i < SESSIONS; i++) {
        const { socket, dap } = await connectTcp(server.port);
        await dap.request('initialize', INIT);
        const initialized = dap.waitFor((m) => m.event === 'initialized', 30_000);
        const stopped = dap.waitFor((m) => m.event === 'stopped', 60_000);
        const launched = dap.request('launch', { program: COUNT_PY, entry: 'count', args: "'berry', 'r'", token: server.token }, 60_000);
        await initialized;
        await dap.request('configurationDone', {});
        expect((await launched)?.success, `session ${i}`).toBe(true);
        expect(await stopped).not.toBeNull();
        const next = dap.waitFor((m) => m.event === 'stopped' && m !== dap.messages.find((x) => x.event === 'stopped'), 60_000);
        await dap.request('next', { threadId: 1 }, 60_000);
        await next;
        if (i % 2 === 0) await dap.request('disconnect', {});
        socket.destroy();
        await dap.whenClosed(10_000);
        // Let the server's close handling (model release after the background work) run.
        await new Promise((r) => setTimeout(r, 300));
        samples.push(rssMiB(server.child.pid!));
      }
      if (process.env.NDB_SESSIONS_SHOW) console.error('RSS MiB after each session:', samples.map((s) => s.toFixed(0)).join(' '));
      // After a few sessions (allocator and onnxruntime arenas warmed up) the RSS levels off:
      // a session that kept its model would add ~20 MiB each.
      const warm = samples[Math.min(3, samples.length - 1)]!;
      const last = samples.at(-1)!;
      const perSession = (last - warm) / Math.max(1, samples.length - 4);
      expect(perSession, samples.map((s) => s.toFixed(0)).join(' ')).toBeLessThan(4);
      expect(server.child.exitCode).toBeNull();
    } finally {
      server.child.kill();
    }
  }, Math.max(300_000, SESSIONS * 15_000));
});
