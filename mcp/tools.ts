/**
 * The tools of `ndb mcp`, each an input schema, an output schema (zod) and a handler over the
 * debugger's own parts: the runtime a session steps (adapter/runtime.ts, as `ndb debug`
 * walks it), Predict Inputs (adapter/queries.ts, as the editor asks it), `ndb verify`'s
 * predicted verdicts and Best@k (evaluation/verify.ts). Nothing of the user's program runs:
 * every state is the model's or the symbolic stepper's, and expressions are evaluated over
 * the predicted values by the debugger's sandboxed walker (adapter/evaluate.ts), never eval.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { describeError } from '../adapter/debug-session.js';
import { evaluateExpression, valueRepr } from '../adapter/evaluate.js';
import { predictInputs } from '../adapter/queries.js';
import { type NeuralRuntime, RuntimeError, type StopEvent } from '../adapter/runtime.js';
import { rankCandidates, readCases, VerifyInputError, type VerifyReport, verifySolution, verdictText, VERIFY_METHOD, type CaseResult } from '../evaluation/verify.js';
import { departureOf, FEEDBACK_STEPS } from '../evaluation/repair-feedback.js';
import { MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { OUTPUT_METHODS, type OutputMethod } from '../model-client/call-outcome.js';
import { MAX_INPUT_CANDIDATES } from '../protocol/dap.js';
import type { McpContext, ProgramInput } from './context.js';
import { EndSchema, type EndView, provenanceAt, StopSchema, type StopView, endView, stopView, ValueSchema, type ValueView } from './views.js';

/** The longest trace a tool predicts or returns. */
export const MAX_TRACE_STEPS = 1000;
export const DEFAULT_TRACE_STEPS = 200;
/** The most states in a repair-feedback trace unless the call says otherwise (what `ndb eval verify` scores). */
const DEFAULT_FEEDBACK_STEPS = FEEDBACK_STEPS;

// ---- shared input fields ---------------------------------------------------------------------

const programFields = {
  path: z.string().min(1).optional().describe('the Python file (relative paths are the server\'s working folder\'s); or give source'),
  source: z.string().optional().describe("the program's text; or give path"),
};
const callFields = {
  entry: z.string().min(1).optional().describe("the function to call (default: the module's top level)"),
  args: z.string().optional().describe('its arguments as Python argument text, as `ndb debug --args` takes them: "[1, 2], 3" or "\'berry\', t=\'r\'" (default: none)'),
};
const sessionId = z.string().min(1).describe('the id debug_start returned');
const millis = z.number().describe('wall-clock time this call took, in ms');

// ---- results -------------------------------------------------------------------------------------

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool's answer: a short summary for a reader, then the structured result as JSON text too (clients that ignore structured content). */
function answer(summary: string, structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: `${summary}\n${JSON.stringify(structured)}` }], structuredContent: structured };
}

/** An error for the client: one clear message, the server goes on. */
export function failure(err: unknown, shown: (message: string) => string = (m) => m): ToolResult {
  const message = shown(err instanceof VerifyInputError ? `cannot read the solution or its tests: ${err.message}` : describeError(err));
  return { content: [{ type: 'text', text: message }], isError: true };
}

const ms = (t0: number) => Math.round(performance.now() - t0);

/** What the client gave with the call: its cancel, and where progress goes (when it asked for it: a long call then keeps its request alive). */
export interface CallControl {
  signal?: AbortSignal;
  /** `done` must grow from one notification to the next (the protocol's rule); `total` where known. */
  progress?: (done: number, total: number | undefined, message: string) => void;
}

// ---- running a call ------------------------------------------------------------------------------

interface CallSpec {
  file: string;
  entry?: string | undefined;
  args?: string | undefined;
  inferArgs?: boolean | undefined;
}

function launchOptions(spec: CallSpec) {
  if (spec.args !== undefined && spec.entry === undefined) throw new RuntimeError('args need an entry: the function to call with them');
  if (spec.args !== undefined && spec.inferArgs) throw new RuntimeError('give either args or infer_args, not both');
  return {
    program: spec.file,
    prefetch: false,
    ...(spec.entry === undefined ? {} : { entry: spec.entry }),
    ...(spec.entry === undefined || spec.inferArgs ? {} : { args: spec.args ?? '' }),
    ...(spec.inferArgs ? { inferArgs: true } : {}),
  };
}

/**
 * Predicts a run step by step (step into) for at most `maxSteps` stops; a run that has not
 * ended by then is continued to its predicted end in one prediction (the model's `continue`).
 */
