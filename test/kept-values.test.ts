/**
 * Two rules of the control-flow constraint that read names from the bytecode
 * (control_flow.py): a local keeps its value (immutables) or its type's mark (containers,
 * objects) unless the executed line binds it (semantics/rules/kept.ts), and step_into enters a plain
 * function only from a line that loads its name (ControlFlow.canCall). Their soundness against
 * real runs is the soundness test of control-flow.test.ts, which feeds every real move through
 * the same FrameConstraint.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Action, State } from '../grammar/state.js';
import { TOKENS as L } from '../grammar/tokens.js';
import { ControlFlow } from '../program-analysis/control-flow.js';
import { feedText } from '../evaluation/control-flow-check.js';
import { FrameConstraint } from '../model-client/frame-constraint.js';
import { oracle } from './oracle.js';
import { keptValueRule } from '../model-client/value-rules.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { sourceLines } from '../python/source.js';

const COLLECT = [
  'def collect(xs, label):', //     1
  '    out = []', //                2
  '    seen = set()', //            3
  '    for x in xs:', //            4
  '        out.append(x)', //       5
  '        seen.add(x)', //         6
  '    n = len(out)', //            7
  '    return label * n', //        8
  '',
].join('\n');

const CALLS = [
  'def helper(x):', //              1
  '    return x + 1', //            2
  'def other(y):', //               3
  '    return y * 2', //            4
  'def apply(fn, v):', //           5
  '    return fn(v)', //            6
  'def main(n):', //                7
  '    a = helper(n)', //           8
  '    b = apply(other, a)', //     9
  '    return [helper(k) for k in (a, b)]', // 10
  '',
].join('\n');

interface Program {
  lines: readonly string[];
  flow: ControlFlow;
}

async function program(source: string): Promise<Program> {
  return { lines: sourceLines(source), flow: (await ControlFlow.of(source))! };
}

function state(p: Program, event: State['event'], stack: [string, number][], locals: Record<string, string>): State {
  const line = stack[stack.length - 1]![1];
  return { event, line, source: p.lines[line - 1] ?? '', stack: stack.map(([function_, l]) => ({ function: function_, line: l })), locals, ...(event === 'return' || event === 'exception' ? { value: 'None' } : {}) };
}

async function allowed(p: Program, prev: State, action: Action, text: string): Promise<boolean> {
  const c = new FrameConstraint({ action, lines: p.lines, names: FrameNames.ofProgram(p.lines), prevFunction: prev.stack[prev.stack.length - 1]!.function, oracle: await oracle(p.flow, action, prev) });
  return feedText(c, text) && c.done;
}

describe('a name changes only on a line that binds it', () => {
  let p: Program;
  beforeAll(async () => {
    p = await program(COLLECT);
  });
  const locals = { xs: '[1, 2]', label: "'a'", out: '[]', seen: 'set()', x: '1' };
  const bareLine = (n: number, delta: string, inverse = false) => `${inverse ? L.invLineSep : L.lineSep}${L.locSep}${n}${L.argSep}{"..": ".."${delta}}${L.srcSep}${p.lines[n - 1]}${L.actionSep}`;
  const over = { kind: 'step_over' } as const;

  it('reads the names each line binds from the bytecode', async () => {
    const f = p.flow.frames.get('collect')!;
    expect([...f.stores.get(4)!]).toEqual(['x']);
    expect(f.stores.get(5)!.size).toBe(0);
    expect([...f.storedAnywhere].sort()).toEqual(['n', 'out', 'seen', 'x']);
  });

  it('a container not bound by the line keeps its mark; mutation may change the rest', async () => {
    const at5 = state(p, 'line', [['collect', 5]], locals);
    expect(await allowed(p, at5, over, bareLine(6, ', "out": "[1]"'))).toBe(true);
    expect(await allowed(p, at5, over, bareLine(6, ', "out": "\'1\'"'))).toBe(false);
    expect(await allowed(p, at5, over, bareLine(6, ', "out": "None"'))).toBe(false);
    // A set prints `set()` empty and `{1}` not: one mark.
    const at6 = state(p, 'line', [['collect', 6]], { ...locals, out: '[1]' });
    expect(await allowed(p, at6, over, bareLine(4, ', "seen": "{1}"'))).toBe(true);
    expect(await allowed(p, at6, over, bareLine(4, ', "seen": "[1]"'))).toBe(false);
  });

  it('an immutable value not bound by the line is the same text; the line that binds it may change it', async () => {
    const at5 = state(p, 'line', [['collect', 5]], locals);
    expect(await allowed(p, at5, over, bareLine(6, ', "out": "[1]", "x": "2"'))).toBe(false);
    expect(await allowed(p, at5, over, bareLine(6, ', "out": "[1]", "x": "1"'))).toBe(true);
    // `out.append(x)` changed out: a delta must write it.
    expect(await allowed(p, at5, over, bareLine(6, ', "x": "1"'))).toBe(false);
    // The `for` line binds x: it may change (to the next element, semantics/rules/loop.ts).
    const at4 = state(p, 'line', [['collect', 4]], locals);
    expect(await allowed(p, at4, over, bareLine(5, ', "x": "2"'))).toBe(true);
  });

  it('inverse steps mirror it: the earlier line is the one executed', async () => {
    const at6 = state(p, 'line', [['collect', 6]], { ...locals, out: '[1]' });
    const back = { kind: 'inv_step_over' } as const;
    expect(await allowed(p, at6, back, bareLine(5, ', "out": "[]"', true))).toBe(true);
    expect(await allowed(p, at6, back, bareLine(5, ', "out": "None"', true))).toBe(false);
    const at5 = state(p, 'line', [['collect', 5]], { ...locals, x: '2' });
    // From line 5 back to the `for` line, which binds x: x may differ (the element before, semantics/rules/loop.ts).
    expect(await allowed(p, at5, back, bareLine(4, ', "x": "1"', true))).toBe(true);
  });

  it('step_return keeps a parameter the function never rebinds', async () => {
    const at7 = state(p, 'line', [['collect', 7]], { ...locals, out: '[1, 2]', seen: '{1, 2}', x: '2' });
    const ret = (label: string) => `${L.returnSep}${L.locSep}collect:8${L.srcSep}${p.lines[7]}${L.argSep}"'aa'"${L.localsSep}{"xs": "[1, 2]", "label": ${JSON.stringify(label)}, "out": "[1, 2]", "seen": "{1, 2}", "x": "2", "n": "2"}${L.actionSep}`;
    expect(await allowed(p, at7, { kind: 'step_return' }, ret("'a'"))).toBe(true);
    expect(await allowed(p, at7, { kind: 'step_return' }, ret("'b'"))).toBe(false);
    // A non-ASCII character, checked while its UTF-8 bytes arrive (found on a real run of encodings.punycode).
    const kana = { ...at7, locals: { ...at7.locals, label: "'MajiでKoi'" } };
    expect(await allowed(p, kana, { kind: 'step_return' }, ret("'MajiでKoi'"))).toBe(true);
    expect(await allowed(p, kana, { kind: 'step_return' }, ret("'MajiKoi'"))).toBe(false);
  });

  it('is off for cell variables, and where the program can write frames by hand', async () => {
    const cell = await program('def f(xs):\n    out = []\n    add = lambda v: out.append(v)\n    add(1)\n    return out\n');
    expect(cell.flow.frames.get('f')!.shared.has('out')).toBe(true);
    const hand = await program('def f(x):\n    locals()["x"] = 2\n    return x\n');
    expect(hand.flow.programNames.localsByCodeOnly).toBe(false);
    expect(p.flow.programNames.localsByCodeOnly).toBe(true);
  });

  it('keptValueRule: the same text for immutables, the mark for the rest, nothing for names it cannot tell', async () => {
    const exact = keptValueRule("'a'")!;
    expect([exact.complete("'a'"), exact.complete("'b'"), exact.prefix("'"), exact.prefix('"')]).toEqual([true, false, true, false]);
    const ctor = keptValueRule('deque([1])')!;
    expect([ctor.complete('deque([])'), ctor.complete('[1]'), ctor.prefix('deq')]).toEqual([true, false, true]);
    expect(keptValueRule('re.IGNORECASE')).toBeUndefined();
    expect(keptValueRule('<repr failed: ValueError>')).toBeUndefined();
  });
});

describe('step_into enters a function the current line can call', () => {
  let p: Program;
  beforeAll(async () => {
    p = await program(CALLS);
  });
  const into = { kind: 'step_into' } as const;
  const call = (stack: string, def: number, locals: string) => `${L.callSep}${L.locSep}${stack}${L.srcSep}${p.lines[def - 1]}${L.argSep}${locals}${L.actionSep}`;

  it('reads the functions only ever called by name', async () => {
    expect([...p.flow.programNames.directOnly].sort()).toEqual(['apply', 'helper', 'main']);
  });

  it('a plain function only from a line that loads its name (its comprehensions too); one used as a value from anywhere', async () => {
    const at8 = state(p, 'line', [['main', 8]], { n: '1' });
    expect(await allowed(p, at8, into, call('main:8 helper:1', 1, '{"x": "1"}'))).toBe(true);
    expect(await allowed(p, at8, into, call('main:8 apply:5', 5, '{"fn": "<function other at 0x…>", "v": "2"}'))).toBe(false);
    // `other` is passed as a value: it may be called from anywhere the control flow can tell;
    // but line 8's one call is helper's, on an argument the state shows (semantics/rules/called.ts).
    expect(await allowed(p, at8, into, call('main:8 other:3', 3, '{"y": "2"}'))).toBe(false);
    const at9 = state(p, 'line', [['main', 9]], { n: '1', a: '2' });
    expect(await allowed(p, at9, into, call('main:9 other:3', 3, '{"y": "2"}'))).toBe(true);
    expect(await allowed(p, at9, into, call('main:9 apply:5', 5, '{"fn": "<function other at 0x…>", "v": "2"}'))).toBe(true);
    expect(await allowed(p, at9, into, call('main:9 helper:1', 1, '{"x": "1"}'))).toBe(false);
    // Line 10's comprehension runs in a frame of its own, and it calls helper.
    const inComp = state(p, 'line', [['main', 10], ['<listcomp>', 10]], { '.0': '<tuple_iterator object at 0x…>', k: '2' });
    expect(await allowed(p, inComp, into, call('main:10 <listcomp>:10 helper:1', 1, '{"x": "2"}'))).toBe(true);
  });

  it('every function from anywhere where the program reaches names dynamically', async () => {
    const dynamic = await program('def g():\n    return 1\ndef f():\n    return globals()["g"]()\n');
    expect(dynamic.flow.programNames.directOnly.size).toBe(0);
  });
});
