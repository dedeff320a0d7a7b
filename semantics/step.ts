/**
 * One step as the symbolic stepper sees it: the program's control flow, the action, the state
 * it is taken from and the history before, with the guards every rule reads computed once.
 * Where a frame is written (`FrameAt`): its head's event, its line, whether it is the same
 * frame as the state before (a bare location) and its function.
 */
import type { Action, Event, State } from '../grammar/state.js';
import { ELLIPSIS } from '../grammar/truncate.js';
import { IMMUTABLE_REPR } from './repr-items.js';
import { type ControlFlow, runsStatements } from '../program-analysis/control-flow.js';
import type { RunHistory } from './history.js';
import type { SessionRequest, SessionResult } from './python-session.js';

/** A question a rule asks CPython's walker before the step is decoded (semantics/python-session.ts), under a key its answer is read by. */
export interface Question {
  key: string;
  request: SessionRequest;
}

/** The state being written, as far as the rules need it. */
export interface LandingFrame {
  event: Event;
  /** The innermost frame's line. */
  line: number;
  /** Written as a bare line: the same frame as the state before (grammar/scope.ts). */
  bare: boolean;
}

/** A landing frame with its innermost function (undefined: not known, e.g. a bare location without a state before). */
export interface FrameAt extends LandingFrame {
  function: string | undefined;
}

/** step_over and step_into: forward within a frame, or into a call. */
export const FORWARD_STEPS: ReadonlySet<Action['kind']> = new Set(['step_over', 'step_into']);
/** Their inverses. */
export const INVERSE_STEPS: ReadonlySet<Action['kind']> = new Set(['inv_step_over', 'inv_step_into']);
/** Comprehension frames (a generator expression's runs lazily, inside whatever consumes it). */
export const COMPREHENSION = /^<(?:listcomp|setcomp|dictcomp)>$/;

export class Step {
  /** step_over or step_into. */
  readonly forward: boolean;
  /** inv_step_over or inv_step_into. */
  readonly inverse: boolean;
  /**
   * The program reaches its frames only through its code (no exec, locals(), frame objects)
   * and prints no reprs of its own: a name's value changes only where the bytecode binds it.
   */
  readonly byCode: boolean;
  /** The state before's innermost function. */
  readonly prevFunction: string | undefined;
  /**
   * The state before is a line event of a frame that runs statements (not a comprehension's,
   * which reports the line of the statement it is in): the line just run is `prev.line`.
   */
  readonly fromStatementLine: boolean;

  /**
   * The module's constants the state before's frame reads (ControlFlow.constants), with the
   * values the module's frame showed in the history (a script's run: the run's entry state is
   * the module's): not a name the frame binds itself, nor a mutable object that some code
   * may change.
   */
  readonly globals: Readonly<Record<string, string>>;

  /** The walker's answers to the rules' questions (StepOracle.build asks them all in one batch). */
  private answers: ReadonlyMap<string, SessionResult> = new Map();

  constructor(
    readonly flow: ControlFlow,
    readonly action: Action | null,
    readonly prev: State | undefined,
    readonly history: RunHistory = {},
  ) {
    this.forward = action !== null && FORWARD_STEPS.has(action.kind);
    this.inverse = action !== null && INVERSE_STEPS.has(action.kind);
    this.byCode = flow.programNames.localsByCodeOnly;
    this.prevFunction = prev?.stack[prev.stack.length - 1]!.function;
    this.fromStatementLine = prev?.event === 'line' && runsStatements(this.prevFunction!);
    this.globals = moduleValues(flow, prev, history.entry);
  }

  /** The walker's answer to a question asked under `key`; undefined where none was asked or answered. */
  answer(key: string): SessionResult | undefined {
    return this.answers.get(key);
  }

  /** The repr an evaluation asked under `key` came to, where it did (not where it raised or the walker could not tell). */
  value(key: string): string | undefined {
    const a = this.answers.get(key);
    return a?.kind === 'value' ? a.repr : undefined;
  }

  /** Sets the answers, once asked. */
  answered(answers: ReadonlyMap<string, SessionResult>): void {
    this.answers = answers;
  }

  /** An evaluation on `locals` (default: the state before's), with the program's imports and pure functions. */
  evaluate(key: string, expression: string, locals: Readonly<Record<string, string>> = this.prev?.locals ?? {}): Question {
    return { key, request: { op: 'evaluate', expression, locals: { ...this.globals, ...locals }, ...this.bindings(), set_order: 'check' } };
  }

  /** A simple statement run on the state before's locals. */
  execute(key: string, statement: string): Question {
    return { key, request: { op: 'execute', statement, locals: { ...this.globals, ...(this.prev?.locals ?? {}) }, ...this.bindings(), set_order: 'check' } };
  }

  private bindings() {
    const { modules, names, functions } = this.flow.bindings;
    return { modules: { ...modules }, names: { ...names }, functions: Object.fromEntries(Object.entries(functions).map(([n, f]) => [n, { params: [...f.params], body: f.body }])) };
  }

  /** Whether a name's value may change behind the code's back (global, nonlocal, or bound where the analysis cannot follow). */
  unstable(name: string): boolean {
    return this.flow.programNames.unstable.has(name);
  }
}


/**
 * Step.globals: the module's constants a frame of a function of the program reads, where the
 * module has bound them: `entry` (the module's frame alone) shows them, or the module's frame
 * below is past a line of the top level's straight start that binds one to a literal (a run
 * that jumped there shows no state of the module since). A literal's repr is whole where the
 * frame shows it cut.
 */
function moduleValues(flow: ControlFlow, prev: State | undefined, entry: State | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!prev || prev.stack.length < 2 || prev.stack[0]!.function !== '<module>') return out;
  const module = entry && entry.stack.length === 1 && entry.stack[0]!.function === '<module>' ? entry : undefined;
  const f = flow.frames.get(prev.stack[prev.stack.length - 1]!.function);
  if (!f || f.shown) return out;
  for (const [name, constant] of flow.constants) {
    if (name in prev.locals || f.params?.has(name) || f.storedAnywhere.has(name) || f.shared.has(name)) continue;
    const shown = module?.locals[name];
    const ran = constant.straight && constant.literal !== undefined && prev.stack[0]!.line > constant.line;
    const value = shown === undefined && !ran ? undefined : (constant.literal ?? shown);
    if (value !== undefined && !value.endsWith(ELLIPSIS) && (constant.read_only || IMMUTABLE_REPR.test(value))) out[name] = value;
  }
  return out;
}