async function simulate(ctx: McpContext, runtime: NeuralRuntime, spec: CallSpec, maxSteps: number, call?: CallControl): Promise<{ truncated: boolean; note?: string }> {
  await launch(runtime, spec);
  const t = runtime.timeline;
  try {
    while (!t.atEnd && t.stops.length < maxSteps) {
      stopIfCancelled(ctx, call);
      await runtime.stepIn();
      call?.progress?.(t.stops.length, maxSteps, `${t.stops.length} states predicted`);
    }
    stopIfCancelled(ctx, call);
    const truncated = !t.atEnd;
    if (truncated) await runtime.continue();
    return { truncated };
  } catch (err) {
    // The states predicted so far are still an answer: the model's failure (a state it could
    // not finish, a run too long for its context) is said beside them. Not a cancel.
    if (call?.signal?.aborted || ctx.closing || t.stops.length === 0) throw err;
    return { truncated: !t.atEnd, note: `the prediction stopped after ${t.stops.length} states: ${describeError(err)}` };
  }
}

/** A call the client cancelled, or a server shutting down, stops between two predictions. */
function stopIfCancelled(ctx: McpContext, call: CallControl | undefined): void {
  if (call?.signal?.aborted) throw new RuntimeError('cancelled by the client');
  if (ctx.closing) throw new RuntimeError('the server is shutting down');
}

/** Launches; an entry the program does not define is said plainly (the model's cut of the program would say it in its own words). */
async function launch(runtime: NeuralRuntime, spec: CallSpec): Promise<StopEvent> {
  try {
    return await runtime.launch(launchOptions(spec));
  } catch (err) {
    const info = runtime.program;
    if (spec.entry !== undefined && info?.kind === 'ok' && !info.functions.some((f) => f.qualname === spec.entry || f.name === spec.entry)) {
      const names = info.functions.map((f) => f.qualname);
      throw new RuntimeError(`no function ${JSON.stringify(spec.entry)} in the program${names.length ? ` (it defines ${names.join(', ')})` : ' (it defines none)'}`);
    }
    throw err;
  }
}

function traceOf(runtime: NeuralRuntime, limit = MAX_TRACE_STEPS): StopView[] {
  return runtime.timeline.stops.slice(0, limit).map((_, i) => stopView(runtime, i));
}

/** The index of the current stop (the last one at the end of the run); null before the first. */
function currentIndex(runtime: NeuralRuntime): number | null {
  const t = runtime.timeline;
  if (!t.started) return null;
  return t.atEnd ? t.stops.length - 1 : t.position;
}

function endOf(runtime: NeuralRuntime): EndView | null {
  const end = runtime.timeline.end;
  return end ? endView(runtime, end) : null;
}

function callText(entry: string | undefined, args: string | undefined): string {
  return entry === undefined ? '<module>' : `${entry}(${args ?? ''})`;
}

// ---- simulate_call ---------------------------------------------------------------------------------

export const SimulateInput = {
  ...programFields,
  ...callFields,
  max_steps: z.number().int().min(0).max(MAX_TRACE_STEPS).optional().describe(`most states predicted one by one for the trace (default ${DEFAULT_TRACE_STEPS}; 0: the end only); past them the end is predicted directly`),
};
export const SimulateOutput = {
  program: z.string(),
  call: z.string(),
  end: EndSchema.nullable().describe('how the call ends: the predicted return value or exception'),
  trace: z.array(StopSchema).describe('the predicted states, line by line (into calls), in run order'),
  trace_truncated: z.boolean().describe('max_steps was reached: the end was predicted directly from the last state'),
  note: z.string().optional().describe('why the prediction stopped early, when it did'),
  milliseconds: millis,
};

async function simulateCall(ctx: McpContext, input: z.infer<z.ZodObject<typeof SimulateInput>>, call?: CallControl): Promise<ToolResult> {
  const t0 = performance.now();
  const maxSteps = input.max_steps ?? DEFAULT_TRACE_STEPS;
  const { file, shown, scratch } = ctx.programFile(input);
  const runtime = await ctx.newRuntime();
  try {
    const { truncated, note } = await simulate(ctx, runtime, { file, entry: input.entry, args: input.args }, Math.max(1, maxSteps), call);
    const trace = maxSteps === 0 ? [] : traceOf(runtime, maxSteps);
    const end = endOf(runtime);
    const text = callText(input.entry, input.args);
    const result = { program: shown, call: text, end, trace, trace_truncated: truncated, ...(note ? { note } : {}), milliseconds: ms(t0) };
    return answer(`${text} ${end ? end.text : 'has no predicted end'} (predicted; ${trace.length} states; nothing ran)`, result);
  } finally {
    await runtime.close();
    ctx.removeScratch(scratch);
  }
}

