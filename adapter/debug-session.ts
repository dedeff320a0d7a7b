/**
 * The Debug Adapter Protocol in front of the neural runtime: what VS Code (or any DAP client)
 * talks to. One small method per request, each mapping onto NeuralRuntime (adapter/runtime.ts),
 * as in vscode-mock-debug; the Variables view is adapter/variables-view.ts.
 *
 * The life of a session: `initialize` (capabilities, then the `initialized` event), `launch`
 * (load the model, with a progress bar when the client shows them; then wait for
 * `configurationDone`, so that the breakpoints are in before the first state), then requests
 * until `disconnect`. A failed request answers with an error the client shows, never a crash:
 * the runtime keeps its state, so the user can go on (a failed launch can be launched again).
 *
 * A moving request (next, continue, …) answers once the runtime has moved, then sends the
 * `stopped` event: a failed prediction can then still answer with an error, and the view
 * never shows a state the runtime does not hold. A long continue shows a cancellable
 * progress bar (`cancel`, or `pause`, stops it between two predictions). The predicted end
 * of the run stops at the last state, its value in the stop's description, in the output
 * (`stdout`: every client shows it) and in an "End of the run" scope; stepping back from
 * there works as anywhere else, and a move forward ends the session (`exited`, `terminated`).
 */
import { timingSafeEqual } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { BreakpointEvent, DebugSession, Event, ExitedEvent, InitializedEvent, InvalidatedEvent, OutputEvent, ProgressEndEvent, ProgressStartEvent, ProgressUpdateEvent, Response, Source, StoppedEvent, TerminatedEvent, Thread } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import { EntryError } from '../program-analysis/entry-state.js';
import { FrameBudgetError } from '../model-client/decode.js';
import { ModelFolderError } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { defaultModelDir } from '../model-client/model-folder.js';
import type { FrameCompleter } from '../model-client/input-prediction.js';
import { PartialFrameDecoder } from '../model-client/partial-frame.js';
import type { Predictor } from '../model-client/predictor.js';
import { ContextOverflowError } from '../model-client/onnx-session.js';
import { NDB_EVENTS_FLAG, type NdbStopInfo, PREDICT_INPUTS_REQUEST, type PredictInputsArguments, RESAMPLE_REQUEST, STATS_EVENT, type StatsEventBody, TRACE_REQUEST } from '../protocol/dap.js';
import { TraceFailure } from '../tracer/run-tracer.js';
import { EvalError, evaluateExpression, valueRepr } from './evaluate.js';
import { loadPredictor, ModelNotFoundError, type PredictorChoice } from './load-predictor.js';
import { parsePyValue, typeName } from './python-values.js';
import { type BreakpointSpec, type BreakpointView, type DataWatchSpec, type FrameView, type FunctionBreakpointSpec, type LaunchOptions, type LogEvent, NeuralRuntime, type ProgressEvent, RuntimeError, specProblem, type StopEvent } from './runtime.js';
import { completionItems, EXCEPTION_FILTERS, stepInTargets } from './navigation.js';
import { programInfo } from '../program-analysis/program-info.js';
import { readPythonSource } from './read-source.js';
import { predictedTrace, predictInputs } from './queries.js';
import { checkArguments, checkMessage } from './requests.js';
import type { RequestHint } from './transport.js';
import { provenanceLabel, VariablesView } from './variables-view.js';

/**
 * `args`: one string of Python literals, or a debugpy-style list of strings, each one Python
 * literal, joined as the call's arguments (`["'berry'", "'r'"]` is `'berry', 'r'`). Whether
 * each is a literal is checked where the call is bound (program-analysis/entry-state.ts); a
 * command-line flag is refused here, since nothing runs the program to read it.
 */
