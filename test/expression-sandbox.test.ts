/**
 * The expression sandbox (semantics/evaluate.py): hovers, watches, the Debug Console, setVariable's
 * new value, ndb/predictInputs' return value and `ndb debug`'s `p` and `set` are text someone
 * else may have written, so none of it may run anything. Known escapes from Python's eval()
 * (the subclass walk to os.system, __import__, getattr, type(), frames, __builtins__, format
 * fields that read attributes, a generator's gi_frame) are refused with "not available in a
 * neural session", through real Python and through a real DAP client, and no file appears;
 * ordinary hovers are still answered. What the walker opened for the symbolic stepper (lambdas,
 * the proxies of whitelisted modules, `functions` entries) is checked the same way through a
 * PythonSession: no dunder through a lambda, nothing of a module but its whitelisted attributes,
 * no clock, a catastrophic regex and a runaway recursion end as errors and the process goes on.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateExpression, valueRepr } from '../adapter/evaluate.js';
import { NeuralRuntime } from '../adapter/runtime.js';
import { DebugRepl } from '../cli/debug-repl.js';
import { TracerPredictor } from '../evaluation/tracer-predictor.js';
import { PythonSession, type EvaluateRequest } from '../semantics/python-session.js';
import { COUNT_PY, HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const BUILT = existsSync(join(ROOT, 'dist', 'adapter', 'debug-session.js'));
const REFUSED = /^not available in a neural session: /;

const dir = mkdtempSync(join(tmpdir(), 'ndb-sandbox-'));
/** The file each payload tries to create; it must never exist. */
const MARKER = join(dir, 'pwned');

/** Each is an escape from a plain eval() with restricted builtins; every one must be refused. */
export const ESCAPES: string[] = [
  `[c for c in ().__class__.__base__.__subclasses__() if c.__name__=='_wrap_close'][0].__init__.__globals__['system']('touch ${MARKER}')`,
  `[c for c in ().__class__.__bases__[0].__subclasses__() if c.__name__ == 'Popen'][0](['touch', '${MARKER}'])`,
  `__import__('os').system('touch ${MARKER}')`,
  `__import__('subprocess').run(['touch', '${MARKER}'])`,
  `__builtins__`,
  `__builtins__['open']('${MARKER}', 'w')`,
  `getattr(s, '__class__')`,
  `getattr(__import__('os'), 'system')('touch ${MARKER}')`,
  `type(s)`,
  `type(s).__subclasses__(type(s))`,
  `type('X', (), {})`,
  `s.__class__`,
  `s.__class__.__mro__[1].__subclasses__()`,
  `xs.__len__()`,
  `(1).__class__.__base__`,
  `'{0.__class__}'.format(1)`,
  `'{0.__class__.__base__.__subclasses__}'.format(())`,
  `str.format('{0.__class__}', 1)`,
  `'{x.__class__}'.format_map({'x': 1})`,
  `f'{s.__class__}'`,
  `(x for x in xs).gi_frame`,
  `(x for x in xs).gi_frame.f_back.f_globals`,
  `[g.gi_frame for g in [(y for y in xs)]]`,
  `(x for x in xs).gi_code`,
  `len.__self__`,
  `s.upper.__self__`,
  `(lambda: 0).__globals__`,
  `(lambda: 0).__code__`,
  `(lambda x: x).__closure__`,
  `sorted(xs, key=lambda x: x.__class__)`,
  `[f.__code__.co_consts for f in [lambda: 0]]`,
  `(lambda f: f.__globals__)(lambda: 0)`,
  `(lambda: print)()`,
  `xs.sort(key=lambda x: getattr(x, 'real'))`,
  `(lambda *a: a)(1)`,
  `(lambda x=print: x)()`,
  `(y := 1)`,
  `vars()`,
  `globals()`,
  `locals()`,
  `dir()`,
  `eval('1')`,
  `exec('1')`,
  `compile('1', 'x', 'eval')`,
  `open('${MARKER}', 'w')`,
  `print('x')`,
  `input()`,
  `breakpoint()`,
  `help()`,
  `memoryview(b'x')`,
  `object.__subclasses__()`,
  `super()`,
  `id(s)`,
  `__loader__`,
  `__spec__`,
  `xs.sort(key=print)`,
  `iter(int, 1)`,
  `list[int]`,
];

/** Values too large to build: refused before they are built, as "too large: …" (test/evaluator-bounds.test.ts has more). */
export const TOO_LARGE: string[] = [`'a' * 10**10`, `10 ** 10 ** 10`, `1 << 10**10`, `list(range(10**12))`];

const LOCALS = { s: "'berry'", xs: '[1, 2, 3]', d: "{'k': 7}", n: '4' };

