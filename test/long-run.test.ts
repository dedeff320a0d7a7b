/**
 * A step late in a long run costs what an early one does (model-client/prompt.ts
 * slideStarts, NeuralPredictor.promptIds and catchUp): once the history outgrows the
 * context, the prompt's window slides by half the history's room at a time, so the prefix
 * cache is rebuilt once per many presses, not at every press (it was: the start moved with
 * each press, and every press from the 21st on examples/orders.py ran 240-400 prompt
 * tokens); and without prefetch, the rebuild runs while the user looks at the stop before
 * the slide. Structural: prompt tokens run and window slides are counted, nothing is timed.
 * Real parts: the shipped model, the runtime, the Python helpers.
 */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NeuralRuntime } from '../adapter/runtime.js';
import type { PredictionStats } from '../model-client/predictor.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { slideStarts } from '../model-client/prompt.js';
import { HAS_MODEL, MODEL_DIR, modelContext } from './fixtures.js';

/**
 * The bench's longer file (330 tokens of context): its history outgrows a 1,024-token context
 * after about 13 presses, a 2,048-token one after about 30, so the presses scale with the
 * model's context (44 at 1,024), which keeps the run's second half past the first slide.
 * Eight order lines: the predicted run follows the real one (the loop rules, and since the
 * symbolic stepper's walker the statements too: it ends after 38 presses, so fewer than
 * PRESSES may be walked; with four it ended after 27).
 */
const LAUNCH = { program: resolve('examples/orders.py'), entry: 'summarise', args: "['apple: 3', 'Fig:10', 'plum', 'pear:2', 'kiwi: 4', 'fig', 'Apple:12', 'grape:1']", prefetch: false };
const CONTEXT = HAS_MODEL ? modelContext(MODEL_DIR) : 1024;
const PRESSES = 2 * Math.round((22 * CONTEXT) / 1024);

describe('slideStarts', () => {
  it('starts at the first step past each multiple of the jump, each once', () => {
    // Steps of 20 tokens: a jump of 50 tokens starts at offsets >= 50, 100, 150.
    expect(slideStarts([0, 20, 40, 60, 80, 100, 120, 140, 160], 50)).toEqual([3, 5, 8]);
    // A step longer than the jump: its successor serves four multiples, listed once.
    expect(slideStarts([0, 10, 200, 210, 260], 50)).toEqual([2, 4]);
    expect(slideStarts([0], 50)).toEqual([]);
    expect(() => slideStarts([0, 10], 0)).toThrow();
  });

  it('keeps its starts as the run grows: a step appended moves none of them', () => {
    const offsets = Array.from({ length: 40 }, (_, i) => i * 23);
    for (let n = 2; n < offsets.length; n++) {
      const starts = slideStarts(offsets.slice(0, n), 100);
      const longer = slideStarts(offsets.slice(0, n + 1), 100);
      expect(longer.slice(0, starts.length)).toEqual(starts);
    }
  });
});

interface Press {
  stats: PredictionStats;
  state: string;
}

/** Up to PRESSES presses (fewer where the predicted run ends), step over and step into alternating, prefetch off; `look`: the user looks at each stop (the catch-up runs). */
async function walk(predictor: NeuralPredictor, look: boolean): Promise<Press[]> {
  const rt = new NeuralRuntime(predictor);
  const presses: Press[] = [];
  try {
    await rt.launch(LAUNCH);
    for (let i = 0; i < PRESSES; i++) {
      if (look) await rt.idle();
      const stop = await (i % 2 === 0 ? rt.stepOver() : rt.stepIn());
      // The predicted run may end before the last press (the rules follow the real run, which ends): the presses so far count.
      if (rt.ended) break;
      presses.push({ stats: stop.stats!, state: JSON.stringify(rt.current!.state) });
    }
  } finally {
    await rt.close();
  }
  return presses;
}

/** Presses (1-based) whose prompt is shorter than the one before: the window slid. */
const slides = (presses: Press[]) => presses.flatMap((p, i) => (i > 0 && p.stats.promptTokens < presses[i - 1]!.stats.promptTokens ? [i + 1] : []));

