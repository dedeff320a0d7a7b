/**
 * Jumps by rollout (model-client/rollout.ts): a jump's stop condition, checked against the
 * state tree's moves on real runs (the first state after the jump's start that meets it is
 * where the tree lands); and the predictor working a step over a call out step by step with
 * the shipped model, or in one frame with rollouts off.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../grammar/state.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { stopWhen } from '../model-client/rollout.js';
import { StateTree } from '../state-tree/tree.js';
import { traceSource } from '../tracer/run-tracer.js';
import { HAS_MODEL, MODEL_DIR } from './fixtures.js';

const PROGRAM = [
  'def inner(x):', //                 1
  '    y = x * 2', //                 2
  '    if y > 4:', //                 3
  '        raise ValueError(y)', //   4
  '    return y', //                  5
  '', //                              6
  'def outer(xs):', //                7
  '    out = []', //                  8
  '    for x in xs:', //              9
  '        try:', //                  10
  '            out.append(inner(x))', // 11
  '        except ValueError:', //    12
  '            out.append(-1)', //    13
  '    return out', //                14
  '',
].join('\n');

describe('a jump stops where the state tree lands', () => {
  it('step_over, step_return, breakpoints and continue, from every state of a run with calls, a raise and a catch', async () => {
    const tree = new StateTree(await traceSource(PROGRAM, { entry: 'outer', args: '[1, 2, 3]' }));
    let checked = 0;
    for (let i = 0; i < tree.size; i++) {
      const from = tree.states[i]!;
      const actions: Action[] = [{ kind: 'step_over' }, { kind: 'step_return' }, { kind: 'continue' }, ...[2, 5, 13].map((line): Action => ({ kind: 'breakpoint', line, source: '' }))];
      for (const action of actions) {
        const stop = stopWhen(from, action)!;
        let found: number | undefined;
        for (let j = i + 1; j < tree.size && found === undefined; j++) if (stop(tree.states[j]!)) found = j;
        const landing = tree.move(i, action);
        expect('node' in landing ? landing.node : 'exit', `${action.kind} from state ${i}`).toBe(found ?? 'exit');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(stopWhen(tree.states[0]!, { kind: 'step_into' })).toBeNull();
  });
});

describe.runIf(HAS_MODEL)('the predictor rolls a jump out', () => {
  it('steps over a call line by line through the callee; with rollouts off, in one frame', async () => {
    const source = 'def double(x):\n    y = x * 2\n    return y\n\ndef f(n):\n    m = double(n)\n    return m + 1\n';
    const run = async (rolloutSteps: number) => {
      const p = await NeuralPredictor.load(MODEL_DIR, { threads: 1, rolloutSteps });
      try {
        const start = await p.start(source, { entry: 'f', args: '3' });
        if (start.kind !== 'state') throw new Error('no call state');
        const line = await p.predict([{ state: start.state }], { kind: 'step_over' });
        if (line.kind !== 'state') throw new Error('no line');
        return await p.predict([{ state: start.state, action: { kind: 'step_over' } }, { state: line.state }], { kind: 'step_over' });
      } finally {
        await p.release();
      }
    };
    const rolled = await run(64);
    expect(rolled.kind).toBe('state');
    if (rolled.kind === 'state') {
      expect(rolled.state.stack.map((f) => f.function)).toEqual(['f']);
      expect(rolled.state.line).toBe(7);
      // The callee's steps returned 6; the line received it (semantics/rules/received.ts).
      expect(rolled.state.locals.m).toBe('6');
      expect(rolled.stats?.rolledSteps).toBeGreaterThan(1);
    }
    const oneShot = await run(0);
    expect(oneShot.stats?.rolledSteps).toBeUndefined();
  });
});
