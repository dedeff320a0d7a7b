/**
 * The rules whose values need Python's value semantics, decided by CPython's own walker
 * (semantics/evaluate.py through semantics/python-session.ts) on the values a state shows:
 * what control_flow.py lists as decidable (simple statements, branch tests, returned
 * expressions, pure functions, imports), the values the oracle then decides, and the
 * landings a branch test narrows. The walker's semantics themselves are checked against
 * Python on thousands of random cases in test/python-semantics.test.ts; that every decided
 * value is the real one, over real runs, in test/control-flow.test.ts's soundness check.
 */
import { describe, expect, it } from 'vitest';
import type { Action, State } from '../grammar/state.js';
import { ControlFlow } from '../program-analysis/control-flow.js';
import { sourceLines } from '../python/source.js';
import type { FrameAt } from '../semantics/step.js';
import { oracle } from './oracle.js';

const PARSE = [
  'import math', //                                          1
  'from re import findall', //                               2
  'def sq(n):', //                                           3
  '    return n * n', //                                     4
  '', //                                                     5
  'def f(line, xs):', //                                     6
  '    words = line.strip().split(",")', //                  7
  '    xs.append(sq(len(words)))', //                        8
  '    if words[0] == "a": xs.sort(key=lambda v: -v)', //    9
  '    total = sum(xs)', //                                  10
  '    total += 2', //                                       11
  '    d = {w: len(w) for w in words}', //                   12
  '    if math.sqrt(total) > 2:', //                         13
  '        return [w.upper() for w in words]', //            14
  '    return findall("[a-z]", line)', //                    15
  '',
].join('\n');
const lines = sourceLines(PARSE);
const over: Action = { kind: 'step_over' };
const at = (line: number, locals: Record<string, string>, fn = 'f'): State => ({ event: 'line', line, source: lines[line - 1] ?? '', stack: [{ function: fn, line }], locals });
const bare = (line: number, event: FrameAt['event'] = 'line'): FrameAt => ({ event, line, bare: true, function: 'f' });

describe('what control_flow.py lists for the walker', () => {
  it('simple statements with the names they bind, returned expressions, branch tests, pure functions and imports, as source', async () => {
    const flow = (await ControlFlow.of(PARSE))!;
    // A method called on a local may change it in place (a str's cannot, but the text does not say it is one).
    expect(flow.statements.get(7)).toEqual({ source: "words = line.strip().split(',')", binds: ['line', 'words'] });
    expect(flow.statements.get(9)).toEqual({ source: "if words[0] == 'a': xs.sort(key=lambda v: -v)", binds: ['xs'], opens: true });
    expect(flow.statements.get(11)).toEqual({ source: 'total += 2', binds: ['total'], undo: { name: 'total', op: '+', part: '2' } });
    expect(flow.returned.get(15)).toBe("findall('[a-z]', line)");
    expect(flow.branches.get(13)).toEqual({ test: 'math.sqrt(total) > 2', body: 14 });
    expect(flow.bindings).toEqual({ modules: { math: 'math' }, names: { findall: 're.findall' }, functions: { sq: { params: ['n'], body: 'n * n' } } });
  });

  it("reads what can reach a frame by hand from the syntax tree, not the text: a function named `evaluate` switches nothing off", async () => {
    const byCode = async (source: string) => (await ControlFlow.of(source))!.programNames.localsByCodeOnly;
    expect(await byCode('def evaluate(retrieval):\n    # eval, locals, gc.collect in a comment\n    s = "exec"\n    return retrieval + 1\n')).toBe(true);
    expect(await byCode('def f(x):\n    y = 1\n    return locals()\n')).toBe(false);
    expect(await byCode('import sys\ndef f(x):\n    return sys._getframe().f_locals\n')).toBe(false);
    expect(await byCode('import gc\ndef f(x):\n    return x\n')).toBe(false);
    expect(await byCode('class A:\n    def __repr__(self):\n        return "1"\n')).toBe(false);
  });

  it('leaves out what would run the program: a call of its own function, a builtin it rebinds, a class', async () => {
    const flow = (await ControlFlow.of('def g(x):\n    print(x)\n    return x\ndef len(x):\n    return 0\ndef f(s):\n    y = g(s)\n    n = len(s)\n    if g(s): pass\n    return s\n'))!;
    expect(flow.statements.has(7)).toBe(false);
    expect(flow.statements.has(8)).toBe(false);
    expect(flow.branches.has(9)).toBe(false);
    expect((await ControlFlow.of('class A(int):\n    pass\ndef f(x):\n    y = x + 1\n    return y\n'))!.statements.size).toBe(0);
  });
});

