import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Trace, TraceEvent } from '../tracer/events.js';
import { sourceLines } from '../python/source.js';
import { TraceFailure, traceFile, traceSource, type TraceRequest } from '../tracer/run-tracer.js';

/** Source text from indented template literals: drops the first newline and the common indent. */
function py(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

/** Invariants every trace keeps: the stack ends in the event's frame, depth = stack size - 1. */
function checkShape(trace: Trace): void {
  for (const e of trace.events) {
    expect(e.stack.length).toBe(e.depth + 1);
    expect(e.stack[e.stack.length - 1]).toEqual({ function: e.function, line: e.line });
    expect(e.value !== undefined).toBe(e.event === 'return' || e.event === 'exception');
  }
}

async function trace(source: string, req: Omit<TraceRequest, 'file'> = {}): Promise<Trace> {
  const t = await traceSource(source, req);
  checkShape(t);
  return t;
}

/** The failure a run ends in (fails the test when it succeeds). */
async function failure(run: Promise<unknown>): Promise<TraceFailure> {
  try {
    await run;
  } catch (e) {
    expect(e).toBeInstanceOf(TraceFailure);
    const f = e as TraceFailure;
    expect(f.message).not.toMatch(/\n/);
    return f;
  }
  throw new Error('expected a TraceFailure');
}

const brief = (e: TraceEvent) => [e.event, e.function, e.line, e.depth];

describe('tracer: basics', () => {
  it('records a simple function: events, locals reprs, return value, stack', async () => {
    const t = await trace(
      py(`
        def add(a, b):
            c = a + b
            return c
      `),
      { entry: 'add', args: '2, 3' },
    );
    expect(t.events.map(brief)).toEqual([
      ['call', 'add', 1, 0],
      ['line', 'add', 2, 0],
      ['line', 'add', 3, 0],
      ['return', 'add', 3, 0],
    ]);
    expect(t.events[0]!.locals).toEqual({ a: '2', b: '3' });
    expect(t.events[2]!.locals).toEqual({ a: '2', b: '3', c: '5' });
    expect(t.events[3]!.value).toBe('5');
    expect(t.events[3]!.stack).toEqual([{ function: 'add', line: 3 }]);
    expect(t.exit).toEqual({ type: 'exit', exit: 'normal', value: '5', scope: [[1, 3]] });
    expect(t.lines).toEqual(['def add(a, b):', '    c = a + b', '    return c']);
    expect(t.program).toContain('def add(a, b):');
  });

  it('passes keyword and literal arguments', async () => {
    const t = await trace('def f(xs, *, k):\n    return [x * k for x in xs]\n', { entry: 'f', args: `[1, 2], k=3` });
    expect(t.events[0]!.locals).toEqual({ xs: '[1, 2]', k: '3' });
    expect(t.exit.value).toBe('[3, 6]');
  });

  it('tracks depth and stack through nested calls and recursion', async () => {
    const t = await trace(
      py(`
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n - 1)

        def main():
            x = fact(3)
            return x
      `),
      { entry: 'main' },
    );
    const calls = t.events.filter((e) => e.event === 'call');
    expect(calls.map((e) => [e.function, e.depth, e.locals.n])).toEqual([
      ['main', 0, undefined],
      ['fact', 1, '3'],
      ['fact', 2, '2'],
      ['fact', 3, '1'],
    ]);
    const deepest = calls[3]!;
    expect(deepest.stack).toEqual([
      { function: 'main', line: 7 },
      { function: 'fact', line: 4 },
      { function: 'fact', line: 4 },
      { function: 'fact', line: 1 },
    ]);
    const returns = t.events.filter((e) => e.event === 'return');
    expect(returns.map((e) => [e.function, e.depth, e.value])).toEqual([
      ['fact', 3, '1'],
      ['fact', 2, '2'],
      ['fact', 1, '6'],
      ['main', 0, '6'],
    ]);
    expect(t.exit).toMatchObject({ exit: 'normal', value: '6' });
  });

  it('records a loop line by line with the locals changing', async () => {
    const t = await trace(
      py(`
        def total(xs):
            s = 0
            for x in xs:
                s += x
            return s
      `),
      { entry: 'total', args: '[4, 5]' },
    );
    expect(t.events.map((e) => e.line)).toEqual([1, 2, 3, 4, 3, 4, 3, 5, 5]);
    const sums = t.events.filter((e) => e.event === 'line' && e.line === 3).map((e) => [e.locals.s, e.locals.x]);
    expect(sums).toEqual([
      ['0', undefined],
      ['4', '4'],
      ['9', '5'],
    ]);
    expect(t.exit.value).toBe('9');
  });

  it('records a list comprehension as its own <listcomp> frame, hiding its .0 iterator', async () => {
    const t = await trace('def f(n):\n    sq = [i * i for i in range(n)]\n    return sq\n', { entry: 'f', args: '3' });
    const comp = t.events.filter((e) => e.function === '<listcomp>');
    expect(comp.length).toBeGreaterThan(0);
    expect(comp.every((e) => e.depth === 1 && e.stack[0]!.function === 'f')).toBe(true);
    expect(comp.every((e) => !('.0' in e.locals))).toBe(true);
    expect(comp[comp.length - 1]).toMatchObject({ event: 'return', value: '[0, 1, 4]' });
    expect(t.exit.value).toBe('[0, 1, 4]');
  });

  it('records a generator: each resume a call, each yield a return', async () => {
    const t = await trace(
      py(`
        def gen(n):
            for i in range(n):
                yield i * 10

        def main():
            return list(gen(2))
      `),
      { entry: 'main' },
    );
    const g = t.events.filter((e) => e.function === 'gen');
    expect(g.filter((e) => e.event === 'call')).toHaveLength(3);
    expect(g.filter((e) => e.event === 'return').map((e) => e.value)).toEqual(['0', '10', 'None']);
    // list() is library code: the generator still sits right below main.
    expect(g.every((e) => e.depth === 1)).toBe(true);
    expect(t.exit.value).toBe('[0, 10]');
  });

  it('counts a callback through sorted(key=...) one level below its caller', async () => {
    const t = await trace('def f(xs):\n    return sorted(xs, key=lambda v: -v)\n', { entry: 'f', args: '[1, 3, 2]' });
    const lam = t.events.filter((e) => e.function === '<lambda>');
    expect(lam.filter((e) => e.event === 'call')).toHaveLength(3);
    expect(lam.every((e) => e.depth === 1 && e.stack[0]!.function === 'f')).toBe(true);
    expect(t.exit.value).toBe('[3, 2, 1]');
  });
});

describe('tracer: exceptions and exits', () => {
  it('records a caught exception and goes on', async () => {
    const t = await trace(
      py(`
        def f():
            try:
                int('x')
            except ValueError:
                r = 'caught'
            return r
      `),
      { entry: 'f' },
    );
    const exc = t.events.find((e) => e.event === 'exception')!;
    expect(exc).toMatchObject({ line: 3, depth: 0, value: `ValueError("invalid literal for int() with base 10: 'x'")` });
    expect(t.exit).toMatchObject({ exit: 'normal', value: "'caught'" });
  });

  it('ends an uncaught exception with exit error: exception then return None in each frame', async () => {
    const t = await trace(
      py(`
        def inner(k):
            raise KeyError(k)

        def outer():
            inner('key')
      `),
      { entry: 'outer' },
    );
    expect(t.events.slice(-4).map((e) => [e.event, e.function, e.value])).toEqual([
      ['exception', 'inner', "KeyError('key')"],
      ['return', 'inner', 'None'],
      ['exception', 'outer', "KeyError('key')"],
      ['return', 'outer', 'None'],
    ]);
    expect(t.exit).toMatchObject({ exit: 'error', value: "KeyError('key')" });
  });

  it('treats sys.exit and input() on the empty stdin as errors', async () => {
    const exit3 = await trace('import sys\ndef f():\n    sys.exit(3)\n', { entry: 'f' });
    expect(exit3.exit).toMatchObject({ exit: 'error', value: 'SystemExit(3)' });
    const read = await trace('def f():\n    return input()\n', { entry: 'f' });
    expect(read.exit).toMatchObject({ exit: 'error', value: "EOFError('EOF when reading a line')" });
  });

  it('cuts an infinite loop at max_events', async () => {
    const t = await trace('def f():\n    i = 0\n    while True:\n        i += 1\n', {
      entry: 'f',
      limits: { maxEvents: 20 },
    });
    expect(t.events).toHaveLength(20);
    expect(t.exit).toMatchObject({ exit: 'never', reason: 'max_events' });
  });

  it('cuts a program that sleeps at the timeout, quickly', async () => {
    const started = Date.now();
    const t = await trace('import time\ndef f():\n    time.sleep(30)\n', { entry: 'f', limits: { timeoutSeconds: 1 } });
    expect(t.exit).toMatchObject({ exit: 'never', reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('does not hang on a program stuck in native code', async () => {
    const started = Date.now();
    const f = await failure(
      traceSource('def f():\n    return sum(range(10**15))\n', { entry: 'f', limits: { timeoutSeconds: 1 } }),
    );
    expect(f.kind).toBe('python');
    expect(f.message).toMatch(/SIGXCPU|did not finish/);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('ends runaway recursion in RecursionError, within the events cap', async () => {
    const capped = await trace('def r(n):\n    return r(n + 1)\n', { entry: 'r', args: '0', limits: { maxEvents: 300 } });
    expect(capped.exit).toMatchObject({ exit: 'never', reason: 'max_events' });
    const full = await trace('def r(n):\n    return r(n + 1)\n', { entry: 'r', args: '0', limits: { maxEvents: 5000 } });
    expect(full.exit).toMatchObject({ exit: 'error', value: "RecursionError('maximum recursion depth exceeded')" });
  });

  it('flags a run whose program switched tracing off', async () => {
    const t = await trace('import sys\ndef f():\n    sys.settrace(None)\n    a = 1\n    return a\n', { entry: 'f' });
    expect(t.exit).toMatchObject({ exit: 'normal', value: '1', reason: 'trace_lost' });
    expect(t.events.every((e) => e.line <= 3)).toBe(true);
  });

  it('reports the memory limit', async () => {
    const f = await failure(trace('def f():\n    return len(bytearray(10**9))\n', { entry: 'f', limits: { memoryMb: 200 } }));
    expect(f.kind).toBe('memory');
    expect(f.message).toBe('the program exceeded the memory limit of 200 MB');
  });
});

describe('tracer: module top level, output, reprs', () => {
  it('traces the module top level without an entry, keeping only plain data in locals', async () => {
    const t = await trace(
      py(`
        import os
        from collections import Counter
        X = [1, 2]
        def f(y):
            return y + 1
        class K:
            pass
        Y = f(X[0])
        if __name__ == '__main__':
            Z = 'main'
      `),
    );
    expect(t.events[0]).toMatchObject({ event: 'call', function: '<module>', depth: 0, line: 1 });
    const last = t.events[t.events.length - 1]!;
    expect(last).toMatchObject({ event: 'return', function: '<module>', value: 'None' });
    expect(last.locals).toEqual({ X: '[1, 2]', Y: '2', Z: "'main'" });
    expect(t.events.filter((e) => e.function === 'f').every((e) => e.depth === 1)).toBe(true);
    expect(t.exit).toEqual({ type: 'exit', exit: 'normal', value: 'None' });
  });

  it('does not run the __main__ block when an entry is given', async () => {
    const t = await trace("def f():\n    return 1\nif __name__ == '__main__':\n    raise SystemExit('ran')\n", {
      entry: 'f',
    });
    expect(t.exit).toMatchObject({ exit: 'normal', value: '1' });
  });

  it('keeps the record stream clean when the program prints', async () => {
    const t = await trace(
      py(`
        import os, sys
        def f():
            for i in range(200):
                print('{"type": "exit", "exit": "normal"}', i)
            sys.stderr.write('noise\\n')
            os.write(1, b'raw fd write\\n')
            os.system('echo from a subprocess')
            return 'done'
      `),
      { entry: 'f' },
    );
    expect(t.exit).toMatchObject({ exit: 'normal', value: "'done'" });
  });

  it('escapes unicode, quotes and newlines like repr', async () => {
    const t = await trace(`def f():\n    s = "it's \\"q\\"\\nnext é 日本"\n    return s\n`, { entry: 'f' });
    expect(t.exit.value).toBe(`'it\\'s "q"\\nnext é 日本'`);
    expect(t.events[t.events.length - 1]!.locals.s).toBe(t.exit.value);
  });

  it('truncates a long repr with …, also for huge containers', async () => {
    const t = await trace('def f():\n    big = list(range(10**6))\n    return "x" * 5000\n', {
      entry: 'f',
      limits: { maxRepr: 50 },
    });
    const big = t.events[t.events.length - 1]!.locals.big!;
    expect(big).toHaveLength(50);
    expect(big).toBe(`${'[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17'.slice(0, 49)}…`);
    expect(t.exit.value).toBe(`'${'x'.repeat(48)}…`);
  });

  it('marks a failing repr', async () => {
    const t = await trace('class K:\n    def __repr__(self):\n        raise ValueError\ndef f():\n    k = K()\n    return 1\n', {
      entry: 'f',
    });
    expect(t.events[t.events.length - 1]!.locals.k).toBe('<repr failed: ValueError>');
  });
});

describe('tracer: bad input', () => {
  it('reports a syntax error with its line', async () => {
    const f = await failure(traceSource('x = 1\ndef f(:\n    pass\n', { entry: 'f' }));
    expect(f.kind).toBe('syntax');
    expect(f.message).toBe('SyntaxError at line 2: invalid syntax');
  });

  it('reports a missing entry with the functions defined', async () => {
    const f = await failure(traceSource('def a():\n    pass\ndef b():\n    pass\n', { entry: 'foo' }));
    expect(f.kind).toBe('missing_entry');
    expect(f.message).toMatch(/^no function named 'foo' in .*program\.py; functions defined: a, b$/);
  });

  it('rejects arguments that are not Python literals', async () => {
    const f = await failure(traceSource('def f(x):\n    return x\n', { entry: 'f', args: 'os.getcwd()' }));
    expect(f.kind).toBe('bad_args');
    expect(f.message).toBe('argument 1 is not a Python literal: os.getcwd()');
    const g = await failure(traceSource('def f(x):\n    return x\n', { entry: 'f', args: '1), (2' }));
    expect(g.kind).toBe('bad_args');
  });

  it('reports a module whose top level raises', async () => {
    const f = await failure(traceSource('def f():\n    pass\nx = 1 / 0\n', { entry: 'f' }));
    expect(f.kind).toBe('import');
    expect(f.message).toBe("the module's top level raised ZeroDivisionError('division by zero') at line 3");
  });

  it('reports a missing file', async () => {
    const f = await failure(traceFile({ file: '/nonexistent/prog.py', entry: 'f' }));
    expect(f.kind).toBe('missing_file');
    expect(f.message).toBe('no such file: /nonexistent/prog.py');
  });
});

describe('tracer: files in place and scope', () => {
  const textwrap = '/usr/lib/python3.11/textwrap.py';

  it.runIf(existsSync(textwrap))('traces a stdlib function in place, only its own frames', async () => {
    const t = await traceFile({ file: textwrap, entry: 'dedent', args: `'  a\\n  b'` });
    checkShape(t);
    expect(t.exit).toMatchObject({ exit: 'normal', value: "'a\\nb'" });
    expect(t.events[0]!.locals).toEqual({ text: "'  a\\n  b'" });
    expect(new Set(t.events.flatMap((e) => e.stack.map((f) => f.function)))).toEqual(new Set(['dedent']));
    const [range, ...rest] = t.exit.scope!;
    expect(rest).toEqual([]);
    const [start, end] = range!;
    expect(t.lines[start - 1]).toMatch(/^def dedent\(/);
    expect(t.events.every((e) => e.line >= start && e.line <= end)).toBe(true);
    // The def ends where the next top-level statement begins.
    const next = t.lines.slice(end).find((l) => l.trim() !== '');
    expect(next).toMatch(/^\S/);
  });

  it('gives the scope of the defs a run touched, decorators included', async () => {
    const t = await trace(
      py(`
        import functools

        def unused():
            return 0

        @functools.lru_cache(None)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)

        def helper(x):
            def inner(y):
                return y * 2
            return inner(x)

        def main():
            return fib(5) + helper(1)
      `),
      { entry: 'main' },
    );
    expect(t.exit).toMatchObject({ exit: 'normal', value: '7' });
    expect(t.exit.scope).toEqual([
      [6, 8],
      [10, 13],
      [15, 16],
    ]);
  });

  it('splits source lines the way Python numbers them', () => {
    expect(sourceLines('a\r\nb\nc\rd\n')).toEqual(['a', 'b', 'c', 'd']);
    expect(sourceLines('a')).toEqual(['a']);
    expect(sourceLines('')).toEqual(['']);
  });

  it('removes its temporary files', async () => {
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('ndb-trace-')).length;
    await trace('def f():\n    return 1\n', { entry: 'f' });
    const after = readdirSync(tmpdir()).filter((n) => n.startsWith('ndb-trace-')).length;
    expect(after).toBeLessThanOrEqual(before);
  });
});

describe('reproducibility', () => {
  it('gives the same repr for a set of strings in every run (fixed hash seed)', async () => {
    const source = "def f():\n    s = {'alpha', 'beta', 'gamma', 'delta', 'epsilon'}\n    return repr(s)\n";
    const runs = await Promise.all([0, 1, 2, 3].map(() => traceSource(source, { entry: 'f', args: '' })));
    const values = new Set(runs.map((t) => t.exit.value));
    expect(values.size).toBe(1);
  });
});
