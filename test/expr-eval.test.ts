/**
 * Expressions decided from a state (semantics/expr-eval.ts, repr-value.ts,
 * rules/branch.ts, and control_flow.py's `branches` and `assigned`): checked against Python
 * itself. Python evaluates thousands of random expressions on random values; wherever a test
 * is decided it must be as Python finds it, and a value written must be Python's repr of it;
 * wherever Python raises nothing may be decided. Then the landing: from the header the step
 * goes into the body exactly when the test holds.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { State } from '../grammar/state.js';
import { branch } from '../semantics/rules/branch.js';
import { Step } from '../semantics/step.js';
import { evaluate, mutated, testHolds } from '../semantics/expr-eval.js';
import { pyRepr } from '../semantics/repr-value.js';
import { ControlFlow, type Mutated, type TestExpr } from '../program-analysis/control-flow.js';
import { pythonExecutable } from '../python/python-helper.js';

/** Random tests over random locals, with Python's verdict: `holds` true/false, or null where it raises. */
const CROSS_CHECK = String.raw`
import ast, json, random, sys
sys.path.insert(0, 'program-analysis')
from control_flow import test_expr
rng = random.Random(7)
WORDS = ['', 'a', 'ab', 'Abc', 'hello world', 'x1', '42', ' ', 'ÄÖ', 'naïve', 'A B', '\t', 'zz', '9', 'É', ' -7 ', 'a,b,,c', "it's", '"q"', 'a\\b', 'x\ny']
def value(depth=0):
    k = rng.randrange(9 if depth < 2 else 5)
    if k == 0: return rng.randrange(-5, 6)
    if k == 1: return rng.choice(WORDS)
    if k == 2: return rng.choice([0.5, -1.0, 2.0, 0.0, 3.25, 1e20])
    if k == 3: return rng.choice([None, True, False])
    if k == 4: return rng.choice([10**20, -7, 1])
    if k == 5: return [value(depth + 1) for _ in range(rng.randrange(4))]
    if k == 6: return tuple(value(depth + 1) for _ in range(rng.randrange(3)))
    if k == 7: return {rng.choice(['a', 'b', 1, 2]): value(depth + 1) for _ in range(rng.randrange(3))}
    return set(rng.choice([1, 2, 'a', (1, 2), 2.0]) for _ in range(rng.randrange(3)))
NAMES = ['a', 'b', 'c']
def expr(depth=0, names=NAMES):
    k = rng.randrange(19 if depth < 3 else 3)
    if k == 0: return rng.choice(names)
    if k == 1: return repr(rng.choice([0, 1, -2, 3, 'a', 'ab', '', None, 2.5, True, ',', ' ']))
    if k == 2: return rng.choice(names + ['zz'])
    if k == 3: return f"{expr(depth + 1, names)} {rng.choice(['==', '!=', '<', '<=', '>', '>=', 'in', 'not in'])} {expr(depth + 1, names)}"
    if k == 4: return f"({expr(depth + 1, names)} {rng.choice(['and', 'or'])} {expr(depth + 1, names)})"
    if k == 5: return f"({rng.choice(['not', '-', '~'])} {expr(depth + 1, names)})"
    if k == 6:
        op = rng.choice(['+', '-', '*', '//', '%', '/', '**', '&', '|', '^', '<<', '>>'])
        # A small right side for ** and <<: Python would take ages over 7 ** 10**20.
        return f"({expr(depth + 1, names)} {op} {rng.choice(['2', '3', '-1', '0', 'True']) if op in ('**', '<<') else expr(depth + 1, names)})"
    if k == 7:
        f = rng.choice(['len', 'abs', 'int', 'str', 'float', 'list', 'tuple', 'sum', 'sorted', 'min', 'max', 'ord', 'chr', 'bool', 'set'])
        n = rng.choice([1, 1, 2]) if f in ('min', 'max') else 1
        return f"{f}({', '.join(expr(depth + 1, names) for _ in range(n))})"
    if k == 8: return f"{rng.choice(NAMES)}.{rng.choice(['isdigit', 'isalpha', 'isalnum', 'isspace', 'isupper', 'islower', 'lower', 'upper', 'strip', 'split', 'lstrip', 'rstrip'])}()"
    if k == 9: return f"{rng.choice(NAMES)}.{rng.choice(['startswith', 'endswith', 'count', 'find', 'index', 'split', 'join', 'strip', 'get'])}({expr(depth + 1, names)})"
    if k == 10: return f"{rng.choice(NAMES)}[{expr(depth + 1, names)}]"
    if k == 11: return f"{rng.choice(NAMES)}[{rng.choice(['', '1', '-1', 'b', '-9'])}:{rng.choice(['', '2', '-1', 'a', '9'])}{rng.choice(['', ':-1', ':2', ':-2', ':a'])}]"
    if k == 12: return f"({expr(depth + 1, names)} if {expr(depth + 1, names)} else {expr(depth + 1, names)})"
    if k == 13: return f"[{', '.join(expr(depth + 1, names) for _ in range(rng.randrange(3)))}]"
    if k == 14: return f"({expr(depth + 1, names)}, {expr(depth + 1, names)})"
    if k == 15: return f"{rng.choice(NAMES)}.replace({expr(depth + 1, names)}, {expr(depth + 1, names)})"
    if k == 16: return f"{rng.choice(NAMES)}.get({expr(depth + 1, names)}, {expr(depth + 1, names)})"
    if k == 17:
        target, walked = rng.choice([('x', rng.choice(NAMES)), ('x', f"range({rng.choice(['3', '-2', 'len(a)', '1, 4', '5, 0, -2'])})"),
                                     ('i, x', f"enumerate({rng.choice(NAMES)})"), ('x, y', f"zip({rng.choice(NAMES)}, {rng.choice(NAMES)})"),
                                     ('x', f"reversed({rng.choice(NAMES)})"), ('x, y', f"{rng.choice(NAMES)}.items()"),
                                     ('x', f"{rng.choice(NAMES)}.values()")])
        inner = NAMES + target.replace(' ', '').split(',')
        comp = f"{expr(depth + 1, inner)} for {target} in {walked}" + (f" if {expr(depth + 1, inner)}" if rng.random() < 0.5 else '')
        return rng.choice([f"[{comp}]", f"sum({comp})", f"any({comp})", f"all({comp})", f"''.join({comp})", f"max({comp})", f"sorted({comp})",
                           f"list({walked})", f"len(set({walked}))", f"sorted(set({walked}))", f"{rng.choice(NAMES)} in set({walked})"])
    return f"{rng.choice(names)} {rng.choice(['==', '<', 'in'])} {rng.choice(names)}"
out = []
for _ in range(int(sys.argv[1])):
    values = {n: value() for n in NAMES}
    text = expr()
    if ' is ' in text: continue
    test = test_expr(ast.parse(text, mode='eval').body, set())
    if test is None: continue
    try:
        # Globals: a comprehension reads them from its own scope, as a function's closure would give them.
        result = eval(text, dict(values))
        holds, shown = bool(result), repr(result)
    except Exception:
        holds = shown = None
    out.append({'text': text, 'test': test, 'locals': {n: repr(v) for n, v in values.items()}, 'holds': holds, 'repr': shown})
print(json.dumps(out))
`;

