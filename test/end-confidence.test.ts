/**
 * The confidence a predicted end is shown with is the model's probability of the way there,
 * not of the end's own frame: after a wrong branch the last frame is nearly certain.
 */
import { describe, expect, it } from 'vitest';
import { Timeline, type Stop } from '../adapter/timeline.js';
import type { State } from '../grammar/state.js';
import { CERTAIN_STATE } from '../model-client/confidence.js';
import type { Origin } from '../model-client/predictor.js';

const state: State = { event: 'line', line: 2, source: 'return 1', stack: [{ function: 'f', line: 2 }], locals: {} };

function stop(origin: Origin, frame: number, edited: string[] = []): Stop {
  return { state, origin, confidence: { ...CERTAIN_STATE([], false), frame }, edited };
}

describe('Timeline.endConfidence', () => {
  it('multiplies the frames the model predicted since the input, the end included', () => {
    const t = new Timeline();
    t.reset(stop('input', 1), null);
    t.stops.push(stop('model', 0.5), stop('model', 0.8));
    t.end = { exit: { kind: 'normal', value: '1' }, origin: 'model', confidence: { kind: 1, value: 1, frame: 0.99 } };
    expect(t.endConfidence()).toBeCloseTo(0.5 * 0.8 * 0.99, 10);
  });

  it('starts again after a stop whose value the user set, and is null for an end the model did not predict', () => {
    const t = new Timeline();
    t.reset(stop('input', 1), null);
    t.stops.push(stop('model', 0.1), stop('model', 0.9, ['n']), stop('model', 0.5));
    t.end = { exit: { kind: 'normal', value: '1' }, origin: 'model', confidence: { kind: 1, value: 1, frame: 1 } };
    expect(t.endConfidence()).toBeCloseTo(0.5, 10);
    t.end = { exit: { kind: 'normal', value: '1' }, origin: 'tracer', confidence: { kind: 1, value: 1, frame: 1 } };
    expect(t.endConfidence()).toBeNull();
  });
});
