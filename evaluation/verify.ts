/**
 * `ndb verify`: predicted test results, without running anything (issue 18; the
 * self-execution paper's simulation as a verifier, reference.md section 9).
 *
 * The test cases are read statically (verify_cases.py: `ast` and doctest's parser): every
 * `assert CALL == EXPECTED` (also `!=`, `is None/True/False`, `assert CALL`, `assert not
 * CALL`) of a tests file, or the doctest examples of the solution's docstrings. A case is a
 * call of one of the solution's top-level functions with literal arguments and a literal
 * expected value; anything else is `unknown`, with the reason, before the model is asked.
 *
 * For each case the model predicts how the call ends with the CruxEval output protocol
 * (model-client/call-outcome.ts predictCall: the call state from the literal arguments, then on to
 * the return), and the predicted value is compared with the expected one as Python literals
 * (ast.literal_eval on both; builtin values compared, no user code). Verdicts: `pass`,
 * `fail`, `raises` (the model predicts an exception; a doctest expecting that exception
 * passes instead), `unknown` (the model cannot finish, or its value is not a literal).
 *
 * The call runs to its return line by line by default (step_over, the output task's
 * default: README, "Simulation as a verifier": on `ndb eval verify --limit 10` verdicts agree
 * 66.7% against 53.7% by breakpoint, Best@k 40% against 20%), or by breakpoint or step_return.
 *
 * Best@k (rankCandidates): candidates ordered by predicted passes, ties by confidence.
 */
import { z } from 'zod';
import type { NeuralPredictor } from '../model-client/neural-predictor.js';
import { helperPath, runPythonHelper } from '../python/python-helper.js';
import { type CallOutcome, type OutputMethod, predictCall } from '../model-client/call-outcome.js';
import { describeError, failureKind } from './failures.js';

/** How a call is run to its return unless a caller says otherwise: line by line, the better method on real code (above). */
export const VERIFY_METHOD: OutputMethod = 'step_over';

export const CHECKS = ['eq', 'ne', 'is', 'is_not', 'truthy', 'falsy', 'raises'] as const;
export type Check = (typeof CHECKS)[number];

const CaseSchema = z.union([
  z.object({
    source: z.enum(['tests', 'doctest']),
    line: z.number().int(),
    text: z.string(),
    function: z.string(),
    args: z.string(),
    check: z.enum(CHECKS),
    expected: z.string().nullable(),
  }),
  z.object({ source: z.enum(['tests', 'doctest']), line: z.number().int(), text: z.string(), unknown: z.string() }),
]);
export type TestCase = z.infer<typeof CaseSchema>;
export type CallCase = Extract<TestCase, { function: string }>;

const Failure = z.object({ ok: z.literal(false), error: z.string() });
const CasesAnswer = z.union([
  z.object({ ok: z.literal(true), functions: z.array(z.string()), returns: z.record(z.array(z.number().int().positive())), cases: z.array(CaseSchema) }),
  Failure,
]);

/** A solution's cases, and each top-level function's own return lines (the breakpoint method). */
export interface SolutionCases {
  cases: TestCase[];
  returns: Record<string, number[]>;
}
const CompareAnswer = z.union([
  z.object({ ok: z.literal(true), verdicts: z.array(z.object({ verdict: z.enum(['pass', 'fail', 'unknown']), reason: z.string().optional() })) }),
  Failure,
]);

export type Verdict = 'pass' | 'fail' | 'raises' | 'unknown';

export interface CaseResult {
  case: TestCase;
  verdict: Verdict;
  /** The predicted return value's repr, or the predicted exception's; null without a prediction. */
  predicted: string | null;
  /** `raises`: the exception's class name. */
  exception?: string;
  /** The model's probability of the predicted value (cruxeval.ts); null without a prediction. */
  confidence: number | null;
  /** Why the verdict is unknown. */
  reason?: string;
}

