/**
 * `ndb eval verify`: the model as a verifier (issue 18), on problems no build trains on.
 *
 * Problems: the HumanEval and MBPP problems of evaluation/heldout-real.jsonl (the groups of
 * the validation and test splits, data-pipeline/split.ts; checked again here), each with its
 * rows as test cases (`f(input) == output`, at most `cases` of them). A problem's pool holds
 * its reference solution and k-1 mutants of it (mutate.py: a swapped operator, an off-by-one
 * bound, a wrong constant, a dropped statement, an early return) that fail at least one of
 * the cases in real Python, picked round-robin over the kinds in a seeded order; the pool is
 * shuffled (seeded) so that the reference has no fixed place. Every candidate's real verdicts
 * come from real Python (mutate.py `real`, rows.py's forked child): that is the ground truth,
 * and the only code this evaluation runs. The predicted verdicts are `ndb verify`'s
 * (verify.ts), which runs nothing.
 *
 * Reported: per test case, how often the predicted verdict (pass, fail, raises) is the real
 * one, and how often pass / not pass agrees (an unknown agrees with nothing), against the
 * baselines that say every case passes, or every case fails; Best@k, the share of pools whose top-ranked
 * candidate (verify.ts rankCandidates) really passes every case, against a random choice
 * (the expected share: passing candidates / k) and the oracle (ranking by real verdicts).
 * The oracle is 100% by construction: the cases that choose are the cases that judge, and
 * the reference passes them all.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { NeuralRuntime } from '../adapter/runtime.js';
import { splitOf } from '../data-pipeline/split.js';
import type { NeuralPredictor } from '../model-client/neural-predictor.js';
import { helperPath, runPythonHelper } from '../python/python-helper.js';
import type { HeldoutRow } from './heldout.js';
import type { OutputMethod } from '../model-client/call-outcome.js';
import { departureOf, FEEDBACK_STEPS, realDeparture } from './repair-feedback.js';
import { type CallCase, rankCandidates, readCases, type Verdict, verifySolution } from './verify.js';

/** Seconds a candidate may run on one case in real Python (a mutant may loop forever). */
const REAL_TIMEOUT_SECONDS = 2;
const HELPER_TIMEOUT_MS = 600_000;

const Failure = z.object({ ok: z.literal(false), error: z.string() });
const MutantsAnswer = z.union([
  z.object({ ok: z.literal(true), reference: z.string(), mutants: z.array(z.object({ kind: z.string(), description: z.string(), code: z.string() })) }),
  Failure,
]);
const RealAnswer = z.union([
  z.object({ ok: z.literal(true), verdicts: z.array(z.object({ verdict: z.enum(['pass', 'fail', 'raises']), error: z.string().optional() })) }),
  Failure,
]);
type RealVerdict = 'pass' | 'fail' | 'raises';

async function mutateHelper<T>(request: object, schema: z.ZodType<T>): Promise<T> {
  const run = await runPythonHelper({ script: helperPath('mutate.py', import.meta.url), input: JSON.stringify(request), timeoutMs: HELPER_TIMEOUT_MS });
  if (run.timedOut) throw new Error(`mutate.py ran past ${HELPER_TIMEOUT_MS / 1000} s`);
  return schema.parse(run.output);
}

export interface Mutant {
  kind: string;
  description: string;
  code: string;
}

/** The reference as ast.unparse writes it, and its mutants (nothing runs). */
export async function mutantsOf(code: string, entry: string): Promise<{ reference: string; mutants: Mutant[] }> {
  const answer = await mutateHelper({ op: 'mutants', code, entry }, MutantsAnswer);
  if (!answer.ok) throw new Error(`mutate.py: ${answer.error}`);
  return answer;
}

/** Real Python: does f(input) == output hold for each item (the evaluation's ground truth). */
export async function realVerdicts(items: readonly { code: string; input: string; output: string }[]): Promise<RealVerdict[]> {
  if (items.length === 0) return [];
  const answer = await mutateHelper({ op: 'real', timeout: REAL_TIMEOUT_SECONDS, items }, RealAnswer);
  if (!answer.ok) throw new Error(`mutate.py: ${answer.error}`);
  return answer.verdicts.map((v) => v.verdict);
}