/** Ordinary hovers and watches, with their answers. */
const ORDINARY: [string, string][] = [
  ['s[0]', "'b'"],
  ['len(xs)', '3'],
  ["d.get('k')", '7'],
  ['n + 1', '5'],
  ['[x * 2 for x in xs]', '[2, 4, 6]'],
  ['sum(x for x in xs if x > 1)', '5'],
  ["s.count('r') + 1", '3'],
  ['sorted(s, key=str.upper)[-1]', "'y'"],
  ['{k: v + n for k, v in d.items()}', "{'k': 11}"],
  ["f'{s!r:>9}|{n:03d}'", "\"  'berry'|004\""],
  ["'%s has %d' % (s, len(s))", "'berry has 5'"],
  ['max(xs, key=abs), min(xs), divmod(n, 3), round(2.5), abs(-n)', '(3, 1, (1, 1), 2, 4)'],
  ['[*xs, *d], {**d, "z": 0}', "([1, 2, 3, 'k'], {'k': 7, 'z': 0})"],
  ['xs[::-1] if n > 2 else xs', '[3, 2, 1]'],
  ["list(zip(s, range(3))), dict.fromkeys('ab'), str.maketrans('a', 'b')", "([('b', 0), ('e', 1), ('r', 2)], {'a': None, 'b': None}, {97: 98})"],
  ['next(x for x in xs if x > 1), any(x > 2 for x in range(10**6))', '(2, True)'],
  ['sorted(xs, key=lambda x: -x), (lambda a, b: a * b)(n, 2)', '([3, 2, 1], 8)'],
];

afterAll(() => {
  expect(existsSync(MARKER)).toBe(false);
});

describe('the expression walker (real Python)', () => {
  it('refuses every known escape, and no payload creates its file', async () => {
    for (const expression of ESCAPES) {
      const result = await evaluateExpression(expression, LOCALS);
      expect(result.kind, expression).toBe('error');
      expect(result.kind === 'error' && result.message, expression).toMatch(REFUSED);
    }
    for (const expression of TOO_LARGE) {
      const result = await evaluateExpression(expression, LOCALS);
      expect(result.kind === 'error' && result.message, expression).toMatch(/^too large: /);
    }
    expect(existsSync(MARKER)).toBe(false);
  }, 120_000);

  it('says what it refuses and why', async () => {
    const message = async (e: string) => {
      const r = await evaluateExpression(e, LOCALS);
      return r.kind === 'error' ? r.message : `value ${r.repr}`;
    };
    expect(await message("'{0.__class__}'.format(1)")).toMatch(/^not available in a neural session: str\.format \(its \{…\} fields can read attributes\); use an f-string or %$/);
    expect(await message('s.__class__')).toMatch(/^not available in a neural session: the attribute __class__/);
    expect(await message('getattr(s, "x")')).toMatch(/^not available in a neural session: getattr \(over a predicted state only its locals and these builtins are: len, sum/);
    expect(await message('(x for x in xs).gi_frame')).toMatch(/^not available in a neural session: the attributes of a value of type generator/);
    expect(await message('lambda: 0')).toMatch(/^value <function <lambda> at 0x[0-9a-f]+>$/);
    // Not a refusal: a name the state lacks, an attribute a value lacks, an error of the expression.
    expect(await message('y')).toBe("NameError: name 'y' is not defined");
    expect(await message('s.nope')).toBe("AttributeError: a str value has no attribute 'nope'");
    expect(await message('n / 0')).toBe('ZeroDivisionError: division by zero');
  }, 60_000);

  it('answers ordinary hovers', async () => {
    for (const [expression, repr] of ORDINARY) {
      expect(await evaluateExpression(expression, LOCALS), expression).toMatchObject({ kind: 'value', repr });
    }
  }, 60_000);

  it('stops an expression that only runs long: by its step budget, or after 2 s', async () => {
    // The walker counts its steps: a long comprehension is an error, and the process goes on.
    const result = await evaluateExpression('sum(x * y for x in range(10**6) for y in range(10**6))', LOCALS);
    expect(result).toEqual({ kind: 'error', message: 'the expression took more than 1,000,000 steps and was stopped' });
    // One C call that never looks at a signal: the time limit is the second wall, and the
    // process killed for it is replaced.
    const long = await evaluateExpression('sum(map(sum, map(range, range(10**5))))', LOCALS);
    expect(long).toEqual({ kind: 'error', message: 'the expression took longer than 2 s and was stopped' });
    expect(await evaluateExpression('n * 2', LOCALS)).toMatchObject({ kind: 'value', repr: '8' });
  }, 30_000);

  it("refuses an escape as setVariable's or predictInputs' value", async () => {
    await expect(valueRepr(ESCAPES[0]!, LOCALS)).rejects.toThrow(REFUSED);
    await expect(valueRepr(`__import__('os').system('touch ${MARKER}')`, {})).rejects.toThrow(REFUSED);
    expect(await valueRepr('[n] * 2', LOCALS)).toBe('[4, 4]');
    expect(existsSync(MARKER)).toBe(false);
  }, 30_000);
});

describe("ndb debug's p and set", () => {
  it('refuse the escapes and still print values', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (d: Buffer) => (text += d.toString('utf8')));
    const repl = new DebugRepl(new NeuralRuntime(new TracerPredictor()), { input, output });
    await repl.launch({ program: COUNT_PY, entry: 'count', args: "'berry', 'r'" });
    input.end([`p ${ESCAPES[0]}`, `pp ${ESCAPES[2]}`, `set t = ${ESCAPES[0]}`, 'p s[0] + t', 'set t = s[1]', 'p t', 'q'].map((c) => `${c}\n`).join(''));
    await repl.run();
    const out = text.split('(ndb) ').map((c) => c.replace(/\n$/, ''));
    expect(out[1]).toMatch(/^\*\*\* not available in a neural session: the attribute __class__/);
    expect(out[2]).toMatch(/^\*\*\* not available in a neural session: the name __import__/);
    expect(out[3]).toMatch(/^\*\*\* not available in a neural session: the attribute __class__/);
    expect(out[4]).toBe("'br'");
    expect(out[6]).toBe("'e'");
    expect(existsSync(MARKER)).toBe(false);
  }, 60_000);
});