// ---- debugging sessions ------------------------------------------------------------------------------

const BreakpointSchema = z.object({ line: z.number().int(), verified: z.boolean(), message: z.string().optional() });

export const DebugStartInput = {
  ...programFields,
  ...callFields,
  infer_args: z.boolean().optional().describe('let the model propose the arguments instead of giving args'),
  breakpoints: z.array(z.number().int().positive()).max(100).optional().describe('lines to stop at on continue'),
};
const MoveOutput = {
  session_id: z.string(),
  reason: z.string().describe('entry, step, breakpoint, exception, end or pause'),
  description: z.string().optional(),
  replayed: z.boolean().describe('the stop was already predicted (stepping back and forth replays the same run)'),
  stop: StopSchema.nullable().describe('the current state (at the end of the run: the last one)'),
  ended: z.boolean(),
  end: EndSchema.nullable().describe('the predicted end, once the run reached it'),
  milliseconds: millis,
};
export const DebugStartOutput = {
  ...MoveOutput,
  program: z.string(),
  call: z.string(),
  breakpoints: z.array(BreakpointSchema),
  sessions_open: z.number().int(),
  max_sessions: z.number().int(),
};

function moveResult(id: string, runtime: NeuralRuntime, event: StopEvent, t0: number) {
  const index = currentIndex(runtime);
  return {
    session_id: id,
    reason: event.reason,
    ...(event.description ? { description: event.description } : {}),
    replayed: event.replayed ?? false,
    stop: index === null ? null : stopView(runtime, index),
    ended: runtime.timeline.atEnd,
    end: runtime.timeline.atEnd ? endOf(runtime) : null,
    milliseconds: ms(t0),
  };
}

function stopSummary(r: ReturnType<typeof moveResult>): string {
  if (r.ended) return `${r.session_id}: ${r.end ? `the run ended: ${r.end.text}` : 'the run ended'} (predicted)`;
  const s = r.stop;
  if (!s) return `${r.session_id}: no state`;
  const values = s.locals.filter((v) => s.changed.includes(v.name)).map((v) => `${v.name} = ${v.value}`);
  return `${r.session_id}: ${s.event} at line ${s.line} in ${s.function}: ${s.source}${values.length ? `   [${values.join(', ')}]` : ''}${s.value ? `   ${s.value.name} ${s.value.value}` : ''}`;
}

async function debugStart(ctx: McpContext, input: z.infer<z.ZodObject<typeof DebugStartInput>>): Promise<ToolResult> {
  const t0 = performance.now();
  ctx.checkRoom();
  const { file, shown, scratch } = ctx.programFile(input);
  let runtime: NeuralRuntime | null = null;
  try {
    runtime = await ctx.newRuntime();
    const breakpoints = input.breakpoints ? await runtime.setBreakpoints(input.breakpoints, file) : [];
    const event = await launch(runtime, { file, entry: input.entry, args: input.args, inferArgs: input.infer_args });
    const session = ctx.addSession({ runtime, program: shown, entry: input.entry ?? null, scratch });
    const result = {
      ...moveResult(session.id, runtime, event, t0),
      program: shown,
      call: input.infer_args ? `${input.entry}(<proposed by the model>)` : callText(input.entry, input.args),
      breakpoints,
      sessions_open: ctx.openSessions,
      max_sessions: ctx.maxSessions,
    };
    return answer(stopSummary(result), result);
  } catch (err) {
    await runtime?.close();
    ctx.removeScratch(scratch);
    throw err;
  }
}

export const STEP_ACTIONS = ['into', 'over', 'out', 'continue', 'back', 'reverse_continue', 'to_line', 'restart'] as const;

export const DebugStepInput = {
  session_id: sessionId,
  action: z.enum(STEP_ACTIONS).describe('into / over / out: step as pdb\'s s, n, r; continue: to the next breakpoint or the predicted end; back: one state back (reverse_continue: back to the previous breakpoint or the start); to_line: on to `line` in this frame (pdb\'s until); restart: predict the run again'),
  line: z.number().int().positive().optional().describe('the line for to_line'),
  breakpoints: z.array(z.number().int().positive()).max(100).optional().describe('replace the breakpoints before moving'),
};
export const DebugStepOutput = { ...MoveOutput, breakpoints: z.array(BreakpointSchema).optional() };