export interface Candidate {
  /** `reference` or the mutant's description. */
  label: string;
  real: RealVerdict[];
  predicted: Verdict[];
  /** Cases predicted to pass. */
  passed: number;
  passConfidence: number;
  failConfidence: number;
  /** Per case: the departing line of the predicted run's repair feedback (a case predicted to fail or raise), else null. */
  feedback: (number | null)[];
  /** Per case that really fails: the departing line of the real run by the same rule (repair-feedback.ts), null where the real run did not end or passes. */
  realDeparture: (number | null)[];
}

export interface Pool {
  problem: string;
  cases: number;
  /** In the shuffled order the ranking starts from. */
  candidates: Candidate[];
  /** Index into candidates of the model's top-ranked one. */
  chosen: number;
}

export interface VerifyEvalReport {
  k: number;
  method: OutputMethod;
  maxCases: number;
  seed: number;
  /** Problems looked at, and why some made no pool. */
  problems: number;
  leftOut: Record<string, number>;
  pools: Pool[];
  perCase: {
    pairs: number;
    real: Record<RealVerdict, number>;
    /** Predicted verdict equals the real one (pass, fail, raises). */
    verdictAgreement: number | null;
    /** Predicted pass iff real pass. */
    passAgreement: number | null;
    /** The baseline that says every case passes: its pass/not-pass agreement. */
    allPassAgreement: number | null;
    /** Predicted unknown. */
    unknown: number;
  };
  bestAtK: { model: number | null; random: number | null; oracle: number | null };
  /**
   * Repair feedback against the real run: over the candidate-case pairs that really fail
   * (fail or raise) and whose real run ended, how often the predicted feedback's line is the
   * real run's departing line. `given`: the pairs with predicted feedback (predicted to fail
   * or raise); `accuracy` = same / given; `overall` = same / realDepartures (no feedback counts as wrong).
   */
  feedback: {
    realFailing: number;
    realDepartures: number;
    given: number;
    same: number;
    accuracy: number | null;
    overall: number | null;
    /** The same split by how the real run fails: it raises, or returns a wrong value. */
    byReal: Record<'raises' | 'value', { given: number; same: number }>;
  };
  /** How the predictions were made: in this process, or through `ndb mcp`'s verify_tests. */
  via: 'cli' | 'mcp';
}

/** A pool as the predictor sees it: the candidates' code and the cases (asserts of tests lines 1..n). */
export interface PoolInput {
  problem: string;
  candidates: { label: string; code: string }[];
  cases: CallCase[];
}

/** What the predictor says of a pool: per candidate its predicted verdicts, passes, confidences and feedback lines; the top-ranked candidate. */
export interface PoolJudgement {
  candidates: Pick<Candidate, 'predicted' | 'passed' | 'passConfidence' | 'failConfidence' | 'feedback'>[];
  chosen: number;
}

export type Judge = (pool: PoolInput) => Promise<PoolJudgement>;

export interface EvalVerifyOptions {
  /** Pool size, 4 to 8 (smaller when a problem has fewer failing mutants, never below 4). */
  k: number;
  /** Test cases per problem, the first ones of its rows. */
  maxCases: number;
  /** Pools to make (problems without one do not count). */
  limit?: number;
  seed: number;
  method: OutputMethod;
  samples?: number;
  onProgress?: (pools: number, problems: number) => void;
}

