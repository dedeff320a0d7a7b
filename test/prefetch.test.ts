/**
 * Prefetch (adapter/prefetch.ts, adapter/runtime.ts) on the shipped model: under greedy
 * decoding a session that serves key presses from background guesses shows exactly the states
 * of one that predicts every press, through steps, a step back, a different step from there
 * and an edited variable, and through step outs of a call (guessed inside a call only); and a
 * background guess never holds up a different command for longer than the one guess in flight.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type PrefetchEvent, NeuralRuntime, type StopEvent } from '../adapter/runtime.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { COUNT_PY, HAS_MODEL, MODEL_DIR, ROOT } from './fixtures.js';

const LAUNCH = { program: COUNT_PY, entry: 'count', args: "'berry', 'r'" };
const SHAPES = join(ROOT, 'examples', 'shapes.py');
const SHAPES_LAUNCH = { program: SHAPES, entry: 'total_area', args: "[('square', 2), ('rect', (2, 3))]" };
/** Slack for the event loop and the bookkeeping around a prediction on a loaded 2-core machine. */
const SLACK_MS = 150;

interface Seen {
  /** The stop (or the end) as the user sees it. */
  state: string;
  prefetched: boolean;
}

/** The session of the test: each command, then (prefetch on) the guesses it leaves time for. */
async function walk(rt: NeuralRuntime, prefetch: boolean): Promise<Seen[]> {
  const seen: Seen[] = [];
  const look = async (event: StopEvent | Promise<StopEvent>) => {
    const e = await event;
    seen.push({ state: JSON.stringify(rt.ended?.exit ?? rt.current?.state), prefetched: e.prefetched === true });
    // The user looks at the stop: the background guesses run now.
    await rt.idle();
  };
  await look(rt.launch({ ...LAUNCH, prefetch }));
  await look(rt.stepOver());
  await look(rt.stepIn());
  await look(rt.stepOut());
  await look(rt.stepBack());
  // From the stop before, another action than the timeline took: a guess made there serves it.
  await look(rt.stepIn());
  await look(rt.stepOver());
  const stop = rt.current!;
  const name = Object.keys(stop.state.locals)[0]!;
  await rt.setVariable(name, '41');
  await rt.idle();
  await look(rt.stepOver());
  await look(rt.stepOver());
  return seen;
}

interface SeenPress extends Seen {
  command: string;
  /** Frames on the stack at the stop the command was pressed at. */
  fromDepth: number;
}

/**
 * A session through a call and out of it: step into shapes.py's list comprehension (the
 * shipped model enters its frame), step out, step out again, back, another way in, out.
 */
async function walkOut(rt: NeuralRuntime, prefetch: boolean): Promise<SeenPress[]> {
  const seen: SeenPress[] = [];
  const press = async (command: string, event: () => Promise<StopEvent>) => {
    const fromDepth = rt.current?.state.stack.length ?? 0;
    const e = await event();
    seen.push({ command, fromDepth, state: JSON.stringify(rt.ended?.exit ?? rt.current?.state), prefetched: e.prefetched === true });
    await rt.idle(); // the user looks at the stop: the guesses run
  };
  await press('launch', () => rt.launch({ ...SHAPES_LAUNCH, prefetch }));
  for (const [command, event] of [
    ['in', () => rt.stepIn()],
    ['in', () => rt.stepIn()],
    ['in', () => rt.stepIn()],
    ['out', () => rt.stepOut()],
    ['out', () => rt.stepOut()],
    ['back', () => rt.stepBack()],
    ['back', () => rt.stepBack()],
    ['in', () => rt.stepIn()],
    ['out', () => rt.stepOut()],
  ] as const) {
    if (rt.ended) break;
    await press(command, event);
  }
  return seen;
}

