/**
 * The VS Code extension's queries on a runtime (adapter/runtime.ts), answered by the DAP
 * session's `ndb/predictInputs` and `ndb/trace` (adapter/debug-session.ts); their answers are
 * the wire types of protocol/dap.ts. Neither moves the run: the timeline is read, never changed.
 */
import { describeExit } from './verifier.js';
import { type CallOutcome, isModelFailure, NoPrediction, predictCandidateCall } from '../model-client/call-outcome.js';
import { checkInputs } from '../model-client/input-check.js';
import { type CallCandidate, callCandidates, type FrameCompleter, INPUT_CANDIDATES } from '../model-client/input-prediction.js';
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
 * Then the forward check, model-client/input-check.ts's rule, as `ndb eval cruxeval --task
 * input` measures it: the model's own answer, the value itself as the only argument, then the
 * model's other answers (other return lines', `drawn` return states' (default
 * INPUT_CANDIDATES)) are run forward on a sibling of the session's predictor (so that the
 * session's prompt cache stays as it was); the first the model's run confirms is shown. When
 * none is: the value itself where the entry takes it as its only argument, else the model's
 * own answer, each with what its run gave instead.
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
    const unanswered = (err: unknown) => (err instanceof NoPrediction ? new RuntimeError(`the model did not find a call of ${fn.name} returning ${valueRepr}: ${err.message}`) : err);
    if (!checker) {
      // No forward check: the model's own answer, unchecked.
      const first = await answers.next().catch((err: unknown) => {
        throw unanswered(err);
      });
      if (first.done) throw new RuntimeError(`the model did not find a call of ${fn.name} returning ${valueRepr}`);
      return shown(fn, valueRepr, first.value);
    }
    const samples = runtime.sampling().samples;
    const choice = await checkInputs(answers, {
      value: valueRepr,
      argsOf: (a) => argumentList(fn, a.call.state.locals),
      run: (args) => predictCandidateCall(checker, runtime.programSource, { entry: name, args }, returns, samples),
      recoverable: isModelFailure,
    }).catch((err: unknown) => {
      throw unanswered(err);
    });
    const check = choice.run.outcome ? checkOf(choice.run.outcome, valueRepr) : undefined;
    if (choice.kind === 'answer') return { ...shown(fn, valueRepr, choice.answer), ...(check ? { check } : {}) };
    // The value itself as the only argument: its locals are the call's bound parameters, the
    // confidence the model's in its run when that returns the value (none when it does not).
    const bound = choice.run.call?.locals ?? {};
    const sure = choice.confirmed ? choice.run.outcome!.confidence : undefined;
    return {
      function: fn.name,
      value: valueRepr,
      from: 'value',
      returnLine: candidates[0]!,
      args: valueRepr,
      locals: bound,
      confidence: sure === undefined ? {} : Object.fromEntries(Object.keys(bound).map((n) => [n, sure])),
      ...(check ? { check } : {}),
    };
  });
}

/** A call frame's parameters as a positional argument list. */
function argumentList(fn: { callLocals: readonly string[] }, locals: Readonly<Record<string, string>>): string {
  return fn.callLocals.filter((n) => n in locals).map((n) => locals[n]).join(', ');
}

/** A call frame the model gave, as Predict Inputs shows it: the parameters as a positional argument list. */
function shown(fn: { name: string; callLocals: readonly string[] }, valueRepr: string, answer: CallCandidate): PredictedInputs {
  const { returned, call } = answer;
  const locals = call.state.locals;
  return {
    function: fn.name,
    value: valueRepr,
    from: 'inverse',
    returnLine: returned.state.line,
    args: argumentList(fn, locals),
    locals,
    confidence: call.confidence.locals,
    ...(call.stats ? { stats: call.stats } : {}),
  };
}

/** The forward run's end for Predict Inputs: does it return the value, else how it ends, and the model's probability of that path. */
function checkOf(outcome: CallOutcome, valueRepr: string): NonNullable<PredictedInputs['check']> {
  const returns = outcome.kind === 'returned' && outcome.value === valueRepr;
  const ended = outcome.kind === 'returned' ? outcome.value : `raises ${outcome.exception}`;
  return { returns, ...(returns ? {} : { outcome: ended }), confidence: outcome.confidence };
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