const ArgsSchema = z.unknown().transform((value, ctx): string => {
  const shape = `args must be one string of Python literals ("'berry', 'r'") or a list of them (["'berry'", "'r'"])`;
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${shape}, not ${value === null ? 'null' : typeof value}` });
    return z.NEVER;
  }
  value.forEach((item, i) => {
    if (typeof item !== 'string') {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i], message: `must be a string holding one Python literal (e.g. "'berry'" or "3"), not ${item === null ? 'null' : Array.isArray(item) ? 'a list' : typeof item} ${JSON.stringify(item)}` });
    } else if (item.trim() === '') {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i], message: 'is empty: each item is one Python literal' });
    } else if (/^--?[A-Za-z]/.test(item.trim())) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i], message: `${JSON.stringify(item)} looks like a command-line flag: ndb's args are the entry function's arguments as Python literals (nothing runs the program, so there is no sys.argv)` });
    }
  });
  return value.map((item) => String(item).trim()).join(', ');
});

/** The launch configuration (a launch.json entry of type `neural-python`). */
export const LaunchArgsSchema = z
  .object({
    program: z.string({ required_error: 'program is required: the Python file to debug' }).min(1, 'program is empty'),
    /** The folder a relative `program` (and `model`) is read from; default: the adapter's. */
    cwd: z.string({ invalid_type_error: 'cwd must be a folder path (a string)' }).min(1, 'cwd is empty').optional(),
    /** Accepted from Python configurations and ignored (with a note): nothing runs the program. */
    env: z.record(z.unknown(), { invalid_type_error: 'env must be an object of variables' }).optional(),
    /** Send ndb's own events (`ndb/stats`); ndb's VS Code extension asks for them. */
    [NDB_EVENTS_FLAG]: z.boolean().optional(),
    entry: z.string().min(1).optional(),
    args: ArgsSchema.optional(),
    inferArgs: z.boolean().optional(),
    model: z.string().min(1).optional(),
    device: z.enum(['cpu', 'cuda']).optional(),
    precision: z.enum(['fp32', 'int8']).optional(),
    samples: z.number().int().min(1).max(64).optional(),
    temperature: z.number().min(0).optional(),
    stopOnEntry: z.boolean().optional(),
    verify: z.boolean().optional(),
    maxSteps: z.number().int().positive().optional(),
    prefetch: z.boolean().optional(),
    /** debugpy's setting: "(return) f" in the Variables view after a call returns (default true). */
    showReturnValue: z.boolean().optional(),
  })
  // VS Code adds its own fields (type, request, name, __sessionId, …).
  .passthrough();
export type LaunchArgs = z.infer<typeof LaunchArgsSchema>;

/** A Python run has one thread here: the model predicts the main thread only. */
const THREAD_ID = 1;
/** DAP frame ids are the runtime's (0: innermost) plus this, so that none is 0 (falsy in some clients). */
const FRAME_ID_BASE = 1;
/** How long launch waits for configurationDone before it starts anyway (a client that never sends it). */
const CONFIGURATION_TIMEOUT_MS = 10_000;
/** How long launch waits for configurationDone before answering (a client that waits for the answer first). */
const LAUNCH_ANSWER_MS = 500;

/**
 * The output category of what the user must see (the predicted end, notes on the launch
 * configuration): VS Code, nvim-dap and dap-mode all show `stdout` (dap-mode shows only
 * stdout and stderr by default, and VS Code only shows `important` as it does console).
 */
const SHOWN = 'stdout';

const ERROR_USER = 1001;
const ERROR_INTERNAL = 1002;
const ERROR_TOKEN = 1003;
const ERROR_REQUEST = 1004;
/** @vscode/debugadapter's answer to a handler that threw: its message is the JS stack. */
const ERROR_BASE_EXCEPTION = 1104;

/** A launch configuration that does not fit LaunchArgsSchema. */
class LaunchArgsError extends Error {}

/** Errors whose message is written for the user as it is. */
const USER_ERRORS = [RuntimeError, EntryError, ModelNotFoundError, ModelFolderError, EvalError, TraceFailure, LaunchArgsError];

/** A predictor the session opened and releases; the frame completion in hovers needs a NeuralPredictor itself. */
export type LoadedPredictor = Predictor & { release(): Promise<void> };

export interface DebugSessionOptions {
  /** How a model is opened (default: load-predictor.ts); bench/ opens its baselines through it. */
  loadPredictor?: (choice: PredictorChoice) => Promise<LoadedPredictor>;
  /**
   * The secret a client must give (`"token"` in its launch or attach configuration) before
   * anything but `initialize` is answered: `ndb dap --port` sets it, since any process on the
   * machine can connect to a port. Stdio sessions have none (the editor's pipes are its own).
   */
  token?: string;
  /** Where internal errors (with their stacks) and ignored input are logged; default: stderr. */
  log?: (line: string) => void;
  /** Called once when the session shuts down (disconnect, or its input closed): a TCP server closes the connection. */
  onShutdown?: () => void;
}

export class NeuralDebugSession extends DebugSession {
  private runtime: NeuralRuntime | null = null;
  private view: VariablesView | null = null;
  private program: string | null = null;
  /** The model loaded for each model folder and device this session was launched with. */
  private predictors = new Map<string, Promise<LoadedPredictor>>();
  /** Breakpoints asked for per source path, kept across launches (a relaunch gets them too). */
  private breakpointSpecs = new Map<string, BreakpointSpec[]>();
  /** The function breakpoints, the data breakpoints and the exception filters: kept across launches. */
  private functionBreakpoints: FunctionBreakpointSpec[] = [];
  private dataWatches: DataWatchSpec[] = [];
  /** debugpy's filters; uncaught is on until the client sets them (debugpy's default). */
  private exceptionFilters = new Set<string>(['uncaught']);
  /** Exception classes by break mode, from setExceptionBreakpoints' exceptionOptions. */
  private exceptionOptions: { always: Set<string>; never: Set<string> } = { always: new Set(), never: new Set() };
  /** The step-in targets last offered (id → function), for stepIn's targetId. */
  private stepTargets = new Map<number, string>();
  private configured = deferred<void>();
  /** Resolves once a launch has set up its runtime; breakpoints wait for it (they need the program). */
  private launched = deferred<void>();
  private clientShowsProgress = false;
  private clientHandlesInvalidated = false;
  /** The client asked for ndb's own events (`ndbEvents` in initialize or launch). */
  private clientWantsNdbEvents = false;
  private progressId: string | null = null;
  private progressCount = 0;
  /** The model and device of the last launch, for the `ndb/stats` event and `ndb/predictInputs`. */
  private launchedModel: { dir: string; label: string; device: string; predictor: Promise<LoadedPredictor> } | null = null;
  private frameDecoders = new WeakMap<NeuralPredictor, Promise<PartialFrameDecoder>>();
  /** Whether the client gave the token (always, without one). */
  private authenticated: boolean;
  /** `initialized` waits for the token: the client's breakpoints and configurationDone come after it. */
  private initializedPending = false;
  /** After shutdown (a closed connection) nothing more is done or sent. */
  private closed = false;
  /** The launches, one after the other. */
  private launchQueue: Promise<void> = Promise.resolve();

  constructor(private readonly options: DebugSessionOptions = {}) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
    this.authenticated = options.token === undefined;
  }

  // ---- what comes in -----------------------------------------------------------------------

  /** One parsed message from the transport (adapter/transport.ts): checked, then handled. */
  receive(value: unknown): void {
    if (this.closed) return;
    const checked = checkMessage(value);
    if (checked.kind === 'response') return this.handleMessage(checked.message as unknown as DebugProtocol.ProtocolMessage);
    if (checked.kind === 'invalid') return this.refuseMessage(checked.problem, checked);
    this.handleMessage(checked.request as DebugProtocol.Request);
  }

  /** Input the transport could not read: answered when it names its request's seq, else logged and said in the console. */
  malformed(problem: string, hint: RequestHint): void {
    if (this.closed) return;
    this.refuseMessage(problem, hint);
  }

  private refuseMessage(problem: string, hint: RequestHint): void {
    this.log(`ndb dap: ignored input: ${problem}`);
    if (hint.seq !== undefined) {
      const response = new Response({ seq: hint.seq, type: 'request', command: hint.command ?? '' });
      this.sendErrorResponse(response, { id: ERROR_REQUEST, format: `ndb dap could not read this request: ${problem}`, showUser: false, variables: {} });
    } else if (this.authenticated) {
      this.sendEvent(new OutputEvent(`ndb dap: ignored input: ${problem}\n`, 'stderr'));
    }
  }

  /** Every request: its arguments checked, the token required where there is one. */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    if (this.closed) return;
    const response = new Response(request);
    const checked = checkArguments(request.command, request.arguments);
    if (!checked.ok) {
      this.sendErrorResponse(response, { id: ERROR_REQUEST, format: checked.problem, showUser: true, variables: {} });
      return;
    }
    const args = (typeof checked.args === 'object' && checked.args !== null ? checked.args : {}) as Record<string, unknown>;
    if (!this.authenticated && request.command !== 'initialize') {
      const given = request.command === 'launch' || request.command === 'attach' ? args.token : undefined;
      if (typeof given !== 'string' || !sameSecret(given, this.options.token!)) {
        const format =
          typeof given === 'string'
            ? "the token in the launch configuration is not this ndb dap server's token"
            : 'this ndb dap server needs its token: put "token": "<the token ndb dap printed>" in the launch (or attach) configuration; until then only initialize is answered';
        this.sendErrorResponse(response, { id: ERROR_TOKEN, format, showUser: true, variables: {} });
        return;
      }
      this.authenticated = true;
      if (this.initializedPending) {
        this.initializedPending = false;
        this.sendEvent(new InitializedEvent());
      }
    }
    // The token has done its work: nothing after this point sees it.
    if ('token' in args) delete args.token;
    super.dispatchRequest({ ...request, arguments: args });
  }

  /** The base class answers a handler that threw with the JS stack: that goes to the log, the client gets a message. */
  override sendErrorResponse(response: DebugProtocol.Response, codeOrMessage: number | DebugProtocol.Message, format?: string, variables?: unknown, dest?: number): void {
    if (codeOrMessage === ERROR_BASE_EXCEPTION) {
      const v = (variables ?? {}) as { _exception?: string; _stack?: string };
      this.log(`ndb dap: internal error in ${response.command}: ${v._stack ?? v._exception ?? 'unknown'}`);
      const message = `ndb internal error in ${response.command}: ${v._exception ?? 'unknown'} (please report it; the adapter's log has the details)`;
      super.sendErrorResponse(response, { id: ERROR_INTERNAL, format: message, showUser: true, variables: {} });
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    super.sendErrorResponse(response, codeOrMessage as any, format, variables, dest as any);
  }

  private log(line: string): void {
    (this.options.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  // ---- set-up ----------------------------------------------------------------------------

  protected override initializeRequest(response: DebugProtocol.InitializeResponse, args: DebugProtocol.InitializeRequestArguments): void {
    this.clientShowsProgress = args.supportsProgressReporting === true;
    this.clientHandlesInvalidated = args.supportsInvalidatedEvent === true;
    this.clientWantsNdbEvents = (args as unknown as Record<string, unknown>)[NDB_EVENTS_FLAG] === true;
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsStepBack: true,
      supportsEvaluateForHovers: true,
      supportsSetVariable: true,
      supportsRestartRequest: true,
      supportsCancelRequest: true,
      supportsExceptionInfoRequest: true,
      supportsTerminateRequest: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsFunctionBreakpoints: true,
      supportsBreakpointLocationsRequest: true,
      exceptionBreakpointFilters: EXCEPTION_FILTERS.map((f) => ({ ...f })),
      supportsDataBreakpoints: true,
      supportsStepInTargetsRequest: true,
      supportsGotoTargetsRequest: true,
      supportsRestartFrame: true,
      supportsCompletionsRequest: true,
      completionTriggerCharacters: ['.'],
      supportsSetExpression: true,
      supportsClipboardContext: true,
      supportsDelayedStackTraceLoading: true,
      supportsModulesRequest: true,
      supportsExceptionOptions: true,
      supportsValueFormattingOptions: true,
    };
    this.sendResponse(response);
    // Breakpoints may come now; they wait for launch to name the program (setBreakPointsRequest).
    // With a token, once the launch has given it (the breakpoints would be refused before).
    if (this.authenticated) this.sendEvent(new InitializedEvent());
    else this.initializedPending = true;
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configured.resolve();
    this.sendResponse(response);
  }

  protected override launchRequest(response: DebugProtocol.LaunchResponse, raw: DebugProtocol.LaunchRequestArguments): void {
    // One launch at a time: two runtimes must never predict on one model at once (it has one
    // KV cache; interleaved, a launch found it stale).
    this.launchQueue = this.launchQueue.then(() =>
      this.handle(response, async () => {
        const { runtime, options } = await this.prepareLaunch(raw);
        // Most clients (VS Code) send configurationDone without waiting for the launch's
        // answer: then the first state is predicted first and a failure is the launch's error.
        // Some (as with debugpy) wait for the answer first: after LAUNCH_ANSWER_MS it comes,
        // and the run starts once configurationDone does (or after CONFIGURATION_TIMEOUT_MS).
        const configured = await Promise.race([this.configured.promise.then(() => true), delay(LAUNCH_ANSWER_MS).then(() => false)]);
        if (!configured) {
          this.sendResponse(response);
          await Promise.race([this.configured.promise, delay(CONFIGURATION_TIMEOUT_MS)]);
          try {
            this.reportStop(await runtime.launch(options));
          } catch (err) {
            if (this.closed) return;
            if (!isUserError(err)) this.log(`ndb dap: internal error in launch: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
            this.sendEvent(new OutputEvent(`ndb: the launch failed: ${describeError(err)}\n`, 'stderr'));
            this.sendEvent(new TerminatedEvent());
          }
          return;
        }
        const event = await runtime.launch(options);
        this.sendResponse(response);
        this.reportStop(event);
      }),
    );
  }

  /** The model, a fresh runtime, the program's breakpoints; breakpoint requests waiting for it go on either way. */
  private async prepareLaunch(raw: unknown): Promise<{ runtime: NeuralRuntime; options: LaunchOptions }> {
    try {
      const args = parseLaunchArgs(raw);
      if (args.ndbEvents) this.clientWantsNdbEvents = true;
      if (args.env !== undefined) this.sendEvent(new OutputEvent('ndb: env is ignored: nothing runs the program, so no environment reaches it (the model predicts from the source)\n', SHOWN));
      const runtime = await this.newRuntime(await this.predictorFor(args));
      const dir = args.model ? resolve(args.model) : defaultModelDir();
      this.launchedModel = { dir, label: args.model ? basename(dir) : 'default', device: args.device ?? 'cpu', predictor: this.predictorFor(args) };
      const program = (this.program = resolve(args.program));
      this.view!.showReturnValue = args.showReturnValue !== false;
      await runtime.setBreakpoints(this.breakpointSpecs.get(program) ?? [], program);
      await runtime.setFunctionBreakpoints(this.functionBreakpoints);
      runtime.setDataBreakpoints(this.dataWatches);
      runtime.setBreakOnRaised(this.raisedFilter());
      return { runtime, options: launchOptions(program, args) };
    } finally {
      this.launched.resolve();
    }
  }

  /** A fresh runtime for each launch (the model is kept): nothing of an earlier launch lingers. */
  private async newRuntime(predictor: LoadedPredictor): Promise<NeuralRuntime> {
    // close, not just cancel: the old runtime's background guesses stop too, and the new one
    // starts only once the old one's work on the model has ended.
    const previous = this.runtime;
    previous?.removeAllListeners();
    await previous?.close();
    const runtime = new NeuralRuntime(predictor);
    runtime.on('output', (text: string, category: string) => this.sendEvent(new OutputEvent(text, category)));
    runtime.on('progress', (p: ProgressEvent) => this.reportProgress(p));
    // A logpoint's message, at its line (VS Code links it to the source).
    runtime.on('log', (e: LogEvent) => {
      const output: DebugProtocol.OutputEvent = new OutputEvent(`${e.text}\n`, SHOWN);
      output.body.source = this.source();
      output.body.line = this.convertDebuggerLineToClient(e.line);
      this.sendEvent(output);
    });
    // A breakpoint that falls outside the cut the model sees, found at launch: unverified after all.
    runtime.on('breakpoint', (b: BreakpointView) => {
      const line = this.convertDebuggerLineToClient(b.line);
      this.sendEvent(new BreakpointEvent('changed', { id: b.line, verified: false, line, source: this.source(), ...(b.message ? { message: b.message } : {}) } as DebugProtocol.Breakpoint));
    });
    this.runtime = runtime;
    this.view = new VariablesView(runtime);
    return runtime;
  }

  /** Loads a model once per folder, device and precision, behind a progress bar where the client has them. */
  private predictorFor(args: LaunchArgs): Promise<LoadedPredictor> {
    const key = `${args.model ?? ''}\n${args.device ?? 'cpu'}\n${args.precision ?? 'fp32'}`;
    let loading = this.predictors.get(key);
    if (!loading) {
      const load = this.options.loadPredictor ?? loadPredictor;
      loading = this.withProgress('Loading the model', () =>
        load({
          ...(args.model === undefined ? {} : { model: args.model }),
          ...(args.device === undefined ? {} : { device: args.device }),
          ...(args.precision === undefined ? {} : { precision: args.precision }),
          onWarning: (message) => this.sendEvent(new OutputEvent(`${message}\n`, 'console')),
        }),
      );
      // A failed load is not kept: the next launch (a fixed folder, say) tries again.
      loading.catch(() => this.predictors.delete(key));
      this.predictors.set(key, loading);
    }
    return loading;
  }

  // ---- breakpoints and threads -------------------------------------------------------------

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    void this.handle(response, async () => {
      const specs: BreakpointSpec[] = (args.breakpoints ?? args.lines?.map((line) => ({ line })) ?? []).map((b: DebugProtocol.SourceBreakpoint) => ({
        line: this.convertClientLineToDebugger(b.line),
        ...(b.condition?.trim() ? { condition: b.condition.trim() } : {}),
        ...(b.hitCondition?.trim() ? { hitCondition: b.hitCondition.trim() } : {}),
        ...(b.logMessage !== undefined && b.logMessage !== '' ? { logMessage: b.logMessage } : {}),
      }));
      const path = args.source.path ? resolve(args.source.path) : undefined;
      if (path) this.breakpointSpecs.set(path, specs);
      await this.launched.promise;
      response.body = { breakpoints: await this.breakpoints(path, specs) };
      this.sendResponse(response);
    });
  }

  private async breakpoints(path: string | undefined, specs: BreakpointSpec[]): Promise<DebugProtocol.Breakpoint[]> {
    if (!this.program) throw new RuntimeError('no program is launched yet: the breakpoints are kept for the next launch');
    if (path !== this.program) {
      const message = `ndb debugs one file, ${this.program}: no stop can happen in ${path ?? 'this source'}`;
      return specs.map((b) => ({ verified: false, line: this.convertDebuggerLineToClient(b.line), message }));
    }
    // A condition, hit condition or log message that does not parse is the client's input, not
    // the line's: the request fails, naming each such breakpoint (the file's others are set).
    const problems: string[] = [];
    for (const spec of specs) {
      const problem = await specProblem(spec);
      if (problem) problems.push(`line ${this.convertDebuggerLineToClient(spec.line)}: ${problem}`);
    }
    const views = await this.requireRuntime().setBreakpoints(specs, path);
    if (problems.length) {
      const others = views.some((v) => v.verified) ? `the other breakpoints of ${basename(path)} are set` : `no other breakpoint of ${basename(path)} is set`;
      throw new RuntimeError(`${problems.length === 1 ? 'a breakpoint is' : `${problems.length} breakpoints are`} not set: ${problems.join('; ')} (${others})`);
    }
    return views.map((b) => ({
      // The file's line: unique in the one file ndb debugs (the breakpoint event names it).
      id: b.line,
      verified: b.verified,
      line: this.convertDebuggerLineToClient(b.line),
      source: this.source(),
      ...(b.message ? { message: b.message } : {}),
    }));
  }

  /** Function breakpoints: each stops at the function's first line of code (as pdb's `b function`). */
  protected override setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    void this.handle(response, async () => {
      this.functionBreakpoints = args.breakpoints.map((b) => ({ name: b.name, ...(b.condition?.trim() ? { condition: b.condition.trim() } : {}), ...(b.hitCondition?.trim() ? { hitCondition: b.hitCondition.trim() } : {}) }));
      await this.launched.promise;
      const views = await this.requireRuntime().setFunctionBreakpoints(this.functionBreakpoints);
      // As for line breakpoints: a condition or hit condition that does not parse fails the request (the others are set).
      const problems: string[] = [];
      for (const b of this.functionBreakpoints) {
        const problem = await specProblem({ line: 0, ...b });
        if (problem) problems.push(`${b.name}: ${problem}`);
      }
      if (problems.length) throw new RuntimeError(`${problems.length === 1 ? 'a function breakpoint is' : `${problems.length} function breakpoints are`} not set: ${problems.join('; ')}`);
      response.body = {
        breakpoints: views.map((v) => ({
          verified: v.verified,
          ...(v.line !== undefined ? { line: this.convertDebuggerLineToClient(v.line), source: this.source() } : {}),
          ...(v.message ? { message: v.message } : {}),
        })),
      };
      this.sendResponse(response);
    });
  }

  /** debugpy's exception filters: raised (every predicted exception a continue passes), uncaught and userUnhandled (a run predicted to end raising). */
  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    void this.handle(response, async () => {
      const known = new Set(EXCEPTION_FILTERS.map((f) => f.filter));
      const filters = [...args.filters, ...(args.filterOptions ?? []).map((o) => o.filterId)];
      const unknown = filters.filter((f) => !known.has(f));
      if (unknown.length) throw new RuntimeError(`unknown exception filter ${unknown.map((f) => JSON.stringify(f)).join(', ')}: ndb offers ${[...known].join(', ')}`);
      if ((args.filterOptions ?? []).some((o) => o.condition)) throw new RuntimeError('exception filters take no condition in ndb');
      this.exceptionFilters = new Set(filters);
      // exceptionOptions (debugpy's supportsExceptionOptions): per exception class, `always` stops where it is raised, `never` does not.
      this.exceptionOptions = exceptionClasses(args.exceptionOptions ?? []);
      this.runtime?.setBreakOnRaised(this.raisedFilter());
      response.body = { breakpoints: filters.map(() => ({ verified: true })) };
      this.sendResponse(response);
    });
  }

  /** Which predicted exceptions a continue stops at, given the filters and exception options. */
  private raisedFilter(): ((repr: string) => boolean) | false {
    const { always, never } = this.exceptionOptions;
    const raised = this.exceptionFilters.has('raised');
    if (!raised && always.size === 0) return false;
    return (repr) => {
      const name = exceptionName(repr);
      if (never.has(name)) return false;
      return raised || always.has(name);
    };
  }

  /** The program as the one module of the run (debugpy lists the loaded modules); the base class does not dispatch `modules`, customRequest does. */
  private modulesRequest(response: DebugProtocol.ModulesResponse): void {
    void this.handle(response, async () => {
      const program = this.program;
      if (!program) throw new RuntimeError('no program is launched yet');
      response.body = { modules: [{ id: program, name: basename(program).replace(/\.py$/, ''), path: program, isUserCode: true }], totalModules: 1 };
      this.sendResponse(response);
    });
  }

  /** The lines in a range where a breakpoint can stop (the program's executable lines, as CPython compiles it). */
  protected override breakpointLocationsRequest(response: DebugProtocol.BreakpointLocationsResponse, args: DebugProtocol.BreakpointLocationsArguments): void {
    void this.handle(response, async () => {
      const path = args.source.path ? resolve(args.source.path) : undefined;
      if (!path) throw new RuntimeError('breakpointLocations needs a source path: ndb debugs files');
      const first = this.convertClientLineToDebugger(args.line);
      const last = args.endLine === undefined ? first : this.convertClientLineToDebugger(args.endLine);
      if (last < first) throw new RuntimeError(`endLine ${args.endLine} is before line ${args.line}`);
      let lines: readonly number[];
      const runtime = this.runtime;
      if (runtime && runtime.programPath === path && runtime.program?.kind === 'ok') {
        lines = runtime.program.executableLines;
      } else {
        let text: string;
        try {
          text = await readPythonSource(path);
        } catch (err) {
          throw new RuntimeError((err as Error).message);
        }
        const info = await programInfo(text);
        if (info.kind === 'error') throw new RuntimeError(`${path}: ${info.message}`);
        lines = info.executableLines;
      }
      const cut = runtime?.programPath === path ? runtime.programCut : null;
      response.body = { breakpoints: lines.filter((l) => l >= first && l <= last && (!cut || cut.sees(l))).map((l) => ({ line: this.convertDebuggerLineToClient(l) })) };
      this.sendResponse(response);
      // The editor asks in the background (a file being edited may not compile): no notification.
    }, false);
  }

  /** A local (of a frame's Locals scope, or named in a frame) that a data breakpoint can watch for a change of value. */
  protected override dataBreakpointInfoRequest(response: DebugProtocol.DataBreakpointInfoResponse, args: DebugProtocol.DataBreakpointInfoArguments): void {
    void this.handle(response, async () => {
      const runtime = this.requireRuntime();
      const stop = runtime.current;
      if (!stop) throw new RuntimeError('there is no state to watch a variable in: the run ended before its first stop');
      let frameId: number;
      if (args.variablesReference !== undefined && args.variablesReference !== 0) {
        const container = this.requireView().container(args.variablesReference);
        if (!container) throw new RuntimeError('that variable is gone: the program has moved since');
        if (container.kind !== 'locals') {
          response.body = { dataId: null, description: `only a whole local can be watched: ${args.name} is part of a value` };
          this.sendResponse(response);
          return;
        }
        frameId = container.frame;
      } else {
        frameId = this.frame(args.frameId).id;
      }
      const frame = this.frame(frameId + FRAME_ID_BASE);
      const name = args.name.trim();
      if (!/^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(name)) {
        response.body = { dataId: null, description: `only a local variable can be watched, not the expression ${JSON.stringify(args.name)}` };
        this.sendResponse(response);
        return;
      }
      if (!frame.locals || !Object.hasOwn(frame.locals, name)) throw new RuntimeError(`no variable '${name}' in ${frame.function} at this stop`);
      const stack = stop.state.stack;
      const watched: DataWatchSpec = { name, frame: stack.slice(0, stack.length - frameId).map((f) => f.function) };
      response.body = { dataId: JSON.stringify(watched), description: `${name} in ${frame.function} changes (predicted)`, accessTypes: ['write'], canPersist: true };
      this.sendResponse(response);
    });
  }

  /** Data breakpoints: a continue steps through the predicted run and stops at the first state after which a watched local differs. */
  protected override setDataBreakpointsRequest(response: DebugProtocol.SetDataBreakpointsResponse, args: DebugProtocol.SetDataBreakpointsArguments): void {
    void this.handle(response, async () => {
      const watches: DataWatchSpec[] = [];
      const problems: string[] = [];
      const views: DebugProtocol.Breakpoint[] = args.breakpoints.map((b) => {
        const spec = parseDataId(b.dataId);
        const problem = !spec
          ? `${JSON.stringify(b.dataId)} is not a data id from dataBreakpointInfo (ask dataBreakpointInfo for a local of a frame)`
          : b.accessType && b.accessType !== 'write'
            ? `${spec.name}: only changes (write) can be watched: a predicted run shows values, not ${b.accessType}s`
            : b.condition || b.hitCondition
              ? `${spec.name}: data breakpoints take no condition or hit count in ndb`
              : null;
        if (problem || !spec) {
          problems.push(problem!);
          return { verified: false, message: problem! };
        }
        watches.push(spec);
        return { verified: true, description: `${spec.name} in ${spec.frame.at(-1)} changes` } as DebugProtocol.Breakpoint;
      });
      // The good ones are set either way; bad input fails the request, naming each.
      this.dataWatches = watches;
      this.runtime?.setDataBreakpoints(watches);
      if (problems.length) {
        const others = watches.length ? `the other ${watches.length === 1 ? 'one is' : `${watches.length} are`} set` : 'none is set';
        throw new RuntimeError(`${problems.length === 1 ? 'a data breakpoint is' : `${problems.length} data breakpoints are`} not set: ${problems.join('; ')} (${others})`);
      }
      response.body = { breakpoints: views };
      this.sendResponse(response);
    });
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: [new Thread(THREAD_ID, 'main')] };
    this.sendResponse(response);
  }

  // ---- moving ----------------------------------------------------------------------------

  protected override nextRequest(response: DebugProtocol.NextResponse): void {
    this.step(response, (rt) => rt.stepOver());
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    if (args.targetId === undefined) return this.step(response, (rt) => rt.stepIn());
    const target = this.stepTargets.get(args.targetId);
    if (target === undefined) {
      this.sendErrorResponse(response, { id: ERROR_USER, format: `no step-in target ${args.targetId} at this stop: ask stepInTargets again`, showUser: true, variables: {} });
      return;
    }
    this.step(response, (rt) => rt.stepInto(target));
  }

  /** The calls of the current line into the program's own functions (a builtin's call has no predicted frame). */
  protected override stepInTargetsRequest(response: DebugProtocol.StepInTargetsResponse, args: DebugProtocol.StepInTargetsArguments): void {
    void this.handle(response, async () => {
      const frame = this.frame(args.frameId);
      if (frame.id !== 0) throw new RuntimeError('step-in targets are those of the current line: pick the innermost frame');
      const runtime = this.requireRuntime();
      if (runtime.ended) throw new RuntimeError('the run has ended: step back to a state to step into a call');
      const targets = stepInTargets(runtime.programLines[frame.line - 1] ?? '', runtime.program);
      this.stepTargets = new Map(targets.map((t, i) => [i + 1, t.function]));
      response.body = {
        targets: targets.map((t, i) => ({ id: i + 1, label: t.label, line: this.convertDebuggerLineToClient(frame.line), column: this.convertDebuggerColumnToClient(t.column), endColumn: this.convertDebuggerColumnToClient(t.endColumn) })),
      };
      this.sendResponse(response);
    });
  }

  /** pdb's jump: the lines of the current frame's function the prediction can go on from. */
  protected override gotoTargetsRequest(response: DebugProtocol.GotoTargetsResponse, args: DebugProtocol.GotoTargetsArguments): void {
    void this.handle(response, async () => {
      const runtime = this.requireRuntime();
      const path = args.source.path ? resolve(args.source.path) : undefined;
      if (path !== this.program) throw new RuntimeError(`ndb debugs one file, ${this.program}: cannot jump into ${path ?? 'this source'}`);
      const stop = runtime.current;
      if (!stop || runtime.ended) throw new RuntimeError('the run has ended: step back to a state to jump from it');
      const line = this.convertClientLineToDebugger(args.line);
      runtime.checkJump(stop.state, line);
      const text = (runtime.programLines[line - 1] ?? '').trim();
      response.body = { targets: [{ id: line, label: `line ${line}: ${text}`, line: this.convertDebuggerLineToClient(line) }] };
      this.sendResponse(response);
    });
  }

  protected override gotoRequest(response: DebugProtocol.GotoResponse, args: DebugProtocol.GotoArguments): void {
    this.step(response, (rt) => rt.jump(args.targetId));
  }

  /** Back to the call of a frame (the state the predicted run holds for it). */
  protected override restartFrameRequest(response: DebugProtocol.RestartFrameResponse, args: DebugProtocol.RestartFrameArguments): void {
    this.step(response, async (rt) => rt.restartFrame(this.frame(args.frameId).id));
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse): void {
    this.step(response, (rt) => rt.stepOut());
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    // One thread: it is all of them.
    response.body = { allThreadsContinued: true };
    this.step(response, (rt) => rt.continue());
  }

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse): void {
    this.step(response, (rt) => rt.stepBack());
  }

  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): void {
    this.step(response, (rt) => rt.reverseContinue());
  }

  protected override restartRequest(response: DebugProtocol.RestartResponse): void {
    // The launch configuration stays as it was; the program is read again.
    this.move(response, (rt) => rt.restart());
  }

  /** A step through the run, which needs one (after a failed launch the runtime holds none). */
  private step(response: DebugProtocol.Response, command: (rt: NeuralRuntime) => Promise<StopEvent>): void {
    this.move(response, async (rt) => {
      if (!rt.current && !rt.ended) throw new RuntimeError('no program is running: the launch failed, or there was none');
      return command(rt);
    });
  }

  /**
   * A request that moves: answer once the runtime has moved, then report where it stopped.
   * A move forward from the predicted end goes past it: the run is over, as at a real end
   * (debugpy's order): the response, `exited` (0; 1 for an uncaught exception or a run that
   * did not end), then `terminated`. A client that stays connected can still step back.
   */
  private move(response: DebugProtocol.Response, command: (rt: NeuralRuntime) => Promise<StopEvent>): void {
    void this.handle(response, async () => {
      const runtime = this.requireRuntime();
      const event = await command(runtime);
      this.sendResponse(response);
      if (event.pastEnd) {
        this.sendEvent(new ExitedEvent(runtime.ended?.exit.kind === 'normal' ? 0 : 1));
        this.sendEvent(new TerminatedEvent());
        return;
      }
      this.reportStop(event);
    });
  }

  private reportStop(event: StopEvent): void {
    this.view?.reset();
    // The targets offered were the calls of the line left.
    this.stepTargets.clear();
    // The end has no line of its own to show its value at: the output says it, where every client shows it.
    if (event.reason === 'end' && event.description) this.sendEvent(new OutputEvent(`ndb: ${event.description} (nothing ran). Continue ends the session; step back goes on.\n`, SHOWN));
    const stopped: DebugProtocol.StoppedEvent = new StoppedEvent(this.stopReason(event), THREAD_ID);
    // A state shown again from the timeline is not a new guess; say so where nothing else is said.
    const description = event.description ?? (event.replayed ? 'replayed: predicted before' : undefined);
    if (description) {
      stopped.body.description = description;
      stopped.body.text = description;
    }
    stopped.body.allThreadsStopped = true;
    const line = this.runtime?.current?.state.line;
    if (event.reason === 'breakpoint' && line !== undefined && !this.runtime?.ended) (stopped.body as DebugProtocol.StoppedEvent['body']).hitBreakpointIds = [line];
    // ndb's own field (clients ignore what they do not know): whether the stop was a
    // background guess, and the prediction's work, for tools that measure the adapter (bench/).
    (stopped.body as { ndb?: NdbStopInfo }).ndb = {
      ...(event.prefetched ? { prefetched: true } : {}),
      ...(event.replayed ? { replayed: true } : {}),
      ...(event.reason === 'end' ? { end: true } : {}),
      ...(event.stats ? { stats: event.stats } : {}),
    };
    this.sendEvent(stopped);
    this.sendStats(event);
  }

  /**
   * DAP has no reason for "the run ended here": the end shows at the last stop as a step
   * (its description says how it ended, the Debug Console has the value), or as an exception
   * when the run raised, so that VS Code shows the exception the way it would for a real run.
   */
  private stopReason(event: StopEvent): string {
    if (event.reason !== 'end') return event.reason;
    // A run predicted to end raising: an exception stop where the client breaks on uncaught ones (debugpy's default).
    const breaks = this.exceptionFilters.has('uncaught') || this.exceptionFilters.has('userUnhandled');
    return this.runtime?.ended?.exit.kind === 'error' && breaks ? 'exception' : 'step';
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    // Only a continue (or until) runs long enough to pause: it stops after the prediction in flight.
    this.runtime?.cancel();
    this.sendResponse(response);
  }

  protected override cancelRequest(response: DebugProtocol.CancelResponse): void {
    this.runtime?.cancel();
    this.sendResponse(response);
  }

  // ---- inspecting ------------------------------------------------------------------------

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    const frames = this.runtime?.frames() ?? [];
    const start = args.startFrame ?? 0;
    const shown = frames.slice(start, args.levels ? start + args.levels : undefined);
    response.body = {
      stackFrames: shown.map((f) => ({
        id: f.id + FRAME_ID_BASE,
        name: f.function,
        source: this.source(),
        line: this.convertDebuggerLineToClient(Math.max(1, f.line)),
        column: this.convertDebuggerColumnToClient(1),
      })),
      totalFrames: frames.length,
    };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    void this.handle(response, async () => {
      response.body = { scopes: this.requireView().scopes(this.frame(args.frameId)) };
      this.sendResponse(response);
    });
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    void this.handle(response, async () => {
      const view = this.requireView();
      // A handle from before the last stop points at nothing: an empty list, as DAP clients expect.
      const container = view.container(args.variablesReference);
      const variables = container ? view.variables(container) : [];
      response.body = { variables: args.format?.hex ? variables.map((v) => ({ ...v, value: hexInts(v.value) })) : variables };
      this.sendResponse(response);
    });
  }

  /** Hovers, watches and the Debug Console: an expression over the frame's (predicted) locals. */
  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    void this.handle(
      response,
      async () => {
        const frame = this.frame(args.frameId);
        if (!frame.locals) throw new RuntimeError(`the locals of ${frame.function} were not seen yet: step into it first`);
        const result = await evaluateExpression(args.expression, frame.locals);
        if (result.kind === 'error') throw new EvalError(result.message);
        // A hover on a local of the current stop says where its value came from, as the Variables view does.
        const name = args.expression.trim();
        const from = frame.id === 0 && Object.hasOwn(frame.locals, name) ? provenanceLabel(this.requireView().localProvenance(name)) : undefined;
        const type = [result.type, from].filter(Boolean).join(' · ');
        response.body = {
          result: args.format?.hex ? hexInts(result.repr) : result.repr,
          ...(type ? { type } : {}),
          variablesReference: this.requireView().expandable(parsePyValue(result.repr), args.expression),
        };
        this.sendResponse(response);
      },
      // A hover over text that is not an expression is routine: no notification for it.
      false,
    );
  }

  /** What-if: a new value for a local of the current stop; the next step is predicted from it. */
  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    void this.handle(response, async () => {
      const runtime = this.requireRuntime();
      const view = this.requireView();
      const stop = runtime.current;
      if (!stop || runtime.ended) throw new RuntimeError('the run has ended: step back to a state to change its variables');
      const container = view.container(args.variablesReference);
      if (container?.kind !== 'locals' || container.frame !== 0) {
        throw new RuntimeError("only the current frame's locals can be set, each as a whole (set the variable to a new list rather than one item)");
      }
      const repr = await valueRepr(args.value, stop.state.locals);
      await runtime.setVariable(args.name, repr);
      const parsed = parsePyValue(repr);
      const type = [typeName(parsed), provenanceLabel({ kind: 'edited' })].filter(Boolean).join(' · ');
      response.body = { value: repr, type, variablesReference: view.expandable(parsed, args.name) };
      this.sendResponse(response);
      // The scope's verify note and the other views may change with the edit.
      if (this.clientHandlesInvalidated) this.sendEvent(new InvalidatedEvent(['variables'], THREAD_ID));
    });
  }

  /** A watch that names a local of the current stop: set it, as setVariable does (what follows is predicted from it). */
  protected override setExpressionRequest(response: DebugProtocol.SetExpressionResponse, args: DebugProtocol.SetExpressionArguments): void {
    void this.handle(response, async () => {
      const runtime = this.requireRuntime();
      const stop = runtime.current;
      if (!stop || runtime.ended) throw new RuntimeError('the run has ended: step back to a state to change its variables');
      const frame = this.frame(args.frameId);
      const name = args.expression.trim();
      if (frame.id !== 0) throw new RuntimeError("only the current frame's locals can be set: pick the innermost frame");
      if (!/^[\p{ID_Start}_][\p{ID_Continue}]*$/u.test(name)) throw new RuntimeError(`only a watch that names a local can be set, not ${JSON.stringify(args.expression)} (set the whole variable to a new value)`);
      if (!Object.hasOwn(stop.state.locals, name)) throw new RuntimeError(`no variable '${name}' in ${frame.function} at this stop`);
      const repr = await valueRepr(args.value, stop.state.locals);
      await runtime.setVariable(name, repr);
      const parsed = parsePyValue(repr);
      const type = [typeName(parsed), provenanceLabel({ kind: 'edited' })].filter(Boolean).join(' · ');
      response.body = { value: repr, type, variablesReference: this.requireView().expandable(parsed, name) };
      this.sendResponse(response);
      if (this.clientHandlesInvalidated) this.sendEvent(new InvalidatedEvent(['variables'], THREAD_ID));
    });
  }

  /** The Debug Console's completions: the frame's predicted locals, the builtins the evaluator knows, and after a dot the attributes of the value. */
  protected override completionsRequest(response: DebugProtocol.CompletionsResponse, args: DebugProtocol.CompletionsArguments): void {
    void this.handle(response, async () => {
      const frame = this.frame(args.frameId);
      const column = this.convertClientColumnToDebugger(args.column);
      if (column < 1 || column > args.text.length + 1) throw new RuntimeError(`column ${args.column} is outside the text (${args.text.length} characters)`);
      const { items, start, length } = await completionItems(args.text.slice(0, column - 1), frame.locals ?? {});
      response.body = { targets: items.map((item) => ({ ...item, start: this.convertDebuggerColumnToClient(start + 1), length })) };
      this.sendResponse(response);
    });
  }

  /** At an exception stop, or at an end that raised: the exception's class and repr. */
  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse): void {
    void this.handle(response, async () => {
      const runtime = this.requireRuntime();
      const end = runtime.ended;
      const state = runtime.current?.state;
      let repr: string;
      let breakMode: DebugProtocol.ExceptionBreakMode;
      if (end?.exit.kind === 'error') [repr, breakMode] = [end.exit.value, 'unhandled'];
      else if (!end && state?.event === 'exception' && state.value !== undefined) [repr, breakMode] = [state.value, 'always'];
      else throw new RuntimeError('not stopped at an exception');
      const exceptionId = /^[A-Za-z_][\w.]*/.exec(repr)?.[0] ?? repr;
      const where = end ? 'the run ends raising it' : 'raised here';
      response.body = { exceptionId, description: `${repr} (predicted: ${where})`, breakMode, details: { message: repr, typeName: exceptionId } };
      this.sendResponse(response);
    });
  }

  // ---- ending ----------------------------------------------------------------------------

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.runtime?.cancel();
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    this.runtime?.cancel();
    this.sendResponse(response);
    this.shutdown();
  }

  /** Frees the models (a TCP server outlives its sessions), then lets the base class exit on stdio. */
  override shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    const loaded = [...this.predictors.values()];
    this.predictors.clear();
    // A background guess may be running on the model: it ends first.
    const idle = this.runtime?.close() ?? Promise.resolve();
    this.runtime?.removeAllListeners();
    for (const p of loaded) void idle.then(() => p).then((predictor) => predictor.release()).catch(() => undefined);
    this.options.onShutdown?.();
    super.shutdown();
  }

  // ---- plumbing --------------------------------------------------------------------------

  /**
   * Runs a request's work; any error becomes an error response with a message the user can
   * act on (never an exception out of the adapter).
   */
  private async handle(response: DebugProtocol.Response, work: () => Promise<void>, showUser = true): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (this.closed) return;
      if (!isUserError(err)) this.log(`ndb dap: internal error in ${response.command}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      // `variables: {}`: the message is shown as it is, even where it holds `{…}` (a dict's repr).
      this.sendErrorResponse(response, { id: isUserError(err) ? ERROR_USER : ERROR_INTERNAL, format: describeError(err), showUser, variables: {} });
    }
  }

  private async withProgress<T>(title: string, work: () => Promise<T>): Promise<T> {
    if (!this.clientShowsProgress) return work();
    const id = `ndb-${++this.progressCount}`;
    this.sendEvent(new ProgressStartEvent(id, title));
    try {
      return await work();
    } finally {
      this.sendEvent(new ProgressEndEvent(id));
    }
  }

  /** The runtime's progress (a long continue) as a cancellable progress bar. */
  private reportProgress(p: ProgressEvent): void {
    if (!this.clientShowsProgress) return;
    if (p.kind === 'start') {
      this.progressId = `ndb-${++this.progressCount}`;
      const start: DebugProtocol.ProgressStartEvent = new ProgressStartEvent(this.progressId, p.title, p.message);
      start.body.cancellable = true;
      if (p.percentage !== undefined) start.body.percentage = p.percentage;
      this.sendEvent(start);
    } else if (this.progressId && p.kind === 'update') {
      const update: DebugProtocol.ProgressUpdateEvent = new ProgressUpdateEvent(this.progressId, p.message);
      if (p.percentage !== undefined) update.body.percentage = p.percentage;
      this.sendEvent(update);
    } else if (this.progressId && p.kind === 'end') {
      this.sendEvent(new ProgressEndEvent(this.progressId, p.message));
      this.progressId = null;
    }
  }

  private frame(frameId: number | undefined): FrameView {
    const frames = this.requireRuntime().frames();
    if (frames.length === 0) throw new RuntimeError('there is no state to look at: the run ended before its first stop');
    const frame = frameId === undefined ? frames[0] : frames.find((f) => f.id === frameId - FRAME_ID_BASE);
    if (!frame) throw new RuntimeError('that frame is gone: the program has moved since');
    return frame;
  }

  private source(): Source {
    const program = this.program!;
    return new Source(basename(program), this.convertDebuggerPathToClient(program));
  }

  private requireRuntime(): NeuralRuntime {
    if (!this.runtime) throw new RuntimeError('no program is launched yet');
    return this.runtime;
  }

  private requireView(): VariablesView {
    this.requireRuntime();
    return this.view!;
  }

  // ---- ndb's own requests and events (the VS Code extension, extension/) -------------------

  /** `ndb/stats` after each stop: the model, the device, and how long the stop's prediction took (null: replayed or known). */
  private sendStats(event: StopEvent): void {
    const m = this.launchedModel;
    // Only to clients that asked: others log each unknown event ("No message handler for ndb/stats").
    if (!m || !this.clientWantsNdbEvents) return;
    const body: StatsEventBody = { model: m.label, device: m.device, milliseconds: event.stats?.milliseconds ?? null, ...(event.prefetched ? { prefetched: true } : {}), ...(event.replayed ? { replayed: true } : {}) };
    this.sendEvent(new Event(STATS_EVENT, body));
  }

  /**
   * ndb's requests (protocol/dap.ts): `ndb/predictInputs` {value}: the entry's arguments for
   * a return value (a Python expression); `ndb/resample`: predict the current stop again;
   * `ndb/trace`: the timeline.
   */
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    const a = (args ?? {}) as Partial<Record<keyof PredictInputsArguments, unknown>>;
    switch (command) {
      case PREDICT_INPUTS_REQUEST:
        return void this.handle(response, async () => {
          if (typeof a.value !== 'string' || a.value.trim() === '') throw new RuntimeError(`${PREDICT_INPUTS_REQUEST} needs a value: the return value, as a Python expression`);
          const runtime = this.requireRuntime();
          const repr = await valueRepr(a.value, {});
          response.body = await predictInputs(runtime, repr, await this.frameCompleter(), typeof a.candidates === 'number' ? a.candidates : undefined);
          this.sendResponse(response);
        });
      case RESAMPLE_REQUEST:
        return this.step(response, (rt) => rt.resample());
      case 'modules':
        return this.modulesRequest(response as DebugProtocol.ModulesResponse);
      case TRACE_REQUEST:
        return void this.handle(response, async () => {
          response.body = predictedTrace(this.requireRuntime());
          this.sendResponse(response);
        });
      default:
        super.customRequest(command, response, args);
    }
  }

  /** The model's completion of a given frame start (the return state's locals), on a loaded NeuralPredictor. */
  private async frameCompleter(): Promise<FrameCompleter | undefined> {
    const m = this.launchedModel;
    const predictor = await m?.predictor.catch(() => null);
    if (!m || !(predictor instanceof NeuralPredictor)) return undefined;
    let decoder = this.frameDecoders.get(predictor);
    if (!decoder) this.frameDecoders.set(predictor, (decoder = PartialFrameDecoder.load(predictor, m.dir)));
    return await decoder;
  }
}

function parseLaunchArgs(raw: unknown): LaunchArgs {
  const parsed = LaunchArgsSchema.safeParse(raw);
  if (parsed.success) {
    // Relative paths are the launch configuration's cwd's (as debugpy reads them).
    const cwd = resolve(parsed.data.cwd ?? '.');
    const { program, model } = parsed.data;
    return { ...parsed.data, program: resolve(cwd, program), ...(model === undefined ? {} : { model: resolve(cwd, model) }) };
  }
  const problems = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  throw new LaunchArgsError(`launch configuration: ${problems.join('; ')}`);
}

function launchOptions(program: string, a: LaunchArgs): LaunchOptions {
  const { entry, args, inferArgs, samples, temperature, stopOnEntry, verify, maxSteps, prefetch } = a;
  return { program, entry, args, inferArgs, samples, temperature, stopOnEntry, verify, maxSteps, prefetch };
}

/** An exception's class name from its repr (`ValueError(3)` → `ValueError`, `mod.Error('x')` → `Error`). */
function exceptionName(repr: string): string {
  const dotted = /^[A-Za-z_][\w.]*/.exec(repr)?.[0] ?? repr;
  return dotted.slice(dotted.lastIndexOf('.') + 1);
}

/** exceptionOptions as the exception classes to always stop at and never stop at (the last name of each path). */
function exceptionClasses(options: readonly DebugProtocol.ExceptionOptions[]): { always: Set<string>; never: Set<string> } {
  const always = new Set<string>();
  const never = new Set<string>();
  for (const option of options) {
    const names = option.path?.at(-1)?.names ?? [];
    // The path's first segment is the category ("Python Exceptions"); a path of one segment names none in particular.
    if ((option.path?.length ?? 0) < 2) continue;
    for (const name of names) {
      const bare = name.slice(name.lastIndexOf('.') + 1);
      if (option.breakMode === 'never') never.add(bare);
      else if (option.breakMode === 'always') always.add(bare);
    }
  }
  return { always, never };
}

/** Debugpy's hex value format: every int literal of a repr in hexadecimal (`[10, 'a']` → `[0xa, 'a']`), strings left alone. */
export function hexInts(repr: string): string {
  return repr.replace(/('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(?<![\w.])(-?)(\d+)(?![\w.])/g, (all, str: string | undefined, sign: string, digits: string) => (str !== undefined ? all : `${sign}0x${BigInt(digits).toString(16)}`));
}

/** A data breakpoint's id (dataBreakpointInfo's dataId) as what it watches, or null. */
function parseDataId(dataId: string): DataWatchSpec | null {
  try {
    const v = JSON.parse(dataId) as unknown;
    if (typeof v !== 'object' || v === null) return null;
    const { name, frame } = v as Record<string, unknown>;
    if (typeof name !== 'string' || !Array.isArray(frame) || frame.length === 0 || !frame.every((f) => typeof f === 'string')) return null;
    return { name, frame: frame as string[] };
  } catch {
    return null;
  }
}

/** One message for the user, saying what to do where there is something to do. */
export function describeError(err: unknown): string {
  if (err instanceof ContextOverflowError) {
    return `the program and the states so far do not fit the model's context (it holds ${err.limit} tokens; this needs ${err.needed}): debug a shorter program, or one function of it`;
  }
  if (err instanceof FrameBudgetError) return `the model did not write a whole state: ${err.message}. Try again with samples > 1, or step differently`;
  if (isUserError(err)) return (err as Error).message;
  return `ndb internal error: ${err instanceof Error ? err.message : String(err)} (please report it)`;
}

/** An error of the user's input or setting (or the model's), as opposed to a bug in ndb. */
function isUserError(err: unknown): boolean {
  return USER_ERRORS.some((E) => err instanceof E) || err instanceof ContextOverflowError || err instanceof FrameBudgetError;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/** The token compared in constant time. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
