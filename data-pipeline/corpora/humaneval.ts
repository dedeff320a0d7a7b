/**
 * HumanEval: each problem's prompt plus canonical solution is a program; the literal-argument
 * `candidate(...)` calls of its `check` function are its inputs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ProgramSpec } from '../program.js';
import { extractCalls, dataDir } from './support.js';

interface HumanEvalProblem {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

export async function loadHumanEval(): Promise<ProgramSpec[]> {
  const file = join(dataDir(), 'HumanEval.jsonl.gz');
  const problems = gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as HumanEvalProblem);
  const programs = problems.map((problem) => problem.prompt + problem.canonical_solution);
  const answers = await extractCalls(
    problems.map((problem, i) => ({
      code: programs[i]!,
      tests: [problem.test],
      entry: problem.entry_point,
      callee: 'candidate',
    })),
  );
  return problems.flatMap((problem, i) => {
    const n = problem.task_id.split('/')[1];
    return answers[i]!.args.map((args, k) => ({
      id: `humaneval/${n}#${k}`,
      group: `humaneval/${n}`,
      origin: 'humaneval' as const,
      source: programs[i]!,
      entry: problem.entry_point,
      args,
    }));
  });
}
