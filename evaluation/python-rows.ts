/**
 * Real Python on evaluation rows, through rows.py (see there): run `f(input)`, check
 * CruxEval's assertion `f(input) == output`, or read f's signature and return lines. One
 * Python process per batch of requests, a forked child per executed row with a timeout.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { pythonExecutable } from '../python/python-helper.js';

/** Seconds one executed row may take (the tracer's default limit). */
export const ROW_TIMEOUT_SECONDS = 5;

const Failure = z.object({ ok: z.literal(false), error: z.string() });
const RunAnswer = z.union([z.object({ ok: z.literal(true), output: z.string() }), Failure]);
const CheckAnswer = z.union([z.object({ ok: z.literal(true), passed: z.boolean() }), Failure]);
const InspectAnswer = z.union([
  z.object({
    ok: z.literal(true),
    params: z.array(z.tuple([z.string(), z.enum(['positional', 'var_positional', 'keyword', 'var_keyword'])])),
    returns: z.array(z.number().int().positive()),
    last: z.number().int().positive(),
    args: z.array(z.string()),
  }),
  Failure,
]);
export type RunResult = z.infer<typeof RunAnswer>;
export type CheckResult = z.infer<typeof CheckAnswer>;
export type Inspection = z.infer<typeof InspectAnswer>;

function helperScript(): string {
  // Next to this file in the source tree; dist/evaluation/ when compiled, while the .py stays here.
  for (const url of [new URL('./rows.py', import.meta.url), new URL('../../evaluation/rows.py', import.meta.url)]) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(`cannot find rows.py next to ${fileURLToPath(import.meta.url)}`);
}

async function callHelper<T>(requests: readonly object[], schema: z.ZodType<T>): Promise<T[]> {
  if (requests.length === 0) return [];
  const out = await new Promise<string>((resolve, reject) => {
    // PYTHONHASHSEED=0 as for the tracer: reprs of string sets come out the same in every run.
    const child = spawn(pythonExecutable(), [helperScript(), `--timeout=${ROW_TIMEOUT_SECONDS}`], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONHASHSEED: '0' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => reject(new Error(`cannot run ${pythonExecutable()}: ${e.message} (set NDB_PYTHON)`)));
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`rows.py failed (exit status ${code}): ${stderr.trim().split('\n').pop() ?? ''}`));
    });
    child.stdin.end(requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
  });
  const answers = out.split('\n').filter(Boolean);
  if (answers.length !== requests.length) throw new Error(`rows.py answered ${answers.length} of ${requests.length} requests`);
  return answers.map((line) => schema.parse(JSON.parse(line)));
}

export interface CodeAndInput {
  code: string;
  input: string;
}

/** repr(f(input)) for each row. */
export function runRows(rows: readonly CodeAndInput[]): Promise<RunResult[]> {
  return callHelper(
    rows.map((r) => ({ op: 'run', code: r.code, input: r.input })),
    RunAnswer,
  );
}

/** Whether `f(input) == output` holds, output evaluated as Python (an unparsable one fails). */
export function checkRows(rows: readonly (CodeAndInput & { output: string })[]): Promise<CheckResult[]> {
  return callHelper(
    rows.map((r) => ({ op: 'check', code: r.code, input: r.input, output: r.output })),
    CheckAnswer,
  );
}

/** f's parameters and return lines, and the input's positional arguments (nothing runs). */
export function inspectRows(rows: readonly CodeAndInput[]): Promise<Inspection[]> {
  return callHelper(
    rows.map((r) => ({ op: 'inspect', code: r.code, input: r.input })),
    InspectAnswer,
  );
}