describe('values the walker decides', () => {
  const locals = { line: "' a,b '", xs: '[3]' };

  it("str, list and dict methods, a pure function of the program's, a comprehension, an import", async () => {
    const flow = (await ControlFlow.of(PARSE))!;
    const value = async (line: number, shown: Record<string, string>, name: string) => (await oracle(flow, over, at(line, shown))).frame(bare(line + 1)).value(name);
    expect(await value(7, locals, 'words')).toMatchObject({ kind: 'exact', repr: "['a', 'b']", rule: 'assigned', binds: true });
    expect(await value(8, { ...locals, words: "['a', 'b']" }, 'xs')).toMatchObject({ kind: 'exact', repr: '[3, 4]' });
    // The `if` on one line: its statement runs where the test holds; elsewhere xs is as it was.
    expect(await value(9, { ...locals, words: "['a', 'b']", xs: '[3, 4]' }, 'xs')).toMatchObject({ repr: '[4, 3]' });
    expect(await value(9, { ...locals, words: "['b']", xs: '[3, 4]' }, 'xs')).toMatchObject({ repr: '[3, 4]' });
    expect(await value(12, { words: "['a', 'bc']" }, 'd')).toMatchObject({ repr: "{'a': 1, 'bc': 2}" });
    const returned = (await oracle(flow, over, at(15, { line: "'a1b'" }))).frame(bare(15, 'return')).returns;
    expect(returned).toEqual({ reprs: ["['a', 'b']"], rule: 'returned' });
  });

  it('nothing where a value is cut, not shown, or the line raises', async () => {
    const flow = (await ControlFlow.of(PARSE))!;
    const value = async (line: number, shown: Record<string, string>, name: string) => (await oracle(flow, over, at(line, shown))).frame(bare(line + 1)).value(name);
    expect(await value(7, { line: "'a,b…" }, 'words')).toBeUndefined();
    expect(await value(7, {}, 'words')).toBeUndefined();
    expect(await value(10, { xs: "[1, 'a']" }, 'total')).toBeUndefined(); // sum raises TypeError
  });

  it('stepping back over `total += 2`, the value before', async () => {
    const flow = (await ControlFlow.of(PARSE))!;
    const back = await oracle(flow, { kind: 'inv_step_over' }, at(12, { total: '9', xs: '[3, 4]' }));
    expect(back.frame(bare(11)).value('total')).toMatchObject({ kind: 'exact', repr: '7', rule: 'undone' });
  });
});

const PROGRAM = [
  'def f(s, n):', //                       1
  '    i = 0', //                           2
  '    while i < len(s) and s[i] != " ":', // 3
  '        i += 1', //                      4
  '    if n % 2 == 0:', //                  5
  '        return i', //                    6
  '    return -i', //                       7
].join('\n');

const line = (n: number, shown: Record<string, string>): State => ({ event: 'line', line: n, source: '', stack: [{ function: 'f', line: n }], locals: shown });

