/**
 * Errors at the right depth (issue 48): what the expression walker (semantics/evaluate.py) cannot
 * or will not build comes back as the user's error with its reason, never as a crash of the
 * evaluator or "ndb internal error":
 *
 * - "too deep": an expression nested past MAX_DEPTH (a chain of 2,000 unary minuses, 300 `+`),
 *   and values nested past MAX_VALUE_DEPTH (a chain of 100,000 map objects, whose next() or
 *   free overflowed CPython's C stack: SIGSEGV; a tuple 100,000 deep, whose hash did);
 * - "too large": sizes checked before the value is built — pow with any modulus (None
 *   included), ljust/rjust/center/zfill widths, format and f-string widths, %-format widths,
 *   repetition, join, replace, expandtabs, to_bytes;
 * - "not available in a neural session": folding with a builtin that nests its own results
 *   (functools.reduce(zip, …)), out of the walker's sight;
 * - after each, the same evaluator answers the next expression (it did not crash).
 *
 * And programs that shadow `locals`, `print`, `len` or `dict` get their entry's call state from
 * the signature alone (program-analysis/call_frame.py used to call the program's `locals`).
 */
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../adapter/evaluate.js';
import { entryStart } from '../program-analysis/entry-state.js';
import { PythonSession } from '../semantics/python-session.js';

const LOCALS = { s: "'berry'", xs: '[1, 2, 3]', n: '4' };
const message = async (expression: string) => {
  const r = await evaluateExpression(expression, LOCALS);
  return r.kind === 'error' ? r.message : `value ${r.repr}`;
};

const DEEP_VALUE = 'too deep: a value nested more than 1,000 levels deep (tuples or iterators, each over the one before)';

describe('the evaluator refuses what is too deep, with the reason', () => {
  it('an expression nested past 200 levels, however it nests', async () => {
    for (const expression of ['-'.repeat(2000) + '1', '1' + ' + 1'.repeat(300), 'not '.repeat(3000) + 'n', 's' + '.upper()'.repeat(1500), '('.repeat(250) + '1' + ')'.repeat(250)]) {
      expect(await message(expression), expression.slice(0, 30)).toBe('too deep: an expression nested more than 200 levels deep');
    }
    expect(await message('-'.repeat(150) + '1')).toBe('value 1');
  }, 60_000);

  it('a chain of 100,000 map objects and a tuple 100,000 deep (each overflowed the C stack)', async () => {
    expect(await message('next([m for m in [iter(xs)] for i in range(100000) for m in [map(abs, m)]][-1])')).toBe(DEEP_VALUE);
    expect(await message('hash([a for a in [()] for i in range(100000) for a in [(a,)]][-1])')).toBe(DEEP_VALUE);
    expect(await message('next([m for m in [iter(xs)] for i in range(100000) for m in [zip(m)]][-1])')).toBe(DEEP_VALUE);
    // Still the same process: no crash in between.
    expect(await message('n * 2')).toBe('value 8');
    // Shallow ones are ordinary values.
    expect(await message('hash([a for a in [()] for i in range(50) for a in [(a,)]][-1]) == hash([a for a in [()] for i in range(50) for a in [(a,)]][-1])')).toBe('value True');
    expect(await message('sorted(zip(xs, s))')).toBe("value [(1, 'b'), (2, 'e'), (3, 'r')]");
  }, 60_000);

  it('the same through the symbolic stepper\'s session, with its modules', async () => {
    const session = new PythonSession();
    try {
      const modules = { itertools: 'itertools', functools: 'functools' };
      const ask = async (expression: string) => {
        const r = await session.evaluate({ expression, locals: LOCALS, modules });
        return r.kind === 'error' ? r.message : r.kind === 'value' ? `value ${r.repr}` : `raised ${r.type}`;
      };
      expect(await ask('next([m for m in [iter(xs)] for i in range(5000) for m in [itertools.chain.from_iterable([m])]][-1])')).toBe(DEEP_VALUE);
      expect(await ask('next([m for m in [iter(xs)] for i in range(5000) for m in [map(next, [m])]][-1])')).toBe(DEEP_VALUE);
      expect(await ask('functools.reduce(lambda a, b: (a,), range(200000), ())')).toBe(DEEP_VALUE);
      expect(await ask('functools.reduce(zip, [xs] * 200000)')).toBe("not available in a neural session: folding with zip (each result nested in the next, out of the walker's sight)");
      expect(await ask('list(itertools.accumulate(range(5), lambda a, b: a + b))')).toBe('value [0, 1, 3, 6, 10]');
      expect(await ask('functools.reduce(max, xs)')).toBe('value 3');
    } finally {
      session.dispose();
    }
  }, 60_000);
});

