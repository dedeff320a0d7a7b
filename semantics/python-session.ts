/**
 * One long-lived Python process (`semantics/evaluate.py --serve`) that decides Python's value
 * semantics on known values with CPython itself, without running the user's program: debugger
 * expressions over a predicted state (hovers, `p EXPR`) and simple statements of the program
 * (what `words = line.strip().split(',')` binds when `line` is known).
 *
 * Protocol: one JSON request per line on the process's stdin, one JSON response per line on its
 * stdout, in order; every request carries an `id` the response echoes.
 *
 *   {"id", "op": "evaluate", "expression", "locals": {NAME: REPR}, "modules"?, "names"?, "functions"?}
 *     -> {"id", "kind": "value", "repr", "type"} | {"id", "kind": "raised", "type", "message"}
 *      | {"id", "kind": "error", "message"}
 *   {"id", "op": "execute", "statement", "locals", "modules"?, "names"?, "functions"?}
 *     -> {"id", "kind": "changed", "locals": {NAME: REPR}} | raised | error
 *   {"id", "op": "batch", "requests": [REQUEST, ...]} -> {"id", "kind": "batch", "results": [RESPONSE, ...]}
 *
 * `modules` names the program's module imports (`import datetime as dt` → {"dt": "datetime"}),
 * `names` its from-imports (`from math import sqrt` → {"sqrt": "math.sqrt"}); only the modules
 * and attributes of semantics/pure.py are exposed. `functions` are pure functions of the program
 * whose body is one `return EXPR` ({"f": {"params": ["n"], "body": "n * 2"}}); their bodies see
 * their parameters, the other functions and the imports, not the caller's locals.
 * "raised": the expression raises that exception on the known values (the program would too);
 * "error": the walker cannot tell (a refusal, "not available in a neural session: …", an
 * unknown name, a local that cannot be rebuilt, a budget). "changed": exactly the locals the
 * statement bound (even to an equal value) or changed in place, with their new reprs.
 *
 * The process starts on the first request and serves one request at a time (the others wait
 * here). A request that takes longer than its timeout (2 s by default) is answered with an error
 * result, `timedOut: true`; the process is killed and the next request starts a fresh one, as
 * after a crash. A Python that cannot start at all rejects the promise: that is not the
 * expression's fault. While no request is pending the process does not keep Node alive.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { z } from 'zod';
import { helperPath, PythonMissingError, pythonExecutable } from '../python/python-helper.js';

export interface PureFunction {
  params: string[];
  /** The expression the function returns. */
  body: string;
}

/** What a request may add to its locals: the program's imports and pure functions. */
export interface Bindings {
  modules?: Record<string, string>;
  names?: Record<string, string>;
  functions?: Record<string, PureFunction>;
}

/**
 * `set_order: 'check'`: answer only what does not hang on the iteration order of a set the
 * locals show (their reprs do not tell it; evaluate.py's relaid): the symbolic stepper's.
 */
export interface OrderCheck {
  set_order?: 'check';
}

export interface EvaluateRequest extends Bindings, OrderCheck {
  expression: string;
  /** name → repr, as the tracer (or the model) writes them. */
  locals: Record<string, string>;
}

export interface ExecuteRequest extends Bindings, OrderCheck {
  statement: string;
  locals: Record<string, string>;
}

export type SessionRequest = ({ op: 'evaluate' } & EvaluateRequest) | ({ op: 'execute' } & ExecuteRequest);

export type ValueResult = { kind: 'value'; repr: string; type: string };
export type RaisedResult = { kind: 'raised'; type: string; message: string };
/** `timedOut`: the request ran past its timeout and the process was killed. */
export type ErrorResult = { kind: 'error'; message: string; timedOut?: true };
export type ChangedResult = { kind: 'changed'; locals: Record<string, string> };
export type EvaluateResult = ValueResult | RaisedResult | ErrorResult;
export type ExecuteResult = ChangedResult | RaisedResult | ErrorResult;
export type SessionResult = EvaluateResult | ExecuteResult;

