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
import { programInfo, type ProgramInfo } from '../program-analysis/program-info.js';
import { CommandQueue } from './command-queue.js';
import { newCounters, nextGuess, type PrefetchCounters, type PrefetchEvent, takeGuess } from './prefetch.js';
import { RuntimeError } from './runtime-error.js';
import { type End, type Stop, Timeline } from './timeline.js';
import { readPythonSource } from './read-source.js';
import { describeExit, sandboxProtections, type Verification, Verifier } from './verifier.js';

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
export type StopReason = 'entry' | 'step' | 'breakpoint' | 'exception' | 'end' | 'pause';

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

const DEFAULT_MAX_STEPS = 200;

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
  private breakpointLines = new Set<number>();
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
      return this.repeat('until', { kind: 'step_over' }, (s) => s.stack.length < from.stack.length || (s.stack.length === from.stack.length && s.line > from.line));
    });
  }

  private async stepOnce(action: ForwardAction): Promise<StopEvent> {
    if (this.timeline.atEnd) return this.emitStop(this.pastEndEvent());
    return this.emitStop(await this.move(action, 'step'));
  }

  private async continueRun(): Promise<StopEvent> {
    if (this.timeline.atEnd) return this.emitStop(this.pastEndEvent());
    const lines = [...this.breakpointLines].sort((a, b) => a - b);
    // No breakpoint: the model predicts the end directly. One: the model jumps to it (the
    // breakpoint action it was trained on). Several: which comes first is the run's order,
    // so the model steps until one is reached.
    if (lines.length === 0) return this.emitStop(await this.move({ kind: 'continue' }, 'step'));
    if (lines.length === 1) return this.emitStop(await this.move(this.breakpointAction(lines[0]!), 'breakpoint'));
    return this.repeat('continue', { kind: 'step_into' }, (s) => s.event === 'line' && this.breakpointLines.has(s.line));
  }

  /** `action` until a stop satisfies `done`, the end, a cancel, or the step limit. */
  private async repeat(title: string, action: ForwardAction, done: (s: State) => boolean): Promise<StopEvent> {
    const max = this.requireLaunched().maxSteps ?? DEFAULT_MAX_STEPS;
    this.emit('progress', { kind: 'start', title: `Predicting (${title})`, percentage: 0 } satisfies ProgressEvent);
    try {
      for (let n = 1; n <= max; n++) {
        const event = await this.move(action, 'step');
        if (this.timeline.atEnd) return this.emitStop(event);
        if (done(this.timeline.current.state)) return this.emitStop({ reason: action.kind === 'step_into' ? 'breakpoint' : 'step' });
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
        if (s.event === 'line' && this.breakpointLines.has(s.line)) {
          t.position = i;
          return this.emitStop({ reason: 'breakpoint' });
        }
      }
      t.position = 0;
      return this.emitStop(this.startEvent());
    });
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
      if (!(name in stop.state.locals)) throw new RuntimeError(`no variable '${name}' in ${stop.state.stack.at(-1)!.function} at this stop`);
      t.truncate();
      stop.state = { ...stop.state, locals: { ...stop.state.locals, [name]: truncateRepr(repr) } };
      // Guesses from the state before the edit are stale (they would not match its history anyway).
      t.dropGuesses(stop);
      if (!stop.edited.includes(name)) stop.edited.push(name);
      return stop;
    });
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
   * Replaces the breakpoints. A line is verified when it carries code (pdb and debugpy
   * refuse blank and comment lines too); before launch, lines are read from `program`.
   */
  async setBreakpoints(lines: readonly number[], program?: string): Promise<BreakpointView[]> {
    if (program && program !== this.loadedPath) await this.loadProgram(program).catch(() => undefined);
    const executable = this.info?.kind === 'ok' ? new Set(this.info.executableLines) : null;
    this.breakpointLines = new Set();
    return lines.map((line) => {
      if (executable && !executable.has(line)) {
        const text = (this.lines[line - 1] ?? '').trim();
        const why = line > this.lines.length ? 'past the end of the file' : text === '' ? 'a blank line' : text.startsWith('#') ? 'a comment' : 'not an executable line';
        return { line, verified: false, message: `line ${line} is ${why}: no stop can happen there` };
      }
      if (this.cut && !this.cut.sees(line)) return { line, verified: false, message: this.cut.whyHidden(line) };
      this.breakpointLines.add(line);
      return { line, verified: true };
    });
  }

  get breakpoints(): number[] {
    return [...this.breakpointLines].sort((a, b) => a - b);
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