interface Case {
  text: string;
  test: TestExpr;
  locals: Record<string, string>;
  holds: boolean | null;
  /** repr() of the value, where Python evaluates it. */
  repr: string | null;
}

function pythonCases(n: number): Case[] {
  const run = spawnSync(pythonExecutable(), ['-c', CROSS_CHECK, String(n)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Case[];
}

describe('expressions against Python', () => {
  const cases = pythonCases(Number(process.env.NDB_EXPR_CASES ?? 6000));

  it('decides tests as Python does, and never where Python raises', () => {
    let decided = 0;
    let raising = 0;
    const wrong: string[] = [];
    for (const c of cases) {
      const got = testHolds(c.test, c.locals);
      if (c.holds === null) raising++;
      if (got === undefined) continue;
      decided++;
      if (got !== c.holds) wrong.push(`${c.text} with ${JSON.stringify(c.locals)}: ${got}, Python ${c.holds}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    // Not a checker that decides nothing: most tests Python evaluates without raising are decided.
    expect(raising).toBeGreaterThan(500);
    expect(decided).toBeGreaterThan(0.8 * (cases.length - raising));
  });

  it("writes a value's repr as Python does", () => {
    let written = 0;
    const wrong: string[] = [];
    for (const c of cases) {
      const value = evaluate(c.test, c.locals);
      const repr = value && pyRepr(value);
      if (repr === undefined) continue;
      written++;
      if (repr !== c.repr) wrong.push(`${c.text} with ${JSON.stringify(c.locals)}: ${repr}, Python ${c.repr}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(written).toBeGreaterThan(0.7 * cases.filter((c) => c.repr !== null).length);
  });

  it('writes floats as Python does', () => {
    const floats = [0, -0, 1, 1.5, 0.1, 1e16, 1e15, 123456789.125, 1e-4, 1e-5, 2.5e-7, 1.7976931348623157e308, 5e-324, -3.25e22, 1 / 3];
    const run = spawnSync(pythonExecutable(), ['-c', 'import sys, json; print(json.dumps([repr(float(x)) for x in sys.argv[1:]]))', ...floats.map((x) => (Object.is(x, -0) ? '-0.0' : String(x)))], { encoding: 'utf8' });
    expect(floats.map((value) => pyRepr({ type: 'float', value }))).toEqual(JSON.parse(run.stdout));
  });

  it('changes a list or dict in place as Python does (append, extend, insert, pop, item assignment)', () => {
    const script = String.raw`
import ast, copy, json, random, sys
sys.path.insert(0, 'program-analysis')
from control_flow import test_expr
rng = random.Random(11)
POOL = [0, 1, -1, 2, 'a', 'b', None, 2.5, True, (1, 2), [3], {'k': 1}]
out = []
for _ in range(3000):
    a = rng.choice([[rng.choice(POOL) for _ in range(rng.randrange(4))], {rng.choice(['a', 'b', 1, 2]): rng.choice(POOL) for _ in range(rng.randrange(3))}, 'ab', 7])
    b = rng.choice(POOL)
    op, args = rng.choice([('append', ['b']), ('extend', [rng.choice(['b', '[b, 1]', 'range(2)', '(x for x in "xy")'])]), ('insert', [rng.choice(['0', '-1', '9', '-9', 'b']), 'b']),
                           ('pop', []), ('setitem', [rng.choice(['0', '-1', '5', "'a'", 'b', '1']), 'b'])])
    env = {'a': copy.deepcopy(a), 'b': copy.deepcopy(b)}
    text = f"a[{args[0]}] = {args[1]}" if op == 'setitem' else f"a.{op}({', '.join(args)})"
    try:
        exec(text, env)
        after = repr(env['a'])
    except Exception:
        after = None
    out.append({'text': text, 'op': op, 'args': [test_expr(ast.parse(x, mode='eval').body, set(), op == 'extend') for x in args],
                'locals': {'a': repr(a), 'b': repr(b)}, 'after': after})
print(json.dumps(out))
`;
    const run = spawnSync(pythonExecutable(), ['-c', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(run.status, run.stderr).toBe(0);
    const cases = JSON.parse(run.stdout) as { text: string; op: Mutated['op']; args: TestExpr[]; locals: Record<string, string>; after: string | null }[];
    let written = 0;
    const wrong: string[] = [];
    for (const c of cases) {
      const v = mutated({ name: 'a', op: c.op, args: c.args }, c.locals);
      const repr = v && pyRepr(v);
      if (repr === undefined) continue;
      written++;
      if (repr !== c.after) wrong.push(`${c.text} with ${JSON.stringify(c.locals)}: ${repr}, Python ${c.after}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(written).toBeGreaterThan(0.6 * cases.filter((c) => c.after !== null).length);
  });

  it('walks comprehensions and generator expressions, binding their targets over the locals', async () => {
    const flow = (await ControlFlow.of("def f(s, xs, d):\n    n = sum(1 for c in s if c.isdigit())\n    ys = [x * 2 for x in xs if x > n]\n    return ', '.join(f'{k}' for k in d) + str([(i, v) for i, v in enumerate(xs)])\n"))!;
    const locals = { s: "'a1b22'", xs: '[1, 5, 2, 7]', d: "{'p': 1}" };
    const shown = (line: number, extra: Record<string, string> = {}) => pyRepr(evaluate(flow.assigned.get(line)!.value, { ...locals, ...extra })!);
    expect(shown(2)).toBe('3');
    expect(shown(3, { n: '3' })).toBe('[10, 14]');
    // An f-string is not an expression of shown values (it may call __format__): not listed.
    expect(flow.returned.get(4)).toBeUndefined();
  });

  it('reads only locals whose repr is whole', () => {
    const test: TestExpr = { compare: ['=='], operands: [{ name: 's' }, { const: "'abc'" }] };
    expect(testHolds(test, { s: "'abc'" })).toBe(true);
    expect(testHolds(test, { s: "'ab…" })).toBeUndefined(); // truncated
    expect(testHolds(test, {})).toBeUndefined(); // a global, or unbound
    expect(testHolds(test, { s: '<object at 0x0>' })).toBeUndefined();
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

const at = (line: number, locals: Record<string, string>): State => ({ event: 'line', line, source: '', stack: [{ function: 'f', line }], locals });

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
    const step = (state: State) => branch.landing!(new Step(flow, { kind: 'step_over' }, state), flow.landing({ kind: 'step_over' }, state));
    expect([...step(at(3, { s: "'ab c'", n: '2', i: '0' })).line!.bare!]).toEqual([4]);
    expect([...step(at(3, { s: "'ab c'", n: '2', i: '2' })).line!.bare!]).toEqual([5]);
    expect([...step(at(5, { s: "''", n: '3', i: '0' })).line!.bare!]).toEqual([7]);
    // Not decided: the state does not show n.
    expect(step(at(5, { s: "''", i: '0' })).line!.bare!.has(6)).toBe(true);
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
    expect([...flow.pure.keys()].sort()).toEqual(['fact', 'same']);
    // Beside a lambda (no def, no name of its own).
    expect((await ControlFlow.of('g = lambda x: x\ndef h(y):\n    return y\n'))!.pure.has('h')).toBe(true);
    const state: State = { event: 'line', line: 7, source: '', stack: [{ function: 'count', line: 7 }], locals: { s: "'berry'", t: "'r'" } };
    const over = branch.landing!(new Step(flow, { kind: 'step_over' }, state), flow.landing({ kind: 'step_over' }, state));
    expect([...over.line!.bare!]).toEqual([9]);
    const into = flow.landing({ kind: 'step_into' }, state);
    expect(branch.landing!(new Step(flow, { kind: 'step_into' }, state), into)).toBe(into);
    expect(pyRepr(evaluate(flow.returned.get(8)!, { s: "'rye'", t: "'r'" }, flow.pure)!)).toBe('6');
    // Past the depth a run could reach without RecursionError, nothing is decided.
    expect(evaluate(flow.returned.get(8)!, { s: `'${'x'.repeat(90)}'` }, flow.pure)).toBeDefined();
    expect(evaluate({ calls: 'fact', args: [{ const: '5000' }] }, {}, flow.pure)).toBeUndefined();
  });

  it('stepping back, leaves out a header whose test would have led elsewhere', async () => {
    const flow = (await ControlFlow.of(PROGRAM))!;
    const back = (state: State) => branch.landing!(new Step(flow, { kind: 'inv_step_over' }, state), flow.landing({ kind: 'inv_step_over' }, state));
    // On line 5 with s[i] == ' ': the loop ended there, so the header was the line before.
    expect([...back(at(5, { s: "'ab c'", n: '2', i: '2' })).line!.bare!]).toContain(3);
    // With i < len(s) and s[i] != ' ' the loop would have gone on: not from the header.
    expect([...back(at(5, { s: "'ab c'", n: '2', i: '1' })).line!.bare!]).not.toContain(3);
    // Line 7 comes from line 5 only with an odd n.
    expect([...back(at(7, { s: "''", n: '2', i: '0' })).line!.bare!]).not.toContain(5);
    expect([...back(at(7, { s: "''", n: '3', i: '0' })).line!.bare!]).toContain(5);
  });
});
