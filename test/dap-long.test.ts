/**
 * `ndb dap` on a long file (test/fixtures/long_module.py, 804 lines): the model sees a cut
 * of it (program-analysis/cut.ts); the client sees the file's own line numbers in stops, the call
 * stack and breakpoints, and a breakpoint outside the cut is unverified with the reason, by
 * a `breakpoint` event at launch and in the answer to a later setBreakpoints, and Predict
 * Inputs (ndb/predictInputs) infers arguments from the cut too. A real DAP
 * client (@vscode/debugadapter-testsupport) drives `node bin/ndb.js dap` on the shipped model.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PredictedInputs } from '../protocol/dap.js';
import { HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const LONG = join(ROOT, 'test', 'fixtures', 'long_module.py');
const LINES = readFileSync(LONG, 'utf8').split('\n');
const lineOf = (text: string) => LINES.findIndex((l) => l.startsWith(text)) + 1;
const THREAD = 1;
const EVENT_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 240_000;

let wrapper: string;
/** One function of 400 lines: too long for the model even alone. */
let tooLong: string;
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ndb-dap-long-'));
  tooLong = join(dir, 'too_long.py');
  await writeFile(tooLong, ['def f(x):', ...Array.from({ length: 400 }, (_, i) => `    x = x + ${i}`), '    return x', ''].join('\n'));
  wrapper = join(dir, 'ndb-dap.mjs');
  await writeFile(wrapper, `process.argv.splice(2, 0, 'dap');\nawait import(${JSON.stringify(NDB)});\n`);
});

const clients: DebugClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((dc) => dc.stop()));
});

async function frames(dc: DebugClient): Promise<DebugProtocol.StackFrame[]> {
  return (await dc.stackTraceRequest({ threadId: THREAD })).body.stackFrames;
}

async function moved(dc: DebugClient, request: Promise<DebugProtocol.Response>): Promise<DebugProtocol.StoppedEvent> {
  const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, request]);
  return stop;
}

