/**
 * A predicted run of an example call, as the language server keeps it, and what the editor
 * features read from it: which lines ran and what each one changed.
 *
 * A run is the stops a debugger would show stepping into every line (the model's states,
 * never a real run), then how it ended when the end came within the step cap. A line
 * stop holds the locals *before* its line runs, so what a line did is read at the next stop
 * of the same frame: `n = 1` beside `n += 1` is the value after it, as a reader expects.
 */
import type { Exit, State } from '../grammar/state.js';
import type { Origin } from '../model-client/predictor.js';

export interface PredictedStep {
  state: State;
  /** model: predicted; input: the call state built from the example's arguments (certain). */
  origin: Origin;
  confidence: {
    /** Only the locals the model wrote at this stop (a changed value); unchanged ones inherit. */
    locals: Record<string, number>;
    value?: number;
    frame: number;
    /** The locals the symbolic stepper decided at this stop, each with its rule: Python's semantics, not the model's guess. */
    decided?: Record<string, string>;
  };
}

export interface PredictedEnd {
  exit: Exit;
  origin: Origin;
  /** The model's confidence in the whole exit frame, 0..1. */
  confidence: number;
}

export interface PredictedRun {
  /** `entry(args)` as written in the document. */
  call: string;
  steps: PredictedStep[];
  /** How the run ended; null while it is being predicted, or when the step cap came first. */
  end: PredictedEnd | null;
  /** No more steps will come (the end, the cap, a failure or a cancel). */
  complete: boolean;
}

/** A value a line (or the call) gave a local, with the model's confidence when it wrote it. */
export interface Assignment {
  name: string;
  value: string;
  /** 0..1; undefined when the value came from the input (certain) or was not written at that stop. */
  confidence?: number;
  /** The rule that decided the value (semantics/rules/), where the model did not choose it. */
  decided?: string;
  given: boolean;
}

/** One execution of a line, or the call that set the parameters. */
export interface Execution {
  /** 1-based line. */
  line: number;
  function: string;
  kind: 'call' | 'line';
  /** The locals the execution set or changed, valued after it ran; empty when the next stop of the frame is unknown. */
  changes: Assignment[];
  /** The stop after it in the same frame was predicted (otherwise `changes` is unknown). */
  finished: boolean;
}

/** Every call and line execution of the run, in run order. */
export function executions(run: PredictedRun): Execution[] {
  const out: Execution[] = [];
  const { steps } = run;
  steps.forEach((step, i) => {
    const { state } = step;
    const fn = state.stack.at(-1)!.function;
    if (state.event === 'call') {
      out.push({ line: state.line, function: fn, kind: 'call', changes: Object.entries(state.locals).map(([name, value]) => assignment(step, name, value)), finished: true });
      return;
    }
    if (state.event !== 'line') return;
    const after = nextInFrame(steps, i);
    if (!after) {
      out.push({ line: state.line, function: fn, kind: 'line', changes: [], finished: false });
      return;
    }
    const changes = Object.entries(after.state.locals)
      .filter(([name, value]) => state.locals[name] !== value)
      .map(([name, value]) => assignment(after, name, value));
    out.push({ line: state.line, function: fn, kind: 'line', changes, finished: true });
  });
  return out;
}

function assignment(step: PredictedStep, name: string, value: string): Assignment {
  const given = step.origin !== 'model';
  const confidence = step.confidence.locals[name];
  const decided = given ? undefined : step.confidence.decided?.[name];
  return { name, value, given, ...(given || confidence === undefined ? {} : { confidence }), ...(decided ? { decided } : {}) };
}

/**
 * The stop where the frame of stop `i` is next the innermost one (its next line, its
 * return or exception), skipping the stops of any calls its line made.
 */
function nextInFrame(steps: readonly PredictedStep[], i: number): PredictedStep | undefined {
  const depth = steps[i]!.state.stack.length;
  for (let j = i + 1; j < steps.length; j++) {
    const s = steps[j]!.state;
    if (s.stack.length < depth) return undefined; // the frame is gone without a stop of its own
    if (s.stack.length === depth) return s.event === 'call' ? undefined : steps[j];
  }
  return undefined;
}

/** A run's one-line description of its end, for status and hovers. */
export function describeEnd(run: PredictedRun): string {
  if (!run.end) return run.complete ? `no end within ${run.steps.length} predicted steps` : `${run.steps.length} steps predicted so far`;
  const { exit } = run.end;
  switch (exit.kind) {
    case 'normal':
      return `returns ${exit.value}`;
    case 'error':
      return `raises ${exit.value}`;
    case 'never':
      return 'does not end';
    case 'entry':
      return 'ends';
  }
}

/** A percentage for a confidence, `(given)` for the input's values, `(decided: RULE)` for a value the symbolic stepper decided, nothing when unknown. */
export function confidenceLabel(a: { confidence?: number; decided?: string; given: boolean }): string {
  if (a.given) return '(given)';
  if (a.decided) return `(decided: ${a.decided})`;
  return a.confidence === undefined ? '' : `(${Math.round(a.confidence * 100)}%)`;
}

/** A repr shortened for one line of an editor decoration. */
export function shorten(text: string, max = 40): string {
  return text.length <= max ? text : text.slice(0, max - 1) + '…';
}