describe('branch landing', () => {
  it('lists the headers a state can decide, not those that call the program', async () => {
    const flow = (await ControlFlow.of(`${PROGRAM}\ndef g(x):\n    if f(x, 1):\n        return 1\n    return 0\n`))!;
    expect([...flow.branches.keys()]).toEqual([3, 5]);
    expect(flow.branches.get(5)!.body).toBe(6);
    // Classes may print as ints or lists and compare their own way.
    expect((await ControlFlow.of(`${PROGRAM}\nclass A(int):\n    pass\n`))!.branches.size).toBe(0);
  });

  it('steps into the body exactly when the test holds', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const step = async (state: State) => (await oracle(flow, over, state)).landing();
    expect([...(await step(line(3, { s: "'ab c'", n: '2', i: '0' }))).line!.bare!]).toEqual([4]);
    expect([...(await step(line(3, { s: "'ab c'", n: '2', i: '2' }))).line!.bare!]).toEqual([5]);
    expect([...(await step(line(5, { s: "''", n: '3', i: '0' }))).line!.bare!]).toEqual([7]);
    // Not decided: the state does not show n.
    expect((await step(line(5, { s: "''", i: '0' }))).line!.bare!.has(6)).toBe(true);
  });

  it("evaluates a call of the program's one-line functions: step_over decides, step_into stops in the callee first", async () => {
    const program = [
      'def same(c, t):', //                                    1
      '    return c == t', //                                  2
      'def fact(n):', //                                       3
      '    """n!"""', //                                       4
      '    return 1 if n <= 1 else n * fact(n - 1)', //        5
      'def count(s, t):', //                                   6
      '    if same(s[0], t):', //                              7
      '        return fact(len(s))', //                        8
      '    return g', //                                       9
    ].join('\n');
    const flow = (await ControlFlow.of(program))!;
    expect(Object.keys(flow.bindings.functions).sort()).toEqual(['fact', 'same']);
    const state: State = { event: 'line', line: 7, source: '', stack: [{ function: 'count', line: 7 }], locals: { s: "'berry'", t: "'r'" } };
    expect([...(await oracle(flow, over, state)).landing().line!.bare!]).toEqual([9]);
    const into = flow.landing({ kind: 'step_into' }, state);
    expect((await oracle(flow, { kind: 'step_into' }, state)).landing()).toEqual(into);
    const ret = (shown: Record<string, string>) => oracle(flow, over, { event: 'line', line: 8, source: '', stack: [{ function: 'count', line: 8 }], locals: shown });
    expect((await ret({ s: "'rye'", t: "'r'" })).frame({ event: 'return', line: 8, bare: true, function: 'count' }).returns?.reprs).toEqual(['6']);
    // Past the depth the walker allows a function of the program, nothing is decided.
    expect((await ret({ s: `'${'x'.repeat(5000)}'` })).frame({ event: 'return', line: 8, bare: true, function: 'count' }).returns).toBeUndefined();
  });

  it('stepping back, leaves out a header whose test would have led elsewhere', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const back = async (state: State) => [...(await oracle(flow, { kind: 'inv_step_over' }, state)).landing().line!.bare!];
    // On line 5 with s[i] == ' ': the loop ended there, so the header was the line before.
    expect(await back(line(5, { s: "'ab c'", n: '2', i: '2' }))).toContain(3);
    // With i < len(s) and s[i] != ' ' the loop would have gone on: not from the header.
    expect(await back(line(5, { s: "'ab c'", n: '2', i: '1' }))).not.toContain(3);
    // Line 7 comes from line 5 only with an odd n.
    expect(await back(line(7, { s: "''", n: '2', i: '0' }))).not.toContain(5);
    expect(await back(line(7, { s: "''", n: '3', i: '0' }))).toContain(5);
  });
});

describe('stepping into a call of the program', () => {
  const CALLS = [
    'def parse_line(line, sep=","):', //         1
    '    return line.split(sep)', //              2
    '', //                                        3
    'def count(text, word):', //                  4
    '    entry = parse_line(text[1:])', //        5
    '    rest = parse_line(text, sep=" ")', //    6
    '    return len(entry) + len(rest)', //       7
    '',
  ].join('\n');
  const into: Action = { kind: 'step_into' };
  const caller = (line: number, shown: Record<string, string>): State => ({ event: 'line', line, source: '', stack: [{ function: 'count', line }], locals: shown });
  const callFrame = { event: 'call', line: 1, bare: false, function: 'parse_line' } as const;

  it("lands on the callee's call with its parameters bound to the arguments, defaults and keywords included", async () => {
    const flow = (await ControlFlow.of(CALLS))!;
    expect(flow.calls.get(5)).toEqual({ callee: 'parse_line', line: 1, params: { line: 'text[1:]', sep: "','" } });
    const first = await oracle(flow, into, caller(5, { text: "'xa,b'", word: "'a'" }));
    expect(first.landing()).toMatchObject({ call: { stacks: new Set(['count:5 parse_line:1']) }, line: { bare: new Set() } });
    expect(first.frame(callFrame).value('line')).toMatchObject({ kind: 'exact', repr: "'a,b'", rule: 'called' });
    expect(first.frame(callFrame).value('sep')).toMatchObject({ kind: 'exact', repr: "','" });
    expect(first.frame(callFrame).mustWrite).toEqual(['line', 'sep']);
    const second = await oracle(flow, into, caller(6, { text: "'a b'", word: "'a'", entry: "['a']" }));
    expect(second.frame({ ...callFrame }).value('sep')).toMatchObject({ repr: "' '" });
  });

  it('decides nothing where an argument is not known or raises, nor for step_over', async () => {
    const flow = (await ControlFlow.of(CALLS))!;
    expect((await oracle(flow, into, caller(5, { word: "'a'" }))).frame(callFrame).value('line')).toBeUndefined();
    expect((await oracle(flow, into, caller(5, { text: '3', word: "'a'" }))).frame(callFrame).value('line')).toBeUndefined();
    expect((await oracle(flow, over, caller(5, { text: "'xa,b'", word: "'a'" }))).frame(callFrame).value('line')).toBeUndefined();
  });
});

