/**
 * The neural debugging runtime: one predicted run of a Python program, walked like a real
 * one. It knows nothing of DAP (adapter/debug-session.ts maps DAP onto it) nor of terminals
 * (cli/debug-repl.ts): a plain EventEmitter that steps and emits, as vscode-mock-debug's
 * mockRuntime.ts.
 *
 * It holds the timeline (adapter/timeline.ts: the stops seen, the actions between, the
 * predicted end), the breakpoints, and a Predictor. Every new state comes from the predictor;
 * in verify mode a Verifier (the real tracer) is set beside it and only compared with.
 *
 * Commands run one at a time, in the order they arrive, through its command queue
 * (adapter/command-queue.ts), which also runs the background work between them: prefetch
 * (adapter/prefetch.ts) guesses where step over, step into and step out lead from the
 * current stop, and a key press that matches a guess is served from it. `cancel()` stops a
 * multi-step command (continue, until) between two predictions. The extension's queries
 * (Predict Inputs, the predicted trace) are adapter/queries.ts.
 *
 * Events:
 *   'stopped'  (StopEvent)            after every command that moves
 *   'output'   (text, category)       verify findings and notes (the end is the stop's description)
 *   'progress' (ProgressEvent)        a multi-step command's progress
 *   'prefetch' (PrefetchEvent)        a background guess started or ended
 *   'breakpoint' (BreakpointView)     a breakpoint no predicted stop can reach after all (outside the cut)
 *
 * Line numbers are the file's own everywhere: for a file too long for the model, the
 * predictor shows the model a cut of it (program-analysis/cut.ts) and maps every state back.
 * Breakpoints outside the cut are unverified, with the reason.
 */