describe.skipIf(!HAS_EMBEDDED_MODEL)('ndb dap on an 804-line file', () => {
  it(
    "stops, stack and breakpoints in the file's lines; a breakpoint outside the cut is unverified with the reason",
    async () => {
      const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: ROOT });
      dc.defaultTimeout = EVENT_TIMEOUT_MS;
      await dc.start();
      clients.push(dc);
      const output: string[] = [];
      const changed: DebugProtocol.BreakpointEvent[] = [];
      dc.on('output', (e: DebugProtocol.OutputEvent) => output.push(e.body.output));
      dc.on('breakpoint', (e: DebugProtocol.BreakpointEvent) => changed.push(e));
      const initialized = dc.waitForEvent('initialized');
      await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      const outside = lineOf('    rows.append((len(part_4), 3 * 4))'); // in histogram, which vowel_count never reaches
      const inside = lineOf('            n += 1');
      let bps: DebugProtocol.Breakpoint[] = [];
      const configure = initialized.then(async () => {
        bps = (await dc.setBreakpointsRequest({ source: { path: LONG }, breakpoints: [{ line: outside }, { line: inside }] })).body.breakpoints;
        await dc.configurationDoneRequest();
      });
      const [first] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.launchRequest({ program: LONG, entry: 'vowel_count', args: "'kiwi'" } as DebugProtocol.LaunchRequestArguments), configure]);
      expect(first.body.reason).toBe('entry');
      // Before the launch both lines carry code; the launch's cut leaves one of them out.
      expect(bps.map((b) => [b.line, b.verified])).toEqual([[outside, true], [inside, true]]);
      expect(changed).toHaveLength(1);
      expect(changed[0]!.body.reason).toBe('changed');
      expect(changed[0]!.body.breakpoint).toMatchObject({ id: bps[0]!.id, line: outside, verified: false, message: `line ${outside} is in histogram, which vowel_count does not reach (the model sees the cut to vowel_count's scope): no predicted stop can happen there` });

      const entry = await frames(dc);
      expect(entry).toHaveLength(1);
      expect(entry[0]).toMatchObject({ name: 'vowel_count', line: lineOf('def vowel_count'), source: { path: LONG } });

      // Continue: the one breakpoint left, on its own line of the file.
      const hit = await moved(dc, dc.continueRequest({ threadId: THREAD }));
      expect(hit.body.reason).toBe('breakpoint');
      const there = await frames(dc);
      expect(there[0]).toMatchObject({ name: 'vowel_count', line: inside });

      // A few steps in: every frame on a line of the file, in a function of it.
      const defined = new Set(LINES.map((l) => /^\s*def (\w+)/.exec(l)?.[1]).filter(Boolean));
      // (The small model may loop and fail to write a state: its failure, said as such, not the cut's.)
      for (const step of ['next', 'stepIn', 'next', 'stepIn'] as const) {
        const request = step === 'next' ? dc.nextRequest({ threadId: THREAD }) : dc.stepInRequest({ threadId: THREAD });
        const stop = await moved(dc, request).catch((err: Error) => {
          expect(err.message).toMatch(/^the model did not write a whole state/);
          return null;
        });
        if (!stop || stop.body.description?.startsWith('predicted end')) break;
        for (const f of await frames(dc)) {
          expect(f.source?.path).toBe(LONG);
          expect(f.line).toBeGreaterThanOrEqual(1);
          expect(f.line).toBeLessThanOrEqual(LINES.length);
          expect(defined.has(f.name) || f.name === '<module>').toBe(true);
        }
      }

      // Breakpoints set after the launch: refused at once where the model does not see the line.
      const later = (await dc.setBreakpointsRequest({ source: { path: LONG }, breakpoints: [{ line: lineOf('def shout') + 1 }, { line: inside }] })).body.breakpoints;
      expect(later[0]).toMatchObject({ verified: false, message: `line ${lineOf('def shout') + 1} is in shout, which vowel_count does not reach (the model sees the cut to vowel_count's scope): no predicted stop can happen there` });
      expect(lineOf('def shout')).toBeGreaterThan(790);
      expect(later[1]).toMatchObject({ verified: true, line: inside });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a scope too large for the context: callees cut to signatures, said once in the Debug Console; an entry alone too large: an error naming the sizes',
    async () => {
      const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: ROOT });
      dc.defaultTimeout = EVENT_TIMEOUT_MS;
      await dc.start();
      clients.push(dc);
      const output: string[] = [];
      dc.on('output', (e: DebugProtocol.OutputEvent) => output.push(e.body.output));
      await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      await dc.configurationDoneRequest();
      const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.launchRequest({ program: LONG, entry: 'report', args: "['kiwi']" } as DebugProtocol.LaunchRequestArguments)]);
      expect(stop.body.reason).toBe('entry');
      expect((await frames(dc))[0]).toMatchObject({ name: 'report', line: lineOf('def report') });
      await moved(dc, dc.nextRequest({ threadId: THREAD }));
      const notes = output.filter((o) => o.startsWith('the program is cut to'));
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(/^the program is cut to report's scope for the model: callees cut to signatures: (\w|\.|, )*histogram/);
      // The body of a callee cut to its signature holds no stop.
      const body = lineOf('def table_rows') + 5;
      const bps = (await dc.setBreakpointsRequest({ source: { path: LONG }, breakpoints: [{ line: body }] })).body.breakpoints;
      expect(bps[0]).toMatchObject({ verified: false, message: `line ${body} is in the body of table_rows, which the model sees cut to its signature: no predicted stop can happen there` });
      await expect(dc.launchRequest({ program: tooLong, entry: 'f', args: '1' } as DebugProtocol.LaunchRequestArguments)).rejects.toThrow(
        /^the program is too long for the model, even cut to f's scope: f alone takes \d+ tokens \(with all it reaches, \d+\), more than the 576 the model has for the program/,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "ndb/predictInputs on a function of the long file: the cut, not the whole file (which overflows the context), the return line in the file's lines",
    async () => {
      const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: ROOT });
      dc.defaultTimeout = EVENT_TIMEOUT_MS;
      await dc.start();
      clients.push(dc);
      await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      await dc.configurationDoneRequest();
      const [stop] = await Promise.all([dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>, dc.launchRequest({ program: LONG, entry: 'score', args: "'banana'" } as DebugProtocol.LaunchRequestArguments)]);
      expect(stop.body.reason).toBe('entry');
      const found = (await dc.customRequest('ndb/predictInputs', { value: '4' })).body as PredictedInputs;
      // score has one return line, far into the file; the call the model infers binds word.
      const ret = lineOf('    return v + bonus');
      expect(ret).toBeGreaterThan(385);
      expect(found).toMatchObject({ function: 'score', value: '4', returnLine: ret });
      expect(Object.keys(found.locals)).toContain('word');
      expect(found.args).toBe(found.locals.word);
      expect(found.args.length).toBeGreaterThan(0);
      // The forward check ran the answer through the model from its call (on the cut, as the
      // session's own predictor would): it says whether that run returns 4, and if not, what.
      const check = found.check!;
      expect(check).toBeDefined();
      expect(check.confidence).toBeGreaterThan(0);
      expect(check.confidence).toBeLessThanOrEqual(1);
      if (found.from === 'value') expect(found.args).toBe('4');
      // The value itself, unconfirmed, is no model's answer: shown without a confidence.
      if (found.from === 'value' && !check.returns) expect(found.confidence).toEqual({});
      if (found.from === 'inverse') expect(Object.keys(found.confidence).length).toBeGreaterThan(0);
      if (check.returns) expect(check.outcome).toBeUndefined();
      else expect(check.outcome).not.toBe('4');
      // Without the drawn answers: the model's own answer or the value itself, each checked the same way.
      const quick = (await dc.customRequest('ndb/predictInputs', { value: '4', candidates: 0 })).body as PredictedInputs;
      expect(quick).toMatchObject({ function: 'score', value: '4', returnLine: ret });
      if (quick.from === 'value') expect(quick.args).toBe('4');
      if (!check.returns) expect(quick.check!.returns).toBe(false);
      // The session goes on where it was: the entry, in the file's lines, and steps from there
      // (the check ran beside the session's predictor, on the same model).
      expect((await frames(dc))[0]).toMatchObject({ name: 'score', line: lineOf('def score') });
      await Promise.all([dc.waitForEvent('stopped'), dc.nextRequest({ threadId: THREAD })]);
      expect((await frames(dc))[0]).toMatchObject({ name: 'score', line: lineOf('    clean = normalize(word)') });
    },
    TEST_TIMEOUT_MS,
  );
});