export interface VerifyReport {
  solution: string;
  tests: string | null;
  cases: CaseResult[];
  /** Cases predicted to pass. */
  passed: number;
  total: number;
  /** Summed confidence of the cases predicted to pass (Best@k's first tie-break). */
  passConfidence: number;
  /** Summed confidence of the cases predicted to fail or raise (the second: the less sure, the better). */
  failConfidence: number;
}

/** A solution or tests file that cannot be read (a syntax error): the user's to fix. */
export class VerifyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerifyInputError';
  }
}

const HELPER_TIMEOUT_MS = 30_000;

async function helper<T>(request: object, schema: z.ZodType<T>): Promise<T> {
  const run = await runPythonHelper({ script: helperPath('verify_cases.py', import.meta.url), input: JSON.stringify(request), timeoutMs: HELPER_TIMEOUT_MS });
  if (run.timedOut) throw new Error(`verify_cases.py ran past ${HELPER_TIMEOUT_MS / 1000} s`);
  return schema.parse(run.output);
}

/** The cases of `tests` (asserts), or without tests the solution's doctest examples. Nothing runs. */
export async function readCases(solution: string, tests: string | null): Promise<SolutionCases> {
  const answer = await helper({ op: 'cases', solution, tests }, CasesAnswer);
  if (!answer.ok) throw new VerifyInputError(answer.error);
  return { cases: answer.cases, returns: answer.returns };
}

export interface CompareItem {
  value: string;
  check: Check;
  expected: string | null;
}

/** pass/fail of predicted reprs against expected values, both read as Python literals. */
export async function compareValues(items: readonly CompareItem[]): Promise<{ verdict: 'pass' | 'fail' | 'unknown'; reason?: string }[]> {
  if (items.length === 0) return [];
  const answer = await helper({ op: 'compare', items }, CompareAnswer);
  if (!answer.ok) throw new Error(`verify_cases.py: ${answer.error}`);
  return answer.verdicts;
}

/** `ZeroDivisionError('division by zero')` -> `ZeroDivisionError`. */
export function exceptionName(repr: string): string {
  const m = /^([A-Za-z_][\w.]*)/.exec(repr.trim());
  return m ? m[1]!.split('.').pop()! : repr.trim().slice(0, 40);
}

export interface VerifyOptions {
  /** How the model runs a call to its return (call-outcome.ts; default VERIFY_METHOD, line by line). */
  method?: OutputMethod;
  /** Frames per prediction, voted on (PredictOptions.samples). */
  samples?: number;
  onProgress?: (done: number, total: number) => void;
}

/** Predicts every case of one solution; the model is asked once per distinct call. */
export async function verifySolution(p: NeuralPredictor, solution: { path: string; code: string }, tests: string | null, read: SolutionCases, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const { cases } = read;
  const method = opts.method ?? VERIFY_METHOD;
  const outcomes = new Map<string, CallOutcome | { error: string }>();
  const calls = cases.filter((c): c is CallCase => 'function' in c);
  let done = 0;
  for (const c of calls) {
    const key = `${c.function}\u0000${c.args}`;
    if (!outcomes.has(key)) {
      try {
        const returns = read.returns[c.function] ?? [];
        outcomes.set(key, await predictCall(p, solution.code, { entry: c.function, args: c.args }, { method, returns, ...(opts.samples === undefined ? {} : { samples: opts.samples }) }));
      } catch (err) {
        const inside = failureKind(err) === 'internal';
        outcomes.set(key, { error: `${inside ? 'failed inside ndb (a bug): ' : 'the model cannot finish: '}${describeError(err)}` });
      }
    }
    opts.onProgress?.(++done, calls.length);
  }
  const results: CaseResult[] = [];
  const toCompare: { index: number; item: CompareItem }[] = [];
  for (const c of cases) {
    if (!('function' in c)) {
      results.push({ case: c, verdict: 'unknown', predicted: null, confidence: null, reason: c.unknown });
      continue;
    }
    const outcome = outcomes.get(`${c.function}\u0000${c.args}`)!;
    if ('error' in outcome) {
      results.push({ case: c, verdict: 'unknown', predicted: null, confidence: null, reason: outcome.error });
    } else if (outcome.kind === 'raised') {
      const name = exceptionName(outcome.exception);
      const expected = c.check === 'raises' && name === c.expected;
      results.push({ case: c, verdict: expected ? 'pass' : 'raises', predicted: outcome.exception, ...(expected ? {} : { exception: name }), confidence: outcome.confidence });
    } else {
      toCompare.push({ index: results.length, item: { value: outcome.value, check: c.check, expected: c.expected } });
      results.push({ case: c, verdict: 'unknown', predicted: outcome.value, confidence: outcome.confidence });
    }
  }
  const verdicts = await compareValues(toCompare.map((x) => x.item));
  toCompare.forEach(({ index }, j) => {
    const v = verdicts[j]!;
    results[index] = { ...results[index]!, verdict: v.verdict, ...(v.reason ? { reason: v.reason } : {}) };
  });
  const passes = results.filter((r) => r.verdict === 'pass');
  return {
    solution: solution.path,
    tests,
    cases: results,
    passed: passes.length,
    total: results.length,
    passConfidence: passes.reduce((s, r) => s + (r.confidence ?? 0), 0),
    failConfidence: results.filter((r) => r.verdict === 'fail' || r.verdict === 'raises').reduce((s, r) => s + (r.confidence ?? 0), 0),
  };
}

