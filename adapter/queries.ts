/**
 * The VS Code extension's queries on a runtime (adapter/runtime.ts), answered by the DAP
 * session's `ndb/predictInputs` and `ndb/trace` (adapter/debug-session.ts); their answers are
 * the wire types of protocol/dap.ts. Neither moves the run: the timeline is read, never changed.
 */
import { describeExit } from './verifier.js';
import { type CallOutcome, isModelFailure, NoPrediction, predictCandidateCall } from '../model-client/call-outcome.js';
import { type CallCandidate, callCandidates, type FrameCompleter, INPUT_CANDIDATES } from '../model-client/input-prediction.js';
import type { Predictor } from '../model-client/predictor.js';
import type { PredictedInputs, PredictedTrace, TraceStep } from '../protocol/dap.js';
import { type NeuralRuntime, RuntimeError } from './runtime.js';

/**
 * Which arguments make the entry return `valueRepr` (a Python repr), by the protocol of
 * model-client/input-prediction.ts (the one `ndb eval cruxeval --task input` measures): the
 * entry's return state with that value on each of its `return` lines (its last line when it
 * has none), its locals written by `complete` where given (the likeliest start first; else
 * left empty), then the model's `inv_step_call` from it: the call frame's locals are the
 * arguments. It waits its turn in the runtime's command queue.
 *
 * On a long file the model sees the launch's cut (program-analysis/cut.ts), as when stepping:
 * only return lines the cut shows are candidates, the completer gets the cut's text and the
 * return state in its lines, and the state it writes comes back in the file's lines (the
 * predictor maps the call the same way).
 *
 * Then the forward check (runForward), as `ndb eval cruxeval --task input` makes it: the
 * model's own answer, the value itself as the only argument, then the model's other answers
 * (other return lines', `drawn` return states' (default INPUT_CANDIDATES)); the first the model's run
 * confirms is shown, else its own answer with what its run gave instead.
 */
export function predictInputs(runtime: NeuralRuntime, valueRepr: string, complete?: FrameCompleter, drawn = INPUT_CANDIDATES): Promise<PredictedInputs> {
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
    const checker = runtime.predictor.sibling?.();
    const answers = callCandidates(runtime.predictor, question, { ...(complete ? { complete } : {}), fatal: (err) => !isModelFailure(err), predict: runtime.sampling(), samples: checker ? drawn : 0 });
    const first = await answers.next().catch((err: unknown) => {
      throw err instanceof NoPrediction ? new RuntimeError(`the model did not find a call of ${fn.name} returning ${valueRepr}: ${err.message}`) : err;
    });
    if (first.done) throw new RuntimeError(`the model did not find a call of ${fn.name} returning ${valueRepr}`);
    const inverse = shown(fn, valueRepr, first.value);
    if (!checker) return inverse;
    const asked: Asked = { program: runtime.programSource, entry: name, returns, value: valueRepr, samples: runtime.sampling().samples };
    const forward = await runForward(checker, asked, inverse.args);
    if (forward?.returns) return { ...inverse, check: checkOf(forward, 'inverse') };
    // The value itself as the only argument (a function that gives back what it is given,
    // changed or not): shown only when the model's own run of it returns the value.
    const echo = inverse.args === valueRepr ? null : await runForward(checker, asked, valueRepr);
    if (echo?.returns && echo.outcome.call) {
      const bound = echo.outcome.call.locals;
      return {
        ...inverse,
        args: valueRepr,
        locals: bound,
        confidence: Object.fromEntries(Object.keys(bound).map((n) => [n, echo.outcome.confidence])),
        check: checkOf(echo, 'value'),
      };
    }
    const tried = new Set([inverse.args, valueRepr]);
    for await (const answer of answers) {
      const other = shown(fn, valueRepr, answer);
      if (tried.has(other.args)) continue;
      tried.add(other.args);
      const run = await runForward(checker, asked, other.args);
      if (run?.returns) return { ...other, check: checkOf(run, 'inverse') };
    }
    return forward ? { ...inverse, check: checkOf(forward, 'inverse') } : inverse;
  });
}

/** A call frame the model gave, as Predict Inputs shows it: the parameters as a positional argument list. */
function shown(fn: { name: string; callLocals: readonly string[] }, valueRepr: string, answer: CallCandidate): PredictedInputs {
  const { returned, call } = answer;
  const locals = call.state.locals;
  return {
    function: fn.name,
    value: valueRepr,
    returnLine: returned.state.line,
    args: fn.callLocals.filter((n) => n in locals).map((n) => locals[n]).join(', '),
    locals,
    confidence: call.confidence.locals,
    ...(call.stats ? { stats: call.stats } : {}),
  };
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