describe('the evaluator refuses what is too large before building it', () => {
  it('says what and how large', async () => {
    const cases: [string, string][] = [
      ['pow(7, 10**9, None)', 'too large: an integer of about 2,807,354,922 bits (at most 1,000,000)'],
      ['pow(7, 10**100000, 10**20000)', 'too large: pow with a 332,193-bit exponent and a 66,439-bit modulus'],
      ["'a'.ljust(400_000_000)", 'too large: a string of 400,000,000 characters (at most 10,000,000)'],
      ["s.rjust(10**9, '*')", 'too large: a string of 1,000,000,000 characters (at most 10,000,000)'],
      ['s.center(10**8)', 'too large: a string of 100,000,000 characters (at most 10,000,000)'],
      ["str.zfill('1', 10**8)", 'too large: a string of 100,000,000 characters (at most 10,000,000)'],
      ["b'x'.ljust(10**8)", 'too large: a string of 100,000,000 characters (at most 10,000,000)'],
      ["format(1, '400000000')", 'too large: a format width or precision of 400000000 (at most 10,000,000)'],
      ["format(1.5, '.400000000f')", 'too large: a format width or precision of 400000000 (at most 10,000,000)'],
      ["f'{n:400000000}'", 'too large: a format width or precision of 400000000 (at most 10,000,000)'],
      ["f'{n:{10**9}}'", 'too large: a format width or precision of 1000000000 (at most 10,000,000)'],
      ["'%400000000d' % n", 'too large: a %-format width or precision of 400000000 (at most 10,000,000)'],
      ["'%*d' % (10**9, n)", 'too large: a %-format width or precision of 1,000,000,000 (at most 10,000,000)'],
      ["'a' * 10**10", 'too large: a result of 10,000,000,000 items (at most 10,000,000)'],
      ['[0] * 10**9', 'too large: a result of 1,000,000,000 items (at most 10,000,000)'],
      ["'-'.join(['a' * 1000] * 20000)", 'too large: a string of 20,019,999 characters (at most 10,000,000)'],
      ["('x' * 1000).replace('x', 'y' * 100000)", 'too large: a string of 100,000,000 characters (at most 10,000,000)'],
      ["'a\\tb'.expandtabs(10**8)", 'too large: a string of 100,000,003 characters (at most 10,000,000)'],
      ["n.to_bytes(10**9, 'big')", 'too large: a bytes value of 1,000,000,000 bytes (at most 10,000,000)'],
      ['10 ** 10 ** 10', 'too large: an integer of about 33,219,280,948 bits (at most 1,000,000)'],
      ['list(range(10**12))', 'too large: a range of more than 10,000,000 numbers'],
    ];
    for (const [expression, expected] of cases) expect(await message(expression), expression).toBe(expected);
  }, 60_000);

  it('still builds what fits', async () => {
    const cases: [string, string][] = [
      ['pow(7, 10**9, 13)', 'value 9'],
      ['pow(2, 10, None)', 'value 1024'],
      ["s.ljust(8, '.')", "value 'berry...'"],
      ["'7'.zfill(3)", "value '007'"],
      ["f'{n:>5}|{n:.2f}'", "value '    4|4.00'"],
      ["'%5d|%-3s|' % (n, 'a')", "value '    4|a  |'"],
      ["'-'.join(str(x) for x in xs)", "value '1-2-3'"],
      ["s.replace('r', 'R')", "value 'beRRy'"],
      ["format(3.14159, '.3f')", "value '3.142'"],
    ];
    for (const [expression, expected] of cases) expect(await message(expression), expression).toBe(expected);
  }, 60_000);
});

describe('programs that shadow builtins: the entry\'s call state from its signature alone', () => {
  const state = async (program: string, entry: string, args: string) => {
    const start = await entryStart(program, { entry, args });
    return start.kind === 'known' ? start.state.locals : start;
  };

  it('a function named locals (was RecursionError: "a bug in ndb")', async () => {
    expect(await state('def locals(a, b=2):\n    return a\n', 'locals', '1')).toEqual({ a: '1', b: '2' });
  });

  it('a parameter named locals (was a predicted TypeError: \'int\' object is not callable)', async () => {
    expect(await state('def f(locals, print=None):\n    return locals\n', 'f', '5')).toEqual({ locals: '5', print: 'None' });
  });

  it('functions and parameters named print, len, dict', async () => {
    const program = 'def print(*args, sep=" ", **kw):\n    pass\n\ndef len(x, /, dict=None):\n    return 0\n\ndef dict(len, print):\n    return len\n';
    expect(await state(program, 'print', "1, 2, end=''")).toEqual({ sep: "' '", args: '(1, 2)', kw: "{'end': ''}" });
    expect(await state(program, 'len', '[1]')).toEqual({ x: '[1]', dict: 'None' });
    expect(await state(program, 'dict', "'a', print=3")).toEqual({ len: "'a'", print: '3' });
    // A call that does not bind is still CPython's TypeError, about the user's function.
    expect(await state(program, 'dict', '1')).toEqual({ kind: 'exit', exit: { kind: 'error', value: "TypeError(\"dict() missing 1 required positional argument: 'print'\")" } });
  });
});