describe.skipIf(!HAS_MODEL)('a long run on the shipped model', () => {
  let predictor: NeuralPredictor;
  let hurried: Press[];
  let looked: Press[];
  beforeAll(async () => {
    // One model step per press (no rollouts: a step over a call would take the callee's steps
    // in one press), so that the presses' prompts are what this test counts.
    predictor = await NeuralPredictor.load(MODEL_DIR, { threads: 1, rolloutSteps: 0 });
    hurried = await walk(predictor, false);
    looked = await walk(predictor, true);
  }, 300_000);

  it('slides the window in jumps: the cache is rebuilt once per many presses, the prompt grows in between', () => {
    // Far past the first slide, whether or not the predicted run ended before the last press.
    expect(hurried.length, 'presses before the predicted run ended').toBeGreaterThanOrEqual(Math.round(PRESSES * 0.7));
    const at = slides(hurried);
    expect(at.length).toBeGreaterThanOrEqual(1); // the run outgrew the context
    expect(at[0]!).toBeGreaterThan(10);
    // Presses between two slides: the jump frees half the history's room, 2-10 steps here by the
    // frames' lengths (the run the stepper now predicts slid at presses 17, 19, 33, 37; it was
    // 4 or more before it: which frame is long enough for that is a question left open).
    for (let k = 1; k < at.length; k++) expect(at[k]! - at[k - 1]!, `slides at presses ${at.join(', ')}`).toBeGreaterThanOrEqual(2);
    // Only a slide's press runs more than the last frame again (no look: the press runs the
    // last frame's tail, all of it when the history writes that frame otherwise than it was
    // decoded, e.g. a repr cut to 100 characters) plus its own few tokens; after presses the
    // stepper decided whole (no forward pass: model-client/decided-step.ts), their frames too.
    // The first press runs the launch state, which no press wrote.
    const frame = (j: number) => hurried[j]!.stats.sampledTokens + hurried[j]!.stats.forcedTokens;
    const decided = (j: number) => (hurried[j]!.stats.decidedSteps ?? 0) > 0;
    // Undefined where every press before was decided: this one runs the launch state too.
    const owed = (i: number) => {
      let tokens = 0;
      for (let j = i - 1; j >= 0; j--) {
        tokens += frame(j);
        if (!decided(j)) return tokens;
      }
      return undefined;
    };
    const heavy = hurried.flatMap((p, i) => {
      const tokens = owed(i);
      return tokens !== undefined && p.stats.prefilledTokens > Math.max(64, tokens + 16) ? [i + 1] : [];
    });
    // A slide rebuilds the cache at its press, or (a press the stepper decided runs nothing) at the next press the model decodes.
    const rebuilds = [...new Set(at.flatMap((press) => {
      const j = hurried.findIndex((_, k) => k >= press - 1 && !decided(k));
      return j < 0 ? [] : [j + 1];
    }))];
    expect(heavy).toEqual(rebuilds);
    // Late in the run, few presses rebuild (a long frame run again is not a rebuild).
    expect(heavy.filter((at) => at > PRESSES / 2).length).toBeLessThanOrEqual(Math.ceil(PRESSES / 2 / 8));
  });

  it('without prefetch, runs the slid prompt while the user looks: no press late in the run runs more than an early one', () => {
    expect(slides(looked)).toEqual(slides(hurried));
    const max = (ps: Press[]) => Math.max(...ps.map((p) => p.stats.prefilledTokens));
    const early = looked.slice(0, PRESSES / 2);
    const late = looked.slice(PRESSES / 2);
    expect(max(late)).toBeLessThanOrEqual(Math.max(max(early), 16));
    for (const at of slides(looked)) expect(looked[at - 1]!.stats.prefilledTokens).toBeLessThanOrEqual(16);
  });

  it('gives the same stops either way: the catch-up only moves work, never changes a prediction', () => {
    expect(looked.map((p) => p.state)).toEqual(hurried.map((p) => p.state));
  });
});
