/**
 * The neural debugger's predictor: the model reads the program and the states so far and
 * writes the next frame under the grammar (decode.ts), which is then parsed into a state.
 *
 * Per session, the program's tokens are encoded and run through the model once (start);
 * every prediction after that runs only the prompt tokens its cache does not hold yet
 * (prefix-cache.ts), and all samples of one prediction decode together from that cache.
 * With several samples, the frames vote: the winner is the frame most samples wrote
 * (compared as canonical text, so two spellings of one state count as one), ties going to
 * the likelier sample; its confidences are that sample's.
 */
import type { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import { parseExitFrame, parseFrame } from '../grammar/parse.js';
import { serializeContext, serializeExit, serializeFrame } from '../grammar/serialize.js';
import type { Action, State, Step } from '../grammar/state.js';
import { TOKENS } from '../grammar/tokens.js';
import { truncateState } from '../grammar/truncate.js';
import { sourceLines } from '../python/source.js';
import { CERTAIN_EXIT, CERTAIN_STATE, exitConfidence, stateConfidence } from './confidence.js';
import { type CutBudget, cutProgram, type ProgramCut } from '../program-analysis/cut.js';
import { type DecodedFrame, decodeFrames, FrameBudgetError, type SamplingOptions } from './decode.js';
import { type Entry, EntryError, entryStart } from '../program-analysis/entry-state.js';
import { ControlFlow } from '../program-analysis/control-flow.js';
import { attachTypes, programTypes } from '../program-analysis/types.js';
import type { FrameRules } from './frame-constraint.js';
import { FrameNames } from './loc-constraint.js';
import { type LoadModelFolderOptions, loadModelFolder, loadTokenizer } from './model-folder.js';
import { KnownNames } from './json-constraint.js';
import { PrefixCache, type PrefilledPrompt } from './prefix-cache.js';
import { type FunctionInfo, programInfo, type ProgramInfo } from '../program-analysis/program-info.js';
import { guessFrame } from './frame-guess.js';
import { ROLLOUT_STEPS, stopWhen } from './rollout.js';
import { decidedStep } from './decided-step.js';
import { historyAt, type RunHistory } from '../semantics/history.js';
import { StepOracle } from '../semantics/oracle.js';
import { PythonSession } from '../semantics/python-session.js';
import { ALL_RULES, type RuleSelection } from '../semantics/rule.js';
import { DEFAULT_MAX_PROMPT_STEPS, directionOf, historyText, slideStarts, windowStarts } from './prompt.js';
import { type HistoryEntry, historySteps, type PredictOptions, type PredictedState, type Prediction, type Predictor, type StartOptions } from './predictor.js';
import { ContextOverflowError, ModelSession, type ModelSessionOptions } from './onnx-session.js';
import { TokenTable } from './token-table.js';

export interface NeuralPredictorOptions extends LoadModelFolderOptions, ModelSessionOptions {
  /** Most tokens one frame may take (default 512). */
  maxNewTokens?: number;
  /**
   * Context kept free after the prompt for the frame (default 256, at most maxNewTokens):
   * when the history is longer, its oldest steps give way.
   */
  frameReserve?: number;
  /** Nucleus for sampling (default 0.95). */
  topP?: number;
  /** Seed of the samples (default 0). */
  seed?: number;
  /** Most states a prompt holds (default 47: training's trajectories hold 48). */
  maxPromptSteps?: number;
  /**
   * Reuse the model's state from the last prompt (default true). false recomputes every
   * prompt from its first token: only the benchmark's baseline turns it off.
   */
  reusePrefix?: boolean;
  /**
   * Greedy predictions: draft tokens per forward pass by prompt lookup (decode.ts, draft.ts;
   * default 12). The frame is the same either way; 0 turns drafting off (the benchmark's baseline).
   */
  draftTokens?: number;
  /**
   * The symbolic stepper's rule families on (semantics/rule.ts; default all): `control-flow`
   * constrains stops by the program's bytecode, the value families decide what the state
   * before decides; none decodes with the grammar alone. `--rules` on `ndb eval` and
   * `ndb debug` measures what each family buys.
   */
  rules?: RuleSelection;
  /**
   * Jumps (a step over a call, a step out, a breakpoint, continue) worked out step by step
   * within this many steps, else in one frame (rollout.ts; default ROLLOUT_STEPS; 0: always
   * in one frame, as before rollouts).
   */
  rolloutSteps?: number;
}

/**
 * How long the stepper's questions for one step may take (the walker's own step budget ends
 * most far sooner): past it the step is decoded without the rules that needed them.
 */
const STEPPER_TIMEOUT_MS = 1_000;

interface Program {
  text: string;
  lines: string[];
  names: FrameNames;
  /** Call line -> the parameters a call frame there holds first (program-analysis/program-info.ts). */
  callLocals: ReadonlyMap<number, readonly string[]>;
  /** Function name -> its call lines. */
  callLines: ReadonlyMap<string, ReadonlySet<number>>;
  /** Function name -> the names its frames can hold. */
  localNames: ReadonlyMap<string, KnownNames>;
  info: ProgramInfo;
  /** Lines by frame and where actions land (program-analysis/control-flow.ts); null when not known. */
  flow: ControlFlow | null;
  contextIds: number[];
}

const DEFAULT_MAX_NEW_TOKENS = 512;
const DEFAULT_FRAME_RESERVE = 256;
/** How many times the rollout budget a breakpoint or a continue may take. */
const FAR_JUMP_FACTOR = 4;
/** A frame's tokens besides its locals: its head, location, source line and value. */
const FRAME_OVERHEAD_TOKENS = 96;
/**
 * Context kept for the states before the frame when a program is cut to fit (a few steps:
 * training's steps take about 42 tokens); the cut gets the rest after the frame's reserve.
 */
const CUT_HISTORY_RESERVE = 192;
/** The tokens a cut program may take in a context of `maxPositions`: what the frame's reserve and a few states leave. */
export const programRoom = (maxPositions: number, frameReserve = DEFAULT_FRAME_RESERVE): number => maxPositions - frameReserve - CUT_HISTORY_RESERVE;
/** Repr lengths a state too long for the context is shown with, longest first (MAX_REPR_CHARS otherwise). */
const SHRUNK_REPR_CHARS = [40, 16] as const;
/** When every frame ran out of tokens: samples and temperature of the second try. */
const FALLBACK = { samples: 4, temperature: 0.7 };

/** One frame to decode: the prompt (ending with the frame's given start, if any) and what the frame follows. */
interface DecodeRequest {
  ids: number[];
  rules: FrameRules;
  /** The state the action is taken from (none for a run's first state). */
  prev?: State;
  /** The frame's first tokens, from the user's input (the end of `ids`). */
  given: number[];
  started: number;
  /** The session's forward-pass count when this prediction began. */
  passes: number;
  /** Prompt tokens already run for this prediction (the program, at start). */
  prefilled: number;
  /** A guess at the frame (frame-guess.ts): drafts to try first. */
  guess?: SamplingOptions['guess'];
}

interface Parsed {
  frame: DecodedFrame;
  prediction: Prediction;
  /** Canonical text, the vote's key. */
  key: string;
  logprob: number;
}

export class NeuralPredictor implements Predictor {
  private program: Program | null = null;
  /** The cut the model sees (program-analysis/cut.ts), when the program does not fit whole; null: the whole program. */
  private cut: ProgramCut | null = null;
  /** The file's own lines (states leave the predictor with the file's line numbers and text). */
  private fileLines: string[] = [];
  private readonly prefix: PrefixCache;
  /** The last prediction's steps and state (the cut's lines), for catchUp. */
  private upcoming: { steps: readonly Step[]; state: State } | null = null;
  /** The program's types attached to its control flow (loadProgram): the rules wait for it. */
  private typesReady: Promise<void> = Promise.resolve();
  /** asAsked's answers for this program, by the caller's state: step_into, inv_step_into. */
  private stepIntoOver = new WeakMap<State, boolean>();
  private invStepIntoOver = new WeakMap<State, boolean>();

  private constructor(
    readonly session: ModelSession,
    readonly tokenizer: TraceTokenizer,
    private readonly table: TokenTable,
    private readonly opts: NeuralPredictorOptions,
    /** The program length the model trained on (config.json's ndb.program_tokens), if declared. */
    private readonly programTokens: number | undefined,
    /** CPython's walker for the symbolic stepper's questions (semantics/python-session.ts): one process for the predictor and its siblings. */
    private readonly python: PythonSession = new PythonSession({ timeoutMs: STEPPER_TIMEOUT_MS }),
  ) {
    this.prefix = new PrefixCache(session, opts.reusePrefix ?? true);
  }

  /** Loads and checks a model folder (model-folder.ts) and opens the model. */
  static async load(dir: string, opts: NeuralPredictorOptions = {}): Promise<NeuralPredictor> {
    const folder = await loadModelFolder(dir, opts);
    const tokenizer = await loadTokenizer(folder);
    const table = await TokenTable.load(folder.dir, tokenizer);
    const session = await ModelSession.open(folder, opts);
    return new NeuralPredictor(session, tokenizer, table, opts, folder.config.ndb?.program_tokens);
  }

  /**
   * A function entry is always shown as the cut to its scope (program-analysis/cut.ts): the
   * prediction depends on the code the entry can reach, never on unrelated text of the file
   * (a comment edit elsewhere, another function). A module-level run is shown whole when it
   * fits and cut to a prefix otherwise. Every state crosses the line map both ways, so
   * callers see the file's line numbers only.
   */
  async start(file: string, entry: Entry | null, opts: StartOptions = {}): Promise<Prediction> {
    const started = performance.now();
    const passes = this.session.passes;
    const { program, contextIds } = await this.openFile(file, entry?.entry ?? null, opts.stopLines);
    return this.toFile(await this.startProgram(program, contextIds, entry, opts, started, passes));
  }

  /**
   * Shows the model `file` as a run of the function `entry` sees it (cut to its scope), and
   * predicts nothing: for a question that begins at another frame than the call (the input
   * task's return frame, input-prediction.ts). `predict` then goes on from there.
   */
  async show(file: string, entry: string): Promise<void> {
    const { program, contextIds } = await this.openFile(file, entry);
    await this.loadProgram(program, contextIds);
  }

  /** Forgets the last run and cuts `file` for `entry` (null: the module's top level) when start's rule says so. */
  private async openFile(file: string, entry: string | null, stopLines?: readonly number[]): Promise<{ program: string; contextIds: number[] }> {
    this.cut = null;
    this.program = null;
    this.stepIntoOver = new WeakMap();
    this.invStepIntoOver = new WeakMap();
    this.upcoming = null;
    this.fileLines = sourceLines(file);
    let program = file;
    let contextIds = this.tokenizer.encode(serializeContext(program));
    if (entry !== null || contextIds.length + this.frameReserve() > this.session.maxPositions) {
      const stopLine = stopLines?.length ? Math.min(...stopLines) : undefined;
      this.cut = await cutProgram(file, entry, { budget: this.cutBudget(), ...(stopLine !== undefined ? { stopLine } : {}) });
      program = this.cut.text;
      contextIds = this.tokenizer.encode(serializeContext(program));
    }
    return { program, contextIds };
  }

  /** The cut the model sees since the last start, or null when it sees the whole program. */
  programCut(): ProgramCut | null {
    return this.cut;
  }

  /** What the signatures fix in a frame of `program` (signaturesOf), when it is the program the predictor holds; else null. */
  signaturesHeld(program: string): Signatures | null {
    if (this.program?.text !== program) return null;
    const { callLocals, callLines, localNames } = this.program;
    return { callLocals, callLines, localNames };
  }

  /**
   * What a cut may take: the context less the frame's reserve and a few states' room, and
   * no more than most programs the model trained on (a 2,048-token model whose training
   * programs were 95% within 600 tokens predicted worse on longer ones: training/README.md).
   */
  private cutBudget(): CutBudget {
    const max = this.session.maxPositions;
    const frame = this.frameReserve();
    const room = programRoom(max, frame);
    const measure = (text: string) => this.tokenizer.encode(serializeContext(text)).length;
    if (this.programTokens !== undefined && this.programTokens < room) {
      return { measure, limit: this.programTokens, unit: 'tokens', explain: `95% of the programs it was trained on are within ${this.programTokens} tokens` };
    }
    return { measure, limit: room, unit: 'tokens', explain: `its context holds ${max} tokens, ${frame} kept for the frame and ${CUT_HISTORY_RESERVE} for the states before it` };
  }

  /** A prediction in the cut's lines, as the file has it. */
  private toFile(p: Prediction): Prediction {
    return this.cut && p.kind === 'state' ? { ...p, state: this.cut.stateToFile(p.state, this.fileLines) } : p;
  }

  /** An action in the file's lines, as the model sees it (a breakpoint names a line). */
  private actionToCut(action: Action): Action {
    if (!this.cut || action.kind !== 'breakpoint') return action;
    const line = this.cut.cutLine(action.line);
    if (line === undefined) throw new EntryError(this.cut.whyHidden(action.line));
    return { ...action, line, source: this.program!.lines[line - 1] ?? '' };
  }

  private async startProgram(program: string, contextIds: number[], entry: Entry | null, opts: PredictOptions, started: number, passes: number): Promise<Prediction> {
    // The program's tokens run now, once for the whole session, while Python binds the arguments.
    const [context, start] = await Promise.all([this.loadProgram(program, contextIds), entryStart(program, entry)]);
    if (start.kind === 'known') {
      const { state } = start;
      // Every next prompt begins with this frame: it runs while the user looks at the first stop (catchUp).
      const text = historyText(program, [{ state, action: { kind: 'step_over' } }]);
      this.prefix.remember(context.ids, context.cache, this.tokenizer.encode(text.slice(0, text.indexOf(TOKENS.actionSep) + TOKENS.actionSep.length)));
      return { kind: 'state', origin: 'input', direction: 'forward', state, text: '', confidence: CERTAIN_STATE(Object.keys(state.locals), false) };
    }
    if (start.kind === 'exit') return { kind: 'exit', origin: 'input', exit: start.exit, text: '', confidence: CERTAIN_EXIT(true) };
    // What the input leaves open, the model writes: after the known start of the frame, if any.
    const given = start.kind === 'partial' ? this.tokenizer.encode(start.prefix) : [];
    return this.decode(
      { ids: [...contextIds, this.tokenizer.tokenId(TOKENS.frameSep), ...given], rules: await this.rules(null), given, started, passes, prefilled: context.prefilled },
      opts,
    );
  }

  /** Runs the program's tokens (the prompt cache) and reads its signatures and control flow; the program becomes the one predicted. */
  private async loadProgram(program: string, contextIds: number[]): Promise<PrefilledPrompt> {
    const lines = sourceLines(program);
    // The locals' types from pyright, in child processes (program-analysis/types.ts): the launch does not wait, the first oracle does (rules()).
    const types = this.ruleSelection.has('type') ? programTypes(program) : null;
    const [context, info, flow] = await Promise.all([this.prefix.prompt(contextIds), programInfo(program), !this.ruleSelection.has('control-flow') ? null : ControlFlow.of(program).catch(() => null)]);
    this.typesReady = flow && types ? types.then((t) => attachTypes(flow, t)) : Promise.resolve();
    this.program = { text: program, lines, names: FrameNames.ofProgram(lines), ...signaturesOf(info), info, flow, contextIds };
    return context;
  }

  async predict(fileHistory: readonly HistoryEntry[], fileAction: Action, opts: PredictOptions = {}): Promise<Prediction> {
    if (!this.program) throw new Error('predict before start: the predictor has no program');
    const cut = this.cut;
    const history = fileHistory.map((h) => {
      const state = cut ? cut.stateToCut(h.state) : h.state;
      return { state, ...(h.action ? { action: this.asAsked(this.actionToCut(h.action), state, h.state) } : {}) };
    });
    const last = history[history.length - 1];
    const action = last ? this.asAsked(this.actionToCut(fileAction), last.state, fileHistory[fileHistory.length - 1]!.state) : this.actionToCut(fileAction);
    return this.toFile((await this.rollout(history, action, opts)) ?? (await this.predictCut(history, action, opts)));
  }

  /**
   * A jump worked out step by step (rollout.ts): step_into after step_into from the state
   * before, until the tree's move for `action` would stop, under the symbolic stepper's rules
   * at every step. The prediction is the landing, its confidence the whole path's. Null where
   * the action is one step anyway (a step over a line that can enter nothing), where the rules
   * are off (the control flow tells which lines can enter a frame), where a step enters a
   * function whose body the cut hides, or past the step budget: then the model jumps in one
   * frame.
   */
  private async rollout(history: readonly HistoryEntry[], action: Action, opts: PredictOptions): Promise<Prediction | null> {
    const flow = this.program!.flow;
    const from = history[history.length - 1]?.state;
    const steps = this.opts.rolloutSteps ?? ROLLOUT_STEPS;
    // A breakpoint or the run's end is often further than a call's end: more steps before the one-shot jump.
    const budget = action.kind === 'breakpoint' || action.kind === 'continue' ? steps * FAR_JUMP_FACTOR : steps;
    if (!flow || !from || budget === 0) return null;
    // A step over from a call goes to the frame's first line: one step, as the model is asked it.
    if (action.kind === 'step_over' && (from.event === 'call' || flow.stepIntoIsStepOver(from))) return null;
    const stop = stopWhen(from, action);
    if (!stop) return null;
    // The history's last entry may carry the jump itself: the rollout's first step replaces it.
    const rolled: HistoryEntry[] = [...history.slice(0, -1), { state: from }];
    let frame = 1;
    let milliseconds = 0;
    let decidedSteps = 0;
    for (let k = 0; k < budget; k++) {
      const here = rolled[rolled.length - 1]!.state;
      const step = this.asAsked({ kind: 'step_into' }, here, here);
      const landing = await this.predictCut(rolled, step, opts);
      frame *= landing.confidence.frame;
      milliseconds += landing.stats?.milliseconds ?? 0;
      decidedSteps += landing.stats?.decidedSteps ?? 0;
      // A callee whose body the cut hides: its steps cannot be worked out, the model jumps.
      if (landing.kind === 'state' && landing.state.stack.some((f) => this.cut?.hidesBodyOf(f.function))) return null;
      if (landing.kind === 'exit' || stop(landing.state)) {
        // The history as the caller will hold it: the jump, from the state before.
        this.upcoming = landing.kind === 'state' ? { steps: historySteps(history, action), state: landing.state } : null;
        // Its text: the landing as a frame of the jump from the state before, as the history will hold it.
        const text = landing.kind === 'state' ? serializeFrame('forward', landing.state, from, action) + TOKENS.actionSep : landing.text;
        const stats = landing.stats && { ...landing.stats, milliseconds, rolledSteps: k + 1, decidedSteps };
        return landing.kind === 'state'
          ? { ...landing, text, confidence: { ...landing.confidence, frame }, ...(stats ? { stats } : {}) }
          : { ...landing, confidence: { ...landing.confidence, frame }, ...(stats ? { stats } : {}) };
      }
      rolled[rolled.length - 1] = { state: here, action: step };
      rolled.push({ state: landing.state });
    }
    return null;
  }

  /**
   * The action as the model is asked it: a step_into that can enter nothing is a step_over
   * (ControlFlow.stepIntoIsStepOver), and an inv_step_into that can come back out of nothing
   * an inv_step_over (ControlFlow.invStepIntoIsInvStepOver), so that `s` and `n`, forward or
   * back, give one answer there, now and in the histories of later steps. `fileState`, the
   * state as the caller holds it (the same object press after press), keys the answer, so a
   * press does not redo the whole history's.
   */
  private asAsked(action: Action, from: State, fileState: State): Action {
    const flow = this.program!.flow;
    if ((action.kind !== 'step_into' && action.kind !== 'inv_step_into') || !flow) return action;
    const answers = action.kind === 'step_into' ? this.stepIntoOver : this.invStepIntoOver;
    let over = answers.get(fileState);
    if (over === undefined) answers.set(fileState, (over = action.kind === 'step_into' ? flow.stepIntoIsStepOver(from) : flow.invStepIntoIsInvStepOver(from)));
    return over ? { kind: action.kind === 'step_into' ? 'step_over' : 'inv_step_over' } : action;
  }

  /**
   * The state `fileAction` leads to where the symbolic stepper decides all of it (decided-step.ts),
   * without the model; null where any part is the model's. What the soundness checks compare
   * with real runs: a step decided whole must be the real one.
   */
  async decided(fileHistory: readonly HistoryEntry[], fileAction: Action): Promise<PredictedState | null> {
    if (!this.program) throw new Error('decided before start: the predictor has no program');
    const cut = this.cut;
    const history = fileHistory.map((h) => {
      const state = cut ? cut.stateToCut(h.state) : h.state;
      return { state, ...(h.action ? { action: this.asAsked(this.actionToCut(h.action), state, h.state) } : {}) };
    });
    const last = history[history.length - 1];
    if (!last) return null;
    const action = this.asAsked(this.actionToCut(fileAction), last.state, fileHistory[fileHistory.length - 1]!.state);
    const steps = historySteps(history, action);
    const prev = steps[steps.length - 1]!.state;
    const rules = await this.rules(action, prev, historyAt(steps, steps.length - 1));
    const decided = this.decidedPrediction(rules, prev, performance.now(), 0);
    return decided && (this.toFile(decided) as PredictedState);
  }

  private decidedPrediction(rules: FrameRules, prev: State, started: number, promptTokens: number): PredictedState | null {
    const decided = decidedStep(rules, prev, this.tokenizer, this.table);
    if (!decided) return null;
    return {
      kind: 'state',
      origin: 'model',
      direction: 'forward',
      state: decided.state,
      text: decided.text,
      confidence: decided.confidence,
      stats: { promptTokens, prefilledTokens: 0, sampledTokens: 0, forcedTokens: decided.ids.length, milliseconds: performance.now() - started, forwardPasses: 0, decidedSteps: 1 },
    };
  }

  private async predictCut(history: readonly HistoryEntry[], action: Action, opts: PredictOptions): Promise<Prediction> {
    const program = this.program!;
    const started = performance.now();
    const passes = this.session.passes;
    const steps = historySteps(history, action);
    const prev = steps[steps.length - 1]!.state;
    const runHistory = historyAt(steps, steps.length - 1);
    const { ids } = this.promptIds(steps, this.reserveFor(prev, runHistory.caller));
    const start = this.knownStart(prev, action);
    const given = start === null ? [] : this.tokenizer.encode(start);
    const rules = await this.rules(action, prev, runHistory);
    // A step the stepper decides whole needs no forward pass (decided-step.ts).
    const decided = given.length === 0 ? this.decidedPrediction(rules, prev, started, ids.length) : null;
    if (decided) {
      this.upcoming = { steps, state: decided.state };
      return decided;
    }
    const oracle = rules.oracle;
    const frame = guessFrame(directionOf(steps[steps.length - 1]!), steps, action, program.info, program.lines, oracle ? (at) => oracle.frame(at) : undefined);
    // A guess must agree with the start the action fixes; its first draft is what follows that.
    const guess = frame && (start === null || frame.start.startsWith(start)) ? { start: continuation(this.tokenizer.encode(frame.start), given), whole: this.tokenizer.encode(frame.whole) } : undefined;
    const prediction = await this.decode({ ids: [...ids, ...given], rules, prev, given, started, passes, prefilled: 0, ...(guess ? { guess } : {}) }, opts);
    this.upcoming = prediction.kind === 'state' ? { steps, state: prediction.state } : null;
    return prediction;
  }

  /**
   * The prompt: the program and the window of the history (prompt.ts) that leaves room for
   * the frame. The run's window (windowStarts' first) when it fits, else a later start that
   * slides in jumps of half the history's room (slideStarts), so that the start, and the
   * cached prompt, stay put for many steps; else ever shorter windows (a frame too long for
   * the jumps), down to the current state alone.
   */
  private promptIds(steps: readonly Step[], reserve = this.frameReserve()): { ids: number[]; start: number } {
    const program = this.program!;
    const room = this.session.maxPositions - reserve;
    const prompt = (start: number) => [...program.contextIds, ...this.tokenizer.encode(historyText(program.text, steps.slice(start)))];
    const [first, ...shorter] = windowStarts(steps, this.opts.maxPromptSteps ?? DEFAULT_MAX_PROMPT_STEPS);
    const whole = prompt(first!);
    if (whole.length <= room) return { ids: whole, start: first! };
    const frameSep = this.tokenizer.tokenId(TOKENS.frameSep);
    const frameStarts: number[] = [];
    // The last <|frame_sep|> ends the prompt: the frame to predict, not a step.
    for (let i = program.contextIds.length; i < whole.length - 1; i++) if (whole[i] === frameSep) frameStarts.push(i - program.contextIds.length);
    const jump = Math.max(1, Math.floor((room - program.contextIds.length) / 2));
    let tried = first!;
    for (const start of slideStarts(frameStarts, jump).map((k) => first! + k)) {
      const ids = prompt(start);
      if (ids.length <= room) return { ids, start };
      tried = start;
    }
    for (const start of shorter) {
      if (start <= tried) continue;
      const ids = prompt(start);
      if (ids.length <= room) return { ids, start };
    }
    // The current state alone does not fit (many long values, often a frame the model wrote
    // looping): the model sees it with its values cut shorter, rather than the user an error.
    const last = steps.length - 1;
    for (const max of SHRUNK_REPR_CHARS) {
      const ids = [...program.contextIds, ...this.tokenizer.encode(historyText(program.text, [{ ...steps[last]!, state: truncateState(steps[last]!.state, max) }]))];
      if (ids.length <= room) return { ids, start: last };
    }
    throw new ContextOverflowError(prompt(last).length + reserve, this.session.maxPositions);
  }

  /**
   * The context to keep free for the next frame: the default, or more where the frame the step
   * lands on may be as long as the state before's or (back in a caller) the caller's, whose
   * locals are many long values (at most maxNewTokens).
   */
  private reserveFor(prev: State, caller: State | undefined): number {
    const size = (s: State | undefined) => (s ? this.tokenizer.encode(JSON.stringify(s.locals)).length + FRAME_OVERHEAD_TOKENS : 0);
    return Math.min(this.maxNewTokens(), Math.max(this.frameReserve(), size(prev), size(caller)));
  }

  /**
   * The start of a frame that the action itself fixes, for the model to complete (the
   * state tree's moves, state-tree/tree.ts). From inside a function, step_return lands on
   * that function's return: the same stack, only the innermost line open. inv_step_call
   * lands on its call: the same stack, the innermost frame on its function's call line (the
   * callers are still on the lines that made the calls), only the arguments open.
   */
  private knownStart(prev: State, action: Action): string | null {
    const outer = prev.stack.slice(0, -1).map((f) => `${f.function}:${f.line} `).join('');
    if (action.kind === 'step_return' && prev.event !== 'return' && prev.event !== 'exception') {
      return `${TOKENS.returnSep}${TOKENS.locSep}${outer}${prev.stack[prev.stack.length - 1]!.function}:`;
    }
    if (action.kind !== 'inv_step_call' || prev.event === 'call') return null;
    const innermost = prev.stack[prev.stack.length - 1]!;
    const lines = this.program!.callLines.get(innermost.function);
    if (!lines || lines.size !== 1) return null;
    const [line] = lines;
    return `${TOKENS.invCallSep}${TOKENS.locSep}${outer}${innermost.function}:${line}${TOKENS.srcSep}`;
  }

  /** The rule families on. */
  private get ruleSelection(): RuleSelection {
    return this.opts.rules ?? ALL_RULES;
  }

  private async rules(action: Action | null, prev?: State, history?: RunHistory): Promise<FrameRules> {
    const { lines, names, callLocals, callLines, localNames, info, flow } = this.program!;
    const target = action?.kind === 'breakpoint' ? breakpointFunction(info, lines, action.line) : undefined;
    if (flow) await this.typesReady;
    return {
      action,
      lines,
      names,
      callLocals,
      callLines,
      localNames,
      ...(prev ? { prevFunction: prev.stack[prev.stack.length - 1]!.function } : {}),
      ...(target ? { breakpointFunction: target } : {}),
      ...(flow ? { oracle: await StepOracle.build(flow, action, prev, history, this.ruleSelection, this.python) } : {}),
    };
  }

  private maxNewTokens(): number {
    return this.opts.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS;
  }

  /** Context kept free after the prompt for the frame (older history gives way to it). */
  private frameReserve(): number {
    return Math.min(this.opts.frameReserve ?? DEFAULT_FRAME_RESERVE, this.maxNewTokens());
  }

  private async decode(req: DecodeRequest, opts: PredictOptions): Promise<Prediction> {
    const samples = Math.max(1, Math.floor(opts.samples ?? 1));
    const sampling: SamplingOptions = {
      temperature: opts.temperature ?? (samples > 1 ? 1 : 0),
      topP: this.opts.topP ?? 0.95,
      seed: opts.seed ?? this.opts.seed ?? 0,
      ...(this.opts.draftTokens !== undefined ? { draftTokens: this.opts.draftTokens } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(req.guess ? { guess: req.guess } : {}),
      // A frame may use the rest of the context, up to the cap.
      maxNewTokens: Math.min(this.maxNewTokens(), this.session.maxPositions - req.ids.length + req.given.length),
    };
    // Unfed: the first pass of decoding runs the prompt's new tokens and a draft together.
    const prompt = this.prefix.unfed(req.ids);
    const ctx = { session: this.session, tokenizer: this.tokenizer, table: this.table };
    let outcomes = await decodeFrames(ctx, prompt, req.rules, samples, sampling, req.given);
    let fallback = false;
    // A small model sometimes loops (greedy decoding repeats itself until the token budget
    // runs out). Then a few samples at a lower temperature get it out of the rut: still the
    // model's prediction, chosen by the same vote.
    if (outcomes.every((o) => !o.ok && o.error instanceof FrameBudgetError)) {
      outcomes = await decodeFrames(ctx, prompt, req.rules, FALLBACK.samples, { ...sampling, temperature: FALLBACK.temperature }, req.given);
      fallback = true;
    }

    const parsed: Parsed[] = [];
    for (const o of outcomes) if (o.ok) parsed.push(this.parse(o.frame, req.prev, req.rules.action));
    if (parsed.length === 0) throw (outcomes[0] as { error: Error }).error;

    // The vote: most samples, then the likelier frame.
    const groups = new Map<string, Parsed[]>();
    for (const p of parsed) groups.set(p.key, [...(groups.get(p.key) ?? []), p]);
    const best = (g: Parsed[]) => g.reduce((a, b) => (b.logprob > a.logprob ? b : a));
    const [winner] = [...groups.values()].sort((a, b) => b.length - a.length || best(b).logprob - best(a).logprob);
    const chosen = best(winner!);
    if (chosen.frame.fed) this.prefix.remember(chosen.frame.fed.ids, chosen.frame.fed.cache, chosen.frame.fed.ahead);
    const forced = chosen.frame.forced.filter(Boolean).length;
    return {
      ...chosen.prediction,
      ...(outcomes.length > 1 ? { vote: { samples: outcomes.length, valid: parsed.length, agreement: winner!.length / parsed.length, distinct: groups.size } } : {}),
      stats: {
        promptTokens: req.ids.length,
        prefilledTokens: req.prefilled + prompt.prefilled,
        sampledTokens: chosen.frame.ids.length - forced,
        forcedTokens: forced,
        milliseconds: performance.now() - req.started,
        forwardPasses: this.session.passes - req.passes,
        ...(fallback ? { fallback: true } : {}),
      },
    };
  }

  /** The decoded frame as a state or an exit. The grammar guarantees it parses; if not, that is a bug worth a loud error. */
  private parse(frame: DecodedFrame, prev: State | undefined, action: Action | null): Parsed {
    const logprob = frame.logprobs.reduce((a, b) => a + b, 0);
    if (frame.head.kind === 'exit') {
      const exit = parseExitFrame(frame.text);
      const prediction: Prediction = { kind: 'exit', origin: 'model', exit, text: frame.text, confidence: exitConfidence(frame) };
      return { frame, prediction, key: serializeExit(exit), logprob };
    }
    const body = frame.text.slice(0, frame.text.length - TOKENS.actionSep.length);
    const { direction, state } = parseFrame(body, prev, action ?? undefined);
    const key = serializeFrame(direction, state, prev, action ?? undefined);
    const prediction: Prediction = { kind: 'state', origin: 'model', direction, state, text: frame.text, confidence: stateConfidence(frame) };
    return { frame, prediction, key, logprob };
  }

  /**
   * While the user looks at a stop: the next prompt up to the new frame's `<|action_sep|>`,
   * so that the key press after it runs only its action. Mostly that is the last frame's
   * unrun tokens; but when the history writes the frame otherwise than it was decoded (a repr
   * cut to 100 characters) it is that frame again, and when the next prompt's window starts
   * later than this one's (the history outgrew the context, slideStarts) it is the whole slid
   * prompt. The next action is taken to be a step over for choosing the window (its few
   * tokens rarely change the choice; where they do, the press rebuilds, as without this).
   */
  async catchUp(): Promise<void> {
    const upcoming = this.upcoming;
    this.upcoming = null;
    if (upcoming && this.program && this.prefix.reusing) {
      let next: { ids: number[]; start: number } | undefined;
      try {
        next = this.promptIds([...upcoming.steps, { state: upcoming.state, action: { kind: 'step_over' } }]);
      } catch (err) {
        // The next press says so itself; nothing to prepare.
        if (!(err instanceof ContextOverflowError)) throw err;
      }
      if (next) {
        const actionSep = this.tokenizer.tokenId(TOKENS.actionSep);
        const end = next.ids.lastIndexOf(actionSep);
        if (end > 0) {
          await this.prefix.prompt(next.ids.slice(0, end + 1));
          return;
        }
      }
    }
    return this.prefix.catchUp();
  }

  /** A predictor sharing this one's model session (its weights and device), nothing else; release the session through this one only. */
  sibling(): NeuralPredictor {
    return new NeuralPredictor(this.session, this.tokenizer, this.table, this.opts, this.programTokens, this.python);
  }

  release(): Promise<void> {
    this.python.dispose();
    return this.session.release();
  }
}

/** A program's signatures, as the frame rules read them (signaturesOf). */
export type Signatures = Pick<Program, 'callLocals' | 'callLines' | 'localNames'>;

/**
 * What the signatures fix in a frame: a call frame's line (the function's call line) and
 * first locals (the parameters), and the names each function's frames can hold. None for a
 * program that does not compile.
 */
export function signaturesOf(info: ProgramInfo): Signatures {
  const callLocals = new Map<number, readonly string[]>();
  const callLines = new Map<string, Set<number>>();
  // Two functions of one name (methods of two classes): a frame of either may hold the names of both.
  const variables = new Map<string, Set<string>>();
  if (info.kind === 'ok') {
    for (const f of info.functions) {
      callLocals.set(f.callLine, f.callLocals);
      callLines.set(f.name, (callLines.get(f.name) ?? new Set()).add(f.callLine));
      variables.set(f.name, new Set([...(variables.get(f.name) ?? []), ...f.localNames]));
    }
  }
  const localNames = new Map([...variables].map(([name, set]) => [name, new KnownNames(set)] as const));
  return { callLocals, callLines, localNames };
}

/**
 * The frame a breakpoint on `line` stops in: the innermost function holding the line, or the
 * module for an unindented top-level line. Undefined where the functions alone do not tell
 * (an indented line outside any function: a class body or a module-level block), and for a
 * program that does not compile.
 */
function breakpointFunction(info: ProgramInfo, lines: readonly string[], line: number): string | undefined {
  if (info.kind !== 'ok') return undefined;
  // The def line itself runs in the enclosing scope (it defines the function): only the body counts.
  let f: FunctionInfo | undefined;
  for (const g of info.functions) if (g.line < line && line <= g.endLine && (!f || g.line > f.line)) f = g;
  if (f) return f.name;
  return /^\S/.test(lines[line - 1] ?? '') ? '<module>' : undefined;
}

/**
 * The tokens of a text after its start, as encoding the whole text gives them: encoding the
 * rest alone can differ where the cut falls inside a piece (or, for a tokenizer that splits
 * string literals, inside a literal, whose quotes the rest alone would pair the wrong way).
 * Only a draft reads it, so where the two encodings disagree it is empty.
 */
function continuation(whole: readonly number[], start: readonly number[]): number[] {
  return start.every((id, i) => whole[i] === id) ? whole.slice(start.length) : [];
}
