/**
 * The VS Code extension's queries on a runtime (adapter/runtime.ts), answered by the DAP
 * session's `ndb/predictInputs` and `ndb/trace` (adapter/debug-session.ts); their answers are
 * the wire types of protocol/dap.ts. Neither moves the run: the timeline is read, never changed.
 */
import { describeExit } from './verifier.js';
import { type CallOutcome, predictCandidateCall } from '../model-client/call-outcome.js';
import { type CompleteFrame, predictCallFrame } from '../model-client/input-prediction.js';
import type { Predictor } from '../model-client/predictor.js';
import type { PredictedInputs, PredictedTrace, TraceStep } from '../protocol/dap.js';
import { type NeuralRuntime, RuntimeError } from './runtime.js';

/**
 * Which arguments make the entry return `valueRepr` (a Python repr), by the protocol of
 * model-client/input-prediction.ts (the one `ndb eval cruxeval --task input` measures): the
 * entry's return state with that value on each of its `return` lines (its last line when it
 * has none), its locals written by `complete` where given (the likeliest start wins; else
 * left empty), then the model's `inv_step_call` from it: the call frame's locals are the
 * arguments. It waits its turn in the runtime's command queue.
 *
 * On a long file the model sees the launch's cut (program-analysis/cut.ts), as when stepping:
 * only return lines the cut shows are candidates, the completer gets the cut's text and the
 * return state in its lines, and the state it writes comes back in the file's lines (the
 * predictor maps the call the same way).
 *
 * Then the forward check (runForward), as `ndb eval cruxeval --task input` makes it.
 */
export function predictInputs(runtime: NeuralRuntime, valueRepr: string, complete?: CompleteFrame): Promise<PredictedInputs> {
  return runtime.exclusive(async () => {
    const opts = runtime.requireLaunched();
    const name = runtime.entryCall?.entry;
    if (!name) throw new RuntimeError('predicting the inputs needs an entry function: launch with entry (the function to debug)');
    const info = runtime.program?.kind === 'ok' ? runtime.program : null;
    const fn = info?.functions.find((f) => f.qualname === name) ?? info?.functions.find((f) => f.name === name);
    if (!info || !fn) throw new RuntimeError(`no function '${name}' in ${opts.program}`);
    const cut = runtime.programCut;
    const lines = runtime.programLines;
    const own = info.executableLines.filter((l) => l > fn.line && l <= fn.endLine && (!cut || cut.sees(l)));
    const returns = own.filter((l) => /^return\b/.test((lines[l - 1] ?? '').trim()));
    const candidates = returns.length > 0 ? returns : own.slice(-1);
    if (candidates.length === 0) throw new RuntimeError(`'${name}' has no line to return from`);
    const question = { program: runtime.programSource, lines, function: fn.name, returnLines: candidates, value: valueRepr, cut };
    const { returned, call } = await predictCallFrame(runtime.predictor, question, { ...(complete ? { complete } : {}), predict: runtime.sampling() });
    if (call.kind !== 'state' || call.state.event !== 'call') {
      throw new RuntimeError(`the model did not find a call of ${fn.name} returning ${valueRepr} (it predicted ${call.kind === 'state' ? `a ${call.state.event} state` : `the run's ${call.exit.kind} exit`})`);
    }
    const locals = call.state.locals;
    const args = fn.callLocals.filter((n) => n in locals).map((n) => locals[n]).join(', ');
    const inverse: PredictedInputs = {
      function: fn.name,
      value: valueRepr,
      returnLine: returned.state.line,
      args,
      locals,
      confidence: call.confidence.locals,
      ...(call.stats ? { stats: call.stats } : {}),
    };
    const checker = runtime.predictor.sibling?.();
    if (!checker) return inverse;
    const asked: Asked = { program: runtime.programSource, entry: name, returns, value: valueRepr, samples: runtime.sampling().samples };
    const forward = await runForward(checker, asked, args);
    if (forward?.returns) return { ...inverse, check: checkOf(forward, 'inverse') };
    // The value itself as the only argument (a function that gives back what it is given,
    // changed or not): shown only when the model's own run of it returns the value.
    const echo = args === valueRepr ? null : await runForward(checker, asked, valueRepr);
    if (!echo?.returns || !echo.outcome.call) return forward ? { ...inverse, check: checkOf(forward, 'inverse') } : inverse;
    const bound = echo.outcome.call.locals;
    return {
      ...inverse,
      args: valueRepr,
      locals: bound,
      confidence: Object.fromEntries(Object.keys(bound).map((n) => [n, echo.outcome.confidence])),
      check: checkOf(echo, 'value'),
    };
  });
}

/** What the forward check runs: a call of `entry` in `program`, which should return `value`. */
interface Asked {
  program: string;
  entry: string;
  /** The entry's return lines, in the file's numbers (for predictCall's breakpoint method). */
  returns: readonly number[];
  value: string;
  samples?: number | undefined;
}

interface ForwardRun {
  outcome: CallOutcome;
  /** The model's run ends in a return of the asked value. */
  returns: boolean;
}

/**
 * The model's run of the entry with `args` from its call to its end (predictCandidateCall:
 * line by line, as `ndb eval cruxeval --task input` checks), on a sibling of the
 * session's predictor so that the run's prompt cache stays as it was; null when it cannot
 * run. Nothing runs in Python but the binding of literal arguments.
 */
async function runForward(checker: Predictor, asked: Asked, args: string): Promise<ForwardRun | null> {
  const outcome = await predictCandidateCall(checker, asked.program, { entry: asked.entry, args }, asked.returns, asked.samples);
  return outcome && { outcome, returns: outcome.kind === 'returned' && outcome.value === asked.value };
}

function checkOf(run: ForwardRun, candidate: 'inverse' | 'value'): NonNullable<PredictedInputs['check']> {
  const { outcome } = run;
  const ended = outcome.kind === 'returned' ? outcome.value : `raises ${outcome.exception}`;
  return { returns: run.returns, ...(run.returns ? {} : { outcome: ended }), confidence: outcome.confidence, candidate };
}

/** The timeline as a list: each stop with its locals, what changed since the one before in the same frame, and the end. */
export function predictedTrace(runtime: NeuralRuntime): PredictedTrace {
  const t = runtime.timeline;
  const lines = runtime.programLines;
  const steps = t.stops.map((s, i): TraceStep => {
    const prev = t.stops[i - 1]?.state;
    const sameFrame = prev && prev.stack.length === s.state.stack.length && prev.stack.at(-1)?.function === s.state.stack.at(-1)?.function;
    const changed = Object.keys(s.state.locals).filter((n) => !sameFrame || prev.locals[n] !== s.state.locals[n]);
    return {
      index: i,
      event: s.state.event,
      line: s.state.line,
      function: s.state.stack.at(-1)?.function ?? '<module>',
      depth: s.state.stack.length,
      source: lines[s.state.line - 1] ?? s.state.source,
      locals: s.state.locals,
      changed,
      confidence: s.confidence.locals,
      ...(s.state.value !== undefined ? { value: s.state.value } : {}),
      origin: s.origin,
      ...(s.action ? { action: s.action.kind } : {}),
      current: !t.atEnd && i === t.position,
    };
  });
  const end = t.end ? { exit: describeExit(t.end.exit), confidence: t.endConfidence() ?? t.end.confidence.frame, current: t.atEnd } : null;
  return { program: runtime.programPath ?? '', steps, end };
}
