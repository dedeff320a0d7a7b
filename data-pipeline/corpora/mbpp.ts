/**
 * MBPP: each problem's code is a program; the literal-argument calls in its asserts of a
 * function the code defines are its inputs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProgramSpec } from '../program.js';
import { extractCalls, dataDir } from './support.js';

interface MbppProblem {
  task_id: number;
  code: string;
  test_setup_code: string;
  test_list: string[];
}

const unixLines = (text: string): string => text.replace(/\r\n/g, '\n');

/**
 * The problem's code, then its test setup: the setup builds fixtures from the code's classes
 * (`root = Node(1)`), so it can only run after them.
 */
function program(problem: MbppProblem): string {
  const code = unixLines(problem.code);
  const setup = unixLines(problem.test_setup_code).trim();
  return setup === '' ? code : `${code}\n${setup}\n`;
}

export async function loadMbpp(): Promise<ProgramSpec[]> {
  const problems = readFileSync(join(dataDir(), 'mbpp.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as MbppProblem);
  const programs = problems.map(program);
  const answers = await extractCalls(
    problems.map((problem, i) => ({ code: programs[i]!, tests: problem.test_list })),
  );
  return problems.flatMap((problem, i) => {
    const { entry, args } = answers[i]!;
    if (entry === null) return [];
    return args.map((callArgs, k) => ({
      id: `mbpp/${problem.task_id}#${k}`,
      group: `mbpp/${problem.task_id}`,
      origin: 'mbpp' as const,
      source: programs[i]!,
      entry,
      args: callArgs,
    }));
  });
}
