/**
 * The runtime's walk of a run: the timeline (replay, step back, truncation), breakpoints,
 * continue, until, verify mode and bad input.
 *
 * Most tests drive it with the real tracer as its predictor: then every state is known, so
 * the walk itself can be checked exactly (the tracer here stands in for nothing: it is the
 * Predictor the runtime is handed). The tests at the end use the shipped model.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GUESSED_STOPS_KEPT } from '../adapter/timeline.js';
import { NeuralRuntime, type PrefetchEvent, RuntimeError, type StopEvent } from '../adapter/runtime.js';
import type { State } from '../grammar/state.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { TracerPredictor } from '../evaluation/tracer-predictor.js';
import { COUNT_SOURCE, HAS_MODEL, MODEL_DIR } from './fixtures.js';


/**
 * examples/count.py with a comment as line 7 (a line no stop can happen on):
 *
 *    1  def is_match(c, t):
 *    2      return c == t
 *    5  def count(s, t):
 *    6      n = 0
 *    7      # walk the string
 *    8      for c in s:
 *    9          if is_match(c, t):
 *   10              n += 1
 *   11      return n
 */
const PROGRAM = COUNT_SOURCE.replace('    n = 0\n', '    n = 0\n    # walk the string\n');

let file: string;
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ndb-runtime-'));
  file = join(dir, 'count.py');
  await writeFile(file, PROGRAM);
});

function tracerRuntime(): NeuralRuntime {
  return new NeuralRuntime(new TracerPredictor());
}