async function debugStep(ctx: McpContext, input: z.infer<z.ZodObject<typeof DebugStepInput>>): Promise<ToolResult> {
  const t0 = performance.now();
  const { runtime } = ctx.session(input.session_id);
  if (input.action === 'to_line' && input.line === undefined) throw new RuntimeError('to_line needs line: the line to run on to');
  if (input.action !== 'to_line' && input.line !== undefined) throw new RuntimeError(`line goes with to_line only, not ${input.action}`);
  const breakpoints = input.breakpoints ? await runtime.setBreakpoints(input.breakpoints) : undefined;
  const move: Record<(typeof STEP_ACTIONS)[number], () => Promise<StopEvent>> = {
    into: () => runtime.stepIn(),
    over: () => runtime.stepOver(),
    out: () => runtime.stepOut(),
    continue: () => runtime.continue(),
    back: () => runtime.stepBack(),
    reverse_continue: () => runtime.reverseContinue(),
    to_line: () => runtime.until(input.line),
    restart: () => runtime.restart(),
  };
  const event = await move[input.action]();
  const result = { ...moveResult(input.session_id, runtime, event, t0), ...(breakpoints ? { breakpoints } : {}) };
  return answer(stopSummary(result), result);
}

export const DebugInspectInput = {
  session_id: sessionId,
  what: z.enum(['locals', 'stack', 'expression', 'trace']).describe("locals: the current state's values with their provenance; stack: the frames, innermost first; expression: a Python expression over the predicted locals (evaluated by a sandboxed walker, nothing of the program runs); trace: the states predicted so far"),
  expression: z.string().optional().describe('the expression, for what = expression'),
  max_steps: z.number().int().min(1).max(MAX_TRACE_STEPS).optional().describe(`for trace: the most recent states returned (default ${DEFAULT_TRACE_STEPS})`),
};
const FrameSchema = z.object({ id: z.number().int().describe('0: innermost'), function: z.string(), line: z.number().int(), source: z.string(), locals: z.array(ValueSchema).nullable().describe("a caller's locals as last seen (null: not seen)") });
export const DebugInspectOutput = {
  session_id: z.string(),
  what: z.string(),
  stop: StopSchema.nullable().optional(),
  frames: z.array(FrameSchema).optional(),
  expression: z.string().optional(),
  value: z.string().optional().describe("the expression's value (its repr)"),
  type: z.string().optional(),
  trace: z.array(StopSchema).optional(),
  trace_truncated: z.boolean().optional().describe('older states were left out'),
  ended: z.boolean(),
  end: EndSchema.nullable(),
  milliseconds: millis,
};

async function debugInspect(ctx: McpContext, input: z.infer<z.ZodObject<typeof DebugInspectInput>>): Promise<ToolResult> {
  const t0 = performance.now();
  const { runtime } = ctx.session(input.session_id);
  if (input.what !== 'expression' && input.expression !== undefined) throw new RuntimeError('expression goes with what = expression only');
  const index = currentIndex(runtime);
  const base = { session_id: input.session_id, what: input.what, ended: runtime.timeline.atEnd, end: endOf(runtime) };
  let result: Record<string, unknown>;
  let summary: string;
  switch (input.what) {
    case 'locals': {
      const stop = index === null ? null : stopView(runtime, index);
      result = { ...base, stop };
      summary = stop ? `${stop.function} line ${stop.line}: ${stop.locals.map((v) => `${v.name} = ${v.value}`).join(', ') || '(no locals)'}` : 'no state: the run ended before its first line';
      break;
    }
    case 'stack': {
      const frames = runtime.frames().map((f) => ({
        id: f.id,
        function: f.function,
        line: f.line,
        source: f.source.trim(),
        locals: f.locals === null ? null : f.id === 0 && index !== null ? stopView(runtime, index).locals : callerValues(f.locals),
      }));
      result = { ...base, frames };
      summary = frames.map((f) => `${f.function}:${f.line}`).join(' <- ') || 'no frames';
      break;
    }
    case 'expression': {
      if (input.expression === undefined || input.expression.trim() === '') throw new RuntimeError('what = expression needs expression: a Python expression over the locals');
      if (index === null) throw new RuntimeError('no state to evaluate in: the run ended before its first line');
      const stop = runtime.timeline.stops[index]!;
      const locals = { ...stop.state.locals };
      delete locals[MORE_LOCALS_KEY];
      if (stop.state.event === 'return' && stop.state.value !== undefined) locals.__return__ = stop.state.value;
      const value = await evaluateExpression(input.expression, locals);
      if (value.kind === 'error') throw new RuntimeError(`cannot evaluate ${input.expression}: ${value.message}`);
      result = { ...base, expression: input.expression, value: value.repr, ...(value.type ? { type: value.type } : {}) };
      summary = `${input.expression} = ${value.repr}`;
      break;
    }
    case 'trace': {
      const limit = input.max_steps ?? DEFAULT_TRACE_STEPS;
      const stops = runtime.timeline.stops;
      const from = Math.max(0, stops.length - limit);
      const trace = stops.slice(from).map((_, i) => stopView(runtime, from + i));
      result = { ...base, trace, trace_truncated: from > 0 };
      summary = `${stops.length} states predicted${runtime.timeline.atEnd ? ', and the end' : ''}`;
      break;
    }
  }
  result.milliseconds = ms(t0);
  return answer(summary, result);
}