/** mulberry32, seeded from a string: the same pools every run. */
function rng(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(xs: readonly T[], random: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** k-1 mutants, round-robin over their kinds (each kind's in a seeded order). */
export function pickMutants<T extends { kind: string }>(mutants: readonly T[], n: number, random: () => number): T[] {
  const byKind = new Map<string, T[]>();
  for (const m of shuffle(mutants, random)) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m]);
  const kinds = [...byKind.keys()].sort();
  const out: T[] = [];
  while (out.length < n && kinds.some((k) => byKind.get(k)!.length > 0)) {
    for (const k of kinds) {
      const next = byKind.get(k)!.shift();
      if (next && out.length < n) out.push(next);
    }
  }
  return out;
}

/** Problems of the held-out rows, in file order: id `origin/N#i` -> group `origin/N`. */
export function problemsOf(rows: readonly HeldoutRow[]): { problem: string; rows: HeldoutRow[] }[] {
  const groups = new Map<string, HeldoutRow[]>();
  for (const row of rows) {
    const problem = row.id.split('#')[0]!;
    if (splitOf(problem) === 'train') throw new Error(`${row.id} is of a training group: ndb eval verify takes held-out problems only`);
    groups.set(problem, [...(groups.get(problem) ?? []), row]);
  }
  return [...groups].map(([problem, rows]) => ({ problem, rows }));
}

/** The tests file a pool's cases come from: one assert a line, case i on line i + 1 (as the MCP tool reads it). */
export function testsText(cases: readonly CallCase[]): string {
  return cases.map((c) => c.text).join('\n') + '\n';
}

/**
 * The predictions of this process: `ndb verify`'s verdicts and Best@k (verify.ts), and for a
 * case predicted to fail or raise the predicted run line by line (into calls, at most
 * FEEDBACK_STEPS states, then on to the end in one prediction), read by repair-feedback.ts's
 * rule: what mcp/tools.ts's verify_tests does for each failing predicted case.
 */
export function modelJudge(p: NeuralPredictor, opts: Pick<EvalVerifyOptions, 'method' | 'samples'>): Judge {
  return async (pool) => {
    const candidates: PoolJudgement['candidates'] = [];
    for (const c of pool.candidates) {
      const { returns } = await readCases(c.code, '');
      const report = await verifySolution(p, { path: `${pool.problem} ${c.label}`, code: c.code }, null, { cases: pool.cases, returns }, { method: opts.method, ...(opts.samples === undefined ? {} : { samples: opts.samples }) });
      const feedback: (number | null)[] = [];
      for (const r of report.cases) {
        const wrong = (r.verdict === 'fail' || r.verdict === 'raises') && 'function' in r.case;
        feedback.push(wrong ? await predictedDepartureLine(p, c.code, (r.case as CallCase).function, (r.case as CallCase).args) : null);
      }
      candidates.push({ predicted: report.cases.map((r) => r.verdict), passed: report.passed, passConfidence: report.passConfidence, failConfidence: report.failConfidence, feedback });
    }
    return { candidates, chosen: candidates.indexOf(rankCandidates(candidates)[0]!) };
  };
}

/** The predicted run's departing line, as verify_tests' feedback finds it (mcp/tools.ts simulate and departure); null where the model predicts no state. */
async function predictedDepartureLine(p: NeuralPredictor, code: string, entry: string, args: string): Promise<number | null> {
  const dir = mkdtempSync(join(tmpdir(), 'ndb-verify-feedback-'));
  const file = join(dir, 'solution.py');
  writeFileSync(file, code, 'utf8');
  const runtime = new NeuralRuntime(p.sibling());
  try {
    const t = runtime.timeline;
    try {
      await runtime.launch({ program: file, prefetch: false, entry, args });
      while (!t.atEnd && t.stops.length < FEEDBACK_STEPS) await runtime.stepIn();
      if (!t.atEnd) await runtime.continue();
    } catch {
      // The states predicted so far are still the feedback's (as the tool answers).
    }
    return departureOf(t.stops.map((s) => s.state), t.end?.exit ?? null)?.line ?? null;
  } finally {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function evaluateVerify(rows: readonly HeldoutRow[], judge: Judge, opts: EvalVerifyOptions & { via?: 'cli' | 'mcp' }): Promise<VerifyEvalReport> {
  const leftOut: Record<string, number> = {};
  const drop = (why: string) => (leftOut[why] = (leftOut[why] ?? 0) + 1);
  const pools: Pool[] = [];
  const problems = problemsOf(rows);
  let looked = 0;
  for (const { problem, rows: problemRows } of problems) {
    if (opts.limit !== undefined && pools.length >= opts.limit) break;
    looked++;
    const cases = problemRows.slice(0, opts.maxCases);
    let made: { reference: string; mutants: Mutant[] };
    try {
      made = await mutantsOf(problemRows[0]!.code, 'f');
    } catch {
      drop('the mutator cannot read it');
      continue;
    }
    const codes = [made.reference, ...made.mutants.map((m) => m.code)];
    const real = await realVerdicts(codes.flatMap((code) => cases.map((c) => ({ code, input: c.input, output: c.output }))));
    const realOf = (i: number) => real.slice(i * cases.length, (i + 1) * cases.length);
    if (realOf(0).some((v) => v !== 'pass')) {
      drop('the reference fails once unparsed');
      continue;
    }
    const failing = made.mutants.map((m, i) => ({ ...m, real: realOf(i + 1) })).filter((m) => m.real.some((v) => v !== 'pass'));
    if (failing.length < 3) {
      drop('fewer than 3 mutants that fail a case');
      continue;
    }
    const random = rng(`${opts.seed}:${problem}`);
    const chosen = pickMutants(failing, Math.min(opts.k, failing.length + 1) - 1, random);
    const pool = shuffle([{ label: 'reference', code: made.reference, real: realOf(0) }, ...chosen.map((m) => ({ label: m.description, code: m.code, real: m.real }))], random);
    const callCases: CallCase[] = cases.map((c, i) => ({ source: 'tests', line: i + 1, text: `assert f(${c.input}) == ${c.output}`, function: 'f', args: c.input, check: 'eq', expected: c.output }));
    const judged = await judge({ problem, candidates: pool.map((c) => ({ label: c.label, code: c.code })), cases: callCases });
    const candidates: Candidate[] = [];
    for (const [j, c] of pool.entries()) {
      const realDepartures: (number | null)[] = [];
      for (const [i, v] of c.real.entries()) realDepartures.push(v === 'pass' ? null : ((await realDeparture(c.code, 'f', callCases[i]!.args))?.line ?? null));
      candidates.push({ label: c.label, real: c.real, ...judged.candidates[j]!, realDeparture: realDepartures });
    }
    pools.push({ problem, cases: cases.length, candidates, chosen: judged.chosen });
    opts.onProgress?.(pools.length, looked);
  }
  return { k: opts.k, method: opts.method, maxCases: opts.maxCases, seed: opts.seed, problems: looked, leftOut, pools, ...scores(pools), via: opts.via ?? 'cli' };
}

function scores(pools: readonly Pool[]): Pick<VerifyEvalReport, 'perCase' | 'bestAtK' | 'feedback'> {
  let pairs = 0;
  let sameVerdict = 0;
  let samePass = 0;
  let realPass = 0;
  let unknown = 0;
  const real: Record<RealVerdict, number> = { pass: 0, fail: 0, raises: 0 };
  for (const pool of pools) {
    for (const c of pool.candidates) {
      c.real.forEach((r, i) => {
        const predicted = c.predicted[i]!;
        pairs++;
        real[r]++;
        if (predicted === r) sameVerdict++;
        if (predicted !== 'unknown' && (predicted === 'pass') === (r === 'pass')) samePass++;
        if (r === 'pass') realPass++;
        if (predicted === 'unknown') unknown++;
      });
    }
  }
  const feedback: VerifyEvalReport['feedback'] = { realFailing: 0, realDepartures: 0, given: 0, same: 0, accuracy: null, overall: null, byReal: { raises: { given: 0, same: 0 }, value: { given: 0, same: 0 } } };
  for (const pool of pools) {
    for (const c of pool.candidates) {
      c.real.forEach((r, i) => {
        if (r === 'pass') return;
        feedback.realFailing++;
        const real = c.realDeparture[i];
        if (real === null || real === undefined) return;
        feedback.realDepartures++;
        const predicted = c.feedback[i];
        if (predicted === null || predicted === undefined) return;
        const by = feedback.byReal[r === 'raises' ? 'raises' : 'value'];
        feedback.given++;
        by.given++;
        if (predicted === real) {
          feedback.same++;
          by.same++;
        }
      });
    }
  }
  const share = (n: number, of: number) => (of === 0 ? null : n / of);
  feedback.accuracy = share(feedback.same, feedback.given);
  feedback.overall = share(feedback.same, feedback.realDepartures);
  const allPass = (c: Candidate) => c.real.every((v) => v === 'pass');
  const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    feedback,
    perCase: { pairs, real, verdictAgreement: share(sameVerdict, pairs), passAgreement: share(samePass, pairs), allPassAgreement: share(realPass, pairs), unknown },
    bestAtK: {
      model: mean(pools.map((p) => (allPass(p.candidates[p.chosen]!) ? 1 : 0))),
      random: mean(pools.map((p) => p.candidates.filter(allPass).length / p.candidates.length)),
      oracle: mean(pools.map((p) => (p.candidates.some(allPass) ? 1 : 0))),
    },
  };
}

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);
const fb = (x: { given: number; same: number }) => (x.given === 0 ? null : x.same / x.given);

export function formatVerifyEval(r: VerifyEvalReport): string {
  const sizes = [...new Set(r.pools.map((p) => p.candidates.length))].sort();
  const left = Object.entries(r.leftOut).map(([why, n]) => `${why} ${n}`).join(', ') || 'none';
  const row = (name: string, a: string, b: string) => `${name.padEnd(36)}${a.padStart(16)}${b.padStart(24)}`;
  return (
    [
      `verify: ${r.pools.length} pools of ${r.problems} held-out HumanEval/MBPP problems looked at (k = ${sizes.join(', ') || '—'}: the reference and mutants failing a case; up to ${r.maxCases} cases each; method ${r.method}; seed ${r.seed})`,
      `left out: ${left}`,
      `per test case: ${r.perCase.pairs} candidate-case pairs, real ${r.perCase.real.pass} pass, ${r.perCase.real.fail} fail, ${r.perCase.real.raises} raise; predicted unknown ${r.perCase.unknown}`,
      row('', 'verdict agrees', 'pass / not pass agrees'),
      row('model (predicted verdicts)', pct(r.perCase.verdictAgreement), pct(r.perCase.passAgreement)),
      row('baseline: every case passes', '—', pct(r.perCase.allPassAgreement)),
      row('baseline: every case fails', '—', pct(r.perCase.allPassAgreement === null ? null : 1 - r.perCase.allPassAgreement)),
      `Best@k: the top-ranked candidate really passes every case`,
      row('model (rank by predicted passes)', pct(r.bestAtK.model), ''),
      row('random choice', pct(r.bestAtK.random), ''),
      row('oracle (real execution)', pct(r.bestAtK.oracle), ''),
      `repair feedback: the predicted first wrong line is the real run's (same rule on both runs: evaluation/repair-feedback.ts)`,
      `  ${r.feedback.realFailing} pairs really fail; ${r.feedback.realDepartures} of them end (a departure to compare); ${r.feedback.given} of those with feedback (predicted to fail or raise)`,
      row('  same line, of those with feedback', pct(r.feedback.accuracy), `${r.feedback.same} of ${r.feedback.given}`),
      row('  same line, of every real departure', pct(r.feedback.overall), `${r.feedback.same} of ${r.feedback.realDepartures}`),
      row('  real run raises', pct(fb(r.feedback.byReal.raises)), `${r.feedback.byReal.raises.same} of ${r.feedback.byReal.raises.given}`),
      row('  real run returns a wrong value', pct(fb(r.feedback.byReal.value)), `${r.feedback.byReal.value.same} of ${r.feedback.byReal.value.given}`),
      `predictions made ${r.via === 'mcp' ? "through ndb mcp's verify_tests (the SDK's client over stdio)" : 'in this process'}`,
    ].join('\n') + '\n'
  );
}
