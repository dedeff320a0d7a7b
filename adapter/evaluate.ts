/**
 * Debugger expressions (pdb's `p EXPR`, hovers, watches, setVariable's new value) over a
 * predicted state.
 *
 * The state's locals are reprs the model wrote; evaluate.py rebuilds the literal ones and
 * walks the expression's syntax tree (never eval): literals, the locals, operators,
 * comprehensions, a fixed list of pure builtins and the public methods of builtin values; what
 * could reach anything else (`__class__`, `getattr`, `str.format`, a generator's frame) is
 * refused with "not available in a neural session: …". An expression may still run long, so
 * the helper runs under hard CPU and memory limits and is killed after 2 s, an error result
 * like any other: the adapter must stay responsive. A bare local's name needs no Python: its
 * repr is the answer, even when it is not a literal (`<Foo object at 0x…>`).
 */
import { z } from 'zod';
import { helperPath, runPythonHelper } from '../python/python-helper.js';
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
  const input = JSON.stringify({ expression, locals });
  const run = await runPythonHelper({ script: helperPath('evaluate.py', import.meta.url), input, timeoutMs: EVAL_TIMEOUT_MS });
  if (run.timedOut) return { kind: 'error', message: `the expression took longer than ${EVAL_TIMEOUT_MS / 1000} s and was stopped` };
  return HelperOutputSchema.parse(run.output);
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
