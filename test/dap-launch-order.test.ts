/**
 * A DAP client that waits for the launch's answer before it sends configurationDone (the
 * order debugpy's clients may use): ndb answers launch soon after the model has loaded, not
 * after its 10 s configurationDone timeout, and starts the run once configurationDone comes.
 * Real `ndb dap` over stdio, a real DAP client, the shipped model.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterAll, describe, expect, it } from 'vitest';
import { COUNT_PY, HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const dir = mkdtempSync(join(tmpdir(), 'ndb-launch-order-'));
const wrapper = join(dir, 'ndb-dap.mjs');
writeFileSync(wrapper, `process.argv.splice(2, 0, 'dap');\nawait import(${JSON.stringify(NDB)});\n`);

const clients: DebugClient[] = [];
afterAll(async () => {
  await Promise.all(clients.splice(0).map((dc) => dc.stop()));
}, 60_000);

describe.skipIf(!HAS_EMBEDDED_MODEL)('a client that waits for the launch response before configurationDone', () => {
  it('gets the launch answer soon after the model loads, then the first stop after configurationDone', async () => {
    const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: dir });
    dc.defaultTimeout = 60_000;
    await dc.start();
    clients.push(dc);
    let modelLoadedAt = 0;
    dc.on('progressEnd', () => (modelLoadedAt = Date.now()));
    let stoppedAt = 0;
    const stopped = dc.waitForEvent('stopped', 60_000).then((e) => ((stoppedAt = Date.now()), e));
    await dc.initializeRequest({ adapterID: 'neural-python', supportsProgressReporting: true } as DebugProtocol.InitializeRequestArguments);

    const launchedAt = Date.now();
    const r = await dc.launchRequest({ program: COUNT_PY, entry: 'count', args: "'berry', 'r'" } as DebugProtocol.LaunchRequestArguments);
    const answeredAt = Date.now();
    expect(r.success).toBe(true);
    expect(modelLoadedAt).toBeGreaterThan(0);
    // Today's wait: half a second for a configurationDone that this client will not send yet.
    expect(answeredAt - Math.max(modelLoadedAt, launchedAt)).toBeLessThan(4_000);
    expect(stoppedAt).toBe(0); // the run has not started: it waits for configurationDone

    const doneAt = Date.now();
    await dc.configurationDoneRequest();
    const e = (await stopped) as DebugProtocol.StoppedEvent;
    expect(e.body.reason).toBe('entry');
    expect(stoppedAt).toBeGreaterThanOrEqual(doneAt);
    const trace = await dc.stackTraceRequest({ threadId: 1 });
    expect(trace.body.stackFrames[0]!.line).toBe(5);
  }, 120_000);

  it('reports a launch that fails after its answer as output and a terminated event', async () => {
    const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: dir });
    dc.defaultTimeout = 60_000;
    await dc.start();
    clients.push(dc);
    const said: string[] = [];
    dc.on('output', (ev: DebugProtocol.OutputEvent) => said.push(ev.body.output));
    await dc.initializeRequest();
    const r = await dc.launchRequest({ program: COUNT_PY, entry: 'no_such_function', args: '1' } as DebugProtocol.LaunchRequestArguments).then(
      (x) => x,
      (err: Error) => err,
    );
    const terminated = dc.waitForEvent('terminated', 60_000);
    if (r instanceof Error) {
      // A launch error answered at once is fine too (the model and program were checked first).
      expect(r.message).toMatch(/no_such_function/);
      return;
    }
    await dc.configurationDoneRequest();
    await terminated;
    expect(said.join('')).toMatch(/ndb: the launch failed: .*no_such_function/);
    expect(said.join('')).not.toMatch(/internal error/);
  }, 120_000);
});