describe.skipIf(!HAS_MODEL)('prefetch on the shipped model', () => {
  let predictor: NeuralPredictor;
  beforeAll(async () => {
    predictor = await NeuralPredictor.load(MODEL_DIR, { threads: 1 });
  });

  it('gives the states a session without prefetch gives (greedy), serving some presses from guesses', async () => {
    const on = new NeuralRuntime(predictor);
    const withPrefetch = await walk(on, true);
    await on.close();
    const off = new NeuralRuntime(predictor);
    let guessesWhileOff = 0;
    off.on('prefetch', () => guessesWhileOff++);
    const withoutPrefetch = await walk(off, false);
    expect(guessesWhileOff).toBe(0);
    expect(withPrefetch.map((s) => s.state)).toEqual(withoutPrefetch.map((s) => s.state));
    expect(withoutPrefetch.some((s) => s.prefetched)).toBe(false);
    // step over after launch and after the edit are always guessed; the counters agree with the events.
    expect(withPrefetch[1]!.prefetched).toBe(true);
    expect(withPrefetch.at(-2)!.prefetched).toBe(true);
    expect(on.prefetchCounters.hits).toBe(withPrefetch.filter((s) => s.prefetched).length);
    expect(on.prefetchCounters.predicted).toBeGreaterThanOrEqual(on.prefetchCounters.hits);
  }, 240_000);

  it("without prefetch, runs the last frame's unrun tokens while the user looks: the key press runs only its action", async () => {
    const rt = new NeuralRuntime(predictor);
    await rt.launch({ ...LAUNCH, prefetch: false });
    await rt.idle(); // the first state, from the arguments, runs here
    const first = await rt.stepOver();
    expect(first.stats!.prefilledTokens).toBeLessThanOrEqual(3);
    const pressAfter = async (look: boolean) => {
      await rt.stepOver();
      if (look) await rt.idle(); // the catch-up runs here
      return rt.stepOver();
    };
    const looked = await pressAfter(true);
    await rt.restart();
    // A press that arrives before the catch-up starts makes it yield: the press runs the tail itself.
    const hurried = await pressAfter(false);
    await rt.close();
    expect(looked.stats!.prefilledTokens).toBeLessThanOrEqual(3);
    expect(hurried.stats!.prefilledTokens).toBeGreaterThan(looked.stats!.prefilledTokens);
  }, 120_000);

  it('starts the background guesses a moment after a stop, not while its message is on the way to the client', async () => {
    const rt = new NeuralRuntime(predictor);
    let guesses = 0;
    rt.on('prefetch', (e: PrefetchEvent) => e.phase === 'start' && guesses++);
    await rt.launch(LAUNCH);
    await rt.idle();
    await rt.stepOver();
    const before = guesses;
    await new Promise((resolve) => setImmediate(resolve));
    expect(guesses).toBe(before);
    await rt.idle();
    expect(guesses).toBeGreaterThan(before);
    await rt.close();
  }, 120_000);

  it('a step out is served from its guess and gives the stop a session without prefetch gives (greedy)', async () => {
    const on = new NeuralRuntime(predictor);
    /** Stack depth of the stop each step-out guess was made from. */
    const guessedFrom: number[] = [];
    on.on('prefetch', (e: PrefetchEvent) => {
      if (e.phase === 'start' && e.action === 'step_return') guessedFrom.push(on.timeline.stops[e.position]!.state.stack.length);
    });
    const withPrefetch = await walkOut(on, true);
    await on.close();
    const off = new NeuralRuntime(predictor);
    const withoutPrefetch = await walkOut(off, false);
    await off.close();
    expect(withPrefetch.map((s) => [s.command, s.state])).toEqual(withoutPrefetch.map((s) => [s.command, s.state]));
    expect(withoutPrefetch.some((s) => s.prefetched)).toBe(false);
    // Step out is guessed in the entry function's frame and inside calls, and every step out pressed was served from its guess.
    expect(guessedFrom).toContain(1);
    expect(guessedFrom.some((depth) => depth > 1)).toBe(true);
    const outs = withPrefetch.filter((s) => s.command === 'out');
    expect(outs.filter((s) => s.fromDepth > 1).length).toBeGreaterThanOrEqual(2);
    expect(outs.every((s) => s.prefetched)).toBe(true);
  }, 240_000);

  it('a different command waits at most for the one guess in flight', async () => {
    const rt = new NeuralRuntime(predictor);
    const events: (PrefetchEvent & { at: number })[] = [];
    rt.on('prefetch', (e: PrefetchEvent) => events.push({ ...e, at: performance.now() }));
    const firstGuess = new Promise<void>((r) => rt.once('prefetch', () => r()));
    await rt.launch(LAUNCH);
    await firstGuess; // a guess (step over) is in flight now
    const sent = performance.now();
    const stop = await rt.stepOut(); // guessed last, so not yet (the first guess is in flight): it must be predicted
    const answered = performance.now();
    expect(stop.prefetched).toBeUndefined();
    // No guess started while the command waited or ran...
    expect(events.filter((e) => e.phase === 'start' && e.at > sent && e.at < answered)).toEqual([]);
    // ...and it waited only for the one in flight: that guess, then its own prediction.
    const inFlight = events.find((e) => e.phase === 'end');
    expect(inFlight).toBeDefined();
    expect(inFlight!.at).toBeLessThanOrEqual(answered);
    expect(answered - sent).toBeLessThan(inFlight!.milliseconds! + stop.stats!.milliseconds + SLACK_MS);
    await rt.close();
  }, 120_000);

  it('samples > 1: no guesses (a sample is not what the press would get)', async () => {
    const rt = new NeuralRuntime(predictor);
    let guesses = 0;
    rt.on('prefetch', () => guesses++);
    await rt.launch({ ...LAUNCH, samples: 2 });
    await rt.idle();
    await rt.stepOver();
    await rt.idle();
    expect(guesses).toBe(0);
    expect(rt.prefetchCounters).toMatchObject({ predicted: 0, hits: 0 });
    await rt.close();
  }, 120_000);
});
