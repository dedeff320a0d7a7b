/**
 * Static facts about a program for the debug adapter: where breakpoints can hit, which
 * functions it defines, or why it does not compile.
 *
 * The adapter needs these before any state exists (verifying breakpoints, offering "debug the
 * function under the cursor"), and the program must never run for them: program-info.py asks
 * CPython's own compile() and ast, so the lines are exactly those a real run could stop on.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { pythonExecutable } from '../tracer/run-tracer.js';

const FunctionInfoSchema = z.object({
  name: z.string().min(1),
  /** CPython's qualname: `f`, `Class.method`, `outer.<locals>.inner`. */
  qualname: z.string().min(1),
  /** The `def` line (after any decorators). */
  line: z.number().int().positive(),
  endLine: z.number().int().positive(),
  /** Parameter names in signature order, `*args` and `**kwargs` without their stars. */
  params: z.array(z.string()),
  /** The line a call event reports (the first decorator's, or the def's). */
  callLine: z.number().int().positive(),
  /** The parameters in the order a call frame's locals hold them (positional, keyword-only, *args, **kwargs). */
  callLocals: z.array(z.string()),
  /** Every name a frame of the function can hold as a local (in no particular order: see program-info.py). */
  localNames: z.array(z.string()),
});

const ProgramInfoSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ok'), executableLines: z.array(z.number().int().positive()), functions: z.array(FunctionInfoSchema) }),
  z.object({ kind: z.literal('error'), message: z.string(), line: z.number().int().positive().nullable() }),
]);

export type FunctionInfo = z.infer<typeof FunctionInfoSchema>;
export type ProgramInfo = z.infer<typeof ProgramInfoSchema>;

const HELPER_TIMEOUT_MS = 10_000;

function helperScript(): string {
  // Next to this file in the source tree; dist/adapter/ when compiled, while the .py stays here.
  for (const url of [new URL('./program-info.py', import.meta.url), new URL('../../model-client/program-info.py', import.meta.url)]) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(`cannot find program-info.py next to ${fileURLToPath(import.meta.url)}`);
}

function runHelper(source: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(pythonExecutable(), [helperScript()], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, HELPER_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    // Python gone before it read the program (never started, crashed): the write fails with
    // EPIPE, and the 'error' or 'close' event says why.
    child.stdin.on('error', () => {});
    child.on('error', (e) => reject(new Error(`cannot run ${pythonExecutable()}: ${e.message} (set NDB_PYTHON)`)));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return reject(new Error(`program-info.py took longer than ${HELPER_TIMEOUT_MS / 1000} s`));
      try {
        resolve(JSON.parse(out));
      } catch {
        const last = err.trim().split('\n').pop() ?? '';
        reject(new Error(`program-info.py failed (exit status ${code})${last ? `: ${last}` : ''}`));
      }
    });
    child.stdin.end(source);
  });
}

/** Compiles (never runs) a program; a syntax error is a result, not an exception. */
export async function programInfo(source: string): Promise<ProgramInfo> {
  return ProgramInfoSchema.parse(await runHelper(source));
}

/** The innermost function whose `def` line through its last line contains `line`. */
export function functionAt(info: ProgramInfo, line: number): FunctionInfo | undefined {
  if (info.kind !== 'ok') return undefined;
  let best: FunctionInfo | undefined;
  for (const f of info.functions) {
    // A nested def starts after its enclosing one's, so the innermost starts last.
    if (f.line <= line && line <= f.endLine && (!best || f.line > best.line)) best = f;
  }
  return best;
}
