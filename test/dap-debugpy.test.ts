/**
 * ndb's DAP server side by side with debugpy: one DAP request sequence (each capability a VS Code
 * user of debugpy reaches for), driven by @vscode/debugadapter-testsupport's DebugClient against
 * debugpy's adapter (Debian's python3-debugpy: `python3 -m debugpy.adapter`, which runs the
 * program) and against ndb's, on the same program. It prints the capability matrix (request,
 * debugpy's answer, ndb's answer) and checks that every request debugpy answers, ndb answers
 * too, and that ndb also answers what debugpy cannot (step back, data breakpoints, restart frame).
 *
 * ndb's side runs in this process on the real tracer as its Predictor (as test/dap-features.test.ts
 * does), so that both debuggers reach the same lines and the same requests make sense on both;
 * the answers' shapes are the adapter's whatever predicts the states. Skipped where debugpy is
 * not installed. NDB_TEST_SHOW=1 prints the matrix.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOnTracer, type TracerServer } from './dap-inprocess.js';

const PYTHON = process.env.NDB_PYTHON ?? '/usr/bin/python3';
const HAS_DEBUGPY = spawnSync(PYTHON, ['-c', 'import debugpy.adapter'], { encoding: 'utf8' }).status === 0;
const TIMEOUT_MS = 30_000;
/** How long a request may go unanswered before it counts as failed. */
const ANSWER_MS = 3_000;

/** test/dap-features.test.ts's program, called at the module's top level (debugpy runs it as a script). */
const PROGRAM = `def double(x):
    return x * 2


def add(a, b):
    return a + b


def risky(n):
    try:
        raise ValueError(n)
    except ValueError:
        return -1


def main(k):
    total = 0
    counts = []
    for i in range(k):
        total = add(total, double(i))
        counts.append(total)
    risky(k)
    return total


result = main(4)
`;

/** One request's answer: whether it succeeded, and the body's fields (or the error's message). */
interface Answer {
  ok: boolean;
  shape: string;
}

type Matrix = Map<string, Answer>;

let dir: string;
let file: string;
let server: TracerServer;
let port: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ndb-debugpy-'));
  file = join(dir, 'loop.py');
  await writeFile(file, PROGRAM);
  await writeFile(join(dir, 'debugpy-adapter.py'), "import runpy, sys\nsys.argv = ['debugpy.adapter']\nrunpy.run_module('debugpy.adapter', run_name='__main__', alter_sys=True)\n");
  server = await serveOnTracer();
  port = server.port;
});

afterAll(() => server.close());

function shapeOf(body: unknown): string {
  if (body === undefined || body === null) return '(no body)';
  if (typeof body !== 'object') return typeof body;
  return Object.keys(body as object)
    .sort()
    .map((k) => {
      const v = (body as Record<string, unknown>)[k];
      return Array.isArray(v) ? `${k}[${v.length}]` : k;
    })
    .join(', ');
}

