/**
 * `ndb verify` and `ndb eval verify` (issue 18): the static reading of asserts and doctests
 * (real Python's ast, nothing run), literal comparison, the Best@k ranking, the mutator and
 * its real verdicts, and the commands end to end on the shipped model (skipped, saying so,
 * without one). The model is weak: tests check behaviour (verdict categories, unknown with a
 * reason, no file written, output format, ranking consistent with the predictions), never
 * that the model is right.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitOf } from '../data-pipeline/split.js';
import { readHeldout } from '../evaluation/heldout.js';
import { compareValues, exceptionName, rankCandidates, readCases, type VerifyReport } from '../evaluation/verify.js';
import { type VerifyJson, verifyItems, verifySummary } from '../extension/src/verify-items.js';
import { formatVerifyEval, mutantsOf, pickMutants, problemsOf, realVerdicts, type VerifyEvalReport } from '../evaluation/verify-eval.js';
import { HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const HELDOUT_REAL = join(ROOT, 'evaluation', 'heldout-real.jsonl');

function ndb(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [NDB, ...args], { encoding: 'utf8', timeout: 300_000, cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// A solution and tests that write a file when run: verify must leave none behind.
const SOLUTION = `open('LEAKED_BY_SOLUTION_IMPORT', 'w').write('ran')

def square(n):
    open('LEAKED_BY_SOLUTION_CALL', 'w').write('ran')
    return n * n

def add(a, b):
    """Add two things.

    >>> add(1, 2)
    3
    >>> add(1, None)
    Traceback (most recent call last):
    TypeError: unsupported operand
    >>> x = 4
    >>> add(x, 1)
    5
    """
    return a + b
`;
const TESTS = `from solution import *
open('LEAKED_BY_TESTS', 'w').write('ran')
assert square(3) == 9
assert 5 == add(2, 3)
assert add(1)  == 2
assert square(len('abc')) == 9
assert add(1, 2) == len('abc')
assert math.isclose(add(1.0, 2.0), 3.0)
assert nothere(1) == 2
assert add(1, 1)
assert not add(0, 0)
assert add(1, 1) != 3
def check(candidate):
    assert candidate(2) == 4
check(square)
`;

function workdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ndb-verify-'));
  writeFileSync(join(dir, 'solution.py'), SOLUTION);
  writeFileSync(join(dir, 'tests.py'), TESTS);
  return dir;
}

describe('reading test cases (ast only)', () => {
  it('reads asserts of every supported form, and says why the others are unknown', async () => {
    const { cases, returns } = await readCases(SOLUTION, TESTS);
    const summary = cases.map((c) => ('function' in c ? `${c.line} ${c.function}(${c.args}) ${c.check} ${c.expected}` : `${c.line} unknown: ${c.unknown}`));
    expect(summary).toEqual([
      '3 square(3) eq 9',
      '4 add(2, 3) eq 5',
      '5 add(1) eq 2',
      "6 unknown: argument is not a Python literal: len('abc')",
      "7 unknown: expected value is not a Python literal: len('abc')",
      '8 unknown: the call is not NAME(ARGS): math.isclose',
      '9 unknown: nothere is not a top-level function of the solution (it defines: square, add)',
      '10 add(1, 1) truthy null',
      '11 add(0, 0) falsy null',
      '12 add(1, 1) ne 3',
      // HumanEval's `def check(candidate)` and `check(square)`: candidate is square.
      '14 square(2) eq 4',
    ]);
    expect(returns).toEqual({ square: [5], add: [19] });
  });

  it('reads doctest examples of the docstrings: values, tracebacks, and statements as unknown', async () => {
    const { cases } = await readCases(SOLUTION, null);
    expect(cases.map((c) => ('function' in c ? `${c.source} ${c.function}(${c.args}) ${c.check} ${c.expected}` : `${c.source} unknown: ${c.unknown}`))).toEqual([
      'doctest add(1, 2) eq 3',
      'doctest add(1, None) raises TypeError',
      'doctest unknown: not an expression (a statement in the example)',
      'doctest unknown: argument is not a Python literal: x',
    ]);
  });

  it('a syntax error is the user input error, not a crash', async () => {
    await expect(readCases('def f(:\n', TESTS)).rejects.toThrow(/SyntaxError/);
  });
});

describe('comparing values as Python literals', () => {
  it("follows Python's == on literals, reads truthiness, and calls a non-literal prediction unknown", async () => {
    const verdicts = await compareValues([
      { value: '3', check: 'eq', expected: '3.0' },
      { value: '[1, 2]', check: 'eq', expected: '[1, 3]' },
      { value: "{'a': (1, 2)}", check: 'eq', expected: "{'a': (1, 2)}" },
      { value: '<Foo object at 0x…>', check: 'eq', expected: '1' },
      { value: '0', check: 'truthy', expected: null },
      { value: '[]', check: 'falsy', expected: null },
      { value: 'None', check: 'is', expected: 'None' },
      { value: '1', check: 'ne', expected: '1' },
      { value: '5', check: 'raises', expected: 'ValueError' },
    ]);
    expect(verdicts.map((v) => v.verdict)).toEqual(['pass', 'fail', 'pass', 'unknown', 'fail', 'pass', 'pass', 'fail', 'fail']);
    expect(verdicts[3]!.reason).toMatch(/not a Python literal/);
  });

  it('names the exception class of a repr', () => {
    expect(exceptionName("ZeroDivisionError('division by zero')")).toBe('ZeroDivisionError');
    expect(exceptionName('json.decoder.JSONDecodeError("x")')).toBe('JSONDecodeError');
  });
});

describe('Best@k ranking', () => {
  it('orders by predicted passes, then pass confidence, then (lower) failure confidence, then the order given', () => {
    const r = (name: string, passed: number, passConfidence: number, failConfidence: number) => ({ solution: name, passed, passConfidence, failConfidence });
    const ranked = rankCandidates([r('a', 1, 0.9, 0), r('b', 2, 0.1, 0.5), r('c', 2, 0.8, 0.9), r('d', 0, 0, 0.2), r('e', 0, 0, 0.1), r('f', 0, 0, 0.1)]);
    expect(ranked.map((x) => x.solution)).toEqual(['c', 'b', 'a', 'e', 'f', 'd']);
  });
});

describe('the mutator and real verdicts (the evaluation only)', () => {
  const REFERENCE = `def f(xs, n):
    """Sum of the first n items that are positive."""
    total = 0
    for i in range(n):
        if xs[i] > 0:
            total += xs[i]
    return total
`;
  const CASES = [
    { input: '[1, -2, 3], 3', output: '4' },
    { input: '[5, 5], 1', output: '5' },
  ];

  it('makes mutants of all five kinds, none equal to the reference; real Python tells which fail', async () => {
    const { reference, mutants } = await mutantsOf(REFERENCE, 'f');
    expect(new Set(mutants.map((m) => m.kind))).toEqual(new Set(['operator', 'bound', 'constant', 'statement', 'return']));
    expect(new Set(mutants.map((m) => m.code)).size).toBe(mutants.length);
    expect(mutants.map((m) => m.code)).not.toContain(reference);
    const swapped = mutants.find((m) => m.description.includes('`xs[i] > 0` -> `xs[i] >= 0`'));
    expect(swapped).toBeDefined();
    const bound = mutants.find((m) => m.description.includes('`range(n)` -> `range(n + 1)`'))!;
    const early = mutants.find((m) => m.kind === 'return')!;
    const real = await realVerdicts([reference, bound.code, early.code].flatMap((code) => CASES.map((c) => ({ code, ...c }))));
    // The reference passes; range(n + 1) reads past the list (IndexError) on the first case and
    // adds one item too many on the second; the early return gives 0 on both.
    expect(real).toEqual(['pass', 'pass', 'raises', 'fail', 'fail', 'fail']);
  });

  it('a mutant that loops forever is cut by the timeout (raises), not waited for', async () => {
    const looping = 'def f(n):\n    while n > 0:\n        pass\n    return n\n';
    const started = Date.now();
    expect(await realVerdicts([{ code: looping, input: '1', output: '0' }])).toEqual(['raises']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('picks mutants round-robin over their kinds', () => {
    const ms = ['a', 'a', 'a', 'b', 'c', 'c'].map((kind, i) => ({ kind, i }));
    let seed = 0.3;
    const picked = pickMutants(ms, 3, () => (seed = (seed * 7.1) % 1));
    expect(picked.map((m) => m.kind).sort()).toEqual(['a', 'b', 'c']);
    expect(pickMutants(ms, 10, Math.random)).toHaveLength(6);
  });

  it('takes held-out problems only: every group of heldout-real.jsonl, and refuses a training group', async () => {
    const rows = await readHeldout(HELDOUT_REAL);
    const problems = problemsOf(rows);
    expect(problems.length).toBeGreaterThan(50);
    for (const p of problems) expect(splitOf(p.problem)).not.toBe('train');
    let train = 1;
    while (splitOf(`mbpp/${train}`) !== 'train') train++;
    expect(() => problemsOf([{ ...rows[0]!, id: `mbpp/${train}#0` }])).toThrow(/training group/);
  });
});

describe.skipIf(!HAS_EMBEDDED_MODEL)('ndb verify on the shipped model', () => {
  it('prints every case with its verdict, ends with `predicted: P of N pass`, and runs nothing', () => {
    const dir = workdir();
    const r = ndb(dir, 'verify', 'solution.py', '--tests', 'tests.py');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('solution.py: 11 cases from tests.py (predicted by the model; nothing runs)');
    const caseLines = lines.slice(1, -1);
    expect(caseLines).toHaveLength(11);
    expect(caseLines[0]).toMatch(/^ {2}tests\.py:3 {2}assert square\(3\) == 9 -> .+ {2}(pass|fail|raises \w+|unknown) \d+%$/);
    // Arguments that do not bind: the call fails before the function runs (known from the input).
    expect(caseLines[2]).toMatch(/assert add\(1\) == 2 -> TypeError\(.*raises TypeError 100%$/);
    expect(caseLines[3]).toMatch(/unknown \(argument is not a Python literal: len\('abc'\)\)$/);
    const passes = caseLines.filter((l) => / pass \d+%/.test(l)).length;
    expect(lines.at(-1)).toBe(`predicted: ${passes} of 11 pass`);
    expect(readdirSync(dir).sort()).toEqual(['solution.py', 'tests.py']);
  });

  it('--json: a verdict for every case, consistent counts; doctests without --tests', () => {
    const dir = workdir();
    const r = ndb(dir, 'verify', 'solution.py', '--json', '--method', 'step_return');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as VerifyReport;
    expect(report.tests).toBeNull();
    expect(report.cases.map((c) => c.case.text)).toEqual(['>>> add(1, 2)', '>>> add(1, None)', '>>> x = 4', '>>> add(x, 1)']);
    for (const c of report.cases) {
      expect(c.verdict).toMatch(/^(pass|fail|raises|unknown)$/);
      if (c.verdict === 'unknown') expect(c.reason).toBeTruthy();
      else expect(c.confidence).toBeGreaterThanOrEqual(0);
      if (c.verdict === 'raises') expect(c.exception).toMatch(/^\w+$/);
    }
    expect(report.cases.slice(2).map((c) => c.verdict)).toEqual(['unknown', 'unknown']);
    expect(report.passed).toBe(report.cases.filter((c) => c.verdict === 'pass').length);
    expect(readdirSync(dir).sort()).toEqual(['solution.py', 'tests.py']);
  });

  it('--candidates: the ranking follows the predicted passes, last line `best: FILE (P of N predicted to pass)`', () => {
    const dir = workdir();
    writeFileSync(join(dir, 'b.py'), 'def square(n):\n    return n + n\n\ndef add(a, b):\n    return a - b\n');
    writeFileSync(join(dir, 'c.py'), 'def square(n):\n    return n ** 2\n');
    const text = ndb(dir, 'verify', '--candidates', 'solution.py', 'b.py', 'c.py', '--tests', 'tests.py');
    expect(text.code, text.stderr).toBe(0);
    const last = text.stdout.trim().split('\n').at(-1)!;
    expect(last).toMatch(/^best: (solution|b|c)\.py \(\d+ of 11 predicted to pass\)$/);
    const json = ndb(dir, 'verify', '--candidates', 'solution.py', 'b.py', 'c.py', '--tests', 'tests.py', '--json');
    const out = JSON.parse(json.stdout) as { ranking: string[]; best: string; candidates: VerifyReport[] };
    expect([...out.ranking].sort()).toEqual(['b.py', 'c.py', 'solution.py']);
    const byName = new Map(out.candidates.map((c) => [c.solution, c]));
    const passes = out.ranking.map((n) => byName.get(n)!.passed);
    expect(passes).toEqual([...passes].sort((a, b) => b - a));
    expect(out.best).toBe(out.ranking[0]);
    // c.py has no add: those cases are unknown with the reason.
    const c = byName.get('c.py')!;
    expect(c.cases.find((x) => x.case.text === 'assert 5 == add(2, 3)')!.reason).toMatch(/add is not a top-level function of the solution/);
    expect(readdirSync(dir).sort()).toEqual(['b.py', 'c.py', 'solution.py', 'tests.py']);
  });

  it('--tests FILE --doctests on one file (the editor\'s Verify Tests): its asserts and doctests, as the quick pick lists them', () => {
    const dir = workdir();
    writeFileSync(join(dir, 'both.py'), `${SOLUTION}\nassert add(1) == 2\nassert square(x) == 4\n`);
    const r = ndb(dir, 'verify', 'both.py', '--tests', 'both.py', '--doctests', '--json');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as VerifyReport;
    expect(report.cases.map((c) => `${c.case.source}:${c.case.text}`)).toEqual([
      'tests:assert add(1) == 2',
      'tests:assert square(x) == 4',
      'doctest:>>> add(1, 2)',
      'doctest:>>> add(1, None)',
      'doctest:>>> x = 4',
      'doctest:>>> add(x, 1)',
    ]);
    const items = verifyItems(report as unknown as VerifyJson);
    // Failing cases first (add(1) cannot bind: raises TypeError), passes last.
    expect(items[0]!.label).toBe('$(error) line 21: assert add(1) == 2');
    expect(items[0]!.description).toMatch(/^predicted: raises TypeError, got TypeError\(.*\(100%\)$/);
    expect(items[0]!.debug).toEqual({ entry: 'add', args: '1' });
    const rank = { '$(error)': 0, '$(question)': 1, '$(pass)': 2 } as Record<string, number>;
    const ranks = items.map((i) => rank[i.label.split(' ')[0]!]!);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    // A case that is no call with literals cannot be debugged; it says why.
    const square = items.find((i) => i.label.endsWith('assert square(x) == 4'))!;
    expect(square.debug).toBeUndefined();
    expect(square.detail).toMatch(/argument is not a Python literal: x/);
    expect(verifySummary(report as unknown as VerifyJson)).toBe(`predicted: ${report.passed} of 6 pass`);
    expect(readdirSync(dir).sort()).toEqual(['both.py', 'solution.py', 'tests.py']);
  });

  it('bad input is one line and exit code 2', () => {
    const dir = workdir();
    writeFileSync(join(dir, 'bad.py'), 'def f(:\n');
    for (const [args, message] of [
      [['verify', 'bad.py', '--tests', 'tests.py'], /^ndb: error: cannot read bad.py or its tests: SyntaxError/],
      [['verify', 'missing.py'], /^ndb: error: no such file: missing.py/],
      [['verify', '--candidates', 'solution.py'], /^ndb: error: --candidates needs --tests/],
      [['verify', 'solution.py', '--samples', '0'], /^ndb: error: --samples must be/],
    ] as const) {
      const r = ndb(dir, ...args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  });

  it('ndb eval verify: a pool of the reference and failing mutants, real and predicted verdicts, Best@k', () => {
    const r = ndb(ROOT, 'eval', 'verify', '--limit', '1', '--cases', '2', '--k', '4', '--method', 'step_return', '--json');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as VerifyEvalReport;
    expect(report.pools).toHaveLength(1);
    const pool = report.pools[0]!;
    expect(splitOf(pool.problem)).not.toBe('train');
    expect(pool.candidates).toHaveLength(4);
    const refs = pool.candidates.filter((c) => c.label === 'reference');
    expect(refs).toHaveLength(1);
    expect(refs[0]!.real).toEqual(['pass', 'pass']);
    for (const c of pool.candidates.filter((x) => x.label !== 'reference')) expect(c.real.some((v) => v !== 'pass')).toBe(true);
    for (const c of pool.candidates) {
      expect(c.predicted).toHaveLength(2);
      expect(c.passed).toBe(c.predicted.filter((v) => v === 'pass').length);
    }
    expect(report.perCase.pairs).toBe(8);
    expect(report.bestAtK.random).toBeCloseTo(1 / 4);
    expect(report.bestAtK.oracle).toBe(1);
    expect(report.bestAtK.model).toBe(pool.candidates[pool.chosen]!.label === 'reference' ? 1 : 0);
    const text = formatVerifyEval(report);
    expect(text).toMatch(/^verify: 1 pools of \d+ held-out/);
    expect(text.trim().split('\n').find((l) => l.startsWith('oracle'))).toMatch(/^oracle \(real execution\) +100\.0% *$/);
    expect(text).toMatch(/repair feedback: the predicted first wrong line is the real run's/);
    expect(text.trim().split('\n').at(-1)).toBe('predictions made in this process');
  });
});