/**
 * Best@k's order: most predicted passes first; ties by the summed confidence of those passes
 * (higher first), then by the summed confidence of the predicted failures (lower first: the
 * model less sure the candidate fails), then the order given.
 */
export function rankCandidates<T extends Pick<VerifyReport, 'passed' | 'passConfidence' | 'failConfidence'>>(reports: readonly T[]): T[] {
  return reports
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.passed - a.r.passed || b.r.passConfidence - a.r.passConfidence || a.r.failConfidence - b.r.failConfidence || a.i - b.i)
    .map((x) => x.r);
}

// ---- text --------------------------------------------------------------------------------

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(0)}%`);

/** The verdict as shown: `pass`, `fail`, `raises ValueError`, `unknown`. */
export function verdictText(r: CaseResult): string {
  return r.verdict === 'raises' ? `raises ${r.exception}` : r.verdict;
}

function oneLine(text: string, n: number): string {
  const t = text.replace(/\s+/g, ' ');
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

/** One line a case: where, the case, the predicted value, the verdict and the confidence; last line `predicted: P of N pass`. */
export function formatVerify(report: VerifyReport): string {
  const where = (c: TestCase) => `${c.source === 'tests' ? (report.tests ?? 'tests') : report.solution}:${c.line}`;
  const lines = [`${report.solution}: ${report.total} case${report.total === 1 ? '' : 's'} from ${report.tests ?? `the doctests of ${report.solution}`} (predicted by the model; nothing runs)`];
  for (const r of report.cases) {
    const predicted = r.predicted === null ? '' : ` -> ${oneLine(r.predicted, 60)}`;
    const why = r.reason ? ` (${oneLine(r.reason, 120)})` : '';
    lines.push(`  ${where(r.case)}  ${oneLine(r.case.text, 70)}${predicted}  ${verdictText(r)}${r.confidence === null ? '' : ` ${pct(r.confidence)}`}${why}`);
  }
  lines.push(`predicted: ${report.passed} of ${report.total} pass`);
  return lines.join('\n') + '\n';
}

/** The ranking, best first; last line `best: FILE (P of N predicted to pass)`. */
export function formatRanking(ranked: readonly VerifyReport[]): string {
  const lines = ['rank  predicted pass  confidence  candidate'];
  ranked.forEach((r, i) => lines.push(`${String(i + 1).padStart(4)}  ${`${r.passed} of ${r.total}`.padStart(14)}  ${r.passConfidence.toFixed(2).padStart(10)}  ${r.solution}`));
  const best = ranked[0];
  if (best) lines.push(`best: ${best.solution} (${best.passed} of ${best.total} predicted to pass)`);
  return lines.join('\n') + '\n';
}