/** Sends a request and records its answer under `name`; returns the response (null when it failed). */
async function record<T extends DebugProtocol.Response>(matrix: Matrix, name: string, request: Promise<T>): Promise<T | null> {
  if (process.env.NDB_TEST_TRACE) process.stderr.write(`-> ${(performance.now() / 1000).toFixed(1)} ${name}\n`);
  try {
    // An adapter that never answers a request it does not know (debugpy, for some) is a failed request, after a while.
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS / 1000} s`)), ANSWER_MS)));
    const response = await Promise.race([request, silence]).finally(() => clearTimeout(timer));
    matrix.set(name, { ok: true, shape: shapeOf(response.body) });
    return response;
  } catch (err) {
    matrix.set(name, { ok: false, shape: (err as Error).message.split('\n')[0]!.slice(0, 80) });
    return null;
  }
}

/** A moving request: its answer, then the stop it led to (null if none came). */
async function recordMove(matrix: Matrix, dc: DebugClient, name: string, request: () => Promise<DebugProtocol.Response>): Promise<DebugProtocol.StoppedEvent | null> {
  const stopped = dc.waitForEvent('stopped', ANSWER_MS).catch(() => null) as Promise<DebugProtocol.StoppedEvent | null>;
  const response = await record(matrix, name, request());
  if (!response) return null;
  const stop = await stopped;
  const entry = matrix.get(name)!;
  entry.shape += stop ? ` → stopped (${stop.body.reason})` : ' → no stop';
  return stop;
}

/**
 * The sequence: initialize, launch with line breakpoints (one conditional, one logpoint) and
 * the uncaught filter, then at the first stop every inspecting request, the moves, the
 * breakpoint kinds set while stopped, an exception stop and goto.
 */
async function drive(dc: DebugClient, launchArgs: Record<string, unknown>): Promise<{ matrix: Matrix; capabilities: DebugProtocol.Capabilities; logged: string[] }> {
  const matrix: Matrix = new Map();
  const logged: string[] = [];
  dc.on('output', (e: DebugProtocol.OutputEvent) => logged.push(e.body.output));
  const initialized = dc.waitForEvent('initialized');
  const init = await dc.initializeRequest({ adapterID: 'python', clientID: 'vscode', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsVariableType: true });
  const configured = initialized.then(async () => {
    await record(matrix, 'setBreakpoints (condition, hitCondition, logMessage)', dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 20, hitCondition: '1' }, { line: 21, condition: 'i == 2' }, { line: 22, logMessage: 'total={total}' }] }));
    await record(matrix, 'setExceptionBreakpoints (uncaught)', dc.setExceptionBreakpointsRequest({ filters: ['uncaught'] }));
    await record(matrix, 'configurationDone', dc.configurationDoneRequest());
  });
  const [first] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.launchRequest(launchArgs as DebugProtocol.LaunchRequestArguments), configured]);
  const threadId = first.body.threadId ?? 1;
  matrix.set('launch → first stop', { ok: true, shape: `stopped (${first.body.reason})` });
  await record(matrix, 'threads', dc.threadsRequest());
  const trace = await record(matrix, 'stackTrace', dc.stackTraceRequest({ threadId, startFrame: 0, levels: 20 }));
  const frameId = trace!.body.stackFrames[0]!.id;
  const scopes = await record(matrix, 'scopes', dc.scopesRequest({ frameId }));
  const locals = scopes!.body.scopes.find((s) => /locals/i.test(s.name))!.variablesReference;
  await record(matrix, 'variables', dc.variablesRequest({ variablesReference: locals }));
  await record(matrix, 'variables (format hex)', dc.variablesRequest({ variablesReference: locals, format: { hex: true } }));
  for (const context of ['hover', 'watch', 'repl', 'clipboard', 'variables']) await record(matrix, `evaluate (${context})`, dc.evaluateRequest({ expression: 'total + 1', frameId, context }));
  await record(matrix, 'completions', dc.completionsRequest({ text: 'to', column: 3, frameId }));
  await record(matrix, 'setVariable', dc.setVariableRequest({ variablesReference: locals, name: 'total', value: '0' }));
  await record(matrix, 'setExpression', dc.customRequest('setExpression', { expression: 'total', value: '0', frameId }));
  await record(matrix, 'stepInTargets', dc.customRequest('stepInTargets', { frameId }));
  await record(matrix, 'gotoTargets', dc.gotoTargetsRequest({ source: { path: file }, line: 21 }));
  await recordMove(matrix, dc, 'stepIn', () => dc.stepInRequest({ threadId }));
  await recordMove(matrix, dc, 'stepOut', () => dc.stepOutRequest({ threadId }));
  await recordMove(matrix, dc, 'next', () => dc.nextRequest({ threadId }));
  await recordMove(matrix, dc, 'continue (to the conditional breakpoint)', () => dc.continueRequest({ threadId }));
  await record(matrix, 'setFunctionBreakpoints', dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'risky' }] }));
  await record(matrix, 'setBreakpoints (none)', dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [] }));
  await recordMove(matrix, dc, 'continue (to the function breakpoint)', () => dc.continueRequest({ threadId }));
  await record(matrix, 'setExceptionBreakpoints (raised)', dc.setExceptionBreakpointsRequest({ filters: ['raised'] }));
  await recordMove(matrix, dc, 'continue (to the raised exception)', () => dc.continueRequest({ threadId }));
  await record(matrix, 'exceptionInfo', dc.exceptionInfoRequest({ threadId }));
  const targets = await record(matrix, 'gotoTargets (in risky)', dc.gotoTargetsRequest({ source: { path: file }, line: 13 }));
  const target = targets?.body.targets[0]?.id;
  if (target !== undefined) await recordMove(matrix, dc, 'goto', () => dc.gotoRequest({ threadId, targetId: target }));
  else matrix.set('goto', { ok: false, shape: 'no target' });
  await record(matrix, 'modules', dc.customRequest('modules', {}));
  const here = await record(matrix, 'stackTrace (at the exception)', dc.stackTraceRequest({ threadId }));
  const inner = here?.body.stackFrames[0]?.id ?? frameId;
  const innerScopes = await record(matrix, 'scopes (at the exception)', dc.scopesRequest({ frameId: inner }));
  const innerLocals = innerScopes?.body.scopes.find((s) => /locals/i.test(s.name))?.variablesReference ?? locals;
  await record(matrix, 'pause', dc.pauseRequest({ threadId }));
  // Last, what debugpy does not have: its adapter (1.6) answers none of these, nor anything after the first.
  await record(matrix, 'breakpointLocations', dc.customRequest('breakpointLocations', { source: { path: file }, line: 16, endLine: 23 }));
  const info = await record(matrix, 'dataBreakpointInfo', dc.customRequest('dataBreakpointInfo', { variablesReference: innerLocals, name: 'n' }));
  await record(matrix, 'setDataBreakpoints', dc.customRequest('setDataBreakpoints', { breakpoints: info?.body?.dataId ? [{ dataId: info.body.dataId, accessType: 'write' }] : [] }));
  await recordMove(matrix, dc, 'stepBack', () => dc.stepBackRequest({ threadId }));
  await recordMove(matrix, dc, 'reverseContinue', () => dc.customRequest('reverseContinue', { threadId }));
  await recordMove(matrix, dc, 'restartFrame', () => dc.customRequest('restartFrame', { frameId: inner }));
  await record(matrix, 'terminate', dc.customRequest('terminate', {}));
  return { matrix, capabilities: init.body ?? {}, logged };
}

/** The capability matrix as a markdown table. */
function table(debugpy: Matrix, ndb: Matrix): string {
  const rows = [...new Set([...debugpy.keys(), ...ndb.keys()])].map((name) => {
    const d = debugpy.get(name);
    const n = ndb.get(name);
    const cell = (a: Answer | undefined) => (a ? `${a.ok ? '✓' : '✗'} ${a.shape}` : '—');
    return `| ${name} | ${cell(d)} | ${cell(n)} |`;
  });
  return ['| request | debugpy | ndb |', '| --- | --- | --- |', ...rows].join('\n');
}

/** What only a running process has: requests that need one (attach, subprocesses, remote) are left out of the comparison. */
const NEEDS_A_PROCESS = new Set<string>(['pause', 'terminate']);
/** debugpy's own capability (its `debuggerProperties` request): not a DAP one. */
const DEBUGPY_ONLY_CAPABILITIES = new Set(['supportsDebuggerProperties']);

describe.skipIf(!HAS_DEBUGPY)('ndb dap beside debugpy, one request sequence', () => {
  it(
    'answers every request debugpy answers, and those debugpy cannot',
    async () => {
      const py = new DebugClient(PYTHON, join(dir, 'debugpy-adapter.py'), 'python');
      py.defaultTimeout = TIMEOUT_MS;
      await py.start();
      let debugpy: Awaited<ReturnType<typeof drive>>;
      try {
        debugpy = await drive(py, { program: file, console: 'internalConsole', justMyCode: true, cwd: dir, python: PYTHON });
      } finally {
        // debugpy's adapter may no longer answer (disconnect included): its process is ended after a while.
        await Promise.race([py.stop().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, ANSWER_MS))]);
        (py as unknown as { _adapterProcess?: { kill(): void } })._adapterProcess?.kill();
      }
      const dc = new DebugClient('node', 'unused', 'neural-python');
      dc.defaultTimeout = TIMEOUT_MS;
      await dc.start(port);
      let ndb: Awaited<ReturnType<typeof drive>>;
      try {
        ndb = await drive(dc, { program: file, stopOnEntry: false });
      } finally {
        await dc.stop().catch(() => undefined);
      }
      const matrix = table(debugpy.matrix, ndb.matrix);
      const capabilities = Object.keys(debugpy.capabilities).filter((k) => k.startsWith('supports') && (debugpy.capabilities as Record<string, unknown>)[k] === true);
      if (process.env.NDB_TEST_SHOW) process.stdout.write(`${matrix}\n\ndebugpy announces: ${capabilities.join(', ')}\n`);

      // Every capability debugpy announces, ndb announces (but debugpy's own request).
      for (const c of capabilities) if (!DEBUGPY_ONLY_CAPABILITIES.has(c)) expect((ndb.capabilities as Record<string, unknown>)[c], c).toBe(true);
      expect(ndb.capabilities.exceptionBreakpointFilters?.map((f) => f.filter)).toEqual(debugpy.capabilities.exceptionBreakpointFilters?.map((f) => f.filter));
      // Every request debugpy answers, ndb answers.
      for (const [name, answer] of debugpy.matrix) {
        if (answer.ok && !NEEDS_A_PROCESS.has(name)) expect(ndb.matrix.get(name)?.ok, `${name}: debugpy ${answer.shape}; ndb ${ndb.matrix.get(name)?.shape}`).toBe(true);
      }
      // And what debugpy lacks.
      for (const name of ['breakpointLocations', 'stepBack', 'reverseContinue', 'restartFrame', 'dataBreakpointInfo', 'setDataBreakpoints']) {
        expect(debugpy.matrix.get(name)?.ok, `debugpy ${name}`).toBe(false);
        expect(ndb.matrix.get(name)?.ok, `ndb ${name}: ${ndb.matrix.get(name)?.shape}`).toBe(true);
      }
      // The same stops on both: the conditional breakpoint, the function breakpoint, the raised exception; the logpoint's lines.
      for (const name of ['continue (to the conditional breakpoint)', 'continue (to the function breakpoint)', 'continue (to the raised exception)']) {
        const stop = (m: Matrix) => m.get(name)!.shape.replace(/^.*→ /, '');
        expect(stop(ndb.matrix), name).toBe(stop(debugpy.matrix));
      }
      const logs = (l: string[]) => l.filter((o) => o.startsWith('total='));
      expect(logs(ndb.logged)).toEqual(logs(debugpy.logged));
    },
    120_000,
  );
});
