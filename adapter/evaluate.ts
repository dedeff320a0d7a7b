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
 * responsive. One Python process per debugging session (an Evaluator: a PythonSession and its
 * queue) answers its expressions, and ends with the session. A bare local's name needs no
 * Python: its repr is the answer, even when it is not a literal (`<Foo object at 0x…>`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
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

/** Expressions of one session waiting for its evaluator at most; past it one is refused at once. */
export const MAX_WAITING_EXPRESSIONS = 256;

/**
 * One debugging session's evaluator: one Python process (a PythonSession, started on the first
 * expression that needs it, not keeping Node running while idle) and the queue in front of it.
 * A client that pipelines a thousand `evaluate` requests gets them answered one after the other
 * by that one process, never a thousand processes; past MAX_WAITING_EXPRESSIONS waiting, the
 * next is answered at once with an error. dispose() ends the process and answers what waits:
 * a session that ends (disconnect, a closed connection) leaves no Python behind.
 */
export class Evaluator {
  private python: PythonSession | null = null;
  private waiting = 0;
  private disposed = false;

  constructor(private readonly timeoutMs = EVAL_TIMEOUT_MS) {}

  async evaluate(expression: string, locals: Record<string, string>): Promise<EvalResult> {
    if (this.disposed) return { kind: 'error', message: 'the debugging session has ended' };
    if (this.waiting >= MAX_WAITING_EXPRESSIONS) {
      return { kind: 'error', message: `ndb is busy: ${this.waiting} expressions of this session are waiting to be evaluated; this one was not` };
    }
    // NDB_HELPER names the process for whoever counts them (the soak test, an operator's ps).
    this.python ??= new PythonSession({ timeoutMs: this.timeoutMs, env: { NDB_HELPER: 'evaluator' } });
    this.waiting++;
    try {
      return fromSession(await this.python.evaluate({ expression, locals }), this.timeoutMs);
    } finally {
      this.waiting--;
    }
  }

  /** Expressions waiting or being evaluated. */
  get pending(): number {
    return this.waiting;
  }

  dispose(): void {
    this.disposed = true;
    this.python?.dispose();
    this.python = null;
  }
}

/** The evaluator of the session whose request is being handled (adapter/server.ts sets it per connection). */
const sessionEvaluator = new AsyncLocalStorage<Evaluator>();
/** Outside any session's scope (`ndb debug`, the tests): one shared evaluator. */
const shared = new Evaluator();

/**
 * Runs `work` (a session's message handling) so that every expression it evaluates, now or in
 * any promise it starts, goes to `evaluator`.
 */
export function withEvaluator<T>(evaluator: Evaluator, work: () => T): T {
  return sessionEvaluator.run(evaluator, work);
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
  return (sessionEvaluator.getStore() ?? shared).evaluate(expression, locals);
}

function fromSession(result: Awaited<ReturnType<PythonSession['evaluate']>>, timeoutMs: number): EvalResult {
  switch (result.kind) {
    case 'value':
      return { kind: 'value', repr: result.repr, type: result.type };
    case 'raised':
      return { kind: 'error', message: `${result.type}: ${result.message}` };
    case 'error':
      if (result.timedOut) return { kind: 'error', message: `the expression took longer than ${timeoutMs / 1000} s and was stopped` };
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
