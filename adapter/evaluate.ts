/**
 * Debugger expressions (pdb's `p EXPR`, hovers, watches, setVariable's new value) over a
 * predicted state.
 *
 * The state's locals are reprs the model wrote; semantics/evaluate.py rebuilds the literal ones
 * and walks the expression's syntax tree (never eval): literals, the locals, operators,
 * comprehensions, lambdas, a fixed list of pure builtins and the public methods of builtin
 * values; what could reach anything else (`__class__`, `getattr`, `str.format`, a generator's
 * frame) is refused with "not available in a neural session: …". An expression may still run
 * long, so the walker counts its steps, the Python process runs under hard CPU and memory limits,
 * and a request is stopped after 2 s, an error result like any other: the adapter must stay
 * responsive. One Python process (a PythonSession) answers every expression. A bare local's name
 * needs no Python: its repr is the answer, even when it is not a literal (`<Foo object at 0x…>`).
 */
import { PythonSession } from '../semantics/python-session.js';
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

export const EVAL_TIMEOUT_MS = 2_000;

/** Started on the first expression that needs Python; it does not keep Node running while idle. */
const session = new PythonSession({ timeoutMs: EVAL_TIMEOUT_MS });

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
  const result = await session.evaluate({ expression, locals });
  switch (result.kind) {
    case 'value':
      return { kind: 'value', repr: result.repr, type: result.type };
    case 'raised':
      return { kind: 'error', message: `${result.type}: ${result.message}` };
    case 'error':
      if (result.timedOut) return { kind: 'error', message: `the expression took longer than ${EVAL_TIMEOUT_MS / 1000} s and was stopped` };
      return { kind: 'error', message: result.message };
  }
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