describe('what a repr does not tell is not decided (found by the soundness check on real runs)', () => {
  it("stepping back to a header whose test may change what it reads (`stack.pop()`), nothing is ruled out by it", async () => {
    const source = 'def f(s):\n    stack = []\n    for p in s:\n        if p == "(":\n            stack.append(p)\n        elif len(stack) == 0 or stack.pop() != p:\n            return False\n    return not stack\n';
    const flow = (await ControlFlow.of(source))!;
    expect(flow.branches.get(6)).toMatchObject({ changes: true });
    const back = await oracle(flow, { kind: 'inv_step_over' }, { event: 'line', line: 3, source: '', stack: [{ function: 'f', line: 3 }], locals: { s: "'()'", stack: '[]', p: "')'" } });
    expect(back.landing().line?.bare?.has(6)).toBe(true);
  });

  it('a loop over a value cut short: the element after one held is not known (it may be a copy past the cut)', async () => {
    const source = 'def f(s):\n    n = 0\n    for c in s:\n        n += 1\n    return n\n';
    const flow = (await ControlFlow.of(source))!;
    const at3 = (locals: Record<string, string>) => ({ event: 'line' as const, line: 3, source: '', stack: [{ function: 'f', line: 3 }], locals });
    const next = async (locals: Record<string, string>) => (await oracle(flow, over, at3(locals))).frame({ event: 'line', line: 4, bare: true, function: 'f' }).value('c');
    expect(await next({ s: "'abab'", n: '1', c: "'a'" })).toMatchObject({ kind: 'one_of', reprs: ["'b'"] });
    expect(await next({ s: "'abab…", n: '1', c: "'a'" })).toBeUndefined();
  });

  it('a value holding a function the walker made (a lambda) is left to the model: its repr names the program\'s own', async () => {
    const source = 'from collections import defaultdict\ndef f():\n    mp = defaultdict(lambda: 0)\n    d = defaultdict(int)\n    return mp, d\n';
    const flow = (await ControlFlow.of(source))!;
    const value = async (line: number, locals: Record<string, string>, name: string) => (await oracle(flow, over, { event: 'line', line, source: '', stack: [{ function: 'f', line }], locals })).frame({ event: 'line', line: line + 1, bare: true, function: 'f' }).value(name);
    expect(await value(3, {}, 'mp')).toBeUndefined();
    expect(await value(4, { mp: "defaultdict(<function f.<locals>.<lambda> at 0x…>, {})" }, 'd')).toMatchObject({ repr: "defaultdict(<class 'int'>, {})" });
  });
});

