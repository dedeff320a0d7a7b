/**
 * The debug adapter end to end: `node bin/ndb.js dap` driven over the Debug Adapter Protocol
 * by @vscode/debugadapter-testsupport's DebugClient, as VS Code would drive it, on the
 * shipped model.
 *
 * The model's values are its own (an interim model gets many wrong), so the assertions check
 * structure and consistency: lines within the program, frames that nest, variables with
 * values and confidences, verify-mode flags that agree with the scope's verdict, and for
 * every bad input an error response with a clear message after which the adapter still
 * answers. Only what comes from the user's input (the first state of a call) is checked
 * exactly. Needs dist/ (npm test builds it first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_PY, EMBEDDED_MODEL, HAS_MODEL, MODEL_DIR, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const BUILT = existsSync(join(ROOT, 'dist', 'adapter', 'debug-session.js'));

const COUNT_LINES = 10;
const SHAPES = join(ROOT, 'examples', 'shapes.py');
const SHAPES_LINES = 15;
const THREAD = 1;
/** A loaded 2-core machine: a prediction is ~0.1 s, the model loads in ~1 s, Python helpers start slowly. */
const EVENT_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 240_000;

let dir: string;
/** `node WRAPPER` is `node bin/ndb.js dap`: DebugClient spawns its executable without arguments. */
let wrapper: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ndb-dap-'));
  wrapper = join(dir, 'ndb-dap.mjs');
  await writeFile(wrapper, `process.argv.splice(2, 0, 'dap');\nawait import(${JSON.stringify(NDB)});\n`);
});

const clients: DebugClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((dc) => dc.stop()));
});

/** The launch arguments, on NDB_TEST_MODEL when that is set (the embedded model otherwise). */
function withModel(args: Record<string, unknown>): DebugProtocol.LaunchRequestArguments {
  return (MODEL_DIR === EMBEDDED_MODEL ? args : { ...args, model: MODEL_DIR }) as DebugProtocol.LaunchRequestArguments;
}

async function startClient(): Promise<DebugClient> {
  const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: ROOT });
  dc.defaultTimeout = EVENT_TIMEOUT_MS;
  await dc.start();
  clients.push(dc);
  return dc;
}

interface Session {
  dc: DebugClient;
  output: string[];
  progress: string[];
  /** The bodies of the `ndb/stats` events (sent only to a client that asks). */
  stats: Record<string, unknown>[];
}

/** initialize (with progress bars), the breakpoints once `initialized` comes, configurationDone, launch. */
async function launch(launchArgs: Record<string, unknown>, breakpoints: number[] = []): Promise<Session & { stop: DebugProtocol.StoppedEvent; bps: DebugProtocol.Breakpoint[] }> {
  const dc = await startClient();
  const output: string[] = [];
  const progress: string[] = [];
  const stats: Record<string, unknown>[] = [];
  dc.on('output', (e: DebugProtocol.OutputEvent) => output.push(e.body.output));
  dc.on('ndb/stats', (e: DebugProtocol.Event) => stats.push(e.body as Record<string, unknown>));
  dc.on('progressStart', (e: DebugProtocol.ProgressStartEvent) => progress.push(e.body.title));
  // Listening first: `initialized` follows the initialize response at once.
  const initialized = dc.waitForEvent('initialized');
  const init = await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsProgressReporting: true });
  expect(init.body).toMatchObject({ supportsStepBack: true, supportsSetVariable: true, supportsConfigurationDoneRequest: true });
  let bps: DebugProtocol.Breakpoint[] = [];
  const configure = initialized.then(async () => {
    const program = launchArgs.program as string;
    bps = (await dc.setBreakpointsRequest({ source: { path: program }, breakpoints: breakpoints.map((line) => ({ line })) })).body.breakpoints;
    await dc.configurationDoneRequest();
  });
  const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.launchRequest(withModel(launchArgs)), configure]);
  return { dc, output, progress, stats, stop, bps };
}

/** Sends a moving request and returns the stop it reports (the response comes first, then the event). */
async function moved(dc: DebugClient, request: Promise<DebugProtocol.Response>): Promise<DebugProtocol.StoppedEvent> {
  const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, request]);
  return stop;
}

