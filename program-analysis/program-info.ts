/**
 * Static facts about a program for the debug adapter: where breakpoints can hit, which
 * functions it defines, or why it does not compile.
 *
 * The adapter needs these before any state exists (verifying breakpoints, offering "debug the
 * function under the cursor"), and the program must never run for them: program-info.py asks
 * CPython's own compile() and ast, so the lines are exactly those a real run could stop on.
 */
import { z } from 'zod';
import { helperPath, runPythonHelper } from '../python/python-helper.js';

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


/** Compiles (never runs) a program; a syntax error is a result, not an exception. */
export async function programInfo(source: string): Promise<ProgramInfo> {
  const run = await runPythonHelper({ script: helperPath('program-info.py', import.meta.url), input: source, timeoutMs: HELPER_TIMEOUT_MS });
  if (run.timedOut) throw new Error(`program-info.py took longer than ${HELPER_TIMEOUT_MS / 1000} s`);
  return ProgramInfoSchema.parse(run.output);
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