const ValueSchema = z.object({ kind: z.literal('value'), repr: z.string(), type: z.string() });
const RaisedSchema = z.object({ kind: z.literal('raised'), type: z.string(), message: z.string() });
const ErrorSchema = z.object({ kind: z.literal('error'), message: z.string() });
const ChangedSchema = z.object({ kind: z.literal('changed'), locals: z.record(z.string()) });
const ResultSchema = z.discriminatedUnion('kind', [ValueSchema, RaisedSchema, ErrorSchema, ChangedSchema]);
const Id = z.union([z.number(), z.string(), z.null()]);
const ResponseSchema = z.union([
  z.object({ id: Id, kind: z.literal('batch'), results: z.array(ResultSchema.and(z.object({ id: Id }))) }),
  ResultSchema.and(z.object({ id: Id })),
]);

export const DEFAULT_TIMEOUT_MS = 2_000;
/** A batch may run timeoutMs for every BATCH_SHARE requests in it (at least timeoutMs). */
const BATCH_SHARE = 10;
const STDERR_KEPT = 4_000;

export interface PythonSessionOptions {
  /** Per request (a batch: per BATCH_SHARE requests). Default 2 s. */
  timeoutMs?: number;
  /** Added to the process's environment (PYTHONHASHSEED is 0, as for the tracer). */
  env?: Record<string, string>;
}

interface Pending {
  id: number;
  line: string;
  timeoutMs: number;
  /** "expression", "statement", "batch": for the timeout's message. */
  what: string;
  resolve: (response: z.infer<typeof ResponseSchema> | ErrorResult) => void;
  reject: (error: Error) => void;
}

export class PythonSession {
  readonly timeoutMs: number;
  private readonly env: Record<string, string>;
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly queue: Pending[] = [];
  private current: Pending | undefined;
  private timer: NodeJS.Timeout | undefined;
  private out = '';
  private err = '';
  private nextId = 1;
  private disposed = false;

  constructor(options: PythonSessionOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.env = options.env ?? {};
  }

  async evaluate(request: EvaluateRequest): Promise<EvaluateResult> {
    const response = await this.send({ op: 'evaluate', ...request }, this.timeoutMs, 'expression');
    if (response.kind === 'batch' || response.kind === 'changed') return protocolError(response.kind);
    return strip(response) as EvaluateResult;
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const response = await this.send({ op: 'execute', ...request }, this.timeoutMs, 'statement');
    if (response.kind === 'batch' || response.kind === 'value') return protocolError(response.kind);
    return strip(response) as ExecuteResult;
  }

  /** Many requests, one round trip; a result for each, in order. */
  async batch(requests: readonly SessionRequest[], timeoutMs?: number): Promise<SessionResult[]> {
    if (requests.length === 0) return [];
    const limit = timeoutMs ?? this.timeoutMs * Math.max(1, Math.ceil(requests.length / BATCH_SHARE));
    const response = await this.send({ op: 'batch', requests: requests.map((r, i) => ({ ...r, id: i })) }, limit, 'batch');
    if (response.kind === 'error') return requests.map(() => strip(response) as ErrorResult);
    if (response.kind !== 'batch' || response.results.length !== requests.length) {
      return requests.map(() => protocolError(response.kind));
    }
    return response.results.map((r) => strip(r) as SessionResult);
  }

  /** Kills the process; pending requests are answered with an error. */
  dispose(): void {
    this.disposed = true;
    this.stop();
    const waiting = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    this.current = undefined;
    for (const p of waiting) p.resolve({ kind: 'error', message: 'the Python session was closed' });
  }

  private send(request: object, timeoutMs: number, what: string): Promise<z.infer<typeof ResponseSchema> | ErrorResult> {
    if (this.disposed) return Promise.resolve({ kind: 'error', message: 'the Python session was closed' });
    const id = this.nextId++;
    const line = `${JSON.stringify({ ...request, id })}\n`;
    return new Promise((resolve, reject) => {
      this.queue.push({ id, line, timeoutMs, what, resolve, reject });
      this.pump();
    });
  }