async function frames(dc: DebugClient): Promise<DebugProtocol.StackFrame[]> {
  return (await dc.stackTraceRequest({ threadId: THREAD })).body.stackFrames;
}

/** Frames that nest (innermost first, one id per depth), each on a line of the program, in its file. */
function expectFramesSound(stack: DebugProtocol.StackFrame[], program: string, lines: number): void {
  expect(stack.length).toBeGreaterThan(0);
  expect(stack.map((f) => f.id - stack[0]!.id)).toEqual(stack.map((_, depth) => depth));
  for (const f of stack) {
    expect(f.name).toMatch(/^\S+$/);
    expect(f.source?.path).toBe(program);
    expect(f.line).toBeGreaterThanOrEqual(1);
    expect(f.line).toBeLessThanOrEqual(lines);
  }
}

/** The innermost frame's scopes and each one's variables. */
async function innermostVariables(dc: DebugClient): Promise<{ scopes: DebugProtocol.Scope[]; vars: DebugProtocol.Variable[][] }> {
  const [top] = await frames(dc);
  const scopes = (await dc.scopesRequest({ frameId: top!.id })).body.scopes;
  const vars = await Promise.all(scopes.map(async (s) => (s.variablesReference ? (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables : [])));
  return { scopes, vars };
}

async function expectError(request: Promise<unknown>, message: RegExp): Promise<void> {
  await expect(request).rejects.toThrow(message);
}

/** The adapter still answers (and is not stuck on an earlier request). */
async function expectAlive(dc: DebugClient): Promise<void> {
  const threads = await dc.threadsRequest();
  expect(threads.body.threads).toEqual([{ id: THREAD, name: 'main' }]);
}

describe.skipIf(!HAS_MODEL || !BUILT)('ndb dap on the shipped model', () => {
  it(
    'a whole session on count.py: breakpoints, every kind of step, back, end, evaluate, setVariable, restart',
    async () => {
      const { dc, output, progress, stats, stop, bps } = await launch({ program: COUNT_PY, entry: 'count', args: "'berry', 'r'" }, [8, 4]);
      expect(progress).toContain('Loading the model');
      // One breakpoint on code, one on a blank line.
      expect(bps.map((b) => b.verified)).toEqual([true, false]);
      expect(bps[1]!.message).toMatch(/line 4 is a blank line/);
      await expectAlive(dc);

      // The first state is the call with the user's arguments: known exactly.
      expect(stop.body.reason).toBe('entry');
      const entry = await frames(dc);
      expect(entry.map((f) => [f.name, f.line])).toEqual([['count', 5]]);
      const first = await innermostVariables(dc);
      expect(first.scopes.map((s) => s.name)).toEqual(['Locals (from your arguments)']);
      expect(first.vars[0]!.map((v) => [v.name, v.value, v.type])).toEqual([
        ['s', "'berry'", 'str · from your arguments'],
        ['t', "'r'", 'str · from your arguments'],
      ]);

      // Forward: every step lands on a state in the program (or at the end).
      for (const request of [() => dc.nextRequest({ threadId: THREAD }), () => dc.stepInRequest({ threadId: THREAD }), () => dc.stepOutRequest({ threadId: THREAD }), () => dc.continueRequest({ threadId: THREAD })]) {
        const s = await moved(dc, request());
        expect(['step', 'breakpoint', 'exception']).toContain(s.body.reason);
        expectFramesSound(await frames(dc), COUNT_PY, COUNT_LINES);
        const { vars } = await innermostVariables(dc);
        for (const v of vars.flat()) expect(v.value.length).toBeGreaterThan(0);
      }

      // Backward: step back is a stop already seen; reverse continue reaches a breakpoint or the start.
      const back = await moved(dc, dc.stepBackRequest({ threadId: THREAD }));
      expect(back.body.reason).toBe('step');
      expectFramesSound(await frames(dc), COUNT_PY, COUNT_LINES);
      const reverse = await moved(dc, dc.reverseContinueRequest({ threadId: THREAD }));
      expect(['breakpoint', 'entry']).toContain(reverse.body.reason);
      if (reverse.body.reason === 'breakpoint') expect((await frames(dc))[0]!.line).toBe(8);
      else expect((await frames(dc))[0]!.line).toBe(5);

      // To the end: no breakpoints, so continue asks the model for the run's end.
      await dc.setBreakpointsRequest({ source: { path: COUNT_PY }, breakpoints: [] });
      let end = await moved(dc, dc.continueRequest({ threadId: THREAD }));
      // The model may land on a state instead; a few more continues get there.
      for (let i = 0; i < 5 && !end.body.description?.includes('predicted end'); i++) end = await moved(dc, dc.continueRequest({ threadId: THREAD }));
      expect(end.body.description).toMatch(/predicted end of the run/);
      expect(output.join('')).toMatch(/predicted end of the run: (returned|raised|did not end)/);
      const endScopes = await innermostVariables(dc);
      expect(endScopes.scopes[0]!.name).toBe('End of the run (predicted)');
      expect(endScopes.vars[0]!.length).toBe(1);
      // Forward past the end: the run is over (exited, terminated); a client that stays can still step back.
      const over = Promise.all([dc.waitForEvent('exited'), dc.waitForEvent('terminated')]);
      await dc.nextRequest({ threadId: THREAD });
      await over;
      await moved(dc, dc.stepBackRequest({ threadId: THREAD }));
      expect((await innermostVariables(dc)).scopes.map((s) => s.name)).not.toContain('End of the run (predicted)');

      // Back to the start, where the locals are the user's: evaluate and setVariable there.
      await moved(dc, dc.reverseContinueRequest({ threadId: THREAD }));
      const [top] = await frames(dc);
      const hover = await dc.evaluateRequest({ expression: 's', frameId: top!.id, context: 'hover' });
      expect(hover.body.result).toBe("'berry'");
      const watch = await dc.evaluateRequest({ expression: 's.count(t) + 1', frameId: top!.id, context: 'watch' });
      expect(watch.body.result).toBe('3');
      await expectError(dc.evaluateRequest({ expression: 's +', frameId: top!.id, context: 'repl' }), /SyntaxError/);

      const { scopes } = await innermostVariables(dc);
      const set = await dc.setVariableRequest({ variablesReference: scopes[0]!.variablesReference, name: 's', value: "'rr' * 2" });
      expect(set.body.value).toBe("'rrrr'");
      expect(set.body.type).toMatch(/set by you/);
      // The next step is predicted from the edited state; back there, the edit is still shown.
      await moved(dc, dc.nextRequest({ threadId: THREAD }));
      expectFramesSound(await frames(dc), COUNT_PY, COUNT_LINES);
      await moved(dc, dc.stepBackRequest({ threadId: THREAD }));
      const edited = (await innermostVariables(dc)).vars[0]!.find((v) => v.name === 's');
      expect(edited).toMatchObject({ value: "'rrrr'", type: 'str · set by you' });

      // Not at an exception: exceptionInfo says so.
      await expectError(dc.exceptionInfoRequest({ threadId: THREAD }), /not stopped at an exception/);

      // Restart: the same launch from the start, with the user's arguments again.
      const restarted = await moved(dc, dc.restartRequest({}));
      expect(restarted.body.reason).toBe('entry');
      expect((await frames(dc)).map((f) => f.line)).toEqual([5]);
      expect((await innermostVariables(dc)).vars[0]!.find((v) => v.name === 's')?.value).toBe("'berry'");
      // This client did not ask for ndb's own events: none came (dap-mode logs each one it gets).
      expect(stats).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'the end as clients know it: a stop saying the value, stdout, then exited and terminated past it; ndb/stats on request; cwd, args as a list, env',
    async () => {
      // What users copy from a debugpy configuration: cwd with a relative program, args as a list, env.
      const { dc, output, stats, stop } = await launch({ program: 'count.py', cwd: join(ROOT, 'examples'), entry: 'count', args: ["'berry'", "'r'"], env: { PYTHONUNBUFFERED: '1' }, ndbEvents: true });
      const events: { event: string; body: Record<string, unknown> }[] = [];
      const categories: string[] = [];
      dc.on('output', (e: DebugProtocol.OutputEvent) => categories.push(`${e.body.category}: ${e.body.output}`));
      for (const name of ['exited', 'terminated', 'stopped']) dc.on(name, (e: DebugProtocol.Event) => events.push({ event: name, body: (e.body ?? {}) as Record<string, unknown> }));
      expect(stop.body.reason).toBe('entry');
      expect((await frames(dc)).map((f) => [f.name, f.line, f.source?.path])).toEqual([['count', 5, COUNT_PY]]);
      expect((await innermostVariables(dc)).vars[0]!.map((v) => [v.name, v.value])).toEqual([
        ['s', "'berry'"],
        ['t', "'r'"],
      ]);
      expect(output.join('')).toMatch(/ndb: env is ignored: nothing runs the program/);

      // Continue (no breakpoints) to the predicted end; the model may land on states first.
      let end = await moved(dc, dc.continueRequest({ threadId: THREAD }));
      let stops = 2;
      for (let i = 0; i < 8 && !end.body.description?.includes('predicted end'); i++, stops++) end = await moved(dc, dc.continueRequest({ threadId: THREAD }));
      expect(end.body.description).toMatch(/^predicted end of the run: (returned|raised|did not end)/);
      const how = /^predicted end of the run: (returned|raised|did not end)/.exec(end.body.description!)![1];
      expect(end.body.reason).toBe(how === 'raised' ? 'exception' : 'step');
      // The end's message in stdout, which VS Code, nvim-dap and dap-mode all show.
      expect(categories.some((c) => c.startsWith(`stdout: ndb: ${end.body.description}`))).toBe(true);
      // This client asked for ndb's events: one after every stop (a request's answer comes after them).
      await expectAlive(dc);
      expect(stats.length).toBe(stops);
      expect(stats[0]).toMatchObject({ model: expect.any(String), device: 'cpu' });

      // Past the end: exited (0 for a return, 1 for an exception or no end), then terminated, and no stop.
      events.length = 0;
      const terminated = dc.waitForEvent('terminated');
      await dc.continueRequest({ threadId: THREAD });
      await terminated;
      expect(events.map((e) => e.event)).toEqual(['exited', 'terminated']);
      expect(events[0]!.body.exitCode).toBe(how === 'returned' ? 0 : 1);

      // Time travel still works for a client that stays: back from the end.
      const back = await moved(dc, dc.stepBackRequest({ threadId: THREAD }));
      expect(back.body.reason).toBe('step');
      expectFramesSound(await frames(dc), COUNT_PY, COUNT_LINES);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'variables: a list local expands into children, caller frames show their last-seen locals',
    async () => {
      const { dc, stop } = await launch({ program: SHAPES, entry: 'total_area', args: "[('square', 2), ('rect', (2, 3))]" });
      expect(stop.body.reason).toBe('entry');
      const { vars } = await innermostVariables(dc);
      const shapes = vars[0]!.find((v) => v.name === 'shapes')!;
      expect(shapes).toMatchObject({ value: "[('square', 2), ('rect', (2, 3))]", type: 'list · from your arguments', evaluateName: 'shapes' });
      expect(shapes.variablesReference).toBeGreaterThan(0);
      const items = (await dc.variablesRequest({ variablesReference: shapes.variablesReference })).body.variables;
      expect(items.map((v) => [v.name, v.value, v.type, v.evaluateName])).toEqual([
        ['0', "('square', 2)", 'tuple', 'shapes[0]'],
        ['1', "('rect', (2, 3))", 'tuple', 'shapes[1]'],
      ]);
      const rect = (await dc.variablesRequest({ variablesReference: items[1]!.variablesReference })).body.variables;
      expect(rect.map((v) => v.value)).toEqual(["'rect'", '(2, 3)']);
      const inner = (await dc.variablesRequest({ variablesReference: rect[1]!.variablesReference })).body.variables;
      expect(inner.map((v) => v.value)).toEqual(['2', '3']);
      // A child's evaluateName evaluates to the child.
      const [top] = await frames(dc);
      expect((await dc.evaluateRequest({ expression: rect[1]!.evaluateName!, frameId: top!.id, context: 'watch' })).body.result).toBe('(2, 3)');

      // A few steps in: every frame sound; callers' scopes say their locals are last seen (or not seen).
      for (let i = 0; i < 4; i++) {
        const s = await moved(dc, dc.stepInRequest({ threadId: THREAD }));
        if (s.body.description?.includes('predicted end')) break;
        const stack = await frames(dc);
        expectFramesSound(stack, SHAPES, SHAPES_LINES);
        for (const caller of stack.slice(1)) {
          const scopes = (await dc.scopesRequest({ frameId: caller.id })).body.scopes;
          expect(scopes.map((sc) => sc.name)).toEqual([expect.stringMatching(/^Locals \((last seen|not seen yet)\)$/)]);
        }
        for (const v of (await innermostVariables(dc)).vars.flat()) {
          expect(v.value.length).toBeGreaterThan(0);
          // A predicted value carries a confidence (or says where it came from).
          if (!v.name.startsWith('(') && v.name !== '…') expect(v.type ?? '').toMatch(/%|decided: [\w-]+|from your arguments|set by you|real run/);
        }
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'verify mode: a differing value shows the real one, in agreement with the scope and the Debug Console',
    async () => {
      const { dc, output } = await launch({ program: SHAPES, entry: 'total_area', args: "[('square', 2), ('rect', (2, 3))]", verify: true });
      let seen = 0;
      for (let i = 0; i < 5; i++) {
        // The runtime's verify line for this stop (if any) came with it, before the stopped event.
        // (The launch's own line says that verify runs the program; it is not a stop's verdict.)
        const said = output.slice(seen).filter((o) => o.startsWith('verify:') && !o.startsWith('verify: running the program')).join('');
        seen = output.length;
        const { scopes, vars } = await innermostVariables(dc);
        const locals = scopes.findIndex((s) => s.name.startsWith('Locals'));
        const scope = scopes[locals]!.name;
        if (scope.includes('≠ real run')) expect(said).toMatch(/^verify: /);
        else expect(said).toBe('');
        for (const v of vars[locals]!) {
          const differs = /^(.+) {3}≠ real (.+)$/s.exec(v.value);
          const missing = /^\(not predicted\) {3}real (.+)$/s.exec(v.value);
          if (differs && v.name.startsWith('(')) expect(said).toContain(`the value is ${differs[2]}`);
          else if (differs) expect(said).toContain(differs[2] === '(no such variable)' ? `${v.name} does not exist` : `${v.name} is ${differs[2]}`);
          if (missing) expect(said).toContain(`${v.name} = ${missing[1]} is missing`);
          if (differs || missing) expect(scope).toMatch(/≠ real run/);
        }
        const s = await moved(dc, dc.stepInRequest({ threadId: THREAD }));
        if (s.body.description?.includes('predicted end')) break;
      }
      // The first state is the user's call, as real as it gets.
      await moved(dc, dc.reverseContinueRequest({ threadId: THREAD }));
      expect((await innermostVariables(dc)).scopes[0]!.name).toBe('Locals (from your arguments, matches the real run)');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'exceptionInfo at an exception stop or an end that raised (when the model gets there)',
    async () => {
      const program = join(dir, 'boom.py');
      await writeFile(program, "def area(kind):\n    if kind != 'square':\n        raise ValueError(kind)\n    return 1\n");
      const { dc } = await launch({ program, entry: 'area', args: "'tri'" });
      let reached: DebugProtocol.StoppedEvent | undefined;
      for (let i = 0; i < 4 && !reached; i++) {
        const s = await moved(dc, dc.stepInRequest({ threadId: THREAD }));
        if (s.body.reason === 'exception') reached = s;
        else if (s.body.description?.includes('predicted end')) break;
      }
      if (reached) {
        const info = await dc.exceptionInfoRequest({ threadId: THREAD });
        expect(info.body.exceptionId).toMatch(/^[A-Za-z_][\w.]*$/);
        expect(info.body.description).toMatch(/predicted/);
      } else {
        await expectError(dc.exceptionInfoRequest({ threadId: THREAD }), /not stopped at an exception/);
      }
      await expectAlive(dc);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a continue over several breakpoints shows a cancellable progress bar; cancel and pause are answered',
    async () => {
      const program = join(dir, 'loop.py');
      await writeFile(program, 'def unused(a):\n    b = a * 2\n    return b\n\n\ndef loop(n):\n    total = 0\n    for i in range(n):\n        total += i\n    if n < 0:\n        unused(n)\n    return total\n');
      // Breakpoints in a function the run never calls: the model steps until it gives up, ends, or is cancelled.
      // (loop names it, so the cut the model sees keeps it and the breakpoints are verified.)
      const { dc } = await launch({ program, entry: 'loop', args: '1000', maxSteps: 1000 }, [2, 3]);
      const started = dc.waitForEvent('progressStart') as Promise<DebugProtocol.ProgressStartEvent>;
      const stopped = moved(dc, dc.continueRequest({ threadId: THREAD }));
      const progress = await started;
      expect(progress.body).toMatchObject({ title: 'Predicting (continue)', cancellable: true });
      await dc.customRequest('cancel', { progressId: progress.body.progressId });
      const stop = await stopped;
      // A model that ends the run (or lands on a breakpoint) before the cancel arrives is fine too.
      expect(['pause', 'step', 'breakpoint', 'exception']).toContain(stop.body.reason);
      if (stop.body.reason === 'pause') expect(stop.body.description).toMatch(/cancelled/);
      await dc.pauseRequest({ threadId: THREAD });
      expectFramesSound(await frames(dc), program, 10);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'bad input: each gets an error response with a clear message, and the adapter goes on',
    async () => {
      const syntax = join(dir, 'syntax.py');
      await writeFile(syntax, 'def f(:\n    pass\n');
      const long = join(dir, 'long.py');
      await writeFile(long, ['def f(x):', '    y = x', ...Array.from({ length: 3000 }, (_, i) => `    y = y + ${i}`), '    return y', ''].join('\n'));
      const notAModel = await mkdtemp(join(tmpdir(), 'ndb-not-a-model-'));

      const dc = await startClient();
      const initialized = dc.waitForEvent('initialized');
      await dc.initializeRequest();
      await initialized;
      await dc.configurationDoneRequest();
      const bad: [Record<string, unknown>, RegExp][] = [
        [{ program: syntax, entry: 'f', args: '' }, /SyntaxError at line 1/],
        [{ program: COUNT_PY, entry: 'nope', args: '1' }, /no function named 'nope'/],
        [{ program: COUNT_PY, entry: 'count', args: 'open("x"), 1' }, /literal/],
        [{ program: COUNT_PY, entry: 'count' }, /needs arguments/],
        [{ program: join(dir, 'missing.py'), entry: 'count', args: '1, 2' }, /cannot read the program/],
        [{ program: COUNT_PY, entry: 'count', args: "'b', 'b'", model: join(dir, 'no-such-model') }, /no model folder at/],
        [{ program: COUNT_PY, entry: 'count', args: "'b', 'b'", model: notAModel }, /not a model folder/],
        [{ program: long, entry: 'f', args: '1' }, /^the program is too long for the model, even cut to f's scope: f alone takes \d+ tokens \(with all it reaches, \d+\), more than the 576 the model has for the program/],
        [{ program: COUNT_PY, entry: 'count', args: "'b', 'b'", samples: 'three' }, /launch configuration: samples: /],
        [{ entry: 'count', args: "'b', 'b'" }, /launch configuration: program: program is required/],
        [{ program: COUNT_PY, entry: 'count', args: ["'b'", 2] }, /launch configuration: args\.1: must be a string holding one Python literal .*not number 2/],
        [{ program: COUNT_PY, entry: 'count', args: ['--verbose', "'b'"] }, /launch configuration: args\.0: "--verbose" looks like a command-line flag/],
        [{ program: COUNT_PY, entry: 'count', args: { s: "'b'" } }, /launch configuration: args: args must be one string of Python literals .* or a list of them/],
        [{ program: COUNT_PY, entry: 'count', args: ["'b'", 'os.getcwd()'] }, /argument 2 is not a Python literal: os\.getcwd\(\)/],
        [{ program: 'count.py', cwd: join(ROOT, 'data-pipeline'), entry: 'count', args: "'b', 'b'" }, /cannot read the program .*data-pipeline\/count\.py/],
      ];
      for (const [args, message] of bad) {
        await expectError(dc.launchRequest('model' in args ? (args as DebugProtocol.LaunchRequestArguments) : withModel(args)), message);
        await expectAlive(dc);
      }
      // Requests before any state: clear errors too.
      await expectError(dc.nextRequest({ threadId: THREAD }), /no program is running/);

      // The same adapter then debugs normally.
      const [stop] = await Promise.all([dc.waitForEvent('stopped'), dc.launchRequest(withModel({ program: COUNT_PY, entry: 'count', args: "'b', 'b'" }))]);
      expect((stop as DebugProtocol.StoppedEvent).body.reason).toBe('entry');
      const bps = (await dc.setBreakpointsRequest({ source: { path: COUNT_PY }, breakpoints: [{ line: 3 }, { line: 99 }, { line: 9 }] })).body.breakpoints;
      expect(bps.map((b) => [b.line, b.verified])).toEqual([
        [3, false],
        [99, false],
        [9, true],
      ]);
      expect(bps[0]!.message).toMatch(/blank line/);
      expect(bps[1]!.message).toMatch(/past the end of the file/);
      const other = (await dc.setBreakpointsRequest({ source: { path: SHAPES }, breakpoints: [{ line: 2 }] })).body.breakpoints;
      expect(other[0]).toMatchObject({ verified: false, message: expect.stringMatching(/ndb debugs one file/) });

      // Bad values and names for setVariable, and a frame that does not exist.
      const { scopes } = await innermostVariables(dc);
      const locals = scopes[0]!.variablesReference;
      await expectError(dc.setVariableRequest({ variablesReference: locals, name: 's', value: 'open("x")' }), /not available in a neural session: open|NameError/);
      await expectError(dc.setVariableRequest({ variablesReference: locals, name: 'nope', value: '1' }), /no variable 'nope'/);
      await expectError(dc.setVariableRequest({ variablesReference: 987654, name: 's', value: '1' }), /only the current frame's locals/);
      await expectError(dc.scopesRequest({ frameId: 987654 }), /that frame is gone/);
      expect((await dc.variablesRequest({ variablesReference: 987654 })).body.variables).toEqual([]);
      // None of it moved the session: it still steps.
      const s = await moved(dc, dc.nextRequest({ threadId: THREAD }));
      expect(['step', 'breakpoint', 'exception']).toContain(s.body.reason);
      expectFramesSound(await frames(dc), COUNT_PY, COUNT_LINES);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'ndb dap --port 0 serves each TCP connection as its own session',
    async () => {
      const server: ChildProcess = spawn(process.execPath, [NDB, 'dap', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        const line = await new Promise<string>((res, rej) => {
          createInterface({ input: server.stdout! }).once('line', res);
          server.once('exit', (code) => rej(new Error(`ndb dap exited with ${code}`)));
        });
        const [, portText, token] = /listening on 127\.0\.0\.1:(\d+), token (\S+) /.exec(line) ?? [];
        const port = Number(portText);
        expect(port).toBeGreaterThan(0);
        expect(token).toMatch(/^[\w-]{32}$/);
        const sessions = await Promise.all(
          ["'berry', 'r'", "'rr', 'r'"].map(async (args) => {
            const dc = new DebugClient('node', NDB, 'neural-python');
            await dc.start(port);
            await dc.initializeRequest();
            // With a token, `initialized` (and so the configuration) comes once the launch gave it.
            const initialized = dc.waitForEvent('initialized');
            const [stop] = await Promise.all([
              dc.waitForEvent('stopped'),
              dc.launchRequest(withModel({ program: COUNT_PY, entry: 'count', args, token })),
              initialized.then(() => dc.configurationDoneRequest()),
            ]);
            expect((stop as DebugProtocol.StoppedEvent).body.reason).toBe('entry');
            return dc;
          }),
        );
        const [a, b] = await Promise.all(sessions.map(async (dc) => (await innermostVariables(dc)).vars[0]!.find((v) => v.name === 's')?.value));
        expect([a, b]).toEqual(["'berry'", "'rr'"]);
        await moved(sessions[0]!, sessions[0]!.nextRequest({ threadId: THREAD }));
        // One session ending leaves the other (and the server) running.
        await sessions[0]!.stop();
        await moved(sessions[1]!, sessions[1]!.nextRequest({ threadId: THREAD }));
        expectFramesSound(await frames(sessions[1]!), COUNT_PY, COUNT_LINES);
        await sessions[1]!.stop();
      } finally {
        server.kill();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
