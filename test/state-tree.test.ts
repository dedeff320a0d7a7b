/**
 * The debugger actions as tree moves, on a hand-written trace whose shape is known exactly.
 * (The pdb cross-check tests the same moves against the real pdb on real traces.)
 */
import { describe, expect, it } from 'vitest';
import { StateTree } from '../state-tree/tree.js';
import type { Trace, TraceEvent } from '../tracer/events.js';

// def g(x):          1
//     return x + 1   2
// def f(a):          3
//     b = g(a)       4
//     return b       5
// def main():        6
//     y = f(1)       7
//     return y       8
const LINES = ['def g(x):', '    return x + 1', 'def f(a):', '    b = g(a)', '    return b', 'def main():', '    y = f(1)', '    return y'];

function ev(event: TraceEvent['event'], stack: [string, number][], locals: Record<string, string> = {}, value?: string): TraceEvent {
  const [fn, line] = stack[stack.length - 1]!;
  return {
    type: 'event',
    event,
    depth: stack.length - 1,
    function: fn,
    line,
    stack: stack.map(([function_, l]) => ({ function: function_, line: l })),
    locals,
    ...(value === undefined ? {} : { value }),
  };
}

const EVENTS: TraceEvent[] = [
  ev('call', [['main', 6]]), //                                 0
  ev('line', [['main', 7]]), //                                 1
  ev('call', [['main', 7], ['f', 3]], { a: '1' }), //            2
  ev('line', [['main', 7], ['f', 4]], { a: '1' }), //            3
  ev('call', [['main', 7], ['f', 4], ['g', 1]], { x: '1' }), //  4
  ev('line', [['main', 7], ['f', 4], ['g', 2]], { x: '1' }), //  5
  ev('return', [['main', 7], ['f', 4], ['g', 2]], { x: '1' }, '2'), // 6
  ev('line', [['main', 7], ['f', 5]], { a: '1', b: '2' }), //    7
  ev('return', [['main', 7], ['f', 5]], { a: '1', b: '2' }, '2'), // 8
  ev('line', [['main', 8]], { y: '2' }), //                     9
  ev('return', [['main', 8]], { y: '2' }, '2'), //              10
];

const TRACE: Trace = { program: LINES.join('\n') + '\n', lines: LINES, events: EVENTS, exit: { type: 'exit', exit: 'normal', value: '2' } };
const tree = new StateTree(TRACE);
const node = (n: number) => ({ node: n });
const exit = { exit: { kind: 'normal', value: '2' } };

describe('forward moves', () => {
  it('step_into replays the trace and ends at the exit', () => {
    for (let i = 0; i + 1 < tree.size; i++) expect(tree.forward(i, { kind: 'step_into' })).toEqual(node(i + 1));
    expect(tree.forward(tree.size - 1, { kind: 'step_into' })).toEqual(exit);
  });

  it('step_over never goes down, and goes up at the end of a function', () => {
    expect(tree.forward(1, { kind: 'step_over' })).toEqual(node(9)); // y = f(1) -> return y
    expect(tree.forward(3, { kind: 'step_over' })).toEqual(node(7)); // b = g(a) -> return b
    expect(tree.forward(6, { kind: 'step_over' })).toEqual(node(7)); // g's return -> back in f
    expect(tree.forward(10, { kind: 'step_over' })).toEqual(exit);
  });

  it('step_return goes to the return of the current frame, or up from a return', () => {
    expect(tree.forward(3, { kind: 'step_return' })).toEqual(node(8));
    expect(tree.forward(4, { kind: 'step_return' })).toEqual(node(6));
    expect(tree.forward(8, { kind: 'step_return' })).toEqual(node(9));
  });

  it('breakpoint stops at the first future line event on that line, at any depth, else acts like continue', () => {
    expect(tree.forward(0, { kind: 'breakpoint', line: 2, source: LINES[1]! })).toEqual(node(5));
    expect(tree.forward(5, { kind: 'breakpoint', line: 2, source: LINES[1]! })).toEqual(exit);
    expect(tree.forward(0, { kind: 'continue' })).toEqual(exit);
  });

  it('fills states with the source text of their line', () => {
    expect(tree.states[3]).toMatchObject({ event: 'line', line: 4, source: '    b = g(a)', locals: { a: '1' } });
  });
});

describe('inverse tree', () => {
  it('reverses the order and duplicates each calling line as line_call before its callee', () => {
    const shape = tree.inverse.map((n) => `${n.state.event}:${n.forward}`);
    expect(shape).toEqual([
      'return:10',
      'line:9',
      'line_call:1', // y = f(1), seen from after the call
      'return:8',
      'line:7',
      'line_call:3', // b = g(a)
      'return:6',
      'line:5',
      'call:4',
      'line:3',
      'call:2',
      'line:1',
      'call:0',
    ]);
    for (const [f, pos] of tree.inversePosition.entries()) expect(tree.inverse[pos]!.forward).toBe(f);
  });

  const at = (forward: number) => tree.inversePosition[forward]!;
  const inv = (pos: number) => ({ node: pos });

  it('inv_step_over skips callees; inv_step_into enters them at their return', () => {
    const lineCallY = tree.inverse.findIndex((n) => n.state.event === 'line_call' && n.forward === 1);
    expect(tree.backward(at(9), { kind: 'inv_step_over' })).toEqual(inv(lineCallY));
    expect(tree.backward(lineCallY, { kind: 'inv_step_over' })).toEqual(inv(at(1)));
    expect(tree.backward(lineCallY, { kind: 'inv_step_into' })).toEqual(inv(at(8)));
  });

  it('inv_step_call finds the call of the current frame (its arguments)', () => {
    expect(tree.backward(at(7), { kind: 'inv_step_call' })).toEqual(inv(at(2)));
    expect(tree.backward(at(5), { kind: 'inv_step_call' })).toEqual(inv(at(4)));
    expect(tree.backward(at(10), { kind: 'inv_step_call' })).toEqual(inv(at(0)));
    // From the call itself: on to the caller's line before the call.
    expect(tree.backward(at(2), { kind: 'inv_step_call' })).toEqual(inv(at(1)));
  });

  it('ends at the entry', () => {
    expect(tree.backward(at(0), { kind: 'inv_step_into' })).toEqual({ exit: { kind: 'entry' } });
    expect(tree.backward(at(1), { kind: 'inv_step_call' })).toEqual(inv(at(0)));
  });
});