  /** Sends the next waiting request, if none is running. */
  private pump(): void {
    if (this.current || this.queue.length === 0 || this.disposed) return;
    const next = this.queue.shift()!;
    this.current = next;
    let child: ChildProcessWithoutNullStreams;
    try {
      child = this.child ?? this.start();
    } catch (e) {
      this.current = undefined;
      next.reject(e instanceof Error ? e : new Error(String(e)));
      this.pump();
      return;
    }
    this.setRef(child, true);
    this.timer = setTimeout(() => {
      this.stop();
      this.finish({ kind: 'error', message: `the ${next.what} took longer than ${next.timeoutMs / 1000} s and was stopped`, timedOut: true });
    }, next.timeoutMs);
    child.stdin.write(next.line);
  }

  private start(): ChildProcessWithoutNullStreams {
    const python = pythonExecutable();
    const child = spawn(python, [helperPath('evaluate.py', import.meta.url), '--serve'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONHASHSEED: '0', ...this.env },
    });
    this.child = child;
    this.out = '';
    this.err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (this.child !== child) return;
      this.out += d;
      let end: number;
      while ((end = this.out.indexOf('\n')) >= 0) {
        const line = this.out.slice(0, end);
        this.out = this.out.slice(end + 1);
        if (line.trim()) this.onLine(line);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (this.child === child) this.err = (this.err + d).slice(-STDERR_KEPT);
    });
    // A write to a process that is gone fails with EPIPE; 'error' or 'close' says why.
    child.stdin.on('error', () => {});
    child.on('error', (e) => {
      if (this.child !== child) return;
      this.child = undefined;
      const error = new PythonMissingError(python, e.message);
      const waiting = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
      this.current = undefined;
      clearTimeout(this.timer);
      for (const p of waiting) p.reject(error);
    });
    child.on('close', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      const last = this.err.trim().split('\n').pop() ?? '';
      const how = signal ? `signal ${signal}` : `exit status ${code}`;
      this.finish({ kind: 'error', message: `the Python evaluator stopped (${how})${last ? `: ${last}` : ''}` });
    });
    return child;
  }

  private onLine(line: string): void {
    let response: z.infer<typeof ResponseSchema>;
    try {
      response = ResponseSchema.parse(JSON.parse(line));
    } catch {
      this.stop();
      this.finish({ kind: 'error', message: `the Python evaluator answered something else: ${line.slice(0, 200)}` });
      return;
    }
    if (!this.current || response.id !== this.current.id) {
      this.stop();
      this.finish({ kind: 'error', message: `the Python evaluator answered request ${String(response.id)} out of turn` });
      return;
    }
    this.finish(response);
  }

  /** Answers the running request and sends the next. */
  private finish(response: z.infer<typeof ResponseSchema> | ErrorResult): void {
    clearTimeout(this.timer);
    const done = this.current;
    this.current = undefined;
    if (this.child && this.queue.length === 0) this.setRef(this.child, false);
    done?.resolve(response);
    this.pump();
  }

  private stop(): void {
    const child = this.child;
    this.child = undefined;
    if (child) {
      child.kill('SIGKILL');
      this.setRef(child, false);
    }
  }

  /** An idle process must not keep Node running: unref it and its pipes. */
  private setRef(child: ChildProcessWithoutNullStreams, on: boolean): void {
    for (const s of [child.stdin, child.stdout, child.stderr] as unknown as Socket[]) {
      if (on) s.ref?.();
      else s.unref?.();
    }
    if (on) child.ref();
    else child.unref();
  }
}

/** A response less its id. */
function strip(response: object): object {
  const { id: _id, ...rest } = response as { id?: unknown };
  return rest;
}

function protocolError(kind: string): ErrorResult {
  return { kind: 'error', message: `the Python evaluator answered a ${kind} result to this request` };
}