describe.skipIf(!HAS_EMBEDDED_MODEL || !BUILT)('through ndb dap and a real DAP client', () => {
  it('refuses the escapes in evaluate (hover, watch, repl), setVariable and ndb/predictInputs, and answers ordinary hovers', async () => {
    const wrapper = join(dir, 'ndb-dap.mjs');
    writeFileSync(wrapper, `process.argv.splice(2, 0, 'dap');\nawait import(${JSON.stringify(NDB)});\n`);
    const program = join(dir, 'values.py');
    writeFileSync(program, 'def f(s, xs, d, n):\n    total = n + len(xs)\n    return total\n');
    const dc = new DebugClient('node', wrapper, 'neural-python', { cwd: dir });
    dc.defaultTimeout = 60_000;
    await dc.start();
    try {
      const initialized = dc.waitForEvent('initialized');
      await dc.initializeRequest({ adapterID: 'neural-python', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      await initialized;
      await dc.configurationDoneRequest();
      const [stop] = await Promise.all([dc.waitForEvent('stopped'), dc.launchRequest({ program, entry: 'f', args: "'berry', [1, 2, 3], {'k': 7}, 4" } as DebugProtocol.LaunchRequestArguments)]);
      expect((stop as DebugProtocol.StoppedEvent).body.reason).toBe('entry');
      const [top] = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
      for (const [expression, context] of [[ESCAPES[0]!, 'hover'], [ESCAPES[2]!, 'watch'], ["'{0.__class__}'.format(1)", 'repl'], ['(x for x in xs).gi_frame', 'hover'], ['type(s)', 'repl']] as const) {
        await expect(dc.evaluateRequest({ expression, frameId: top!.id, context }), expression).rejects.toThrow(REFUSED);
      }
      for (const [expression, repr] of ORDINARY.slice(0, 5)) {
        expect((await dc.evaluateRequest({ expression, frameId: top!.id, context: 'hover' })).body.result, expression).toBe(repr);
      }
      const scopes = (await dc.scopesRequest({ frameId: top!.id })).body.scopes;
      await expect(dc.setVariableRequest({ variablesReference: scopes[0]!.variablesReference, name: 'n', value: ESCAPES[0]! })).rejects.toThrow(REFUSED);
      await expect(dc.customRequest('ndb/predictInputs', { value: `__import__('os').system('touch ${MARKER}')` })).rejects.toThrow(REFUSED);
      // The session goes on.
      expect((await dc.evaluateRequest({ expression: 'n * 2', frameId: top!.id, context: 'hover' })).body.result).toBe('8');
    } finally {
      await dc.stop();
    }
    expect(existsSync(MARKER)).toBe(false);
  }, 240_000);
});

describe('what the walker opened for the symbolic stepper (a PythonSession)', () => {
  const session = new PythonSession();
  afterAll(() => session.dispose());
  const modules = { math: 'math', re: 're', json: 'json', collections: 'collections', datetime: 'datetime', dt: 'datetime', itertools: 'itertools', statistics: 'statistics', string: 'string', functools: 'functools', os: 'os' };
  const ask = (expression: string, more: Partial<EvaluateRequest> = {}) => session.evaluate({ expression, locals: LOCALS, modules, ...more });

  it('module proxies expose their whitelisted attributes and nothing else', async () => {
    const refused = [
      're.__builtins__', 'math.__loader__', 'math.__spec__', 'json.__dict__', 'json.codecs', 'json.decoder', 'json.load',
      'collections.abc', 'collections.namedtuple', "collections.namedtuple('P', 'x y')", 'collections.ChainMap',
      're.enum', 're.functools', 're.purge()', 're.Pattern', 'statistics.random', 'statistics.sys', 'statistics.NormalDist',
      'datetime.sys', 'dt.datetime_CAPI', 'string.Formatter', 'string.Template', 'functools.partial', 'itertools.__name__',
      `os.system('touch ${MARKER}')`, 'os', 'math.sqrt.__self__', 're.compile("a").__class__', 're.match("a", "a").__class__',
      "collections.Counter('ab').__class__", 'collections.deque().__init__', "json.loads('{}', object_hook=eval)",
      "collections.defaultdict(print)", "re.sub('a', lambda m: m.__class__, 'a')",
      'dt.date(2020, 1, 1).__class__', 'dt.timedelta.__subclasses__()', 'math.sqrt.__globals__',
    ];
    for (const expression of refused) {
      const r = await ask(expression);
      expect(r.kind, expression).toBe('error');
      expect(r.kind === 'error' && r.message, expression).toMatch(REFUSED);
    }
    // Names bound by `from … import …` to what is not whitelisted are refused when used.
    for (const [name, dotted] of [['system', 'os.system'], ['nt', 'collections.namedtuple'], ['loads', 'pickle.loads'], ['Mapping', 'collections.abc.Mapping']]) {
      const r = await ask(`${name}`, { names: { [name!]: dotted! } });
      expect(r.kind === 'error' && r.message, dotted).toMatch(REFUSED);
    }
    expect(await ask("math.sqrt(n) + len(re.findall('r', s)) + json.loads('[1]')[0]")).toEqual({ kind: 'value', repr: '5.0', type: 'float' });
    expect(existsSync(MARKER)).toBe(false);
  }, 60_000);

  it('never reads the clock', async () => {
    for (const expression of ['datetime.datetime.now()', 'dt.datetime.today()', 'datetime.date.today()', 'dt.datetime.utcnow()', 'datetime.datetime.fromtimestamp(0)', 'dt.date.fromtimestamp(0)', 'dt.datetime(2020, 1, 1).timestamp()', 'dt.datetime(2020, 1, 1).astimezone()']) {
      const r = await ask(expression);
      expect(r.kind === 'error' && r.message, expression).toMatch(REFUSED);
    }
    expect(await ask("dt.datetime.strptime('2024-02-28', '%Y-%m-%d') + dt.timedelta(days=1)")).toMatchObject({ kind: 'value', repr: 'datetime.datetime(2024, 2, 29, 0, 0)' });
  }, 30_000);

  it('bounds a catastrophic regex and a runaway recursion, and the process goes on', async () => {
    const started = Date.now();
    expect(await ask("re.match('(a+)+$', 'a' * 40 + 'b')")).toEqual({ kind: 'error', message: 'the expression took longer than 1.5 s and was stopped' });
    expect(Date.now() - started).toBeLessThan(1_990);
    const functions = { f: { params: ['n'], body: 'f(n + 1)' }, g: { params: ['n'], body: '(lambda h: h(h, n))(lambda h, k: h(h, k + 1))' } };
    expect(await ask('f(0)', { functions })).toEqual({ kind: 'error', message: 'not available in a neural session: calls nested more than 100 deep (a recursion this deep is not followed)' });
    expect(await ask('g(0)', { functions })).toMatchObject({ kind: 'error' });
    expect(await ask('(lambda f: f(f))(lambda f: f(f))')).toMatchObject({ kind: 'error' });
    expect(await ask('math.factorial(10**7)')).toMatchObject({ kind: 'error', message: expect.stringMatching(/^too large: an integer of about/) });
    expect(await ask('f(0) if n < 0 else n', { functions })).toEqual({ kind: 'value', repr: '4', type: 'int' });
  }, 30_000);

  it('refuses statements that reach beyond the locals', async () => {
    for (const statement of ['import os', 'x.attr = 1', 'global n', 'del n', 'for i in xs: pass', `s = open('${MARKER}', 'w')`, 'xs.__class__ = 1', 'f = (lambda: 0).__globals__']) {
      const r = await session.execute({ statement, locals: LOCALS, modules });
      expect(r.kind === 'error' && r.message, statement).toMatch(REFUSED);
    }
    expect(await session.execute({ statement: 'xs.append(n); s += "!"', locals: LOCALS })).toEqual({ kind: 'changed', locals: { s: "'berry!'", xs: '[1, 2, 3, 4]' } });
    expect(existsSync(MARKER)).toBe(false);
  }, 30_000);
});