/** A caller's locals as last seen: their provenance is not tracked there. */
function callerValues(locals: Record<string, string>): ValueView[] {
  return Object.entries(locals)
    .filter(([n]) => n !== MORE_LOCALS_KEY)
    .map(([name, value]) => ({ name, value, provenance: { source: 'unknown' as const } }));
}

export const DebugStopInput = { session_id: sessionId };
export const DebugStopOutput = { session_id: z.string(), closed: z.boolean(), sessions_open: z.number().int() };

async function debugStop(ctx: McpContext, input: z.infer<z.ZodObject<typeof DebugStopInput>>): Promise<ToolResult> {
  await ctx.closeSession(input.session_id);
  const result = { session_id: input.session_id, closed: true, sessions_open: ctx.openSessions };
  return answer(`closed ${input.session_id}; ${ctx.openSessions} open`, result);
}

// ---- predict_inputs ------------------------------------------------------------------------------------

export const PredictInputsInput = {
  ...programFields,
  entry: z.string().min(1).describe('the function whose arguments are wanted'),
  value: z.string().min(1).describe('the return value wanted, as a Python expression: "3", "[1, 2]", "\'abc\'"'),
  candidates: z.number().int().min(0).max(MAX_INPUT_CANDIDATES).optional().describe('more return states the model draws when its first answers are not confirmed (default 4; 0: fastest)'),
};
export const PredictInputsOutput = {
  program: z.string(),
  function: z.string(),
  value: z.string().describe('the wanted value, as a repr'),
  args: z.string().describe('the proposed arguments, as Python argument text (positional)'),
  call: z.string(),
  from: z.enum(['inverse', 'value']).describe("inverse: the model's inverse step from the return; value: the value itself as the only argument"),
  return_line: z.number().int(),
  locals: z.array(ValueSchema).describe("the call frame's parameters, each with the model's confidence"),
  check: z
    .object({ returns: z.boolean(), outcome: z.string().optional(), confidence: z.number() })
    .optional()
    .describe('the forward check: the model ran the proposed call; returns: it predicts the wanted value; outcome: what it predicts instead'),
  milliseconds: millis,
};

async function predictInputsTool(ctx: McpContext, input: z.infer<z.ZodObject<typeof PredictInputsInput>>): Promise<ToolResult> {
  const t0 = performance.now();
  const { file, shown, scratch } = ctx.programFile(input);
  const runtime = await ctx.newRuntime();
  try {
    const repr = await valueRepr(input.value, {}).catch((err: unknown) => {
      throw new RuntimeError(`value is not a Python expression ndb can evaluate: ${(err as Error).message}`);
    });
    // The entry's call with no arguments: only the program and its entry are read from it (no prediction).
    await launch(runtime, { file, entry: input.entry, args: '' });
    const completer = await ctx.frameCompleter();
    const p = await predictInputs(runtime, repr, completer, input.candidates);
    const locals: ValueView[] = Object.entries(p.locals).map(([name, value]) => ({
      name,
      value,
      provenance: p.confidence[name] === undefined ? { source: 'unknown' } : { source: 'predicted', confidence: Math.round(p.confidence[name]! * 1e4) / 1e4 },
    }));
    const result = {
      program: shown,
      function: p.function,
      value: p.value,
      args: p.args,
      call: `${p.function}(${p.args})`,
      from: p.from,
      return_line: p.returnLine,
      locals,
      ...(p.check ? { check: p.check } : {}),
      milliseconds: ms(t0),
    };
    const checked = p.check ? (p.check.returns ? '; the model\'s forward run confirms it' : `; the model's forward run predicts ${p.check.outcome} instead`) : '';
    return answer(`${result.call} should return ${p.value} (predicted${checked})`, result);
  } finally {
    await runtime.close();
    ctx.removeScratch(scratch);
  }
}

