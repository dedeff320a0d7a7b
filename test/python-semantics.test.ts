/**
 * The expression walker (semantics/evaluate.py) against CPython itself: for every family of
 * what semantics/pure.py whitelists (the methods of str, list, dict, set, frozenset, tuple,
 * bytes, int and float, f-strings, key lambdas, math, re, json, datetime, collections,
 * itertools, string, statistics, functools, and statements), test/python-semantics/generate.py
 * draws seeded random expressions or statements over random known values and answers each with
 * plain eval()/exec(); the walker must answer the same repr (tracer.py's), or raise the same
 * exception type, or change the same locals to the same reprs, through a PythonSession in
 * batches. A refusal is a failure, except in the family of what is refused on purpose (the
 * clock, namedtuple, str.format, module internals). Then the session itself: request shapes,
 * the kill and restart after a timeout, a crash, dispose, and Node exiting with an idle session.
 *
 * NDB_SEMANTICS_SEED and NDB_SEMANTICS_COUNT (cases per family, default 320) draw other cases.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../python/python-helper.js';
import { PythonSession, type SessionRequest, type SessionResult } from '../semantics/python-session.js';
import { ROOT } from './fixtures.js';

const SEED = Number(process.env.NDB_SEMANTICS_SEED ?? 1);
const COUNT = Number(process.env.NDB_SEMANTICS_COUNT ?? 320);
const CHUNK = 200;
const REFUSED = /^not available in a neural session: /;

type Expected =
  | { kind: 'value'; repr: string; type: string }
  | { kind: 'raised'; type: string }
  | { kind: 'changed'; locals: Record<string, string> }
  | { kind: 'error' };
type Case = SessionRequest & { expected: Expected };
interface Generated {
  families: Record<string, { expectRefusal: boolean; cases: Case[] }>;
}

// At collection time: the test names carry the counts.
const generated = JSON.parse(
  execFileSync(pythonExecutable(), [join(ROOT, 'test', 'python-semantics', 'generate.py'), '--seed', String(SEED), '--count', String(COUNT)], {
    env: { ...process.env, PYTHONHASHSEED: '0' },
    maxBuffer: 256 * 1024 * 1024,
  }).toString('utf8'),
) as Generated;

function agrees(expected: Expected, got: SessionResult): boolean {
  switch (expected.kind) {
    case 'value':
      return got.kind === 'value' && got.repr === expected.repr && got.type === expected.type;
    case 'raised':
      return got.kind === 'raised' && got.type === expected.type;
    case 'changed': {
      if (got.kind !== 'changed') return false;
      const keys = Object.keys(expected.locals).sort();
      return JSON.stringify(keys) === JSON.stringify(Object.keys(got.locals).sort()) && keys.every((k) => got.locals[k] === expected.locals[k]);
    }
    case 'error':
      return got.kind === 'error' && REFUSED.test(got.message);
  }
}

describe('the walker against CPython, family by family', () => {
  const session = new PythonSession();
  afterAll(() => session.dispose());
  const counts: string[] = [];
  afterAll(() => console.log(`python-semantics (seed ${SEED}): ${counts.join(', ')}`));

  for (const [family, { expectRefusal, cases }] of Object.entries(generated.families)) {
    const kinds = cases.reduce<Record<string, number>>((acc, c) => ({ ...acc, [c.expected.kind]: (acc[c.expected.kind] ?? 0) + 1 }), {});
    const label = Object.entries(kinds).map(([k, n]) => `${n} ${k}`).join(', ');
    it(`${family}: ${cases.length} cases (${label})${expectRefusal ? ', all refused' : ''}`, async () => {
      const mismatches: string[] = [];
      for (let at = 0; at < cases.length; at += CHUNK) {
        const chunk = cases.slice(at, at + CHUNK);
        const results = await session.batch(chunk.map(({ expected: _expected, ...request }) => request as SessionRequest));
        chunk.forEach((c, i) => {
          const got = results[i]!;
          if (!agrees(c.expected, got)) {
            const what = c.op === 'evaluate' ? c.expression : c.statement;
            mismatches.push(`${what}\n    locals ${JSON.stringify(c.locals)}${c.modules ? ` modules ${JSON.stringify(c.modules)}` : ''}${c.names ? ` names ${JSON.stringify(c.names)}` : ''}\n    CPython ${JSON.stringify(c.expected)}\n    walker  ${JSON.stringify(got)}`);
          }
        });
      }
      counts.push(`${family} ${cases.length - mismatches.length}/${cases.length}`);
      expect(mismatches.slice(0, 12).join('\n'), `${mismatches.length} of ${cases.length} differ`).toBe('');
    }, 60_000);
  }
});

describe('PythonSession', () => {
  it('answers each request shape, a batch in order', async () => {
    const session = new PythonSession();
    try {
      expect(await session.evaluate({ expression: "line.strip().split(',')", locals: { line: "' a,b '" } })).toEqual({ kind: 'value', repr: "['a', 'b']", type: 'list' });
      expect(await session.evaluate({ expression: 'xs[5]', locals: { xs: '[1]' } })).toEqual({ kind: 'raised', type: 'IndexError', message: 'list index out of range' });
      expect(await session.evaluate({ expression: 'y + 1', locals: {} })).toEqual({ kind: 'error', message: "NameError: name 'y' is not defined" });
      expect(await session.evaluate({ expression: 'obj.x', locals: { obj: '<Foo object at 0x7f>' } })).toEqual({ kind: 'error', message: "obj's predicted value <Foo object at 0x7f> is not a Python literal, so it cannot be evaluated" });
      expect(await session.evaluate({ expression: 'dt.date(2024, 2, 28) + timedelta(days=1)', locals: {}, modules: { dt: 'datetime' }, names: { timedelta: 'datetime.timedelta' } }))
        .toEqual({ kind: 'value', repr: 'datetime.date(2024, 2, 29)', type: 'date' });
      expect(await session.evaluate({ expression: 'fib(15)', locals: {}, functions: { fib: { params: ['n'], body: 'n if n < 2 else fib(n - 1) + fib(n - 2)' } } }))
        .toEqual({ kind: 'value', repr: '610', type: 'int' });
      expect(await session.execute({ statement: 'xs.sort(key=lambda p: p[1]); n += 1; m = n', locals: { xs: "[(1, 'b'), (2, 'a')]", n: '1', other: "'x'" } }))
        .toEqual({ kind: 'changed', locals: { n: '2', m: '2', xs: "[(2, 'a'), (1, 'b')]" } });
      expect(await session.execute({ statement: 'if n > 5: n = 0', locals: { n: '1' } })).toEqual({ kind: 'changed', locals: {} });
      expect(await session.execute({ statement: 'd[k] += 1', locals: { d: '{}', k: "'a'" } })).toEqual({ kind: 'raised', type: 'KeyError', message: "'a'" });
      expect(await session.execute({ statement: 'while True: pass', locals: {} })).toMatchObject({ kind: 'error', message: expect.stringMatching(REFUSED) });
      const results = await session.batch([
        { op: 'evaluate', expression: '1 + 1', locals: {} },
        { op: 'execute', statement: 'a, *b = s', locals: { s: "'xyz'" } },
        { op: 'evaluate', expression: '1 / 0', locals: {} },
      ]);
      expect(results).toEqual([
        { kind: 'value', repr: '2', type: 'int' },
        { kind: 'changed', locals: { a: "'x'", b: "['y', 'z']" } },
        { kind: 'raised', type: 'ZeroDivisionError', message: 'division by zero' },
      ]);
      expect(await session.batch([])).toEqual([]);
    } finally {
      session.dispose();
    }
  });

  it('kills and restarts the process after a timeout; the requests behind it are still answered', async () => {
    const session = new PythonSession({ timeoutMs: 500 });
    try {
      const slow = session.evaluate({ expression: 'sum(map(sum, map(range, range(10**5))))', locals: {} });
      const next = session.evaluate({ expression: 'n * 2', locals: { n: '21' } });
      const batch = session.batch([{ op: 'evaluate', expression: 'sum(map(sum, map(range, range(10**5))))', locals: {} }, { op: 'evaluate', expression: '2', locals: {} }]);
      expect(await slow).toEqual({ kind: 'error', message: 'the expression took longer than 0.5 s and was stopped', timedOut: true });
      expect(await next).toEqual({ kind: 'value', repr: '42', type: 'int' });
      const timedOut = { kind: 'error', message: 'the batch took longer than 0.5 s and was stopped', timedOut: true };
      expect(await batch).toEqual([timedOut, timedOut]);
      expect(await session.evaluate({ expression: 'len("abc")', locals: {} })).toEqual({ kind: 'value', repr: '3', type: 'int' });
    } finally {
      session.dispose();
    }
  }, 20_000);

  it('answers a crash with an error and starts again; dispose answers what waits', async () => {
    const session = new PythonSession();
    // A process killed from outside while it runs a request: that request is answered with an
    // error, and the next one starts a fresh process.
    const first = await session.evaluate({ expression: '1', locals: {} });
    expect(first.kind).toBe('value');
    const pending = session.evaluate({ expression: 'sum(map(sum, map(range, range(10**5))))', locals: {} });
    const pid = (session as unknown as { child?: { pid?: number } }).child?.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    expect(await pending).toMatchObject({ kind: 'error', message: expect.stringMatching(/^the Python evaluator stopped \(signal SIGKILL\)/) });
    expect(await session.evaluate({ expression: '2 ** 10', locals: {} })).toEqual({ kind: 'value', repr: '1024', type: 'int' });
    const waiting = [session.evaluate({ expression: 'sum(map(sum, map(range, range(10**5))))', locals: {} }), session.execute({ statement: 'x = 1', locals: {} })];
    session.dispose();
    expect(await Promise.all(waiting)).toEqual([
      { kind: 'error', message: 'the Python session was closed' },
      { kind: 'error', message: 'the Python session was closed' },
    ]);
  }, 20_000);

  it.skipIf(!existsSync(join(ROOT, 'dist', 'semantics', 'python-session.js')))('lets Node exit while the session is idle', () => {
    const script = `import { PythonSession } from ${JSON.stringify(join(ROOT, 'dist', 'semantics', 'python-session.js'))};
const s = new PythonSession();
console.log(JSON.stringify(await s.evaluate({ expression: 'sorted("cab")', locals: {} })));`;
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ kind: 'value', repr: "['a', 'b', 'c']", type: 'list' });
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 15_000);
});
