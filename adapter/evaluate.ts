/**
 * Debugger expressions (pdb's `p EXPR`, hovers, watches, setVariable's new value) over a
 * predicted state.
 *
 * The state's locals are reprs the model wrote; evaluate.py rebuilds the literal ones and
 * evaluates the expression with a few pure builtins, never running the program. An expression
 * may still run away (`sum(range(10**12))`), so the helper is killed after 2 s and that is an
 * error result like any other: the adapter must stay responsive. A bare local's name needs no
 * Python: its repr is the answer, even when it is not a literal (`<Foo object at 0x…>`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { pythonExecutable } from '../tracer/run-tracer.js';
import { parsePyValue, typeName } from './python-values.js';

/** `type` is type(value).__name__; a bare local's is a guess from its repr, absent if unsure. */
export type EvalResult = { kind: 'value'; repr: string; type?: string } | { kind: 'error'; message: string };

/** A new value for a variable that cannot be evaluated; the message says why. */
export class EvalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EvalError';
  }
}

const HelperOutputSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('value'), repr: z.string(), type: z.string() }),
  z.object({ kind: z.literal('error'), message: z.string() }),
]);

export const EVAL_TIMEOUT_MS = 2_000;

function helperScript(): string {
  // Next to this file in the source tree; dist/adapter/ when compiled, while the .py stays here.
  for (const url of [new URL('./evaluate.py', import.meta.url), new URL('../../adapter/evaluate.py', import.meta.url)]) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(`cannot find evaluate.py next to ${fileURLToPath(import.meta.url)}`);
}

/** The helper's output, or undefined when it ran past the timeout and was killed. */
function runHelper(expression: string, locals: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(pythonExecutable(), [helperScript()], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, EVAL_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    // Python gone before it read the request (never started, crashed): the write fails with
    // EPIPE, and the 'error' or 'close' event says why.
    child.stdin.on('error', () => {});
    child.on('error', (e) => reject(new Error(`cannot run ${pythonExecutable()}: ${e.message} (set NDB_PYTHON)`)));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return resolve(undefined);
      try {
        resolve(JSON.parse(out));
      } catch {
        const last = err.trim().split('\n').pop() ?? '';
        reject(new Error(`evaluate.py failed (exit status ${code})${last ? `: ${last}` : ''}`));
      }
    });
    child.stdin.end(JSON.stringify({ expression, locals }));
  });
}

/** The fast path: an expression that is exactly a local's name is that local's repr. */
export function localValue(expression: string, locals: Record<string, string>): EvalResult | undefined {
  const name = expression.trim();
  // An identifier only: the "…" entry for the locals left out is not a variable.
  if (!/^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(name) || !Object.hasOwn(locals, name)) return undefined;
  const repr = locals[name]!;
  const type = typeName(parsePyValue(repr));
  return type === undefined ? { kind: 'value', repr } : { kind: 'value', repr, type };
}

/**
 * Evaluates an expression over a predicted state's locals (name → repr). Errors of the
 * expression, a timeout included, are results; only a Python that cannot run throws.
 */
export async function evaluateExpression(expression: string, locals: Record<string, string>): Promise<EvalResult> {
  const local = localValue(expression, locals);
  if (local) return local;
  const out = await runHelper(expression, locals);
  if (out === undefined) return { kind: 'error', message: `the expression took longer than ${EVAL_TIMEOUT_MS / 1000} s and was stopped` };
  return HelperOutputSchema.parse(out);
}

/**
 * The repr a variable takes when the user sets it to `expression` (`[1,2]+[3]` → `[1, 2, 3]`),
 * as the tracer would write it. Throws EvalError when the expression cannot be evaluated.
 */
export async function valueRepr(expression: string, locals: Record<string, string>): Promise<string> {
  const result = await evaluateExpression(expression, locals);
  if (result.kind === 'error') throw new EvalError(result.message);
  return result.repr;
}