// ---- verify_tests -----------------------------------------------------------------------------------------

const SolutionInput = z.object({ ...programFields, name: z.string().optional().describe('how the report names it (default: its path, or candidate N)') });

export const VerifyInput = {
  solutions: z.array(SolutionInput).min(1).max(16).describe('one solution, or several candidates to rank (Best@k; needs tests)'),
  tests: z.object(programFields).optional().describe('a tests file of assert CALL == EXPECTED / assert CALL lines (default: the doctests of each solution)'),
  doctests: z.boolean().optional().describe("with tests: the solutions' doctest examples too"),
  method: z.enum(OUTPUT_METHODS as [OutputMethod, ...OutputMethod[]]).optional().describe(`how a call is predicted to its return (default ${VERIFY_METHOD})`),
  samples: z.number().int().min(1).max(16).optional().describe('sampled frames per prediction, voted on (default 1: greedy)'),
  feedback: z.number().int().min(0).max(20).optional().describe('failing cases per solution that get repair feedback: the predicted run and the line where it departs (default 3; 0: none)'),
  max_steps: z.number().int().min(1).max(MAX_TRACE_STEPS).optional().describe(`most states in a feedback trace (default ${DEFAULT_FEEDBACK_STEPS})`),
};


const DepartureSchema = z.object({
  line: z.number().int(),
  source: z.string(),
  function: z.string(),
  locals: z.array(ValueSchema).describe('the values there (the state after the line ran)'),
  why: z.string(),
});
const FeedbackSchema = z.object({
  call: z.string(),
  expected: z.string().nullable(),
  end: EndSchema.nullable(),
  departure: DepartureSchema.nullable().describe('the first line where the predicted run goes where the test did not expect'),
  trace: z.array(StopSchema),
  trace_truncated: z.boolean(),
  note: z.string().optional(),
});
const CaseSchema = z.object({
  line: z.number().int(),
  from: z.enum(['tests', 'doctest']),
  text: z.string(),
  verdict: z.enum(['pass', 'fail', 'raises', 'unknown']),
  verdict_text: z.string(),
  predicted: z.string().nullable().describe("the predicted return value's repr, or the exception's"),
  confidence: z.number().nullable(),
  reason: z.string().optional(),
  feedback: FeedbackSchema.optional(),
});
const ReportSchema = z.object({ solution: z.string(), tests: z.string().nullable(), passed: z.number().int(), total: z.number().int(), pass_confidence: z.number(), cases: z.array(CaseSchema) });
export const VerifyOutput = {
  reports: z.array(ReportSchema),
  ranking: z.array(z.string()).optional().describe('Best@k: the candidates, most predicted passes first (ties by confidence)'),
  best: z.string().optional(),
  milliseconds: millis,
};