describe('whole programs: the module, a class, its constructor and methods (semantics/rules/called.ts, received.ts, unbound.ts)', () => {
  const PROGRAM = [
    'class Stock:', //                                    1
    '    count = 0', //                                   2
    '    def __init__(self, name):', //                   3
    '        self.name = name', //                        4
    '        self.items = {}', //                         5
    '    def add(self, item, qty=1):', //                 6
    '        self.items[item] = qty', //                  7
    '        return qty', //                              8
    '', //                                                9
    'def parse(line):', //                                10
    '    name, qty = line.split(",")', //                 11
    '    return name.strip(), int(qty)', //               12
    '', //                                                13
    'def main():', //                                     14
    '    s = Stock("w")', //                              15
    '    item, qty = parse("bolt, 3")', //                16
    '    n = s.add(item, qty) if qty else 0', //          17
    '    got = s.add(item)', //                           18
    '    return got', //                                  19
    '', //                                                20
    'if __name__ == "__main__":', //                      21
    '    main()', //                                      22
    '',
  ].join('\n');
  const into: Action = { kind: 'step_into' };
  const OBJECT = '<__main__.Stock object at 0x…>';
  const inMain = (line: number, locals: Record<string, string>, event: State['event'] = 'line'): State => ({ event, line, source: '', stack: [{ function: '<module>', line: 22 }, { function: 'main', line }], locals });
  const returning = (fn: string, line: number, value: string, locals: Record<string, string>, callLine: number): State => ({
    event: 'return', line, source: '', value, locals, stack: [{ function: '<module>', line: 22 }, { function: 'main', line: callLine }, { function: fn, line }],
  });

  it('a class statement enters its body; the module and the class body show their data only; a script runs its main guard', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const module = (line: number): State => ({ event: 'line', line, source: '', stack: [{ function: '<module>', line }], locals: {} });
    expect((await oracle(flow, into, module(1))).landing()).toMatchObject({ call: { stacks: new Set(['<module>:1 Stock:1']) }, line: { bare: new Set() }, return: { bare: new Set() } });
    // Inside the body, its own first line goes on to its next.
    const body = await oracle(flow, into, { event: 'line', line: 1, source: '', stack: [{ function: '<module>', line: 1 }, { function: 'Stock', line: 1 }], locals: {} });
    expect(body.landing().line?.bare).toEqual(new Set([2]));
    // `def parse(line):` at the top level neither returns, raises nor calls.
    expect((await oracle(flow, into, module(10))).landing()).toMatchObject({ line: { bare: new Set([14]) }, return: { bare: new Set() }, exception: { bare: new Set() }, call: { stacks: new Set() } });
    expect(flow.frames.get('<module>')!.shown).toEqual(new Set());
    expect(flow.frames.get('Stock')!.shown).toEqual(new Set(['count']));
    expect(flow.unboundOnCall('Stock')).toEqual(new Set(['count']));
    expect(flow.unboundOnCall('main')).toEqual(new Set(['s', 'item', 'qty', 'n', 'got']));
    expect(flow.branches.get(21)).toEqual({ test: 'True', body: 22 });
    // A method storing its own attributes raises nothing where no class hooks attribute stores.
    expect(flow.raisesOf('__init__')!.has(4)).toBe(false);
    // A subclass of list prints as a list: nothing is read off such a program's reprs.
    expect((await ControlFlow.of(`class Bag(list):\n    pass\n${PROGRAM}`))!.calls.size).toBe(0);
    expect((await oracle(flow, into, module(21))).landing().line?.bare).toEqual(new Set([22]));
  });

  it("`K(ARGS)` enters __init__ with a new object as self; `obj.m(ARGS)` binds self to the caller's object; a call under a condition is not surely made", async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    expect(flow.calls.get(15)).toEqual({ callee: '__init__', line: 3, params: { name: "'w'" }, instance: 'Stock', self: 'self' });
    expect(flow.calls.get(17)).toBeUndefined();
    const init = await oracle(flow, into, inMain(15, {}));
    expect(init.landing().call?.stacks).toEqual(new Set(['<module>:22 main:15 __init__:3']));
    const initFrame = { event: 'call', line: 3, bare: false, function: '__init__' } as const;
    expect(init.frame(initFrame).value('self')).toMatchObject({ kind: 'exact', repr: OBJECT, rule: 'called' });
    expect(init.frame(initFrame).value('name')).toMatchObject({ kind: 'exact', repr: "'w'" });
    const addFrame = { event: 'call', line: 6, bare: false, function: 'add' } as const;
    const add = await oracle(flow, into, inMain(18, { s: OBJECT, item: "'bolt'", qty: '3' }));
    expect(add.frame(addFrame).value('self')).toMatchObject({ kind: 'exact', repr: OBJECT });
    expect(add.frame(addFrame).value('qty')).toMatchObject({ kind: 'exact', repr: '1' });
    // A receiver that is not one of the classes running `add` (a set's add is no call of the program's).
    const set = await oracle(flow, into, inMain(18, { s: '{1}', item: "'bolt'", qty: '3' }));
    expect(set.frame(addFrame).value('self')).toBeUndefined();
    expect(set.landing().line?.bare?.size).toBeGreaterThan(0);
  });

  it('a line receives the object a constructor made, the items a returned tuple unpacks into; __init__ returns None', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const back = (at: number) => ({ event: 'line', line: at, bare: false, function: 'main' }) as const;
    const made = await oracle(flow, over, returning('__init__', 5, 'None', { self: OBJECT, name: "'w'" }, 15));
    expect(made.frame(back(16)).value('s')).toMatchObject({ kind: 'exact', repr: OBJECT, rule: 'received' });
    const parsed = await oracle(flow, over, returning('parse', 12, "('bolt', 3)", { line: "'bolt, 3'", name: "'bolt'", qty: "' 3'" }, 16));
    expect(parsed.frame(back(17)).value('item')).toMatchObject({ kind: 'exact', repr: "'bolt'" });
    expect(parsed.frame(back(17)).value('qty')).toMatchObject({ kind: 'exact', repr: '3' });
    // Unpacking as many items as names raises nothing.
    expect(parsed.landing().exception?.stacks).toEqual(new Set());
    expect(flow.returnsValue('__init__', 5)).toBe(false);
    const ret = await oracle(flow, over, { event: 'line', line: 5, source: '', stack: [{ function: 'main', line: 15 }, { function: '__init__', line: 5 }], locals: { self: OBJECT, name: "'w'" } });
    expect(ret.frame({ event: 'return', line: 5, bare: true, function: '__init__' }).returns).toMatchObject({ reprs: ['None'] });
  });

  it('after a step within a frame, it holds only the names it held and those the line just run binds', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const next = await oracle(flow, over, inMain(16, { s: OBJECT }));
    const unbound = next.frame({ event: 'line', line: 17, bare: true, function: 'main' }).unbound;
    expect([...unbound].sort()).toEqual(['got', 'n']);
  });
});

