/**
 * The debug adapter's VS Code features, driven by @vscode/debugadapter-testsupport's DebugClient
 * as VS Code drives them: conditional breakpoints, hit counts, logpoints, function breakpoints,
 * breakpoint locations, exception filters, data breakpoints, step-in targets, goto, restart
 * frame, the "(return) f" entry, completions, setExpression, the clipboard context, and bad
 * input to each: an error response with a clear message, never a crash (a breakpoint on a line
 * without code is unverified with the reason, as DAP and VS Code have it).
 *
 * The adapter runs in this process on a TCP port, with the real tracer as its Predictor: every
 * state is then known, so where each feature stops can be checked exactly (the features are the
 * adapter's; what predicts the states is the runtime's business, tested elsewhere). The tracer's
 * states say "real run" where the model's would say "predicted". One test at the end runs the
 * shipped model behind `node bin/ndb.js dap` and checks the shapes only.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveOnTracer, type TracerServer } from './dap-inprocess.js';
import { COUNT_PY, EMBEDDED_MODEL, HAS_MODEL, MODEL_DIR, ROOT } from './fixtures.js';

/**
 *    1  def double(x):
 *    2      return x * 2
 *    5  def add(a, b):
 *    6      return a + b
 *    9  def risky(n):
 *   10      try:
 *   11          raise ValueError(n)
 *   12      except ValueError:
 *   13          return -1
 *   16  def main(k):
 *   17      total = 0
 *   18      counts = []
 *   19      for i in range(k):
 *   20          total = add(total, double(i))
 *   21          counts.append(total)
 *   22      risky(k)
 *   23      return total
 */
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
`;

const THREAD = 1;
const TIMEOUT_MS = 60_000;

let file: string;
let server: TracerServer;
let port: number;
const clients: DebugClient[] = [];

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ndb-dap-features-'));
  file = join(dir, 'loop.py');
  await writeFile(file, PROGRAM);
  server = await serveOnTracer();
  port = server.port;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((dc) => dc.stop()));
});

afterAll(() => server.close());

interface Launched {
  dc: DebugClient;
  init: DebugProtocol.InitializeResponse;
  output: DebugProtocol.OutputEvent[];
  stop: DebugProtocol.StoppedEvent;
  bps: DebugProtocol.Breakpoint[];
}

/** initialize, the breakpoints (and whatever else `configure` sets) once `initialized` comes, configurationDone, launch main(4). */
async function launch(breakpoints: DebugProtocol.SourceBreakpoint[] = [], configure?: (dc: DebugClient) => Promise<void>): Promise<Launched> {
  const dc = new DebugClient('node', 'unused', 'neural-python');
  dc.defaultTimeout = TIMEOUT_MS;
  await dc.start(port);
  clients.push(dc);
  const output: DebugProtocol.OutputEvent[] = [];
  dc.on('output', (e: DebugProtocol.OutputEvent) => output.push(e));
  const initialized = dc.waitForEvent('initialized');
  const init = await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  let bps: DebugProtocol.Breakpoint[] = [];
  const configured = initialized.then(async () => {
    bps = (await dc.setBreakpointsRequest({ source: { path: file }, breakpoints })).body.breakpoints;
    await configure?.(dc);
    await dc.configurationDoneRequest();
  });
  const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.launchRequest({ program: file, entry: 'main', args: '4' } as DebugProtocol.LaunchRequestArguments), configured]);
  return { dc, init, output, stop, bps };
}

async function moved(dc: DebugClient, request: Promise<DebugProtocol.Response>): Promise<DebugProtocol.StoppedEvent> {
  const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, request]);
  return stop;
}

async function frames(dc: DebugClient): Promise<DebugProtocol.StackFrame[]> {
  return (await dc.stackTraceRequest({ threadId: THREAD })).body.stackFrames;
}

/** The innermost frame's locals as name → value. */
async function locals(dc: DebugClient, frameIndex = 0): Promise<Record<string, string>> {
  const frame = (await frames(dc))[frameIndex]!;
  const scope = (await dc.scopesRequest({ frameId: frame.id })).body.scopes.find((s) => s.name.startsWith('Locals'))!;
  const vars = (await dc.variablesRequest({ variablesReference: scope.variablesReference })).body.variables;
  return Object.fromEntries(vars.map((v) => [v.name, v.value]));
}

async function localsScope(dc: DebugClient): Promise<number> {
  const [top] = await frames(dc);
  return (await dc.scopesRequest({ frameId: top!.id })).body.scopes.find((s) => s.name.startsWith('Locals'))!.variablesReference;
}

const cont = (dc: DebugClient) => moved(dc, dc.continueRequest({ threadId: THREAD }));

describe('the VS Code features of ndb dap (on the real tracer)', () => {
  it('announces each capability in initialize, with debugpy’s exception filters', { timeout: TIMEOUT_MS }, async () => {
    const { init } = await launch();
    expect(init.body).toMatchObject({
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsFunctionBreakpoints: true,
      supportsBreakpointLocationsRequest: true,
      supportsDataBreakpoints: true,
      supportsStepInTargetsRequest: true,
      supportsGotoTargetsRequest: true,
      supportsRestartFrame: true,
      supportsCompletionsRequest: true,
      supportsSetExpression: true,
      supportsClipboardContext: true,
      supportsDelayedStackTraceLoading: true,
      supportsModulesRequest: true,
      supportsExceptionOptions: true,
      supportsValueFormattingOptions: true,
      supportsStepBack: true,
    });
    expect(init.body!.exceptionBreakpointFilters!.map((f) => [f.filter, f.default])).toEqual([
      ['raised', false],
      ['uncaught', true],
      ['userUnhandled', false],
    ]);
  });

  it('conditional breakpoints and hit counts stop where they hold; ones that do not parse fail the request, naming each line', { timeout: TIMEOUT_MS }, async () => {
    const { dc, bps } = await launch([{ line: 21, condition: 'i == 2' }, { line: 3, condition: 'True' }]);
    expect(bps.map((b) => b.verified)).toEqual([true, false]);
    expect(bps[1]!.message).toMatch(/line 3 is a blank line/);
    // A condition or hit condition that does not parse: an error response naming each line and why; the good one stays set.
    await expect(dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 21, condition: 'i == 2' }, { line: 17, condition: 'i ==' }, { line: 23, hitCondition: 'often' }] })).rejects.toThrow(
      /^2 breakpoints are not set: line 17: the condition "i ==" does not parse: SyntaxError.*; line 23: hit condition "often" does not parse: give a count.* \(the other breakpoints of loop\.py are set\)$/s,
    );
    await expect(dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 21, condition: 'i == 2' }, { line: 20, hitCondition: '%0' }] })).rejects.toThrow(/^a breakpoint is not set: line 20: hit condition %0 divides by zero/);
    const stop = await cont(dc);
    expect(stop.body.reason).toBe('breakpoint');
    expect(stop.body.hitBreakpointIds).toEqual([21]);
    expect((await frames(dc))[0]!.line).toBe(21);
    expect(await locals(dc)).toMatchObject({ i: '2', total: '6', counts: '[0, 2]' });
    // Forward to the end and back: the reverse continue stops where the condition holds, not at i == 3.
    await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [] });
    await cont(dc);
    await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 21, condition: 'i == 2' }] });
    const back = await moved(dc, dc.customRequest('reverseContinue', { threadId: THREAD }));
    expect(back.body.reason).toBe('breakpoint');
    expect(await locals(dc)).toMatchObject({ i: '2' });

    // The 3rd reach of line 20 (the condition counts first: none here).
    await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 20, hitCondition: '>=2' }] });
    await moved(dc, dc.customRequest('restart'));
    await cont(dc);
    expect(await locals(dc)).toMatchObject({ i: '1' });
    await cont(dc);
    expect(await locals(dc)).toMatchObject({ i: '2' });
    await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 20, hitCondition: '%2' }] });
    await cont(dc);
    expect(await locals(dc)).toMatchObject({ i: '3' });
    // A condition over a name the state lacks stops, saying so (as pdb does with a condition that raises).
    await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 21, condition: 'missing > 1' }] });
    const failed = await cont(dc);
    expect(failed.body.reason).toBe('breakpoint');
    expect(failed.body.description).toMatch(/could not be evaluated/);
  });

  it('logpoints log their message with each {expression} and do not stop', { timeout: TIMEOUT_MS }, async () => {
    const logpoint = { line: 21, logMessage: 'i={i} total={total} {{braces}} {counts + [0]} {"s"}' };
    const { dc, output, bps } = await launch([logpoint]);
    expect(bps.map((b) => b.verified)).toEqual([true]);
    // A message that does not parse: an error response naming the line; the good logpoint stays set.
    await expect(dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [logpoint, { line: 22, logMessage: 'open {brace' }] })).rejects.toThrow(
      /^a breakpoint is not set: line 22: logpoint message: the \{ at column 6 is not closed \(write \{\{ for a brace\) \(the other breakpoints of loop\.py are set\)$/,
    );
    await expect(dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [logpoint, { line: 23, logMessage: 'total is {total +}' }] })).rejects.toThrow(/line 23: logpoint message: \{total \+\} does not parse/);
    const end = await cont(dc);
    expect(end.body.description).toMatch(/predicted end of the run: returned 12/);
    const logged = output.filter((o) => o.body.line === 21);
    expect(logged.map((o) => o.body.output)).toEqual(['i=0 total=0 {braces} [0] s\n', 'i=1 total=2 {braces} [0, 0] s\n', 'i=2 total=6 {braces} [0, 2, 0] s\n', 'i=3 total=12 {braces} [0, 2, 6, 0] s\n']);
    expect(logged[0]!.body.source?.path).toBe(file);
    // A logpoint does not stop a reverse continue either.
    const back = await moved(dc, dc.customRequest('reverseContinue', { threadId: THREAD }));
    expect(back.body.reason).toBe('entry');
  });

  it('function breakpoints stop at the function’s first line; an unknown function is unverified', { timeout: TIMEOUT_MS }, async () => {
    const { dc } = await launch();
    await expect(dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'double', condition: 'x >' }] })).rejects.toThrow(/^a function breakpoint is not set: double: the condition "x >" does not parse/);
    const set = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'double', condition: 'x > 0' }, { name: 'nope' }] });
    expect(set.body.breakpoints.map((b) => [b.verified, b.line])).toEqual([
      [true, 2],
      [false, undefined],
    ]);
    expect(set.body.breakpoints[1]!.message).toMatch(/defines no function "nope".*double, add, risky, main/);
    const stop = await cont(dc);
    expect(stop.body.reason).toBe('function breakpoint');
    expect((await frames(dc)).map((f) => [f.name, f.line])).toEqual([
      ['double', 2],
      ['main', 20],
    ]);
    expect(await locals(dc)).toEqual({ x: '1' });
  });

  it('breakpointLocations gives the lines a breakpoint can stop on; a bad range is an error', { timeout: TIMEOUT_MS }, async () => {
    const { dc } = await launch();
    const all = await dc.customRequest('breakpointLocations', { source: { path: file }, line: 1, endLine: 25 });
    const lines = (all.body as DebugProtocol.BreakpointLocationsResponse['body']).breakpoints.map((b) => b.line);
    expect(lines).toEqual(expect.arrayContaining([1, 2, 5, 6, 11, 17, 20, 23]));
    expect(lines).not.toContain(3);
    expect(lines).not.toContain(14);
    const one = await dc.customRequest('breakpointLocations', { source: { path: file }, line: 4 });
    expect(one.body.breakpoints).toEqual([]);
    await expect(dc.customRequest('breakpointLocations', { source: { path: file }, line: 9, endLine: 2 })).rejects.toThrow(/before line/);
    await expect(dc.customRequest('breakpointLocations', { source: { path: join(file, '..', 'missing.py') }, line: 1 })).rejects.toThrow(/missing\.py/);
  });

  it('exception filters: raised stops at the predicted raise, with its info; an unknown filter is an error', { timeout: TIMEOUT_MS }, async () => {
    const { dc } = await launch([], async (c) => {
      await c.setExceptionBreakpointsRequest({ filters: ['raised'] });
    });
    const stop = await cont(dc);
    expect(stop.body.reason).toBe('exception');
    expect((await frames(dc))[0]!.line).toBe(11);
    const info = await dc.exceptionInfoRequest({ threadId: THREAD });
    expect(info.body).toMatchObject({ exceptionId: 'ValueError', breakMode: 'always' });
    await expect(dc.setExceptionBreakpointsRequest({ filters: ['raised', 'sometimes'] })).rejects.toThrow(/unknown exception filter "sometimes": ndb offers raised, uncaught, userUnhandled/);
    // Without raised, a continue goes on to the end.
    await dc.setExceptionBreakpointsRequest({ filters: ['uncaught'] });
    const end = await cont(dc);
    expect(end.body.description).toMatch(/returned 12/);
  });

  it('exception options (per class, as debugpy takes them), modules, hex value formatting', { timeout: TIMEOUT_MS }, async () => {
    const path = (name: string) => [{ names: ['Python Exceptions'] }, { names: [name] }];
    // `never` ValueError beats `raised`: the run goes to its end.
    const { dc } = await launch([], async (c) => {
      await c.setExceptionBreakpointsRequest({ filters: ['raised'], exceptionOptions: [{ path: path('ValueError'), breakMode: 'never' }] });
    });
    expect((await cont(dc)).body.description).toMatch(/returned 12/);
    // `always` ValueError without `raised`: it stops there.
    await moved(dc, dc.customRequest('restart'));
    await dc.setExceptionBreakpointsRequest({ filters: [], exceptionOptions: [{ path: path('builtins.ValueError'), breakMode: 'always' }] });
    const raised = await cont(dc);
    expect(raised.body.reason).toBe('exception');
    expect((await frames(dc))[0]!.line).toBe(11);
    const modules = await dc.customRequest('modules', {});
    expect(modules.body).toEqual({ modules: [{ id: file, name: 'loop', path: file, isUserCode: true }], totalModules: 1 });
    const frameId = (await frames(dc))[0]!.id;
    expect((await dc.evaluateRequest({ expression: '[n, 255, "10"]', frameId, context: 'watch', format: { hex: true } })).body.result).toBe("[0x4, 0xff, '10']");
    const ref = await localsScope(dc);
    const vars = (await dc.variablesRequest({ variablesReference: ref, format: { hex: true } })).body.variables;
    expect(vars.find((v) => v.name === 'n')!.value).toBe('0x4');
  });

  it('data breakpoints stop at the first state after which the value differs; bad ids and names are refused', { timeout: TIMEOUT_MS }, async () => {
    const { dc } = await launch([{ line: 19 }]);
    await cont(dc); // line 19: total = 0
    const ref = await localsScope(dc);
    const info = await dc.customRequest('dataBreakpointInfo', { variablesReference: ref, name: 'total' });
    expect(info.body).toMatchObject({ accessTypes: ['write'], description: 'total in main changes (predicted)' });
    await expect(dc.customRequest('dataBreakpointInfo', { variablesReference: ref, name: 'nothing' })).rejects.toThrow(/no variable 'nothing' in main/);
    const item = await dc.customRequest('dataBreakpointInfo', { name: 'total + 1', frameId: (await frames(dc))[0]!.id });
    expect(item.body.dataId).toBeNull();
    // An id dataBreakpointInfo did not give, an access it does not offer: an error response naming each; the good one is set.
    await expect(
      dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }, { dataId: 'garbage' }, { dataId: info.body.dataId, accessType: 'read' }] }),
    ).rejects.toThrow(/^2 data breakpoints are not set: "garbage" is not a data id from dataBreakpointInfo .*; total: only changes \(write\) can be watched.* \(the other one is set\)$/);
    const set = await dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
    expect(set.body.breakpoints).toEqual([{ verified: true, description: 'total in main changes' }]);
    await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [] });
    // total = add(0, double(0)) leaves it 0: the first change is at i == 1.
    const stop = await cont(dc);
    expect(stop.body.reason).toBe('data breakpoint');
    expect(stop.body.description).toMatch(/total changed: 0 → 2/);
    expect((await frames(dc))[0]!.line).toBe(21);
    expect(await locals(dc)).toMatchObject({ i: '1', total: '2' });
    const next = await cont(dc);
    expect(next.body.description).toMatch(/total changed: 2 → 6/);
    // Backwards, the last change before this one: where total became 2.
    const back = await moved(dc, dc.customRequest('reverseContinue', { threadId: THREAD }));
    expect(back.body.reason).toBe('data breakpoint');
    expect(back.body.description).toMatch(/total changed: 0 → 2 \(predicted; stepping backwards\)/);
    expect(await locals(dc)).toMatchObject({ i: '1', total: '2' });
  });

  it('step-in targets, the "(return) f" entry, restart frame, completions', { timeout: TIMEOUT_MS }, async () => {
    const { dc } = await launch([{ line: 20 }]);
    await cont(dc);
    const [top] = await frames(dc);
    const targets = (await dc.customRequest('stepInTargets', { frameId: top!.id })).body.targets as DebugProtocol.StepInTarget[];
    expect(targets.map((t) => [t.label, t.column])).toEqual([
      ['add()', 17],
      ['double()', 28],
    ]);
    const add = targets.find((t) => t.label === 'add()')!;
    await moved(dc, dc.stepInRequest({ threadId: THREAD, targetId: add.id }));
    expect((await frames(dc)).map((f) => [f.name, f.line])).toEqual([
      ['add', 5],
      ['main', 20],
    ]);
    expect(await locals(dc)).toEqual({ a: '0', b: '0' });
    await expect(dc.stepInRequest({ threadId: THREAD, targetId: 99 })).rejects.toThrow(/no step-in target 99/);

    // Restart the frame of add after a step: back at its call, replayed.
    await moved(dc, dc.nextRequest({ threadId: THREAD }));
    const restarted = await moved(dc, dc.customRequest('restartFrame', { frameId: (await frames(dc))[0]!.id }));
    expect(restarted.body.reason).toBe('restart');
    expect((await frames(dc))[0]!.line).toBe(5);
    await expect(dc.customRequest('restartFrame', { frameId: 999 })).rejects.toThrow(/that frame is gone/);

    // Out of add (its return), then on: main shows "(return) add".
    await moved(dc, dc.stepOutRequest({ threadId: THREAD }));
    await moved(dc, dc.nextRequest({ threadId: THREAD }));
    expect((await frames(dc))[0]!.line).toBe(21);
    expect(await locals(dc)).toMatchObject({ '(return) add': '0', i: '0' });

    // Completions over the predicted names and a value's attributes.
    const frameId = (await frames(dc))[0]!.id;
    const names = (await dc.completionsRequest({ text: 'to', column: 3, frameId })).body.targets;
    expect(names.map((t) => t.label)).toContain('total');
    expect(names[0]).toMatchObject({ label: 'total', type: 'variable', start: 1, length: 2 });
    const methods = (await dc.completionsRequest({ text: 'len(counts.ap', column: 14, frameId })).body.targets;
    expect(methods.map((t) => t.label)).toEqual(['append']);
    expect(methods[0]).toMatchObject({ start: 12, length: 2 });
    await expect(dc.completionsRequest({ text: 'x', column: 9, frameId })).rejects.toThrow(/outside the text/);
  });

  it('goto, setExpression, the clipboard context, and setVariable of a prototype name', { timeout: TIMEOUT_MS }, async () => {
    const { dc } = await launch([{ line: 21 }]);
    await cont(dc);
    await cont(dc);
    const frameId = (await frames(dc))[0]!.id;
    const clip = await dc.evaluateRequest({ expression: 'counts', frameId, context: 'clipboard' });
    expect(clip.body.result).toBe('[0]');
    const vars = await dc.evaluateRequest({ expression: 'total * 2', frameId, context: 'variables' });
    expect(vars.body.result).toBe('4');
    const ref = await localsScope(dc);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      await expect(dc.setVariableRequest({ variablesReference: ref, name, value: '1' })).rejects.toThrow(new RegExp(`no variable '${name}'`));
    }
    await expect(dc.customRequest('setExpression', { expression: 'total + 1', value: '3', frameId })).rejects.toThrow(/only a watch that names a local/);
    await expect(dc.customRequest('setExpression', { expression: 'valueOf', value: '3', frameId })).rejects.toThrow(/no variable 'valueOf'/);
    await expect(dc.customRequest('setExpression', { expression: 'total', value: '3 +', frameId })).rejects.toThrow(/SyntaxError/);
    const set = await dc.customRequest('setExpression', { expression: 'total', value: '40 + 2', frameId });
    expect(set.body).toMatchObject({ value: '42' });
    expect(await locals(dc)).toMatchObject({ total: '42' });

    // goto: a line of main only; the values stay.
    await expect(dc.gotoTargetsRequest({ source: { path: file }, line: 2 })).rejects.toThrow(/in function double, not in main/);
    await expect(dc.gotoTargetsRequest({ source: { path: file }, line: 15 })).rejects.toThrow(/blank line/);
    const targets = (await dc.gotoTargetsRequest({ source: { path: file }, line: 18 })).body.targets;
    expect(targets).toEqual([{ id: 18, label: 'line 18: counts = []', line: 18 }]);
    const jumped = await moved(dc, dc.gotoRequest({ threadId: THREAD, targetId: 18 }));
    expect(jumped.body.reason).toBe('goto');
    expect((await frames(dc))[0]!.line).toBe(18);
    expect(await locals(dc)).toMatchObject({ total: '42', counts: '[0]', i: '1' });
    await expect(dc.gotoRequest({ threadId: THREAD, targetId: 3 })).rejects.toThrow(/blank line/);
  });

  it('the end of the run: the predicted end is a stop, then continue ends the session with exited and terminated', { timeout: TIMEOUT_MS }, async () => {
    const { dc, output } = await launch();
    const end = await cont(dc);
    expect(end.body.description).toMatch(/predicted end of the run: returned 12/);
    expect(output.map((o) => o.body.output).join('')).toMatch(/returned 12/);
    const over = Promise.all([dc.waitForEvent('exited'), dc.waitForEvent('terminated')]);
    await dc.continueRequest({ threadId: THREAD });
    const [exited] = (await over) as [DebugProtocol.ExitedEvent, unknown];
    expect(exited.body.exitCode).toBe(0);
  });

  it('bad input to each new request: a frame that does not exist, a target not offered, a line without code, an unknown variable, no program', { timeout: TIMEOUT_MS }, async () => {
    const { dc } = await launch();
    const gone = /that frame is gone/;
    await expect(dc.scopesRequest({ frameId: 999 })).rejects.toThrow(gone);
    await expect(dc.customRequest('restartFrame', { frameId: 999 })).rejects.toThrow(gone);
    await expect(dc.customRequest('stepInTargets', { frameId: 999 })).rejects.toThrow(gone);
    await expect(dc.completionsRequest({ text: 'k', column: 2, frameId: 999 })).rejects.toThrow(gone);
    await expect(dc.customRequest('dataBreakpointInfo', { name: 'k', frameId: 999 })).rejects.toThrow(gone);
    await expect(dc.customRequest('setExpression', { expression: 'k', value: '1', frameId: 999 })).rejects.toThrow(gone);
    await expect(dc.customRequest('restartFrame', { frameId: 0 })).rejects.toThrow(gone);
    await expect(dc.customRequest('dataBreakpointInfo', { variablesReference: 123456, name: 'k' })).rejects.toThrow(/that variable is gone/);
    // An unknown variable: to watch, or to set from a watch.
    const [top] = await frames(dc);
    await expect(dc.customRequest('dataBreakpointInfo', { name: 'nothing', frameId: top!.id })).rejects.toThrow(/^no variable 'nothing' in main at this stop$/);
    await expect(dc.customRequest('setExpression', { expression: 'nothing', value: '1', frameId: top!.id })).rejects.toThrow(/^no variable 'nothing' in main at this stop$/);
    await expect(dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: '{"name":"k"}' }] })).rejects.toThrow(/^a data breakpoint is not set: .* is not a data id from dataBreakpointInfo .*\(none is set\)$/);
    // A line without code, for gotoTargets and goto.
    await expect(dc.gotoTargetsRequest({ source: { path: file }, line: 14 })).rejects.toThrow(/^cannot jump to line 14: it is a blank line/);
    await expect(dc.gotoRequest({ threadId: THREAD, targetId: 15 })).rejects.toThrow(/^cannot jump to line 15: it is a blank line/);
    await expect(dc.customRequest('stepInTargets', {})).rejects.toThrow(/^stepInTargets: arguments/);
    await expect(dc.customRequest('goto', { threadId: THREAD, targetId: 999 })).rejects.toThrow(/cannot jump to line 999: it is past the end of the file/);
    await expect(dc.gotoTargetsRequest({ source: { path: '/elsewhere.py' }, line: 1 })).rejects.toThrow(/ndb debugs one file/);
    await expect(dc.customRequest('setExceptionBreakpoints', { filters: [], filterOptions: [{ filterId: 'raised', condition: 'x' }] })).rejects.toThrow(/take no condition/);
    // The adapter goes on.
    expect((await dc.threadsRequest()).body.threads).toEqual([{ id: THREAD, name: 'main' }]);
  });

  it('showReturnValue: false leaves "(return) f" out, as debugpy', { timeout: TIMEOUT_MS }, async () => {
    const dc = new DebugClient('node', 'unused', 'neural-python');
    dc.defaultTimeout = TIMEOUT_MS;
    await dc.start(port);
    clients.push(dc);
    const initialized = dc.waitForEvent('initialized');
    await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const configured = initialized.then(async () => {
      await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: 20 }] });
      await dc.configurationDoneRequest();
    });
    await Promise.all([dc.waitForEvent('stopped'), dc.launchRequest({ program: file, entry: 'main', args: '4', showReturnValue: false } as DebugProtocol.LaunchRequestArguments), configured]);
    await cont(dc);
    // Into double and out (its return), into add and out, then on to line 21: no "(return) add" entry.
    for (const step of ['stepIn', 'stepOut', 'stepIn', 'stepOut', 'next']) await moved(dc, dc.customRequest(step, { threadId: THREAD }));
    expect((await frames(dc))[0]!.line).toBe(21);
    expect(Object.keys(await locals(dc))).toEqual(['k', 'total', 'counts', 'i']);
  });
});

const BUILT = existsSync(join(ROOT, 'dist', 'adapter', 'debug-session.js'));

describe.skipIf(!HAS_MODEL || !BUILT)('the VS Code features on the shipped model (`ndb dap`)', () => {
  it('conditional breakpoint, logpoint, data breakpoint, exception filter, completions: DAP shapes, whatever the model predicts', { timeout: 240_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ndb-dap-model-'));
    const wrapper = join(dir, 'ndb-dap.mjs');
    await writeFile(wrapper, `process.argv.splice(2, 0, 'dap');\nawait import(${JSON.stringify(join(ROOT, 'bin', 'ndb.js'))});\n`);
    const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: ROOT });
    dc.defaultTimeout = TIMEOUT_MS;
    await dc.start();
    clients.push(dc);
    const output: DebugProtocol.OutputEvent[] = [];
    dc.on('output', (e: DebugProtocol.OutputEvent) => output.push(e));
    const initialized = dc.waitForEvent('initialized');
    const init = await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    expect(init.body).toMatchObject({ supportsConditionalBreakpoints: true, supportsLogPoints: true, supportsDataBreakpoints: true });
    let bps: DebugProtocol.Breakpoint[] = [];
    const configured = initialized.then(async () => {
      bps = (await dc.setBreakpointsRequest({ source: { path: COUNT_PY }, breakpoints: [{ line: 9, condition: "c == 'r'" }, { line: 10, logMessage: 'n is {n}' }] })).body.breakpoints;
      await dc.setExceptionBreakpointsRequest({ filters: ['raised', 'uncaught'] });
      await dc.configurationDoneRequest();
    });
    const launchArgs = { program: COUNT_PY, entry: 'count', args: "'berry', 'r'", ...(MODEL_DIR === EMBEDDED_MODEL ? {} : { model: MODEL_DIR }) };
    await Promise.all([dc.waitForEvent('stopped'), dc.launchRequest(launchArgs as DebugProtocol.LaunchRequestArguments), configured]);
    expect(bps.map((b) => b.verified)).toEqual([true, true]);
    const allowed = ['breakpoint', 'exception', 'step', 'pause', 'data breakpoint'];
    const first = await cont(dc);
    expect(allowed).toContain(first.body.reason);
    const [top] = await frames(dc);
    if (first.body.reason === 'breakpoint' && top!.line === 9) {
      // Where the model stops on the condition, the condition holds on its locals (or could not be evaluated, and it says so).
      const c = await dc.evaluateRequest({ expression: "c == 'r'", frameId: top!.id, context: 'watch' }).catch(() => null);
      if (!first.body.description) expect(c?.body.result).toBe('True');
    }
    const names = (await dc.completionsRequest({ text: '', column: 1, frameId: top!.id })).body.targets.map((t) => t.label);
    expect(names).toEqual(expect.arrayContaining(['len', 'sorted']));
    // A data breakpoint on n where the frame has it.
    const scope = (await dc.scopesRequest({ frameId: top!.id })).body.scopes.find((sc) => sc.name.startsWith('Locals'));
    const vars = scope?.variablesReference ? (await dc.variablesRequest({ variablesReference: scope.variablesReference })).body.variables : [];
    if (vars.some((v) => v.name === 'n')) {
      const info = await dc.customRequest('dataBreakpointInfo', { variablesReference: scope!.variablesReference, name: 'n' });
      expect(typeof info.body.dataId).toBe('string');
      const set = await dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId }] });
      expect(set.body.breakpoints[0].verified).toBe(true);
    }
    // On to the end (or a pause): every stop is one of the DAP reasons, every logpoint line is a message.
    for (let i = 0; i < 6; i++) {
      const stop = await cont(dc);
      // Past the predicted end a continue ends the session: stop before it.
      if (stop.body.description?.includes('predicted end')) break;
      expect(allowed).toContain(stop.body.reason);
    }
    for (const o of output.filter((e) => e.body.line === 10)) expect(o.body.output).toMatch(/^n is .+\n$/);
    expect((await dc.threadsRequest()).body.threads).toHaveLength(1);
  });
});
