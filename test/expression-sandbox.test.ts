/**
 * The expression sandbox (adapter/evaluate.py): hovers, watches, the Debug Console, setVariable's
 * new value, ndb/predictInputs' return value and `ndb debug`'s `p` and `set` are text someone
 * else may have written, so none of it may run anything. Known escapes from Python's eval()
 * (the subclass walk to os.system, __import__, getattr, type(), frames, __builtins__, format
 * fields that read attributes, a generator's gi_frame) are refused with "not available in a
 * neural session", through real Python and through a real DAP client, and no file appears;
 * ordinary hovers are still answered.
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
  `sorted(xs, key=lambda x: x)`,
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
  `'a' * 10**10`,
  `10 ** 10 ** 10`,
  `1 << 10**10`,
  `list(range(10**12))`,
];

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
    expect(await message('lambda: 0')).toMatch(/^not available in a neural session: lambda/);
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

  it('keeps the time limit as a second wall', async () => {
    const result = await evaluateExpression('sum(x * y for x in range(10**6) for y in range(10**6))', LOCALS);
    expect(result).toEqual({ kind: 'error', message: 'the expression took longer than 2 s and was stopped' });
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
