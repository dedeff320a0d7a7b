/**
 * The debug adapter's value helpers: repr parsing for the Variables view, static program
 * info (executable lines, functions) and expression evaluation over a predicted state.
 *
 * The repr parser is checked against CPython's own reprs (each container's children must be
 * the reprs of its elements) and against ndb's truncation rule (a cut repr gives a prefix of
 * the whole one's children). The Python helpers run for real; none needs a model.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { truncateRepr } from '../grammar/truncate.js';
import { EvalError, evaluateExpression, localValue, valueRepr } from '../adapter/evaluate.js';
import { functionAt, programInfo } from '../program-analysis/program-info.js';
import { childCount, parsePyValue, typeName, type PyValue } from '../adapter/python-values.js';
import { pythonExecutable } from '../python/python-helper.js';

/** A compact view of a tree: atoms as their text, containers as {name: child} or [children]. */
function view(v: PyValue): unknown {
  if (v.kind === 'atom') return v.text;
  if (v.kind === 'dict') return Object.fromEntries(v.children.map((c) => [c.name, view(c.value)]));
  return v.children.map((c) => view(c.value));
}

describe('python-values', () => {
  it('parses nested containers', () => {
    const v = parsePyValue("[1, [2, (3, 4.5)], {'a': {1, 2}}, (), (7,), {}, set(), None, True, -3, 1e+30, (1+2j)]");
    expect(v.kind).toBe('list');
    expect(view(v)).toEqual(['1', ['2', ['3', '4.5']], { "'a'": ['1', '2'] }, [], ['7'], {}, [], 'None', 'True', '-3', '1e+30', '(1+2j)']);
    expect(v.kind !== 'atom' && v.children.map((c) => c.name)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect(v.kind !== 'atom' && v.truncated).toBe(false);
    expect(childCount(v)).toBe(12);
    expect(typeName(v)).toBe('list');
  });

  it('keeps strings whole: commas, brackets, quotes and escapes inside', () => {
    const v = parsePyValue(`['a, b', "it's ]", 'say "hi" \\'x\\'', '\\\\', b'\\x00,]', '{', ')']`);
    expect(view(v)).toEqual([`'a, b'`, `"it's ]"`, `'say "hi" \\'x\\''`, `'\\\\'`, `b'\\x00,]'`, `'{'`, `')'`]);
  });

  it('names dict children by their keys’ reprs, tuple and string keys included', () => {
    const v = parsePyValue("{(1, 'x'): 'y: z', 'k, l': [1], 3: None, frozenset({1}): 2}");
    expect(v.kind).toBe('dict');
    expect(view(v)).toEqual({ "(1, 'x')": "'y: z'", "'k, l'": ['1'], '3': 'None', 'frozenset({1})': '2' });
  });

  it('agrees with CPython: every child is the repr of its element', () => {
    const script = `
import json, collections
values = [
    [1, 'a, b', (2, [3, {'k': (4,)}]), {1: 'x', (2, 3): [None]}, b'q"]', 2.5, -7],
    {'nested': {'deep': [{'a': 1}, {'b': (True, False)}]}, ('t', 1): set()},
    ({1, 2, 3}, frozenset({'z'}), ((),), [[], {}], "it's", '"', '\\\\n'),
]
def tree(v):
    if isinstance(v, dict):
        return {repr(k): tree(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [tree(x) for x in v]
    return repr(v)
print(json.dumps([[repr(v), tree(v)] for v in values]))
`;
    const cases = JSON.parse(execFileSync(pythonExecutable(), ['-c', script], { encoding: 'utf8' })) as [string, unknown][];
    for (const [repr, expected] of cases) expect(view(parsePyValue(repr)), repr).toEqual(expected);
  });

  it('gives the whole children of a truncated repr', () => {
    const full = `[${Array.from({ length: 40 }, (_, i) => i * 7).join(', ')}]`;
    const cut = truncateRepr(full);
    expect(cut.endsWith('…')).toBe(true);
    const v = parsePyValue(cut);
    expect(v.kind === 'list' && v.truncated).toBe(true);
    const whole = parsePyValue(full);
    const children = view(v) as string[];
    // Every child shown is the whole repr's child; the number at the cut (after the last
    // comma) may have lost digits, so it is left out.
    expect(children).toEqual((view(whole) as string[]).slice(0, children.length));
    expect(children.length).toBe(cut.split(',').length - 1);
  });

  it('truncation: each child is whole, or a cut container marked truncated', () => {
    expect(view(parsePyValue('[1, 2, 3,…'))).toEqual(['1', '2', '3']);
    expect(view(parsePyValue('[1, 2, 3…'))).toEqual(['1', '2']);
    const nested = parsePyValue('[[1, 2], [3, 4…');
    expect(view(nested)).toEqual([['1', '2'], ['3']]);
    expect(nested.kind !== 'atom' && nested.children[1]!.value).toMatchObject({ kind: 'list', truncated: true, text: '[3, 4…' });
    expect(view(parsePyValue("{'a': 1, 'b': 'lo…"))).toEqual({ "'a'": '1' });
    expect(view(parsePyValue("{'a': 1, 'b…"))).toEqual({ "'a'": '1' });
    expect(view(parsePyValue('[1, {…'))).toEqual(['1']);
    // Cut before the kind is known: an atom, shown as it is.
    expect(parsePyValue('{…')).toEqual({ kind: 'atom', text: '{…' });
    expect(parsePyValue("'abc…")).toEqual({ kind: 'atom', text: "'abc…" });
    expect(typeName(parsePyValue("'abc…"))).toBe('str');
  });

  it('keeps opaque objects as atoms, also inside containers', () => {
    const obj = parsePyValue('<__main__.Foo object at 0x…>');
    expect(obj).toEqual({ kind: 'atom', text: '<__main__.Foo object at 0x…>' });
    expect(typeName(obj)).toBe('Foo');
    expect(view(parsePyValue("[<A object at 0x…>, <bound method A.f of <A object at 0x…>>, <class 'int'>]"))).toEqual([
      '<A object at 0x…>',
      '<bound method A.f of <A object at 0x…>>',
      "<class 'int'>",
    ]);
    expect(typeName(parsePyValue("<class 'int'>"))).toBe('type');
    for (const text of ["Decimal('1.5')", 'Point(x=1, y=[2])', 'range(0, 3)', '[...]']) expect(parsePyValue(text)).toEqual({ kind: 'atom', text });
  });

  it('expands wrapped containers to their inner container', () => {
    expect(view(parsePyValue('deque([1, 2], maxlen=5)'))).toEqual(['1', '2']);
    expect(view(parsePyValue("Counter({'a': 2, 'b': 1})"))).toEqual({ "'a'": '2', "'b'": '1' });
    expect(view(parsePyValue("defaultdict(<class 'list'>, {'x': [1]})"))).toEqual({ "'x'": ['1'] });
    expect(view(parsePyValue("OrderedDict([('a', 1), ('b', [2])])"))).toEqual({ "'a'": '1', "'b'": ['2'] });
    expect(view(parsePyValue("OrderedDict({'a': 1})"))).toEqual({ "'a'": '1' });
    expect(view(parsePyValue('frozenset({1, 2})'))).toEqual(['1', '2']);
    expect(parsePyValue('Counter()')).toMatchObject({ kind: 'dict', children: [] });
    const cut = parsePyValue('deque([1, 2, 3…');
    expect(cut).toMatchObject({ kind: 'list', truncated: true });
    expect(view(cut)).toEqual(['1', '2']);
    expect(typeName(parsePyValue('deque([1])'))).toBe('deque');
    expect(typeName(parsePyValue('set()'))).toBe('set');
  });

  it('never throws: malformed text is an atom', () => {
    for (const text of ['[1 2]', '[1, 2', '{1: }', '', ')', "'open", '(1…', '['.repeat(100_000)]) {
      expect(parsePyValue(text)).toEqual({ kind: 'atom', text });
    }
  });

  it('guesses scalar type names', () => {
    const types = { '42': 'int', '-1.5': 'float', '1e-05': 'float', inf: 'float', '2j': 'complex', "'s'": 'str', "b'b'": 'bytes', None: 'NoneType', True: 'bool', '<function f at 0x…>': 'function', '<enum>': undefined };
    for (const [text, type] of Object.entries(types)) expect(typeName(parsePyValue(text)), text).toBe(type);
  });
});

describe('program-info', () => {
  const program = [
    '# a comment',
    'import math',
    '',
    'class Shape:',
    '    def area(self, scale=1, *rest, unit, **opts):',
    '        # comment inside',
    '',
    '        def helper(x, /, y):',
    '            return x * y',
    '        return helper(scale, math.pi)',
    '',
    'def main():',
    '    return Shape().area(unit="m")',
    '',
  ].join('\n');

  it('lists executable lines and functions without running the program', async () => {
    const info = await programInfo(`${program}raise SystemExit('ran')\n`);
    expect(info.kind).toBe('ok');
    if (info.kind !== 'ok') return;
    expect(info.executableLines).toEqual([2, 4, 5, 8, 9, 10, 12, 13, 14]);
    expect(info.functions).toEqual([
      // callLocals: the order a call frame's locals hold them (CPython's co_varnames).
      { name: 'area', qualname: 'Shape.area', line: 5, endLine: 10, params: ['self', 'scale', 'rest', 'unit', 'opts'], callLine: 5, callLocals: ['self', 'scale', 'unit', 'rest', 'opts'], localNames: ['self', 'scale', 'unit', 'rest', 'opts', 'helper'] },
      { name: 'helper', qualname: 'Shape.area.<locals>.helper', line: 8, endLine: 9, params: ['x', 'y'], callLine: 8, callLocals: ['x', 'y'], localNames: ['x', 'y'] },
      { name: 'main', qualname: 'main', line: 12, endLine: 13, params: [], callLine: 12, callLocals: [], localNames: [] },
    ]);
    expect(functionAt(info, 9)?.qualname).toBe('Shape.area.<locals>.helper');
    expect(functionAt(info, 10)?.qualname).toBe('Shape.area');
    expect(functionAt(info, 12)?.qualname).toBe('main');
    expect(functionAt(info, 3)).toBeUndefined();
  });

  it('reports a syntax error with its line', async () => {
    const info = await programInfo('x = 1\ny = 2\nif x\n    pass\n');
    expect(info).toEqual({ kind: 'error', message: "SyntaxError at line 3: expected ':'", line: 3 });
    expect(functionAt(info, 3)).toBeUndefined();
    // compile() catches what the parser alone lets through.
    expect(await programInfo('return 1\n')).toEqual({ kind: 'error', message: "SyntaxError at line 1: 'return' outside function", line: 1 });
  });
});

describe('evaluate', () => {
  const locals = { n: '3', xs: '[1, 2, 3]', name: "'ab'", obj: '<__main__.Foo object at 0x…>', long: '[1, 2, 3, 4…', '…': '+2' };

  it('evaluates arithmetic and len() over the literal locals', async () => {
    expect(await evaluateExpression('n * 2 + len(xs)', locals)).toEqual({ kind: 'value', repr: '9', type: 'int' });
    expect(await evaluateExpression('[x * n for x in xs]', locals)).toEqual({ kind: 'value', repr: '[3, 6, 9]', type: 'list' });
    expect(await evaluateExpression('name.upper()', locals)).toEqual({ kind: 'value', repr: "'AB'", type: 'str' });
  });

  it('explains a name that is missing, not a literal, or truncated', async () => {
    const missing = await evaluateExpression('y + 1', locals);
    expect(missing).toEqual({ kind: 'error', message: "NameError: name 'y' is not defined (the predicted state leaves out 2 locals)" });
    expect(await evaluateExpression('obj.size', locals)).toEqual({
      kind: 'error',
      message: "obj's predicted value <__main__.Foo object at 0x…> is not a Python literal, so it cannot be evaluated",
    });
    expect(await evaluateExpression('len(long)', locals)).toEqual({ kind: 'error', message: "long's predicted value [1, 2, 3, 4… is truncated, so it cannot be evaluated" });
    const open = await evaluateExpression("open('/etc/passwd')", locals);
    expect(open.kind === 'error' && open.message).toMatch(/^not available in a neural session: open /);
    expect(await evaluateExpression('1 +', locals)).toMatchObject({ kind: 'error', message: expect.stringMatching(/^SyntaxError/) });
  });

  it('answers a bare local name from its repr, without Python', () => {
    expect(localValue(' obj ', locals)).toEqual({ kind: 'value', repr: '<__main__.Foo object at 0x…>', type: 'Foo' });
    expect(localValue('xs', locals)).toEqual({ kind: 'value', repr: '[1, 2, 3]', type: 'list' });
    expect(localValue('…', locals)).toBeUndefined();
    expect(localValue('xs[0]', locals)).toBeUndefined();
  });

  it('stops an expression that runs away', async () => {
    const started = Date.now();
    // The walker's step budget stops a long comprehension; the 2 s limit stops one long C call.
    expect(await evaluateExpression('sum(x * y for x in range(10**6) for y in range(10**6))', locals)).toEqual({ kind: 'error', message: 'the expression took more than 1,000,000 steps and was stopped' });
    expect(await evaluateExpression('sum(map(sum, map(range, range(10**5))))', locals)).toEqual({ kind: 'error', message: 'the expression took longer than 2 s and was stopped' });
    expect(Date.now() - started).toBeLessThan(7_000);
  });

  it('turns a new value into a repr', async () => {
    expect(await valueRepr('[1,2]+[3]', locals)).toBe('[1, 2, 3]');
    expect(await valueRepr("{'k': n}", locals)).toBe("{'k': 3}");
    expect(await valueRepr('obj', locals)).toBe('<__main__.Foo object at 0x…>');
    await expect(valueRepr('1/0', locals)).rejects.toThrow(EvalError);
    await expect(valueRepr('1/0', locals)).rejects.toThrow('ZeroDivisionError: division by zero');
  });
});