describe('values a whole program decides (semantics/rules/loop.ts, received.ts, kept.ts; Step.globals)', () => {
  const PROGRAM = [
    'ROWS = [("a", 1), ("b", 2)]', //                      1
    'HEADER = "name,age"', //                              2
    '', //                                                 3
    'def parse(line):', //                                 4
    '    return line.split(",")', //                       5
    '', //                                                 6
    'def load(text):', //                                  7
    '    lines = text.split("\\n")', //                     8
    '    out = []', //                                     9
    '    for line in lines[1:]:', //                       10
    '        out.append(parse(line))', //                  11
    '    for name, n in ROWS:', //                         12
    '        print(name, n, HEADER)', //                   13
    '    return out', //                                   14
    '',
  ].join('\n');
  const module = { event: 'line', line: 15, source: '', stack: [{ function: '<module>', line: 15 }], locals: { ROWS: "[('a', 1), ('b', 2)]", HEADER: "'name,age'" } } as State;
  const inLoad = (line: number, locals: Record<string, string>, event: State['event'] = 'line'): State => ({ event, line, source: '', stack: [{ function: '<module>', line: 15 }, { function: 'load', line }], locals });
  const body = (line: number) => ({ event: 'line', line, bare: true, function: 'load' }) as const;

  it("a loop over an expression walks its elements; `for k, v in pairs` unpacks them; a module's constants are read whole", async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    expect(flow.constants.get('ROWS')).toEqual({ read_only: true, line: 1, straight: true, literal: "[('a', 1), ('b', 2)]" });
    const shown = { text: "'h\\nx,1\\ny,2'", lines: "['h', 'x,1', 'y,2']", out: '[]' };
    expect((await oracle(flow, over, inLoad(10, shown), { entry: module })).frame(body(11)).value('line')).toMatchObject({ kind: 'one_of', reprs: ["'x,1'"], rule: 'loop' });
    const rows = await oracle(flow, over, inLoad(12, { ...shown, line: "'y,2'", out: "[['x', '1'], ['y', '2']]" }), { entry: module });
    expect(rows.frame(body(13)).value('name')).toMatchObject({ reprs: ["'a'"] });
    expect(rows.frame(body(13)).value('n')).toMatchObject({ reprs: ['1'] });
  });

  it("`xs.append(f(x))` gets f's value at its end; a name the call could not reach keeps its value exactly", async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const caller = inLoad(11, { text: "'h\\nx,1'", lines: "['h', 'x,1']", out: '[]', line: "'x,1'" });
    const call = { event: 'call', line: 4, source: '', stack: [...caller.stack, { function: 'parse', line: 4 }], locals: { line: "'x,1'" } } as State;
    const ret = { event: 'return', line: 5, source: '', stack: [...caller.stack, { function: 'parse', line: 5 }], locals: { line: "'x,1'" }, value: "['x', '1']" } as State;
    const back = await oracle(flow, over, ret, { caller, frameStates: [call] });
    const at = { event: 'line', line: 10, bare: false, function: 'load' } as const;
    expect(back.frame(at).value('out')).toMatchObject({ kind: 'exact', repr: "[['x', '1']]", rule: 'received' });
    expect(back.frame(at).value('lines')).toMatchObject({ kind: 'exact', repr: "['h', 'x,1']", rule: 'kept' });
    // Without the callee's call in the history, only the same object.
    expect((await oracle(flow, over, ret, { caller })).frame(at).value('lines')).toMatchObject({ kind: 'kept' });
  });

  it('a step never ends the run but from the outermost frame\'s return; a line that changes no object keeps every value', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    expect(flow.runGoesOn(over, inLoad(9, {}))).toBe(true);
    // The module's line: its return event comes first.
    expect(flow.runGoesOn(over, module)).toBe(true);
    expect(flow.runGoesOn(over, { ...module, event: 'return', value: 'None' })).toBe(false);
    expect(flow.runGoesOn({ kind: 'continue' }, inLoad(9, {}))).toBe(false);
    expect(flow.pureLines.has(8)).toBe(true);
    expect(flow.pureLines.has(11)).toBe(false);
    const pure = await oracle(flow, over, inLoad(8, { text: "'h'", extra: '[1]' }));
    expect(pure.frame(body(9)).value('extra')).toMatchObject({ kind: 'exact', repr: '[1]', rule: 'kept' });
  });
});