function readProgram(input: ProgramInput, what: string): string {
  const given = (input.path !== undefined ? 1 : 0) + (input.source !== undefined ? 1 : 0);
  if (given !== 1) throw new RuntimeError(`give ${what} as exactly one of path or source`);
  if (input.source !== undefined) return input.source;
  try {
    return readFileSync(input.path!, 'utf8');
  } catch (err) {
    throw new RuntimeError(`cannot read ${input.path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

async function verifyTests(ctx: McpContext, input: z.infer<z.ZodObject<typeof VerifyInput>>, call?: CallControl): Promise<ToolResult> {
  const t0 = performance.now();
  if (input.solutions.length > 1 && !input.tests) throw new RuntimeError('several candidates need tests: the cases every candidate is predicted on');
  if (input.doctests && !input.tests) throw new RuntimeError('doctests goes with tests (without tests the doctests are the cases already)');
  const testsCode = input.tests ? readProgram(input.tests, 'the tests') : null;
  const testsName = input.tests ? (input.tests.path ?? '<tests>') : null;
  const solutions = input.solutions.map((s, i) => ({ input: s, path: s.name ?? s.path ?? (input.solutions.length > 1 ? `candidate ${i + 1}` : '<source>'), code: readProgram(s, `solution ${i + 1}`) }));
  // Every file read before the model is asked: a syntax error is reported at once.
  const read = [];
  for (const s of solutions) {
    const cases = await readCases(s.code, testsCode);
    if (input.doctests && testsCode !== null) cases.cases.push(...(await readCases(s.code, null)).cases);
    read.push(cases);
  }
  const model = await ctx.model();
  // One count for the whole call, so that it only grows: cases predicted, then feedback states.
  let done = 0;
  const tick = (message: string) => call?.progress?.(++done, undefined, message);
  const inner: CallControl = { ...(call?.signal ? { signal: call.signal } : {}), ...(call?.progress ? { progress: (_n: number, _t: number | undefined, m: string) => tick(`feedback: ${m}`) } : {}) };
  const reports: VerifyReport[] = [];
  for (const [i, s] of solutions.entries()) {
    stopIfCancelled(ctx, call);
    // Between two predicted calls: a cancel or a shutdown stops the verdicts there too, not only the feedback.
    const onProgress = (n: number, total: number) => {
      stopIfCancelled(ctx, call);
      tick(`${s.path}: ${n} of ${total} calls predicted`);
    };
    reports.push(await verifySolution(model.sibling(), { path: s.path, code: s.code }, testsName, read[i]!, { ...(input.method ? { method: input.method } : {}), ...(input.samples ? { samples: input.samples } : {}), onProgress }));
  }
  const feedbackCases = input.feedback ?? 3;
  const maxSteps = input.max_steps ?? DEFAULT_FEEDBACK_STEPS;
  const out = [];
  for (const [i, r] of reports.entries()) {
    let left = feedbackCases;
    const cases = [];
    for (const c of r.cases) {
      const wrong = (c.verdict === 'fail' || c.verdict === 'raises') && 'function' in c.case;
      const feedback = wrong && left-- > 0 ? await repairFeedback(ctx, solutions[i]!.input, solutions[i]!.code, c, maxSteps, inner) : undefined;
      cases.push({
        line: c.case.line,
        from: c.case.source,
        text: c.case.text,
        verdict: c.verdict,
        verdict_text: verdictText(c),
        predicted: c.predicted,
        confidence: c.confidence,
        ...(c.reason ? { reason: c.reason } : {}),
        ...(feedback ? { feedback } : {}),
      });
    }
    out.push({ solution: r.solution, tests: r.tests, passed: r.passed, total: r.total, pass_confidence: Math.round(r.passConfidence * 1e4) / 1e4, cases });
  }
  const ranked = reports.length > 1 ? rankCandidates(reports).map((r) => r.solution) : undefined;
  const result = { reports: out, ...(ranked ? { ranking: ranked, best: ranked[0]! } : {}), milliseconds: ms(t0) };
  const lines = out.map((r) => `${r.solution}: predicted ${r.passed} of ${r.total} pass`);
  if (ranked) lines.push(`best: ${ranked[0]}`);
  return answer(`${lines.join('\n')}\n(predicted by the model; nothing ran)`, result);
}

/**
 * What a failing predicted test gives back to whoever repairs the solution: the call's
 * predicted run (bounded) and where it departs from what the test expected.
 *
 * The departure, without any real run to compare with: for a predicted exception, the line
 * where it is raised; for a wrong value, the line that gave the entry's frame the value it
 * returns — the local that holds the returned value at the return, traced back to the line
 * after which it held it for good; when no local holds it (`return a + b`), the return line.
 */
async function repairFeedback(ctx: McpContext, solution: z.infer<typeof SolutionInput>, code: string, c: CaseResult, maxSteps: number, call?: CallControl): Promise<z.infer<typeof FeedbackSchema>> {
  const tc = c.case as Extract<CaseResult['case'], { function: string }>;
  const { file, scratch } = ctx.programFile(solution.path !== undefined ? { path: solution.path } : { source: code }, 'solution.py');
  const runtime = await ctx.newRuntime();
  try {
    const { truncated, note } = await simulate(ctx, runtime, { file, entry: tc.function, args: tc.args }, maxSteps, call);
    return {
      call: `${tc.function}(${tc.args})`,
      expected: tc.check === 'raises' ? `raises ${tc.expected}` : tc.expected,
      end: endOf(runtime),
      departure: departure(runtime, tc.expected),
      trace: traceOf(runtime, maxSteps),
      trace_truncated: truncated,
      ...(note ? { note } : {}),
    };
  } finally {
    await runtime.close();
    ctx.removeScratch(scratch);
  }
}

/** The rule of evaluation/repair-feedback.ts (the one `ndb eval verify` scores against the real run), said with the values there. */
function departure(runtime: NeuralRuntime, expected: string | null): z.infer<typeof DepartureSchema> | null {
  const stops = runtime.timeline.stops;
  const d = departureOf(
    stops.map((s) => s.state),
    runtime.timeline.end?.exit ?? null,
  );
  if (!d) return null;
  const v = stopView(runtime, d.index);
  const at = (why: string) => ({ line: v.line, source: v.source, function: v.function, locals: v.locals, why });
  const expect = expected === null ? '' : `; the test expected ${expected}`;
  switch (d.kind) {
    case 'raises':
      return at(`raises ${d.value} here (predicted); the test expected ${expected ?? 'no exception'}`);
    case 'ends':
      return at('the predicted run ends here');
    case 'returns':
      return at(`returns ${d.value} from this line (predicted)${expect}`);
    case 'from_start':
      return at(`${d.holder} = ${d.value} from the start (the arguments) to the return (predicted)${expect}`);
    case 'holds': {
      const provenance = provenanceAt(stops, d.index, d.holder!);
      const how = provenance.source === 'decided' ? `decided: ${provenance.rule}` : provenance.source === 'predicted' ? `predicted, ${Math.round((provenance.confidence ?? 0) * 100)}%` : provenance.source;
      return { ...at(`${d.holder} becomes ${d.value} (${how}) after this line and keeps it to the return${expect}`), line: d.line, source: (runtime.programLines[d.line - 1] ?? '').trim() };
    }
  }
}

// ---- the table -------------------------------------------------------------------------------------------

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  output: z.ZodRawShape;
  /** Uses the model: runs in turn with the others (McpContext.exclusive). */
  run(ctx: McpContext, input: never, call?: CallControl): Promise<ToolResult>;
}

export function toolTable(): ToolSpec[] {
  const nothingRuns = 'Nothing of the program runs: every state is predicted by a small language model or decided by a symbolic stepper, and each value says which.';
  return [
    {
      name: 'simulate_call',
      title: 'Simulate a call',
      description: `Predict what a Python function call (or a module) does, line by line: its return value or exception, the trace of states (bounded by max_steps), each value's provenance, and the time taken. ${nothingRuns}`,
      input: SimulateInput,
      output: SimulateOutput,
      run: simulateCall as ToolSpec['run'],
    },
    {
      name: 'debug_start',
      title: 'Start a debugging session',
      description: `Open a stateful debugging session on a predicted run (stops at its first state) and return its session_id, for debug_step, debug_inspect and debug_stop. A server keeps a limited number open. ${nothingRuns}`,
      input: DebugStartInput,
      output: DebugStartOutput,
      run: debugStart as ToolSpec['run'],
    },
    {
      name: 'debug_step',
      title: 'Step a debugging session',
      description: 'Move a debugging session: into, over, out, continue (to a breakpoint or the predicted end), back, reverse_continue, to_line, restart. Returns the new state with provenance.',
      input: DebugStepInput,
      output: DebugStepOutput,
      run: debugStep as ToolSpec['run'],
    },
    {
      name: 'debug_inspect',
      title: 'Inspect a debugging session',
      description: "Look at a debugging session's current state without moving: locals (with provenance), the stack, an expression's value over the predicted locals, or the trace so far.",
      input: DebugInspectInput,
      output: DebugInspectOutput,
      run: debugInspect as ToolSpec['run'],
    },
    {
      name: 'debug_stop',
      title: 'Stop a debugging session',
      description: 'Close a debugging session and free its slot.',
      input: DebugStopInput,
      output: DebugStopOutput,
      run: debugStop as ToolSpec['run'],
    },
    {
      name: 'predict_inputs',
      title: 'Predict inputs for a return value',
      description: `Propose arguments that make a function return a given value (the model steps backwards from the return), checked by predicting the proposed call forwards. ${nothingRuns}`,
      input: PredictInputsInput,
      output: PredictInputsOutput,
      run: predictInputsTool as ToolSpec['run'],
    },
    {
      name: 'verify_tests',
      title: 'Verify tests by prediction',
      description: `Predict the verdicts of a solution's test cases (asserts of a tests file, or its doctests) without running anything; with several candidate solutions, rank them by predicted passes (Best@k). For a failing predicted case: the predicted run and the line where it departs from what the test expected, with the values there (repair feedback). ${nothingRuns}`,
      input: VerifyInput,
      output: VerifyOutput,
      run: verifyTests as ToolSpec['run'],
    },
  ];
}
