/**
 * `ndb verify`: a solution's test cases, predicted by the model (evaluation/verify.ts), or
 * Best@k over candidate solutions. Nothing in the solution or the tests runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { defaultModelDir, ModelFolderError } from '../model-client/model-folder.js';
import { isOutputMethod, OUTPUT_METHODS } from '../model-client/call-outcome.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { formatRanking, formatVerify, rankCandidates, readCases, VerifyInputError, type VerifyReport, verifySolution, VERIFY_METHOD } from '../evaluation/verify.js';
import { defineCommand, type FlagSpecs, type Parsed, type UsageErrorFactory } from './command-line.js';
import { ProgressBar } from '../util/progress.js';

const VERIFY_FLAGS = {
  tests: { type: 'string', value: 'TESTS.py', description: 'the test cases: assert CALL == EXPECTED, assert CALL (default: the doctests of SOLUTION.py)' },
  doctests: { type: 'boolean', description: "with --tests: the solution's doctest examples too" },
  candidates: { type: 'boolean', description: 'rank several solutions by predicted passes (Best@k); needs --tests' },
  json: { type: 'boolean', description: 'print the report as JSON' },
  samples: { type: 'string', value: 'N', description: 'sampled frames per prediction, 1 to 16 (default 1: greedy)' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: the embedded model)' },
  method: { type: 'string', value: OUTPUT_METHODS.join('|'), description: 'how a call is predicted to its return (default step_over: line by line, the better method on real code)' },
} satisfies FlagSpecs;

export const VERIFY_COMMAND = defineCommand({
  name: 'verify',
  args: '[SOLUTIONS...]',
  summary: "predict a solution's test cases (or rank candidates); nothing runs",
  description: `Predict each test case's result with the model, never running anything: the asserts
of TESTS.py (assert CALL == EXPECTED, assert CALL), or without --tests the doctest examples of
SOLUTION.py (--doctests: both). Per case the predicted value, the verdict (pass, fail, raises X,
unknown) and the confidence; last line \`predicted: P of N pass\`. With --candidates A.py B.py ...
--tests TESTS.py: Best@k, the candidates ranked by predicted passes (ties by confidence); last
line \`best: FILE (P of N predicted to pass)\`.`,
  flags: VERIFY_FLAGS,
  run: verifyCommand,
});

function readSource(path: string, usage: UsageErrorFactory): string {
  if (!existsSync(path)) throw usage(`no such file: ${path}`);
  return readFileSync(path, 'utf8');
}

export async function verifyCommand({ values, positionals }: Parsed<typeof VERIFY_FLAGS>, usage: UsageErrorFactory): Promise<void> {
  if (positionals.length === 0) throw usage('usage: ndb verify SOLUTION.py [--tests TESTS.py] | ndb verify --candidates A.py B.py ... --tests TESTS.py');
  if (!values.candidates && positionals.length > 1) throw usage(`one solution file, or --candidates for several (got ${positionals.length} files)`);
  if (values.candidates && values.tests === undefined) throw usage('--candidates needs --tests TESTS.py (the cases every candidate is predicted on)');
  let samples: number | undefined;
  if (values.samples !== undefined) {
    samples = Number(values.samples);
    if (!Number.isInteger(samples) || samples < 1 || samples > 16) throw usage(`--samples must be an integer from 1 to 16, got ${JSON.stringify(values.samples)}`);
  }
  const method = values.method ?? VERIFY_METHOD;
  if (!isOutputMethod(method)) throw usage(`--method must be one of ${OUTPUT_METHODS.join(', ')}`);
  const tests = values.tests === undefined ? null : { path: values.tests, code: readSource(values.tests, usage) };
  const solutions = positionals.map((path) => ({ path, code: readSource(path, usage) }));
  // Every file read before the model loads: a syntax error is reported at once.
  const cases = [];
  for (const s of solutions) {
    try {
      const read = await readCases(s.code, tests?.code ?? null);
      // --doctests with --tests: the solution's doctest examples too (the editor's Verify Tests asks for both).
      if (values.doctests && tests) read.cases.push(...(await readCases(s.code, null)).cases);
      cases.push(read);
    } catch (err) {
      if (err instanceof VerifyInputError) throw usage(`cannot read ${s.path} or its tests: ${err.message}`);
      throw err;
    }
  }
  const dir = values.model ?? defaultModelDir();
  let model: NeuralPredictor;
  try {
    model = await NeuralPredictor.load(dir, { threads: 1 });
  } catch (err) {
    throw err instanceof ModelFolderError ? usage(err.message) : err;
  }
  try {
    const reports: VerifyReport[] = [];
    for (const [i, s] of solutions.entries()) {
      let bar: ProgressBar | undefined;
      const onProgress = (done: number, total: number) => (bar ??= new ProgressBar(s.path, total)).update(done);
      reports.push(await verifySolution(model, s, tests?.path ?? null, cases[i]!, { method, ...(samples === undefined ? {} : { samples }), onProgress }));
    }
    if (!values.candidates) {
      const report = reports[0]!;
      process.stdout.write(values.json ? JSON.stringify({ modelDir: dir, ...report }, null, 2) + '\n' : formatVerify(report));
      return;
    }
    const ranked = rankCandidates(reports);
    if (values.json) {
      process.stdout.write(JSON.stringify({ modelDir: dir, ranking: ranked.map((r) => r.solution), best: ranked[0]!.solution, candidates: reports }, null, 2) + '\n');
      return;
    }
    process.stdout.write(reports.map(formatVerify).join('\n') + '\n' + formatRanking(ranked));
  } finally {
    await model.release();
  }
}