describe('calls and methods of whole programs (semantics/rules/kept.ts, received.ts; control_flow.py codes)', () => {
  const PROGRAM = [
    'def fib(n, cache):', //                          1
    '    if n not in cache:', //                      2
    '        cache[n] = n', //                        3
    '    return cache[n]', //                         4
    '', //                                            5
    'def table(limit):', //                           6
    '    cache = {}', //                              7
    '    out = []', //                                8
    '    for n in range(limit):', //                  9
    '        out.append(fib(n, cache))', //           10
    '    return out', //                              11
    '', //                                            12
    'class A:', //                                    13
    '    def __init__(self, x):', //                  14
    '        self.x = x', //                          15
    '', //                                            16
    'class B:', //                                    17
    '    def __init__(self, y):', //                  18
    '        self.y = y', //                          19
    '',
  ].join('\n');
  const inTable = (line: number, locals: Record<string, string>, event: State['event'] = 'line'): State => ({ event, line, source: '', stack: [{ function: 'table', line }], locals });

  it("a dict passed to a parameter the callee never rebinds holds, back in the caller, what the parameter showed at the callee's return", async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const caller = inTable(10, { limit: '2', cache: '{}', out: '[]', n: '0' });
    const call = { event: 'call', line: 1, source: '', stack: [{ function: 'table', line: 10 }, { function: 'fib', line: 1 }], locals: { n: '0', cache: '{}' } } as State;
    const ret = { event: 'return', line: 4, source: '', stack: [{ function: 'table', line: 10 }, { function: 'fib', line: 4 }], locals: { n: '0', cache: '{0: 0}' }, value: '0' } as State;
    const back = await oracle(flow, over, ret, { caller, frameStates: [call] });
    const at = { event: 'line', line: 9, bare: false, function: 'table' } as const;
    expect(back.frame(at).value('cache')).toMatchObject({ kind: 'exact', repr: '{0: 0}', rule: 'kept' });
    expect(back.frame(at).value('out')).toMatchObject({ kind: 'exact', repr: '[0]', rule: 'received' });
  });

  it("a class's __init__ starts on its own first line, not another class's method of the same name", async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const call = { event: 'call', line: 18, source: '', stack: [{ function: '<module>', line: 21 }, { function: '__init__', line: 18 }], locals: { self: '<__main__.B object at 0x…>', y: '1' } } as State;
    const landing = flow.landing(over, call);
    expect([...(landing.line?.bare ?? [])]).toEqual([19]);
    // A first call reports its first line event before anything else.
    expect(landing.exception?.bare?.size ?? 0).toBe(0);
    expect(landing.call?.stacks?.size ?? 0).toBe(0);
  });

  it('a statement the walker ran raises nothing: after `cache = {}` only the next line can come', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const step = await oracle(flow, over, inTable(8, { limit: '2', cache: '{}' }));
    const landing = step.landing();
    expect([...(landing.line?.bare ?? [])]).toEqual([9]);
    expect(landing.exception?.bare?.size ?? 0).toBe(0);
  });
});
