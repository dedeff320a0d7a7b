/**
 * Repair feedback's rule (evaluation/repair-feedback.ts), the one verify_tests says of a
 * predicted run and `ndb eval verify` says of the real run: on hand-made states, and on real
 * runs of three small programs (the tracer: an exception, a local that takes its wrong value
 * on one line and keeps it, a value returned from an expression).
 */
import { describe, expect, it } from 'vitest';
import type { State } from '../grammar/state.js';
import { departureOf, realDeparture } from '../evaluation/repair-feedback.js';

const state = (event: State['event'], line: number, locals: Record<string, string>, depth = 1, value?: string): State => ({
  event,
  line,
  source: '',
  stack: Array.from({ length: depth }, (_, i) => ({ function: i === 0 ? 'f' : 'g', line })),
  locals,
  ...(value === undefined ? {} : { value }),
});

describe('departureOf', () => {
  it('the first exception, in any frame', () => {
    const states = [state('call', 1, { x: '0' }), state('line', 2, { x: '0' }), state('call', 5, {}, 2), state('exception', 6, {}, 2, "ZeroDivisionError('division by zero')")];
    expect(departureOf(states, { kind: 'error', value: "ZeroDivisionError('division by zero')" })).toMatchObject({ kind: 'raises', line: 6, index: 3 });
  });

  it('the line after which the returned local held its final value, in the entry frame only', () => {
    const states = [
      state('call', 1, { n: '3' }),
      state('line', 2, { n: '3' }),
      state('line', 3, { n: '3', s: '0' }),
      state('call', 8, { k: '3' }, 2), // a callee's own local of the same value does not count
      state('return', 9, { k: '3' }, 2, '4'),
      state('line', 4, { n: '3', s: '4' }),
      state('return', 4, { n: '3', s: '4' }, 1, '4'),
    ];
    expect(departureOf(states, { kind: 'normal', value: '4' })).toMatchObject({ kind: 'holds', line: 3, index: 5, holder: 's', value: '4' });
  });

  it('an argument returned as it came, a value no local holds, no states', () => {
    expect(departureOf([state('call', 1, { x: '1' }), state('line', 2, { x: '1' }), state('return', 2, { x: '1' }, 1, '1')], null)).toMatchObject({ kind: 'from_start', line: 1 });
    expect(departureOf([state('call', 1, { x: '1' }), state('line', 2, { x: '1' }), state('return', 2, { x: '1' }, 1, '3')], null)).toMatchObject({ kind: 'returns', line: 2 });
    expect(departureOf([], null)).toBeNull();
  });
});

describe('realDeparture (the real run, the same rule)', () => {
  it('raises: the exception line', async () => {
    expect(await realDeparture('def f(xs):\n    total = 0\n    for x in xs:\n        total += 10 // x\n    return total\n', 'f', '[1, 0]')).toMatchObject({ kind: 'raises', line: 4 });
  });

  it('a wrong value: the line that gave the returned local its last value', async () => {
    const code = 'def f(xs):\n    best = xs[0]\n    for x in xs:\n        if x < best:\n            best = x\n    return best\n';
    // max written as min: best becomes 1 on line 5 at the second item and keeps it.
    expect(await realDeparture(code, 'f', '[3, 1, 2]')).toMatchObject({ kind: 'holds', line: 5, holder: 'best', value: '1' });
  });

  it('a value returned from an expression: the return line; a run that never ends: none', async () => {
    expect(await realDeparture('def f(a, b):\n    c = a * 2\n    return a - b\n', 'f', '1, 2')).toMatchObject({ kind: 'returns', line: 3, value: '-1' });
    expect(await realDeparture('def f(n):\n    while True:\n        n += 1\n', 'f', '0')).toBeNull();
  });
});