import { EventEmitter } from 'node:events';
import type { Action, ForwardAction, State } from '../grammar/state.js';
import { truncateRepr } from '../grammar/truncate.js';
import type { ProgramCut } from '../program-analysis/cut.js';
import type { Entry } from '../program-analysis/entry-state.js';
import type { Prediction, PredictionStats, PredictOptions, Predictor } from '../model-client/predictor.js';
import { functionAt, programInfo, type ProgramInfo } from '../program-analysis/program-info.js';
import { MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { evaluateExpression } from './evaluate.js';
import { CommandQueue } from './command-queue.js';
import { newCounters, nextGuess, type PrefetchCounters, type PrefetchEvent, takeGuess } from './prefetch.js';
import { RuntimeError } from './runtime-error.js';
import { type End, type Stop, Timeline } from './timeline.js';
import { readPythonSource } from './read-source.js';
import { describeExit, sandboxProtections, type Verification, Verifier, verifySandbox } from './verifier.js';

export { RuntimeError };
export type { PrefetchEvent };

export interface LaunchOptions {
  /** The program file (its text is read at launch and at restart). */
  program: string;
  /** The function to debug; none: the module's top level. */
  entry?: string;
  /** The entry's arguments as Python literals, e.g. `[3, 1, 2], key=None`. */
  args?: string;
  /** Let the model propose the entry's arguments (resample proposes others). */
  inferArgs?: boolean;
  /** Stop at the first state (default true); otherwise run to the first breakpoint or the end. */
  stopOnEntry?: boolean;
  /** Frames sampled per prediction, the winner chosen by vote (default 1: greedy). */
  samples?: number;
  /** Sampling temperature with several samples (default 1). */
  temperature?: number;
  /** Also run the real tracer and flag every predicted value that differs (runs the program). */
  verify?: boolean;
  /** Most predictions one continue or until may take before it pauses (default 200). */
  maxSteps?: number;
  /**
   * Guess the next step over, step into and step out (not at a module's top level) in the
   * background while stopped (default true). Only with greedy decoding (samples 1), where a guess is exactly
   * what the press would get.
   */
  prefetch?: boolean;
}

/**
 * entry: the first state; step: a step landed; breakpoint: a continue hit one; exception:
 * the state is an exception event; end: the predicted end of the run; pause: a multi-step
 * command was cancelled or ran out of steps.
 */
export type StopReason = 'entry' | 'step' | 'breakpoint' | 'function breakpoint' | 'data breakpoint' | 'exception' | 'end' | 'pause' | 'goto' | 'restart';

export interface StopEvent {
  reason: StopReason;
  /** One line for the user: what happened, when it is not just "stepped" (the predicted end's value). */
  description?: string;
  /** The stop was already in the timeline: shown again, not predicted again. */
  replayed?: boolean;
  /** The stop was a background guess made while the user looked at the previous one. */
  prefetched?: boolean;
  /** The prediction behind a new stop or end (its work, whether done now or in the background). */
  stats?: PredictionStats;
  /** A move forward from the predicted end: past it (the REPL shows the end again; a DAP session ends). */
  pastEnd?: boolean;
}

export interface ProgressEvent {
  kind: 'start' | 'update' | 'end';
  title: string;
  message?: string;
  /** 0..100 */
  percentage?: number;
}

/** A stack frame of the current stop, innermost first. */
export interface FrameView {
  /** 0 is the innermost frame. */
  id: number;
  function: string;
  line: number;
  source: string;
  /**
   * The frame's locals: the current stop's for the innermost frame; for a caller, its locals
   * at the last stop where it was the innermost frame (the line that made the call), if seen.
   */
  locals: Record<string, string> | null;
}

export interface BreakpointView {
  line: number;
  verified: boolean;
  message?: string;
}

/**
 * A line breakpoint as VS Code and pdb set them. Every field but the line is optional: a
 * plain breakpoint stops each time a predicted state reaches the line.
 */
export interface BreakpointSpec {
  line: number;
  /** A Python expression over the predicted locals (the safe walker, adapter/evaluate.ts): stop only where it is true. */
  condition?: string;
  /** DAP's hit condition: `5` or `==5` (the 5th hit), `>5`, `>=5`, `<5`, `<=5`, `%5` (every 5th). */
  hitCondition?: string;
  /** A logpoint: this message, with each `{expression}` evaluated, is logged and the run goes on. */
  logMessage?: string;
  /** pdb's tbreak: removed once it stops. */
  temporary?: boolean;
  /** pdb's ignore: this many hits (where the condition holds) pass before it stops. */
  ignoreCount?: number;
}

/** A function breakpoint: stops at the function's first line of code, as pdb's `b function`. */
export interface FunctionBreakpointSpec {
  /** The function's name or qualname (`f`, `Class.method`). */
  name: string;
  condition?: string;
  hitCondition?: string;
}

export interface FunctionBreakpointView {
  name: string;
  verified: boolean;
  /** The line it stops on (the function's first line of code). */
  line?: number;
  message?: string;
}

/**
 * A data breakpoint: a local of one frame (named by its stack of functions, outermost first),
 * watched for a change of value while a continue steps through the predicted run.
 */
export interface DataWatchSpec {
  name: string;
  frame: readonly string[];
}

/** A logpoint's message, logged where the run passed its line. */
export interface LogEvent {
  line: number;
  text: string;
}

/** A breakpoint with what it counts. */
interface Armed {
  spec: BreakpointSpec;
  /** Hits so far (reaches of the line where the condition held). */
  hits: number;
  /** Hits still to ignore (pdb's ignore). */
  ignore: number;
  /** A function breakpoint's function, for its stop's description. */
  functionName?: string;
}

interface Watch {
  spec: DataWatchSpec;
  /** The value when last seen in its frame (undefined: not a local there). */
  last: string | undefined;
  /** Whether `last` belongs to the frame activation the run is in (a new call of the same function starts over). */
  live: boolean;
}

/** A hit condition as a test of the hit count, or the reason it does not parse. */
export function parseHitCondition(text: string): ((hits: number) => boolean) | { error: string } {
  const m = /^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$/.exec(text);
  if (!m) return { error: `hit condition ${JSON.stringify(text)} does not parse: give a count (5), or one of ==5, >5, >=5, <5, <=5, %5` };
  const n = Number(m[2]);
  switch (m[1]) {
    case '>':
      return (h) => h > n;
    case '>=':
      return (h) => h >= n;
    case '<':
      return (h) => h < n;
    case '<=':
      return (h) => h <= n;
    case '%':
      if (n === 0) return { error: 'hit condition %0 divides by zero: give %N with N at least 1' };
      return (h) => h % n === 0;
    default:
      return (h) => h === n;
  }
}

/** The `{expression}` parts of a logpoint message (`{{` and `}}` are braces), or why it does not parse. */
export function parseLogMessage(message: string): ({ text: string } | { expression: string })[] | { error: string } {
  const parts: ({ text: string } | { expression: string })[] = [];
  let text = '';
  for (let i = 0; i < message.length; i++) {
    const c = message[i]!;
    if ((c === '{' || c === '}') && message[i + 1] === c) {
      text += c;
      i++;
    } else if (c === '{') {
      // Nested braces (a dict or set display) belong to the expression.
      let depth = 1;
      let j = i + 1;
      for (; j < message.length && depth > 0; j++) {
        if (message[j] === '{') depth++;
        else if (message[j] === '}') depth--;
      }
      if (depth > 0) return { error: `logpoint message: the { at column ${i + 1} is not closed (write {{ for a brace)` };
      const expression = message.slice(i + 1, j - 1).trim();
      if (expression === '') return { error: `logpoint message: empty {} at column ${i + 1}` };
      if (text) parts.push({ text });
      text = '';
      parts.push({ expression });
      i = j - 1;
    } else if (c === '}') {
      return { error: `logpoint message: the } at column ${i + 1} closes nothing (write }} for a brace)` };
    } else {
      text += c;
    }
  }
  if (text) parts.push({ text });
  return parts;
}

/** The locals an expression sees at a state: its locals without the "more not shown" marker, and `__return__` at a return. */
export function expressionLocals(state: State): Record<string, string> {
  const locals = { ...state.locals };
  delete locals[MORE_LOCALS_KEY];
  if (state.event === 'return' && state.value !== undefined) locals.__return__ = state.value;
  return locals;
}

/**
 * Whether a condition parses (the walker's syntax check, over no locals): the error, or null.
 * Names the state lacks are not errors here: they are where the breakpoint is reached.
 */
export async function conditionProblem(condition: string): Promise<string | null> {
  if (condition.trim() === '') return 'the condition is empty';
  if (/[\r\n]/.test(condition)) return 'a condition is one line';
  const r = await evaluateExpression(`bool((\n${condition}\n))`, {});
  if (r.kind === 'error' && /^SyntaxError\b/.test(r.message)) return `the condition ${JSON.stringify(condition)} does not parse: ${r.message}`;
  return null;
}

const DEFAULT_MAX_STEPS = 200;
/** The most calls stepIn with a target steps into (and out of) looking for its target on one line. */
const MAX_TARGET_CALLS = 20;
/** The mark a jump leaves in a stop's edited names: the stop's line is the user's, not the run's. */
export const JUMPED = '(jump)';

export class NeuralRuntime extends EventEmitter {
  readonly timeline = new Timeline();
  private launchOptions: LaunchOptions | null = null;
  private source = '';
  private loadedPath: string | null = null;
  private info: ProgramInfo | null = null;
  private lines: string[] = [];
  private entry: Entry | null = null;
  /** The part of the program the model sees since this runtime's last start; null: all of it. */
  private cut: ProgramCut | null = null;
  /** Every line a continue stops on (line and function breakpoints): what the model is told of and jumps to. */
  private breakpointLines = new Set<number>();
  /** The line breakpoints, by line. */
  private armed = new Map<number, Armed>();
  /** The function breakpoints, by the line they stop on. */
  private functionArmed = new Map<number, Armed>();
  private watches: Watch[] = [];
  /** Which predicted exceptions a continue stops at (debugpy's "raised" filter, exception options): by the exception's repr; null: none. */
  private breakOnRaised: ((repr: string) => boolean) | null = null;
  private verifier: Verifier | null = null;
  private verifyNote: string | null = null;
  private cancelled = false;
  private resamples = 0;
  readonly prefetchCounters: PrefetchCounters = newCounters();
  /** The commands, one at a time, and the background work between them. */
  private readonly commands: CommandQueue;

  constructor(readonly predictor: Predictor) {
    super();
    this.commands = new CommandQueue({
      prefetching: () => this.prefetchOn(),
      ...(predictor.catchUp ? { catchUp: () => this.predictor.catchUp?.() } : {}),
      nextGuess: () => nextGuess(this.timeline, this.predictor, this.prefetchCounters, (event) => this.emit('prefetch', event)),
      yielded: () => void this.prefetchCounters.yielded++,
    });
  }

  // ---- session ---------------------------------------------------------------------------

  /** Reads the program, predicts (or takes) the first state, and stops there or runs on. */
  launch(opts: LaunchOptions): Promise<StopEvent> {
    return this.exclusive(async () => {
      this.launchOptions = opts;
      await this.loadProgram(opts.program);
      if (opts.args !== undefined && !opts.entry) throw new RuntimeError('arguments need an entry function to be called with');
      if (opts.entry && opts.args === undefined && !opts.inferArgs) throw new RuntimeError(`'${opts.entry}' needs arguments: give them as Python literals (args), or let the model infer them (inferArgs)`);
      this.entry = opts.entry ? { entry: opts.entry, args: opts.args ?? '', ...(opts.inferArgs ? { inferArgs: true } : {}) } : null;
      return this.begin();
    });
  }

  /** The same launch again: the program re-read, a fresh timeline, breakpoints kept. */
  restart(): Promise<StopEvent> {
    return this.exclusive(async () => {
      const opts = this.requireLaunched();
      await this.loadProgram(opts.program);
      return this.begin();
    });
  }

  private async begin(): Promise<StopEvent> {
    const opts = this.requireLaunched();
    this.resamples = 0;
    // A new run counts its breakpoints' hits afresh, as a new process would.
    for (const a of [...this.armed.values(), ...this.functionArmed.values()]) {
      a.hits = 0;
      a.ignore = a.spec.ignoreCount ?? 0;
    }
    const first = await this.startPredictor(this.sampling());
    this.setStart(first);
    await this.prepareVerifier();
    const stopped: StopEvent = { ...(this.timeline.atEnd ? this.endEvent() : { reason: 'entry' as const }), ...(first.stats ? { stats: first.stats } : {}) };
    if (opts.stopOnEntry === false && !this.timeline.atEnd) return this.continueRun();
    return this.emitStop(stopped);
  }

  /**
   * The predictor's start; then, when the model sees a cut of the program, the note that
   * says how it was cut (once a launch) and the breakpoints it leaves out, unverified.
   */
  private async startPredictor(sampling: PredictOptions): Promise<Prediction> {
    const first = await this.predictor.start(this.source, this.entry, { ...sampling, stopLines: this.breakpoints });
    const before = this.cut;
    this.cut = this.predictor.programCut?.() ?? null;
    const cut = this.cut;
    if (cut?.note && cut.note !== before?.note) this.emit('output', `${cut.note}\n`, 'console');
    for (const line of this.breakpoints) {
      if (cut && !cut.sees(line)) {
        this.breakpointLines.delete(line);
        this.armed.delete(line);
        this.functionArmed.delete(line);
        this.emit('breakpoint', { line, verified: false, message: cut.whyHidden(line) } satisfies BreakpointView);
      }
    }
    return first;
  }

  private setStart(first: Prediction): void {
    if (first.kind === 'exit') {
      this.timeline.reset(null, { exit: first.exit, origin: first.origin, confidence: first.confidence, ...(first.stats ? { stats: first.stats } : {}) });
    } else {
      this.timeline.reset(this.stopOf(first), null);
    }
  }

  private async loadProgram(path: string): Promise<void> {
    try {
      // As Python reads it (coding line, BOM); a regular file of at most 4 MiB.
      this.source = await readPythonSource(path);
    } catch (err) {
      throw new RuntimeError((err as Error).message);
    }
    this.loadedPath = path;
    this.info = await programInfo(this.source);
    if (this.info.kind === 'error') throw new RuntimeError(`${path}: ${this.info.message}`);
    this.lines = this.source.split(/\r?\n/);
  }

  /** Verify mode: record the real run with the same arguments (the proposed ones, with inferArgs). */
  private async prepareVerifier(): Promise<void> {
    this.verifier = null;
    this.verifyNote = null;
    const opts = this.requireLaunched();
    if (!opts.verify) return;
    let entry: { entry: string; args: string } | null = null;
    if (this.entry) {
      const args = this.entry.inferArgs ? this.inferredArgs() : this.entry.args;
      if (args === null) {
        this.verifyNote = 'verify: the proposed arguments cannot be replayed (no call state)';
        this.emit('output', this.verifyNote + '\n', 'console');
        return;
      }
      entry = { entry: this.entry.entry, args };
    }
    // Never unsandboxed: where no sandbox can be made here, verify says why and runs nothing.
    const sandbox = verifySandbox();
    if (!sandbox.ok) {
      this.verifyNote = `verify: refused: ${sandbox.reason}`;
      this.emit('output', this.verifyNote + '\n', 'console');
      return;
    }
    // Said plainly, every time: verify is the one mode that runs the user's program.
    this.emit('output', `verify: running the program for real to compare (${sandboxProtections()})\n`, 'console');
    try {
      this.verifier = await Verifier.record(this.source, entry);
    } catch (err) {
      this.verifyNote = `verify: the real run could not be recorded: ${(err as Error).message}`;
      this.emit('output', this.verifyNote + '\n', 'console');
    }
  }

  /** The first stop's locals as positional literal arguments (a proposed call). */
  private inferredArgs(): string | null {
    const first = this.timeline.stops[0];
    if (!first || first.state.event !== 'call') return null;
    return Object.values(first.state.locals).join(', ');
  }

  // ---- forward ---------------------------------------------------------------------------

  stepIn(): Promise<StopEvent> {
    return this.exclusive(() => this.stepOnce({ kind: 'step_into' }));
  }

  stepOver(): Promise<StopEvent> {
    return this.exclusive(() => this.stepOnce({ kind: 'step_over' }));
  }

  stepOut(): Promise<StopEvent> {
    return this.exclusive(() => this.stepOnce({ kind: 'step_return' }));
  }

  /** Runs to the next breakpoint, or to the predicted end when there is none. */
  continue(): Promise<StopEvent> {
    this.cancelled = false; // now, not when it starts: a cancel while it waits in the queue counts
    return this.exclusive(() => this.continueRun());
  }

  /**
   * pdb's `until`: with a line, run until a line at or after it is reached in the current
   * frame (one `breakpoint` prediction at that line); without, until a line after the current
   * one in this frame, or the frame returns (step over, repeatedly).
   */
  until(line?: number): Promise<StopEvent> {
    this.cancelled = false;
    return this.exclusive(async () => {
      if (this.timeline.atEnd) return this.emitStop(this.pastEndEvent());
      if (line !== undefined) {
        this.checkLine(line);
        return this.emitStop(await this.move(this.breakpointAction(line), 'breakpoint'));
      }
      const from = this.timeline.current.state;
      return this.repeat('until', { kind: 'step_over' }, (s) => (s.stack.length < from.stack.length || (s.stack.length === from.stack.length && s.line > from.line) ? { reason: 'step' } : null));
    });
  }

  private async stepOnce(action: ForwardAction): Promise<StopEvent> {
    if (this.timeline.atEnd) return this.emitStop(this.pastEndEvent());
    return this.emitStop(await this.move(action, 'step'));
  }

  private async continueRun(): Promise<StopEvent> {
    if (this.timeline.atEnd) return this.emitStop(this.pastEndEvent());
    const lines = [...this.breakpointLines].sort((a, b) => a - b);
    // What only a walk through every state can see: exceptions raised on the way, a value
    // that changes, which of several breakpoints comes first (the run's order). Then the
    // model steps until one is reached.
    if (this.breakOnRaised !== null || this.watches.length > 0 || lines.length > 1) {
      this.baselineWatches();
      return this.repeat('continue', { kind: 'step_into' }, (s) => this.continueVerdict(s));
    }
    // No breakpoint: the model predicts the end directly.
    if (lines.length === 0) return this.emitStop(await this.move({ kind: 'continue' }, 'step'));
    // One: the model jumps to it (the breakpoint action it was trained on), again while its
    // condition, hit count or ignore count lets it pass (a logpoint always does).
    const line = lines[0]!;
    const max = this.requireLaunched().maxSteps ?? DEFAULT_MAX_STEPS;
    for (let n = 1; ; n++) {
      const event = await this.move(this.breakpointAction(line), 'breakpoint');
      if (this.timeline.atEnd || event.reason !== 'breakpoint') return this.emitStop(event);
      const verdict = await this.lineVerdict(this.timeline.current.state);
      if (verdict) return this.emitStop({ ...event, ...verdict });
      if (this.cancelled) return this.emitStop({ reason: 'pause', description: `stopped after ${n} passes of line ${line} (cancelled)` });
      if (n >= max) return this.emitStop({ reason: 'pause', description: `line ${line} passed ${n} times without stopping; continue again to go on` });
    }
  }

  /** Where a continue that steps through the run stops: the first check that fires at state `s`. */
  private async continueVerdict(s: State): Promise<Omit<StopEvent, 'replayed' | 'prefetched' | 'stats'> | null> {
    if (s.event === 'exception' && this.breakOnRaised?.(s.value ?? '')) return { reason: 'exception', description: `${s.value} (predicted)` };
    const changed = this.watchVerdict(s);
    if (changed) return changed;
    return this.lineVerdict(s);
  }

  /**
   * At a line state: whether a line or function breakpoint there stops the run (its
   * condition, hit condition and ignore count), and why; a logpoint logs and lets it pass.
   */
  private async lineVerdict(s: State): Promise<Pick<StopEvent, 'reason' | 'description'> | null> {
    if (s.event !== 'line') return null;
    const line = this.armed.get(s.line);
    if (line) {
      const verdict = await this.judge(line, s);
      if (verdict) {
        if (line.spec.temporary) this.removeLine(s.line);
        return { reason: 'breakpoint', ...(verdict === true ? {} : { description: verdict }) };
      }
    }
    const fn = this.functionArmed.get(s.line);
    if (fn) {
      const verdict = await this.judge(fn, s);
      if (verdict) return { reason: 'function breakpoint', description: verdict === true ? `function breakpoint: ${fn.functionName}` : verdict };
    }
    return null;
  }

  /** One reach of a breakpoint: false to pass, true to stop, or a description (a condition that failed to evaluate stops, as in pdb). */
  private async judge(armed: Armed, s: State): Promise<boolean | string> {
    const { spec } = armed;
    const locals = expressionLocals(s);
    let note: string | undefined;
    if (spec.condition) {
      const r = await evaluateExpression(`bool((\n${spec.condition}\n))`, locals);
      if (r.kind === 'error') note = `the condition ${spec.condition} could not be evaluated on the predicted locals (${r.message}): stopped`;
      else if (r.repr !== 'True') return false;
    }
    armed.hits++;
    if (spec.hitCondition && !note) {
      const test = parseHitCondition(spec.hitCondition);
      if (typeof test === 'function' && !test(armed.hits)) return false;
    }
    if (armed.ignore > 0 && !note) {
      armed.ignore--;
      return false;
    }
    if (spec.logMessage !== undefined && !note) {
      this.emit('log', { line: s.line, text: await this.logText(spec.logMessage, locals) } satisfies LogEvent);
      return false;
    }
    return note ?? true;
  }

  /** A logpoint's message with its expressions' values (an expression that fails shows its error in their place). */
  private async logText(message: string, locals: Record<string, string>): Promise<string> {
    const parts = parseLogMessage(message);
    if ('error' in parts) return message;
    let text = '';
    for (const part of parts) {
      if ('text' in part) {
        text += part.text;
        continue;
      }
      const r = await evaluateExpression(part.expression, locals);
      // As an f-string would: str() of the value, so a string shows without its quotes.
      text += r.kind === 'error' ? `<${r.message}>` : strOfRepr(r.repr);
    }
    return text;
  }

  /** A watched local that changed at state `s` (seen in its frame). */
  private watchVerdict(s: State): Pick<StopEvent, 'reason' | 'description'> | null {
    const names = s.stack.map((f) => f.function);
    for (const w of this.watches) {
      const inFrame = names.length === w.spec.frame.length && w.spec.frame.every((f, i) => names[i] === f);
      const below = names.length > w.spec.frame.length && w.spec.frame.every((f, i) => names[i] === f);
      if (!inFrame) {
        // In a call the frame makes, the frame lives on; anywhere else it has returned.
        if (!below) w.live = false;
        continue;
      }
      const now = Object.hasOwn(s.locals, w.spec.name) ? s.locals[w.spec.name] : undefined;
      if (!w.live) {
        w.live = true;
        w.last = now;
        continue;
      }
      if (now !== w.last) {
        const before = w.last;
        w.last = now;
        const show = (v: string | undefined) => v ?? '(unbound)';
        return { reason: 'data breakpoint', description: `${w.spec.name} changed: ${show(before)} → ${show(now)} (predicted)` };
      }
    }
    return null;
  }

  /** Each watch starts from its value at the current stop (when its frame is the one stopped in). */
  private baselineWatches(): void {
    if (!this.timeline.started) return;
    const s = this.timeline.current.state;
    const names = s.stack.map((f) => f.function);
    for (const w of this.watches) {
      const inFrame = names.length === w.spec.frame.length && w.spec.frame.every((f, i) => names[i] === f);
      if (inFrame) {
        w.last = Object.hasOwn(s.locals, w.spec.name) ? s.locals[w.spec.name] : undefined;
        w.live = true;
      }
    }
  }

  /** `action` until a stop satisfies `done` (which says how to report it), the end, a cancel, or the step limit. */
  private async repeat(title: string, action: ForwardAction, done: (s: State) => Promise<Pick<StopEvent, 'reason' | 'description'> | null> | Pick<StopEvent, 'reason' | 'description'> | null): Promise<StopEvent> {
    const max = this.requireLaunched().maxSteps ?? DEFAULT_MAX_STEPS;
    this.emit('progress', { kind: 'start', title: `Predicting (${title})`, percentage: 0 } satisfies ProgressEvent);
    try {
      for (let n = 1; n <= max; n++) {
        const event = await this.move(action, 'step');
        if (this.timeline.atEnd) return this.emitStop(event);
        const verdict = await done(this.timeline.current.state);
        if (verdict) return this.emitStop(verdict);
        if (this.cancelled) return this.emitStop({ reason: 'pause', description: `stopped after ${n} predicted steps (cancelled)` });
        this.emit('progress', { kind: 'update', title, message: `${n} steps, line ${this.timeline.current.state.line}`, percentage: (100 * n) / max } satisfies ProgressEvent);
      }
      return this.emitStop({ reason: 'pause', description: `no stop within ${max} predicted steps; continue again to go on` });
    } finally {
      this.emit('progress', { kind: 'end', title } satisfies ProgressEvent);
    }
  }

  /** Stops a running continue or until after the prediction in flight. */
  cancel(): void {
    this.cancelled = true;
  }

  /**
   * One forward action from the current stop: replayed when the timeline already took it
   * from here, predicted otherwise. `arrival` is the reason to report for a state (an
   * exception event always reports as such).
   */
  private async move(action: Action, arrival: 'step' | 'breakpoint'): Promise<StopEvent> {
    const t = this.timeline;
    const known = t.known(action);
    let served: Pick<StopEvent, 'prefetched' | 'stats'> = {};
    if (known === undefined) {
      t.truncate();
      const guess = this.prefetchOn() ? takeGuess(t, action, this.prefetchCounters) : undefined;
      const prediction = guess ?? (await this.predict(action, {}));
      served = { ...(guess ? { prefetched: true } : {}), ...(prediction.stats ? { stats: prediction.stats } : {}) };
      t.current.action = action;
      if (prediction.kind === 'exit') {
        t.end = { exit: prediction.exit, origin: prediction.origin, confidence: prediction.confidence, ...(prediction.stats ? { stats: prediction.stats } : {}) };
      } else {
        t.stops.push(this.stopOf(prediction));
      }
    }
    const replayed = known === undefined ? served : { replayed: true };
    if (known === 'end' || (known === undefined && t.end)) {
      t.atEnd = true;
      return { ...this.endEvent(), ...replayed };
    }
    t.position++;
    const state = t.current.state;
    if (state.event === 'exception') return { reason: 'exception', description: `${state.value} (predicted)`, ...replayed };
    if (arrival === 'breakpoint' && !(state.event === 'line' && this.breakpointLines.has(state.line))) return { reason: 'step', ...replayed };
    return { reason: arrival, ...replayed };
  }

  private async predict(action: Action, extra: PredictOptions): Promise<Prediction> {
    try {
      return await this.predictor.predict(this.timeline.history(), action, { ...this.sampling(), ...extra });
    } catch (err) {
      delete this.timeline.current.action;
      throw err;
    }
  }

  /** The launch's decoding: greedy, or its samples and temperature. */
  sampling(): PredictOptions {
    const opts = this.requireLaunched();
    const samples = opts.samples ?? 1;
    return samples > 1 ? { samples, temperature: opts.temperature ?? 1 } : {};
  }

  private breakpointAction(line: number): Action {
    return { kind: 'breakpoint', line, source: this.lines[line - 1] ?? '' };
  }

  // ---- backward --------------------------------------------------------------------------

  /**
   * One step back: to the stop before this one in the timeline (the state already shown
   * there); before the timeline's first stop, the model infers the state before it
   * (`inv_step_over`), unless that stop is the start of the run.
   */
  stepBack(): Promise<StopEvent> {
    return this.exclusive(async () => {
      const t = this.timeline;
      if (!t.started) return this.emitStop(this.endEvent());
      if (t.atEnd) {
        t.atEnd = false;
        return this.emitStop({ reason: 'step', replayed: true });
      }
      if (t.position > 0) {
        t.position--;
        return this.emitStop({ reason: 'step', replayed: true });
      }
      return this.emitStop(await this.inferBefore());
    });
  }

  /** Back to the last earlier stop on a breakpoint, or to the first stop. */
  reverseContinue(): Promise<StopEvent> {
    return this.exclusive(async () => {
      const t = this.timeline;
      if (!t.started) return this.emitStop(this.endEvent());
      const from = t.atEnd ? t.stops.length : t.position;
      t.atEnd = false;
      for (let i = from - 1; i >= 0; i--) {
        const s = t.stops[i]!.state;
        // Backwards too a watched value stops where it changed (the state after the change), and a raised exception where it was raised.
        const changed = this.watchChangedAt(i);
        if (changed) {
          t.position = i;
          return this.emitStop(changed);
        }
        if (s.event === 'exception' && this.breakOnRaised?.(s.value ?? '')) {
          t.position = i;
          return this.emitStop({ reason: 'exception', description: `${s.value} (predicted)` });
        }
        // A line breakpoint whose condition holds there (hit counts and logpoints count forwards only: they do not stop a reverse continue).
        if (s.event === 'line' && this.breakpointLines.has(s.line) && (await this.holdsBackwards(s))) {
          t.position = i;
          return this.emitStop({ reason: this.armed.has(s.line) ? 'breakpoint' : 'function breakpoint' });
        }
      }
      t.position = 0;
      return this.emitStop(this.startEvent());
    });
  }

  /** Whether a breakpoint on state `s`'s line would stop a reverse continue there: not a logpoint, and its condition holds (or fails to evaluate). */
  private async holdsBackwards(s: State): Promise<boolean> {
    const armed = this.armed.get(s.line) ?? this.functionArmed.get(s.line);
    if (!armed) return false;
    if (armed.spec.logMessage !== undefined) return false;
    if (!armed.spec.condition) return true;
    const r = await evaluateExpression(`bool((\n${armed.spec.condition}\n))`, expressionLocals(s));
    return r.kind === 'error' || r.repr === 'True';
  }

  /** A watched local whose value at stop `i` differs from the one before it in the same frame activation (stepping backwards). */
  private watchChangedAt(i: number): Pick<StopEvent, 'reason' | 'description'> | null {
    const stops = this.timeline.stops;
    const here = stops[i]!.state;
    const names = here.stack.map((f) => f.function);
    for (const w of this.watches) {
      if (names.length !== w.spec.frame.length || !w.spec.frame.every((f, k) => names[k] === f)) continue;
      // The stop before this one in the same frame, with only the frame's own calls between.
      for (let j = i - 1; j >= 0; j--) {
        const before = stops[j]!.state;
        const inside = before.stack.length >= names.length && w.spec.frame.every((f, k) => before.stack[k]!.function === f);
        if (!inside) break;
        if (before.stack.length !== names.length) continue;
        const [was, now] = [before.locals[w.spec.name], here.locals[w.spec.name]].map((v, k) => (Object.hasOwn([before, here][k]!.locals, w.spec.name) ? v : undefined));
        if (was !== now) return { reason: 'data breakpoint', description: `${w.spec.name} changed: ${was ?? '(unbound)'} → ${now ?? '(unbound)'} (predicted; stepping backwards)` };
        break;
      }
    }
    return null;
  }

  private startEvent(): StopEvent {
    return { reason: 'entry', description: 'at the start of the run' };
  }

  /** The model's inverse step from the first stop, prepended to the timeline. */
  private async inferBefore(): Promise<StopEvent> {
    const t = this.timeline;
    const first = t.current;
    // The entry's call (or the module's first line) has nothing before it.
    if (!first.inferredBackward && first.origin !== 'model' && first.state.event === 'call') return this.startEvent();
    const prediction = await this.predictor.predict([{ state: first.state }], { kind: 'inv_step_over' }, this.sampling());
    if (prediction.kind === 'exit') return this.startEvent();
    // A line_call is the line as it was before its call: forward, a line stop.
    const state: State = prediction.state.event === 'line_call' ? { ...prediction.state, event: 'line' } : prediction.state;
    const action: Action = state.stack.length < first.state.stack.length ? { kind: 'step_into' } : { kind: 'step_over' };
    t.stops.unshift({ ...this.stopOf(prediction), state, action, inferredBackward: true });
    // Every stop's past now starts one state earlier: guesses made from the shorter one are stale.
    t.dropPrefetches();
    return { reason: 'step', description: 'inferred by the model, stepping back' };
  }

  // ---- what-if and resampling --------------------------------------------------------------

  /**
   * Sets a local of the current stop to `repr` (a Python repr). The stops after it are
   * forgotten: what follows is predicted from the edited state.
   */
  setVariable(name: string, repr: string): Promise<Stop> {
    return this.exclusive(async () => {
      const t = this.timeline;
      if (!t.started || t.atEnd) throw new RuntimeError('the run has ended: step back to a state to change its variables');
      const stop = t.current;
      // Own names only: `constructor` or `__proto__` is no local (an object's prototype has them).
      if (!Object.hasOwn(stop.state.locals, name) || name === MORE_LOCALS_KEY) throw new RuntimeError(`no variable '${name}' in ${stop.state.stack.at(-1)!.function} at this stop`);
      t.truncate();
      stop.state = { ...stop.state, locals: { ...stop.state.locals, [name]: truncateRepr(repr) } };
      // Guesses from the state before the edit are stale (they would not match its history anyway).
      t.dropGuesses(stop);
      if (!stop.edited.includes(name)) stop.edited.push(name);
      return stop;
    });
  }

  /**
   * pdb's `jump` (DAP's goto): the current frame goes on from another line of the same
   * function, its values kept; what follows is predicted from there (the stops after this
   * one are forgotten, as after setVariable). Nothing checks Python's own limits on a jump
   * (into a loop's body without its iterator, say): the model is told the frame is there.
   */
  jump(line: number): Promise<StopEvent> {
    return this.exclusive(async () => {
      const t = this.timeline;
      if (!t.started || t.atEnd) throw new RuntimeError('the run has ended: step back to a state to jump from it');
      const stop = t.current;
      this.checkJump(stop.state, line);
      t.truncate();
      const stack = stop.state.stack;
      const { value: _value, ...rest } = stop.state;
      stop.state = { ...rest, event: 'line', line, source: this.lines[line - 1] ?? '', stack: [...stack.slice(0, -1), { function: stack.at(-1)!.function, line }] };
      t.dropGuesses(stop);
      if (!stop.edited.includes(JUMPED)) stop.edited.push(JUMPED);
      return this.emitStop({ reason: 'goto', description: `jumped to line ${line}, the values kept: what follows is predicted from here` });
    });
  }

  /** Why the current frame cannot jump to `line` (throws), as pdb says it. */
  checkJump(state: State, line: number): void {
    if (!Number.isInteger(line) || line < 1) throw new RuntimeError(`${line} is not a line number`);
    const problem = this.lineProblem(line);
    if (problem) throw new RuntimeError(`cannot jump to line ${line}: ${problem.replace(/^line \d+ is /, 'it is ')}`);
    const info = this.info;
    const here = info ? functionAt(info, state.line) : undefined;
    const there = info ? functionAt(info, line) : undefined;
    const name = state.stack.at(-1)!.function;
    // The frame's own code: the same function (or both at the module's top level), not a nested def's body.
    if (here?.qualname !== there?.qualname) {
      throw new RuntimeError(`cannot jump to line ${line}: it is in ${there ? `function ${there.qualname}` : "the module's top level"}, not in ${name === '<module>' ? "the module's top level" : name} (a jump stays in the current frame)`);
    }
  }

  /**
   * DAP's restartFrame: back to the call of frame `frameId` (0: innermost), the state the
   * timeline holds for it; nothing is predicted (stepping on replays what followed).
   */
  restartFrame(frameId: number): Promise<StopEvent> {
    return this.exclusive(async () => {
      const t = this.timeline;
      const { index, call } = this.frameStart(frameId);
      t.atEnd = false;
      t.position = index;
      const fn = t.current.state.stack.at(-1)!.function;
      const description = call ? `back at the call of ${fn} (the frame restarted; replayed)` : `back at the first state of ${fn} the predicted run holds (a continue jumped over its call; replayed)`;
      return this.emitStop({ reason: 'restart', description, replayed: true });
    });
  }

  /**
   * Where frame `frameId` of the current stop began in the timeline: its call, or where the
   * call was jumped over (a breakpoint reached in one prediction), the first stop of the
   * frame the timeline holds.
   */
  frameStart(frameId: number): { index: number; call: boolean } {
    const t = this.timeline;
    if (!t.started) throw new RuntimeError('no state yet: launch a program first');
    const index = t.atEnd ? t.stops.length - 1 : t.position;
    const stack = t.stops[index]!.state.stack;
    const depth = stack.length - 1 - frameId;
    if (!Number.isInteger(frameId) || depth < 0 || frameId < 0) throw new RuntimeError(`no frame ${frameId} at this stop (it has ${stack.length})`);
    const names = stack.slice(0, depth + 1).map((f) => f.function);
    let first = index;
    for (let i = index; i >= 0; i--) {
      const s = t.stops[i]!.state;
      // Left the frame's activation going back: its call is before anything the timeline holds.
      if (s.stack.length < depth + 1 || !names.every((n, k) => s.stack[k]!.function === n)) break;
      if (s.stack.length === depth + 1 && s.event === 'call') return { index: i, call: true };
      // A return of the same function at the same depth ends an earlier activation.
      if (i < index && s.stack.length === depth + 1 && s.event === 'return') break;
      if (s.stack.length === depth + 1) first = i;
    }
    if (first === index && t.stops[index]!.state.stack.length !== depth + 1) throw new RuntimeError(`no state of ${names.at(-1)} is in the predicted run so far: step back to it instead`);
    return { index: first, call: false };
  }

  /**
   * DAP's stepIn with a target: into the call of `target` that the current line makes
   * (stepping into the calls before it and out of them again). Stops where the line is left
   * if the prediction makes no such call.
   */
  stepInto(target: string): Promise<StopEvent> {
    return this.exclusive(async () => {
      if (this.timeline.atEnd) return this.emitStop(this.pastEndEvent());
      const from = this.timeline.current.state;
      const depth = from.stack.length;
      for (let calls = 0; calls < MAX_TARGET_CALLS; calls++) {
        const event = await this.move({ kind: 'step_into' }, 'step');
        if (this.timeline.atEnd) return this.emitStop(event);
        const s = this.timeline.current.state;
        if (s.stack.length <= depth) return this.emitStop({ ...event, description: `the predicted run left line ${from.line} without calling ${target}` });
        if (s.stack.at(-1)!.function === target && s.stack.length === depth + 1) return this.emitStop(event);
        // Another call first: out of it (its return), then on to the line's next call.
        const out = await this.move({ kind: 'step_return' }, 'step');
        if (this.timeline.atEnd) return this.emitStop(out);
      }
      return this.emitStop({ reason: 'pause', description: `no call of ${target} within ${MAX_TARGET_CALLS} calls of line ${from.line}` });
    });
  }

  /**
   * debugpy's "(return) f": when the current stop follows the return of a function it
   * called, that function and its return value.
   */
  returnedFrom(): { function: string; value: string } | null {
    const t = this.timeline;
    if (!t.started || t.atEnd || t.position === 0) return null;
    const prev = t.stops[t.position - 1]!.state;
    const here = t.current.state;
    if (prev.event !== 'return' || prev.value === undefined || prev.stack.length !== here.stack.length + 1) return null;
    if (!here.stack.every((f, i) => prev.stack[i]!.function === f.function)) return null;
    return { function: prev.stack.at(-1)!.function, value: prev.value };
  }

  /**
   * Predicts the current stop again with sampling (a new seed each time), forgetting what
   * followed. At the first stop with inferred arguments, proposes other arguments.
   */
  resample(): Promise<StopEvent> {
    return this.exclusive(async () => {
      const t = this.timeline;
      const opts = this.requireLaunched();
      const sampling: PredictOptions = { samples: Math.max(1, opts.samples ?? 1), temperature: opts.temperature ?? 1, seed: ++this.resamples };
      if (t.atEnd) t.atEnd = false;
      if (!t.started || t.position === 0) {
        if (t.started && t.current.origin !== 'model') throw new RuntimeError('the first state comes from your arguments, not from the model: nothing to resample');
        this.setStart(await this.startPredictor(sampling));
        await this.prepareVerifier();
        return this.emitStop(t.atEnd ? this.endEvent() : { reason: 'entry', description: 'resampled' });
      }
      t.position--;
      const action = t.current.action!;
      t.truncate();
      const prediction = await this.predict(action, sampling);
      t.current.action = action;
      if (prediction.kind === 'exit') {
        t.end = { exit: prediction.exit, origin: prediction.origin, confidence: prediction.confidence };
        t.atEnd = true;
        return this.emitStop(this.endEvent());
      }
      t.stops.push(this.stopOf(prediction));
      t.position++;
      return this.emitStop({ reason: 'step', description: 'resampled' });
    });
  }

  // ---- breakpoints -----------------------------------------------------------------------

  /**
   * Replaces the line breakpoints (a number is a plain breakpoint on that line). A line is
   * verified when it carries code (pdb and debugpy refuse blank and comment lines too), and
   * its condition, hit condition and log message parse; before launch, lines are read from
   * `program`. A line kept keeps its hit count.
   */
  async setBreakpoints(breakpoints: readonly (number | BreakpointSpec)[], program?: string): Promise<BreakpointView[]> {
    if (program && program !== this.loadedPath) await this.loadProgram(program).catch(() => undefined);
    const before = this.armed;
    this.armed = new Map();
    const views: BreakpointView[] = [];
    for (const b of breakpoints) {
      const spec: BreakpointSpec = typeof b === 'number' ? { line: b } : b;
      const problem = this.lineProblem(spec.line) ?? (await specProblem(spec));
      if (problem) {
        views.push({ line: spec.line, verified: false, message: problem });
        continue;
      }
      const kept = before.get(spec.line);
      this.armed.set(spec.line, { spec, hits: kept?.hits ?? 0, ignore: spec.ignoreCount ?? 0 });
      views.push({ line: spec.line, verified: true });
    }
    this.rebuildStopLines();
    return views;
  }

  /** Why no breakpoint can be on `line`, or null. */
  private lineProblem(line: number): string | null {
    const executable = this.info?.kind === 'ok' ? new Set(this.info.executableLines) : null;
    if (executable && !executable.has(line)) {
      const text = (this.lines[line - 1] ?? '').trim();
      const why = line > this.lines.length ? 'past the end of the file' : text === '' ? 'a blank line' : text.startsWith('#') ? 'a comment' : 'not an executable line';
      return `line ${line} is ${why}: no stop can happen there`;
    }
    if (this.cut && !this.cut.sees(line)) return this.cut.whyHidden(line);
    return null;
  }

  /**
   * Replaces the function breakpoints: each stops where the function's first line of code is
   * reached (pdb's `b function`); verified when the program defines the function.
   */
  async setFunctionBreakpoints(specs: readonly FunctionBreakpointSpec[]): Promise<FunctionBreakpointView[]> {
    const before = this.functionArmed;
    this.functionArmed = new Map();
    const info = this.info;
    const views: FunctionBreakpointView[] = [];
    for (const spec of specs) {
      const name = spec.name.trim();
      const fn = info?.kind === 'ok' ? (info.functions.find((f) => f.qualname === name) ?? info.functions.find((f) => f.name === name)) : undefined;
      if (!fn || info?.kind !== 'ok') {
        views.push({ name: spec.name, verified: false, message: info?.kind === 'ok' ? `the program defines no function ${JSON.stringify(name)} (functions: ${info.functions.map((f) => f.qualname).join(', ') || 'none'})` : 'no program is loaded yet' });
        continue;
      }
      const line = info.executableLines.find((l) => l > fn.line && l <= fn.endLine);
      const problem = line === undefined ? `function ${name} has no line a breakpoint can stop on` : (this.lineProblem(line) ?? (await specProblem({ line, ...spec })));
      if (problem || line === undefined) {
        views.push({ name: spec.name, verified: false, message: problem ?? '' });
        continue;
      }
      const kept = before.get(line);
      this.functionArmed.set(line, { spec: { line, ...(spec.condition ? { condition: spec.condition } : {}), ...(spec.hitCondition ? { hitCondition: spec.hitCondition } : {}) }, hits: kept?.hits ?? 0, ignore: 0, functionName: fn.qualname });
      views.push({ name: spec.name, verified: true, line });
    }
    this.rebuildStopLines();
    return views;
  }

  /** Replaces the data breakpoints (each starts from its value at the current stop). */
  setDataBreakpoints(specs: readonly DataWatchSpec[]): void {
    this.watches = specs.map((spec) => ({ spec, last: undefined, live: false }));
    this.baselineWatches();
  }

  get dataBreakpoints(): DataWatchSpec[] {
    return this.watches.map((w) => w.spec);
  }

  /**
   * debugpy's "raised" exception filter: a continue stops at every predicted exception (true),
   * at those `which` accepts (given the exception's repr, `ValueError(3)`), or at none.
   */
  setBreakOnRaised(on: boolean | ((repr: string) => boolean)): void {
    this.breakOnRaised = on === true ? () => true : on === false ? null : on;
  }

  private removeLine(line: number): void {
    this.armed.delete(line);
    this.rebuildStopLines();
  }

  private rebuildStopLines(): void {
    this.breakpointLines = new Set([...this.armed.keys(), ...this.functionArmed.keys()]);
  }

  /** The lines with a line breakpoint, in order. */
  get breakpoints(): number[] {
    return [...this.armed.keys()].sort((a, b) => a - b);
  }

  /** The line breakpoints as set, in line order, with their hit counts. */
  get breakpointSpecs(): (BreakpointSpec & { hits: number })[] {
    return [...this.armed.values()].sort((a, b) => a.spec.line - b.spec.line).map((a) => ({ ...a.spec, ignoreCount: a.ignore, hits: a.hits }));
  }

  private checkLine(line: number): void {
    if (this.info?.kind === 'ok' && !this.info.executableLines.includes(line)) throw new RuntimeError(`line ${line} is not an executable line`);
    if (this.cut && !this.cut.sees(line)) throw new RuntimeError(this.cut.whyHidden(line));
  }

  // ---- what the client shows ---------------------------------------------------------------

  get programSource(): string {
    return this.source;
  }

  get programLines(): readonly string[] {
    return this.lines;
  }

  get program(): ProgramInfo | null {
    return this.info;
  }

  /** The path of the program last read (at launch, restart, or for breakpoints before the launch). */
  get programPath(): string | null {
    return this.loadedPath;
  }

  /** The launch's entry function and arguments; null for the module's top level. */
  get entryCall(): Entry | null {
    return this.entry;
  }

  /** The part of the program the model sees (program-analysis/cut.ts), or null when it sees all of it. */
  get programCut(): ProgramCut | null {
    return this.cut;
  }

  /** The current stop (at the end of the run: the last stop before it). */
  get current(): Stop | null {
    const t = this.timeline;
    if (!t.started) return null;
    return t.atEnd ? t.stops[t.stops.length - 1]! : t.current;
  }

  get ended(): End | null {
    return this.timeline.atEnd ? this.timeline.end : null;
  }

  /** The current stop's frames, innermost first. */
  frames(): FrameView[] {
    const t = this.timeline;
    const stop = this.current;
    if (!stop) return [];
    const index = t.atEnd ? t.stops.length - 1 : t.position;
    const stack = stop.state.stack;
    return stack
      .map((frame, depth): FrameView => {
        const innermost = depth === stack.length - 1;
        return {
          id: stack.length - 1 - depth,
          function: frame.function,
          line: frame.line,
          source: this.lines[frame.line - 1] ?? '',
          locals: innermost ? stop.state.locals : this.callerLocals(index, stack.slice(0, depth + 1).map((f) => f.function)),
        };
      })
      .reverse();
  }

  /** A caller's locals: from the latest earlier stop whose stack is the caller's. */
  private callerLocals(before: number, functions: string[]): Record<string, string> | null {
    for (let i = before - 1; i >= 0; i--) {
      const s = this.timeline.stops[i]!.state;
      if (s.stack.length === functions.length && s.stack.every((f, k) => f.function === functions[k])) return s.locals;
    }
    return null;
  }

  /** Verify mode: how the current stop (or the end) compares with the real run. */
  verification(): Verification | null {
    const t = this.timeline;
    if (!this.requireLaunched().verify) return null;
    if (!this.verifier) return { kind: 'unavailable', reason: this.verifyNote ?? 'verify is off' };
    const index = t.atEnd ? t.stops.length : t.position;
    if (t.stops.slice(0, Math.min(index + 1, t.stops.length)).some((s) => s.edited.length > 0)) {
      return { kind: 'unavailable', reason: 'a variable was edited: the real run never had that state' };
    }
    if (t.atEnd && t.end) return this.verifier.checkExit(t.end.exit, t.actionsTo(t.stops.length));
    return this.verifier.checkState(t.current.state, t.actionsTo(index));
  }

  // ---- plumbing --------------------------------------------------------------------------

  private endEvent(): StopEvent {
    const end = this.timeline.end;
    if (!end) return { reason: 'end', description: 'the run has ended' };
    const path = this.timeline.endConfidence();
    const confidence = path === null ? '' : ` (confidence ${path.toFixed(2)})`;
    return { reason: 'end', description: `predicted end of the run: ${describeExit(end.exit)}${confidence}` };
  }

  private pastEndEvent(): StopEvent {
    return { ...this.endEvent(), pastEnd: true };
  }

  private emitStop(event: StopEvent): StopEvent {
    const v = this.verification();
    if (v && v.kind !== 'unavailable' && !v.matches) this.emit('output', `verify: ${summarize(v)}\n`, 'console');
    this.emit('stopped', event);
    return event;
  }

  private stopOf(p: Prediction & { kind: 'state' }): Stop {
    return { state: p.state, origin: p.origin, confidence: p.confidence, ...(p.vote ? { vote: p.vote } : {}), ...(p.stats ? { stats: p.stats } : {}), edited: [] };
  }

  /** The launch's options; a RuntimeError when nothing is launched. */
  requireLaunched(): LaunchOptions {
    if (!this.launchOptions) throw new RuntimeError('no program launched');
    return this.launchOptions;
  }

  /**
   * Runs `fn` in turn with the commands (adapter/command-queue.ts): after those before it,
   * and before the background work. The commands here and the queries that use the model
   * (adapter/queries.ts) go through it.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.commands.run(fn);
  }

  /** Stops the background guesses for good and resolves when the one in flight is done (before the model is released). */
  close(): Promise<void> {
    this.cancelled = true;
    return this.commands.close();
  }

  /** Resolves once no command and no background work is waiting, queued or running (tests and bench/ wait on it). */
  idle(): Promise<void> {
    return this.commands.idle();
  }

  /** Whether background guesses are made and served: prefetch on, greedy decoding, not closed. */
  private prefetchOn(): boolean {
    const opts = this.launchOptions;
    return !this.commands.closed && opts !== null && opts.prefetch !== false && (opts.samples ?? 1) <= 1;
  }
}

/** One line on how a stop differs from the real run. */
export function summarize(v: Verification): string {
  if (v.kind === 'unavailable') return v.reason;
  if (v.kind === 'exit') return v.matches ? 'the predicted end matches the real run' : `the real run ${describeExit(v.real)}`;
  const parts: string[] = [];
  if (!v.sameLocation) parts.push(`the real run is at ${v.real.stack.map((f) => `${f.function}:${f.line}`).join(' ')} (${v.real.event})`);
  for (const [name, real] of Object.entries(v.locals)) parts.push(real === undefined ? `${name} does not exist` : `${name} is ${real}`);
  for (const [name, real] of Object.entries(v.missing)) parts.push(`${name} = ${real} is missing`);
  if (v.value !== undefined) parts.push(`the value is ${v.value}`);
  return parts.length ? `line ${v.real.line}: ${parts.join('; ')}` : 'matches the real run';
}


/** A problem with a breakpoint's condition, hit condition or log message, or null. */
export async function specProblem(spec: BreakpointSpec): Promise<string | null> {
  if (spec.hitCondition !== undefined && spec.hitCondition.trim() !== '') {
    const test = parseHitCondition(spec.hitCondition);
    if (typeof test !== 'function') return test.error;
  }
  if (spec.logMessage !== undefined) {
    const parts = parseLogMessage(spec.logMessage);
    if ('error' in parts) return parts.error;
    for (const part of parts) {
      if ('expression' in part) {
        const r = await evaluateExpression(part.expression, {});
        if (r.kind === 'error' && /^SyntaxError\b/.test(r.message)) return `logpoint message: {${part.expression}} does not parse: ${r.message}`;
      }
    }
  }
  if (spec.condition !== undefined && spec.condition.trim() !== '') return conditionProblem(spec.condition);
  return null;
}

/** What str() shows of a value given as its repr: a string without its quotes, anything else as it is. */
export function strOfRepr(repr: string): string {
  const m = /^(['"])(.*)\1$/s.exec(repr);
  if (!m) return repr;
  const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
  return m[2]!.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/gs, (all, e: string) => {
    if (/^[xuU]/.test(e) && e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    return escapes[e] ?? all;
  });
}