describe('runtime on the real run', () => {
  it('steps, replays the timeline when stepping back and forward again', async () => {
    const rt = tracerRuntime();
    const stops: StopEvent[] = [];
    rt.on('stopped', (e: StopEvent) => stops.push(e));
    expect((await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'" })).reason).toBe('entry');
    expect(rt.current!.state.event).toBe('call');
    await rt.stepOver();
    expect(rt.current!.state.line).toBe(6);
    await rt.stepOver();
    expect(rt.current!.state.line).toBe(8);
    const lengthBefore = rt.timeline.stops.length;
    await rt.stepBack();
    expect(rt.current!.state.line).toBe(6);
    await rt.stepOver(); // the same action again: replayed, not predicted
    expect(rt.current!.state.line).toBe(8);
    expect(rt.timeline.stops.length).toBe(lengthBefore);
    expect(stops.map((s) => s.reason)).toEqual(['entry', 'step', 'step', 'step', 'step']);
  });

  it('a closed runtime (a new launch replaced it) refuses commands, also those sent while it closed', async () => {
    const rt = tracerRuntime();
    await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'" });
    // Queued before the close: it still runs, and close waits for it.
    const queued = rt.stepIn();
    const closing = rt.close();
    const late = rt.stepOver();
    await closing;
    await expect(queued).resolves.toMatchObject({ reason: 'step' });
    await expect(late).rejects.toThrow(RuntimeError);
    await expect(rt.stepIn()).rejects.toThrow(/a new launch replaced it/);
  });

  it('a different action from a past stop forgets the old future', async () => {
    const rt = tracerRuntime();
    await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'" });
    for (let i = 0; i < 4; i++) await rt.stepIn();
    await rt.stepBack();
    await rt.stepBack();
    expect(rt.timeline.stops.length).toBe(5);
    await rt.stepOut();
    expect(rt.timeline.stops.length).toBe(4);
    expect(rt.current!.state.event).toBe('return');
  });

  it('steps into a call and out of it, with the caller frame and its locals', async () => {
    const rt = tracerRuntime();
    await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'" });
    await rt.setBreakpoints([9]);
    await rt.continue();
    expect(rt.current!.state.line).toBe(9);
    await rt.stepIn();
    const frames = rt.frames();
    expect(frames.map((f) => f.function)).toEqual(['is_match', 'count']);
    expect(frames[1]!.locals).toMatchObject({ s: "'ab'", n: '0' });
    await rt.stepOut();
    expect(rt.current!.state.event).toBe('return');
    expect(rt.current!.state.value).toBe('False');
  });

  it('continue: to the only breakpoint, among several in run order, and to the end', async () => {
    const rt = tracerRuntime();
    await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'" });
    const views = await rt.setBreakpoints([7, 10, 11]);
    expect(views.map((v) => v.verified)).toEqual([false, true, true]);
    expect(views[0]!.message).toMatch(/comment/);
    expect((await rt.continue()).reason).toBe('breakpoint');
    expect(rt.current!.state.line).toBe(10);
    expect((await rt.continue()).reason).toBe('breakpoint');
    expect(rt.current!.state.line).toBe(11);
    const end = await rt.continue();
    expect(end.reason).toBe('end');
    expect(end.description).toMatch(/returned 1/);
    // From the end, back through the breakpoints to the start.
    expect((await rt.reverseContinue()).reason).toBe('breakpoint');
    expect(rt.current!.state.line).toBe(11);
    await rt.reverseContinue();
    expect(rt.current!.state.line).toBe(10);
    expect((await rt.reverseContinue()).reason).toBe('entry');
    expect(rt.timeline.position).toBe(0);
    expect((await rt.stepBack()).description).toMatch(/start of the run/);
  });

  it('until a line, and stopOnEntry false runs to the first breakpoint', async () => {
    const rt = tracerRuntime();
    await rt.setBreakpoints([10], file);
    const first = await rt.launch({ program: file, entry: 'count', args: "'abb', 'b'", stopOnEntry: false });
    expect(first.reason).toBe('breakpoint');
    expect(rt.current!.state.line).toBe(10);
    await rt.until(11);
    expect(rt.current!.state.line).toBe(11);
    expect(rt.current!.state.locals.n).toBe('2');
  });

  it('verify mode finds nothing to flag on the real run, and says why it stops after an edit', async () => {
    const rt = tracerRuntime();
    await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'", verify: true });
    await rt.stepOver();
    await rt.stepOver();
    expect(rt.verification()).toMatchObject({ kind: 'state', matches: true });
    await rt.setVariable('n', '5');
    expect(rt.verification()).toMatchObject({ kind: 'unavailable' });
    expect(rt.timeline.stops.length).toBe(rt.timeline.position + 1);
  });

  it('bad input: clear errors, and the runtime stays usable', async () => {
    const rt = tracerRuntime();
    await expect(rt.launch({ program: file, entry: 'count' })).rejects.toThrow(/needs arguments/);
    await expect(rt.launch({ program: file + '.missing', entry: 'count', args: '1, 2' })).rejects.toThrow(/cannot read the program/);
    await expect(rt.launch({ program: file, entry: 'nope', args: '1' })).rejects.toThrow(/no function named 'nope'/);
    await expect(rt.launch({ program: file, entry: 'count', args: 'open("x")' })).rejects.toThrow(/literal/);
    const bad = join(file, '..', 'bad.py');
    await writeFile(bad, 'def f(:\n    pass\n');
    await expect(rt.launch({ program: bad, entry: 'f', args: '' })).rejects.toThrow(/SyntaxError at line 1/);
    await expect(rt.launch({ program: file, entry: 'count', args: "'b', 'b'" })).resolves.toMatchObject({ reason: 'entry' });
    await expect(rt.setVariable('nope', '1')).rejects.toBeInstanceOf(RuntimeError);
  });
});

describe('prefetch on the real run', () => {
  /** The guesses stored (not failed), as `position action`, in the order they were made. */
  function guessLog(rt: NeuralRuntime): string[] {
    const log: string[] = [];
    rt.on('prefetch', (e: PrefetchEvent) => {
      if (e.phase === 'end' && e.ok) log.push(`${e.position} ${e.action}`);
    });
    return log;
  }

  it('guesses step out last, in the entry function and inside a call, and serves the press from the guess', async () => {
    const walk = async (prefetch: boolean) => {
      const rt = tracerRuntime();
      const log = guessLog(rt);
      const seen: { state: State; prefetched: boolean }[] = [];
      const look = async (event: Promise<StopEvent>) => {
        const e = await event;
        seen.push({ state: rt.current!.state, prefetched: e.prefetched === true });
        await rt.idle(); // the user looks at the stop: the guesses run
      };
      await look(rt.launch({ program: file, entry: 'count', args: "'ab', 'b'", prefetch }));
      for (let i = 0; i < 4; i++) await look(rt.stepIn()); // to is_match's call
      await look(rt.stepOut()); // to is_match's return
      await look(rt.stepOut()); // from the return up to the caller
      return { rt, log, seen };
    };
    const on = await walk(true);
    const off = await walk(false);
    expect(on.seen.map((s) => s.state)).toEqual(off.seen.map((s) => s.state));
    expect(off.log).toEqual([]);
    const functions = (i: number) => on.seen[i]!.state.stack.map((f) => f.function);
    expect(functions(4)).toEqual(['count', 'is_match']);
    expect(on.seen[5]!.state).toMatchObject({ event: 'return', value: 'False' });
    expect(functions(5)).toEqual(['count', 'is_match']);
    expect(functions(6)).toEqual(['count']);
    // In the entry function and inside the call alike: step over, step into, then step out.
    expect(on.log.filter((g) => g.startsWith('0 '))).toEqual(['0 step_over', '0 step_into', '0 step_return']);
    expect(on.log.filter((g) => g.startsWith('4 '))).toEqual(['4 step_over', '4 step_into', '4 step_return']);
    // Every press was guessed first: the step outs too.
    expect(on.seen.map((s) => s.prefetched)).toEqual([false, true, true, true, true, true, true]);
    expect(on.rt.prefetchCounters).toMatchObject({ hits: 6, misses: 0 });
    await on.rt.close();
    await off.rt.close();
  });

  it('a step out in the entry function is served from its guess (its return); at a module top level it is not guessed, nor counted', async () => {
    const rt = tracerRuntime();
    await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'" });
    await rt.idle();
    const out = await rt.stepOut();
    expect(out.prefetched).toBe(true);
    expect(rt.current!.state).toMatchObject({ event: 'return', value: '1' });
    await rt.close();

    const top = tracerRuntime();
    const log = guessLog(top);
    const moduleFile = join(dirname(file), 'top.py');
    await writeFile(moduleFile, 'x = 1\ny = x + 1\nprint(y)\n');
    await top.launch({ program: moduleFile });
    await top.idle();
    expect(log.length).toBeGreaterThan(0);
    expect(log.some((g) => g.endsWith('step_return'))).toBe(false);
    const end = await top.stepOut();
    expect(end.prefetched).toBeUndefined();
    expect(top.prefetchCounters).toMatchObject({ hits: 0, misses: 0 });
    await top.close();
  });

  it('a long walk: only the latest stops keep their guesses (a fingerprint of the history each), every stop stays', async () => {
    const rt = tracerRuntime();
    await rt.launch({ program: file, entry: 'count', args: "'abcabcabcabc', 'b'" });
    await rt.idle();
    const presses = 40;
    for (let i = 0; i < presses; i++) {
      await rt.stepIn();
      await rt.idle();
    }
    const t = rt.timeline;
    expect(t.stops.length).toBe(presses + 1);
    const holding = t.stops.flatMap((s, i) => (s.prefetched ? [i] : []));
    expect(holding).toEqual(Array.from({ length: GUESSED_STOPS_KEPT }, (_, k) => presses + 1 - GUESSED_STOPS_KEPT + k));
    expect(t.stopsWithGuesses).toBe(GUESSED_STOPS_KEPT);
    // A guess keeps a fixed-size fingerprint of its history, not the history (which grows with the walk).
    for (const stop of t.stops) for (const g of stop.prefetched?.values() ?? []) expect(g.history.length).toBeLessThan(64);
    // Back to a recent stop, another action than the timeline took: served from the guess made there.
    await rt.stepBack();
    await rt.stepBack();
    await rt.idle();
    const misses = rt.prefetchCounters.misses;
    expect((await rt.stepOver()).prefetched).toBe(true);
    // Back at the first stop (its guesses long dropped; the press comes before any new one): predicted, as without prefetch.
    await rt.reverseContinue();
    expect(rt.current!.state.event).toBe('call');
    const first = await rt.stepOver();
    expect(first.prefetched).toBeUndefined();
    expect(rt.prefetchCounters.misses).toBe(misses + 1);
    expect(rt.current!.state.line).toBe(6);
    await rt.close();
  });
});

describe.skipIf(!HAS_MODEL)('runtime on the shipped model', () => {
  let predictor: NeuralPredictor;
  beforeAll(async () => {
    predictor = await NeuralPredictor.load(MODEL_DIR);
  });

  it('an edited variable conditions the next prediction; resample gives a model state', async () => {
    const rt = new NeuralRuntime(predictor);
    await rt.launch({ program: file, entry: 'count', args: "'ab', 'b'" });
    await rt.stepOver();
    await rt.stepOver();
    const stop = await rt.setVariable('n', '41');
    expect(stop.edited).toEqual(['n']);
    expect(rt.timeline.stops.length).toBe(rt.timeline.position + 1);
    const e = await rt.stepOver();
    expect(['step', 'exception', 'end']).toContain(e.reason);
    const history = rt.timeline.history();
    expect(history.some((h) => h.state.locals.n === '41')).toBe(true);
    if (!rt.ended) {
      await rt.resample();
      expect(rt.current!.origin).toBe('model');
    }
  });

  it('inferArgs: the model proposes the call state, and resample proposes again', async () => {
    const rt = new NeuralRuntime(predictor);
    const e = await rt.launch({ program: file, entry: 'count', inferArgs: true });
    expect(e.reason === 'entry' || e.reason === 'end').toBe(true);
    if (e.reason === 'entry') {
      expect(rt.current!.state.event).toBe('call');
      expect(rt.current!.origin).toBe('model');
      expect(Object.keys(rt.current!.state.locals)[0]).toBe('s');
      await rt.resample();
      expect(rt.current!.state.stack[0]!.function).toBe('count');
    }
  });
});
