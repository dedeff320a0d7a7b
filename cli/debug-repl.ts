/**
 * `ndb debug`: an interactive pdb look-alike on the neural runtime (adapter/runtime.ts). The
 * program never runs (except with --verify, beside the prediction): every state shown is the
 * model's, and each stop says so, with how sure the model was.
 *
 * The REPL reads commands line by line from any Readable and writes to any Writable, so a
 * session can be scripted through a pipe (as the tests do) exactly like `python -m pdb <
 * commands`: the prompt is printed before each command, the command itself is not echoed.
 * Commands take pdb's spellings and abbreviations; an empty line repeats the last command.
 * Errors of a command print one `*** ...` line, as pdb's do, and the session goes on.
 */
import { resolve } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { EntryError } from '../program-analysis/entry-state.js';
import { ModelFolderError } from '../model-client/model-folder.js';
import { ContextOverflowError } from '../model-client/onnx-session.js';
import { evaluateExpression, EvalError, valueRepr } from '../adapter/evaluate.js';
import { completionItems } from '../adapter/navigation.js';
import { loadPredictor, ModelNotFoundError } from '../adapter/load-predictor.js';
import { functionAt } from '../program-analysis/program-info.js';
import { type BreakpointSpec, expressionLocals, type FrameView, type LaunchOptions, NeuralRuntime, RuntimeError, type StopEvent } from '../adapter/runtime.js';
import type { Stop } from '../adapter/timeline.js';
import { TraceFailure } from '../adapter/verifier.js';
import { MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { defineCommand, type FlagSpecs, type Parsed } from './command-line.js';
import { applyVerification, endLine, localsLines, localViews, prettyRepr, sourceLines, stopLines, whereLines } from './debug-format.js';

const DEBUG_FLAGS = {
  entry: { type: 'string', value: 'NAME', description: "the function to debug (default: the module's top level)" },
  args: { type: 'string', value: 'LITERALS', description: "its arguments as Python literals, e.g. \"'berry', 'r'\" (a value may start with -: --args -1)" },
  'infer-args': { type: 'boolean', description: 'let the model propose the arguments instead' },
  model: { type: 'string', value: 'DIR', description: 'a model folder (default: the embedded model)' },
  device: { type: 'string', value: 'cpu|cuda', description: 'where the model runs (default cpu; cuda falls back to it with a warning)' },
  precision: { type: 'string', value: 'fp32|int8', description: "the model's weights (default fp32)" },
  rules: { type: 'string', value: 'all|none|LIST', description: "the symbolic stepper's rules (default all; none: every value the model's; or a comma-separated list of families, see docs/symbolic-stepper.md)" },
  samples: { type: 'string', value: 'N', description: 'frames sampled per prediction, the winner by vote (default 1: greedy)' },
  temperature: { type: 'string', value: 'T', description: 'sampling temperature with several samples' },
  verify: { type: 'boolean', description: 'also run the program once under the real tracer and flag what differs (this runs it)' },
} satisfies FlagSpecs;

export const DEBUG_COMMAND = defineCommand({
  name: 'debug',
  args: '<FILE>',
  summary: "debug FILE with pdb's commands, every state predicted",
  description: `Debug FILE interactively with pdb's commands (help lists them: s, n, r, c, unt, j N, b N[, COND],
tbreak, condition, ignore, display, w, u, d, a, retval, back, rc, p EXPR, locals,
set NAME = VALUE, q, …); the model predicts every state and the program
never runs (--verify runs it once, to flag what the model got wrong). A piped stdin runs a
scripted session.`,
  flags: DEBUG_FLAGS,
  run: debugCommand,
});

const PROMPT = '(ndb) ';

/** Errors whose message is for the user as it stands: bad input, not a bug of ndb. */
const USER_ERRORS = [RuntimeError, EntryError, EvalError, ContextOverflowError, ModelNotFoundError, ModelFolderError, TraceFailure];

function isUserError(err: unknown): err is Error {
  return USER_ERRORS.some((cls) => err instanceof cls);
}

/** The message for a failure the session cannot start after (ndb: error: …). */
function launchMessage(err: Error): string {
  if (err instanceof ContextOverflowError) return `the program is too long for the model: ${err.message}`;
  return err.message;
}

// ---- the command line ----------------------------------------------------------------------

function positiveNumber(value: string | undefined, name: string, integer: boolean, fail: (m: string) => Error): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw fail(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** `ndb debug …`: checks the flags, opens the model, launches, and hands stdin to the REPL. */
export async function debugCommand({ values, positionals }: Parsed<typeof DEBUG_FLAGS>, fail: (message: string) => Error): Promise<void> {
  const file = positionals[0];
  if (!file || positionals.length > 1) throw fail("usage: ndb debug FILE [--entry NAME (--args 'LITERALS' | --infer-args)] [--model DIR] [--verify]");
  if (values.args !== undefined && values['infer-args']) throw fail('give either --args or --infer-args, not both');
  if ((values.args !== undefined || values['infer-args']) && values.entry === undefined) throw fail('--args and --infer-args need --entry (the function to call)');
  if (values.entry !== undefined && values.args === undefined && !values['infer-args']) {
    throw fail(`--entry ${values.entry} needs its arguments: --args 'PYTHON LITERALS', or --infer-args to let the model propose them`);
  }
  const samples = positiveNumber(values.samples, 'samples', true, fail);
  const temperature = positiveNumber(values.temperature, 'temperature', false, fail);
  const launch: LaunchOptions = {
    program: file,
    ...(values.entry === undefined ? {} : { entry: values.entry }),
    ...(values.args === undefined ? {} : { args: values.args }),
    ...(values['infer-args'] ? { inferArgs: true } : {}),
    ...(samples === undefined ? {} : { samples }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(values.verify ? { verify: true } : {}),
  };
  const predictor = await userErrors(fail, () =>
    loadPredictor({ ...(values.model ? { model: values.model } : {}), ...(values.device ? { device: values.device } : {}), ...(values.precision ? { precision: values.precision } : {}), ...(values.rules ? { rules: values.rules } : {}), onWarning: (m) => process.stderr.write(`ndb: warning: ${m.replace(/^ndb: /, '')}\n`) }),
  );
  const runtime = new NeuralRuntime(predictor);
  try {
    const repl = new DebugRepl(runtime, { input: process.stdin, output: process.stdout });
    await userErrors(fail, () => repl.launch(launch));
    await repl.run();
  } finally {
    // The model's session holds native resources: free them so that the process can end
    // (once a background guess still running on it is done).
    await runtime.close();
    await predictor.release();
  }
}

/** Runs `fn`; a user error (bad program, arguments, model folder) becomes `fail`'s one-line error. */
async function userErrors<T>(fail: (message: string) => Error, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw isUserError(err) ? fail(launchMessage(err)) : err;
  }
}

// ---- the REPL --------------------------------------------------------------------------------

export interface DebugReplStreams {
  input: Readable;
  output: Writable;
}

interface Command {
  names: readonly string[];
  /** pdb's way of showing the abbreviation: `s(tep)`, `unt(il) [lineno]`. */
  usage: string;
  help: string;
  run: (arg: string) => Promise<void> | void;
}

/** A user error of a command: printed as `*** message`. */
class CommandError extends Error {}

export class DebugRepl {
  private readonly commands: Command[];
  private launchOptions: LaunchOptions | null = null;
  private path = '';
  /** Runtime notes (verify findings, …) gathered during a command, printed after its stop. */
  private notes: string[] = [];
  /** pdb numbers breakpoints; the runtime knows only lines. */
  private readonly breakpointNumbers = new Map<number, number>();
  private nextBreakpoint = 1;
  /** pdb's `list` goes on where the last one stopped, until the next stop. */
  private listedTo: number | null = null;
  private lastCommand = '';
  private quitting = false;
  private busy = false;
  private endHintShown = false;
  /** The frame `u` and `d` selected (0: the innermost); back to 0 at every stop. */
  private selectedFrame = 0;
  /** pdb's display: per frame (its stack of functions), each expression with its last value. */
  private readonly displays = new Map<string, Map<string, string>>();

  constructor(
    readonly runtime: NeuralRuntime,
    private readonly io: DebugReplStreams,
  ) {
    this.commands = this.commandTable();
    runtime.on('output', (text: string) => this.notes.push(text.replace(/\n$/, '')));
  }

  private say(...lines: string[]): void {
    if (lines.length) this.io.output.write(lines.join('\n') + '\n');
  }

  /** Launches the program and shows the first stop; throws what makes the launch fail. */
  async launch(opts: LaunchOptions): Promise<void> {
    this.launchOptions = opts;
    this.path = resolve(opts.program);
    const event = await this.runtime.launch(opts);
    const verify = opts.verify ? '; --verify runs it once beside the model, to flag what differs' : '; the program is not run';
    this.say(`ndb: the model predicts every state${verify}. Type help for the commands.`);
    this.flushNotes(); // verify's line: the program runs for real, and what contains it
    this.showStop(event);
  }

  /** Reads commands until quit or the end of the input. */
  async run(): Promise<void> {
    const { input, output } = this.io;
    const terminal = Boolean((input as { isTTY?: boolean }).isTTY && (output as { isTTY?: boolean }).isTTY);
    const completer = (line: string, callback: (err: null, result: [string[], string]) => void) =>
      void this.complete(line).then(
        (result) => callback(null, result),
        () => callback(null, [[], line]),
      );
    const rl = createInterface({ input, output, terminal, prompt: PROMPT, ...(terminal ? { completer } : {}) });
    rl.on('SIGINT', () => this.interrupt(rl));
    try {
      rl.prompt();
      for await (const line of rl) {
        await this.execute(line);
        if (this.quitting) break;
        rl.prompt();
      }
      // At the end of the input pdb ends the prompt's line, as if the user had pressed Enter.
      if (!this.quitting) output.write('\n');
    } finally {
      rl.close();
    }
  }

  /**
   * Tab completion, as pdb's: a command's name at the start of the line; after it, the
   * predicted names of the selected frame, the builtins, and after `expr.` the attributes of
   * the value (adapter/navigation.ts). The completions and the word they replace.
   */
  async complete(line: string): Promise<[string[], string]> {
    const m = /^\s*(\S*)$/.exec(line);
    if (m) {
      const word = m[1]!;
      return [this.commands.flatMap((c) => c.names).filter((n) => n.startsWith(word)).sort(), word];
    }
    let locals: Record<string, string> = {};
    try {
      locals = this.selectedLocals();
    } catch {
      // No state (or a caller not seen yet): the builtins only.
    }
    const { items, length } = await completionItems(line, locals);
    return [items.map((i) => i.label), line.slice(line.length - length)];
  }

  /** Ctrl-C: stops a running continue or until; at the prompt, a fresh prompt, as pdb. */
  private interrupt(rl: Interface): void {
    if (this.busy) {
      this.runtime.cancel();
      return;
    }
    this.say('', '--KeyboardInterrupt--');
    rl.prompt();
  }

  /** One command line; an empty one repeats the last command. */
  async execute(line: string): Promise<void> {
    let text = line.trim();
    if (text === '') text = this.lastCommand;
    if (text === '') return;
    this.lastCommand = text;
    const [name, arg] = splitCommand(text);
    const command = this.commands.find((c) => c.names.includes(name));
    this.busy = true;
    try {
      if (!command) throw new CommandError(`unknown command ${JSON.stringify(name)}: help lists the commands (p EXPRESSION prints a value)`);
      await command.run(arg);
      const displays = this.pendingDisplays;
      this.pendingDisplays = null;
      await displays;
    } catch (err) {
      this.say(`*** ${errorMessage(err)}`);
    } finally {
      this.busy = false;
      this.flushNotes();
    }
  }

  private flushNotes(): void {
    const notes = this.notes;
    this.notes = [];
    this.say(...notes);
  }

  // ---- stops ---------------------------------------------------------------------------------

  /** Runs a runtime command that moves, and prints where it stopped (and what a temporary breakpoint hit deleted, as pdb). */
  private async move(command: () => Promise<StopEvent>): Promise<void> {
    const event = await command();
    const kept = new Set(this.runtime.breakpoints);
    const deleted = [...this.breakpointNumbers].filter(([line]) => !kept.has(line));
    for (const [line, n] of deleted) this.say(`Deleted breakpoint ${n} at ${this.path}:${line}`);
    this.showStop(event);
    for (const [line] of deleted) this.breakpointNumbers.delete(line);
  }

  private showStop(event: StopEvent): void {
    this.listedTo = null;
    this.selectedFrame = 0;
    if (event.reason === 'end') {
      this.say(endLine(this.runtime.ended, this.launchOptions?.entry));
      if (!this.endHintShown) this.say('   (back or rc to step back into the run, restart to predict it again, q to quit)');
      this.endHintShown = true;
      this.flushNotes();
      return;
    }
    const stop = this.runtime.current;
    if (!stop) return;
    const source = event.replayed ? 'replayed' : 'new';
    this.say(...stopLines(this.path, this.runtime.programLines, stop, source, this.stopNote(event, stop)));
    this.flushNotes();
    this.pendingDisplays = this.showDisplays(stop);
  }

  /** Set by a stop: the displays to print once evaluated (pdb prints them before the prompt). */
  private pendingDisplays: Promise<void> | null = null;

  /** pdb's display at a stop: each expression of the frame whose value changed, with the old one. */
  private async showDisplays(stop: Stop): Promise<void> {
    const shown = this.displays.get(frameKey(stop.state.stack));
    if (!shown) return;
    for (const [expression, old] of shown) {
      const now = await this.displayValue(expression, expressionLocals(stop.state));
      if (now !== old) {
        shown.set(expression, now);
        this.say(`display ${expression}: ${now}  [old: ${old}]`);
      }
    }
  }

  private async displayValue(expression: string, locals: Record<string, string>): Promise<string> {
    const r = await evaluateExpression(expression, locals);
    return r.kind === 'error' ? `** raised ${r.message} **` : r.repr;
  }

  private stopNote(event: StopEvent, stop: Stop): string | undefined {
    if (event.reason === 'breakpoint') {
      const n = this.breakpointNumbers.get(stop.state.line);
      return [n === undefined ? undefined : `breakpoint ${n}`, event.description].filter(Boolean).join('; ') || undefined;
    }
    if (event.reason === 'exception') return undefined;
    return event.description;
  }

  private requireStop(): Stop {
    const stop = this.runtime.current;
    if (!stop) throw new CommandError('no state to look at: the run ended before its first line');
    return stop;
  }

  // ---- the commands ----------------------------------------------------------------------------

  private commandTable(): Command[] {
    const rt = this.runtime;
    return [
      { names: ['s', 'step'], usage: 's(tep)', help: 'Step into: the next state, inside a call if the line makes one.', run: () => this.move(() => rt.stepIn()) },
      { names: ['n', 'next'], usage: 'n(ext)', help: 'Step over: the next line of this function (or its return).', run: () => this.move(() => rt.stepOver()) },
      { names: ['r', 'return'], usage: 'r(eturn)', help: 'Step out: to the return of the current function.', run: () => this.move(() => rt.stepOut()) },
      { names: ['c', 'cont', 'continue'], usage: 'c(ont(inue))', help: 'Continue to the next breakpoint, or to the predicted end of the run.', run: () => this.move(() => rt.continue()) },
      { names: ['unt', 'until'], usage: 'unt(il) [lineno]', help: 'Without a line: continue to a line after the current one (leaves a loop). With one: continue to a line at or after it, or until the frame returns.', run: (arg) => this.until(arg) },
      { names: ['back'], usage: 'back', help: 'Reverse step: the state before this one (the model infers it before the first one seen).', run: () => this.move(() => rt.stepBack()) },
      { names: ['rc'], usage: 'rc', help: 'Reverse continue: back to the last earlier stop on a breakpoint, or to the start.', run: () => this.move(() => rt.reverseContinue()) },
      { names: ['b', 'break'], usage: 'b(reak) [lineno | function] [, condition]', help: 'Set a breakpoint on a line (or the first line of a function), stopping only where the condition holds on the predicted locals; without an argument, list the breakpoints.', run: (arg) => this.breakCommand(arg, false) },
      { names: ['tbreak'], usage: 'tbreak [lineno | function] [, condition]', help: 'A temporary breakpoint: removed once it stops.', run: (arg) => this.breakCommand(arg, true) },
      { names: ['condition'], usage: 'condition bpnumber [condition]', help: 'Set the breakpoint\'s condition (a Python expression over the predicted locals); without one, it stops every time.', run: (arg) => this.conditionCommand(arg) },
      { names: ['ignore'], usage: 'ignore bpnumber [count]', help: 'Pass the breakpoint the next count times it is reached (where its condition holds); 0: stop next time.', run: (arg) => this.ignoreCommand(arg) },
      { names: ['j', 'jump'], usage: 'j(ump) lineno', help: 'Go on from another line of the current function, the values kept: what follows is predicted from there.', run: (arg) => this.jump(arg) },
      { names: ['display'], usage: 'display [expression]', help: "Show the expression's value at each stop in this frame where it changed; without one, list the displays.", run: (arg) => this.display(arg) },
      { names: ['undisplay'], usage: 'undisplay [expression]', help: 'Stop displaying the expression in this frame; without one, all of them.', run: (arg) => this.undisplay(arg) },
      { names: ['u', 'up'], usage: 'u(p) [count]', help: 'Select an older frame (its locals as last seen) for p, a, locals and where.', run: (arg) => this.upDown(arg, 1) },
      { names: ['d', 'down'], usage: 'd(own) [count]', help: 'Select a newer frame.', run: (arg) => this.upDown(arg, -1) },
      { names: ['cl', 'clear'], usage: 'cl(ear) [bpnumber | lineno ...]', help: 'Clear breakpoints by number (as pdb) or by line; without an argument, all of them.', run: (arg) => this.clearCommand(arg) },
      { names: ['p'], usage: 'p expression', help: "Print an expression's value over the predicted locals (literals only; nothing of the program runs).", run: (arg) => this.print(arg, false) },
      { names: ['pp'], usage: 'pp expression', help: "Pretty-print an expression's value, one item per line when it is long.", run: (arg) => this.print(arg, true) },
      { names: ['l', 'list'], usage: 'l(ist) [first[, last] | .]', help: 'List 11 lines around the current line, or go on where the last list stopped.', run: (arg) => this.list(arg) },
      { names: ['ll', 'longlist'], usage: 'll | longlist', help: 'List the whole current function.', run: () => this.longlist() },
      { names: ['w', 'where', 'bt'], usage: 'w(here)', help: 'Print the stack, the innermost frame last.', run: () => this.where() },
      { names: ['a', 'args'], usage: 'a(rgs)', help: "Print the current function's arguments.", run: () => this.args() },
      { names: ['rv', 'retval'], usage: 'retval', help: 'Print the return value at a --Return-- stop.', run: () => this.retval() },
      { names: ['locals'], usage: 'locals', help: 'Print the predicted locals with the confidence of each (in verify mode, the real value where it differs).', run: () => this.locals() },
      { names: ['set'], usage: 'set name = value', help: 'What if: give a local another value; what follows is predicted from it.', run: (arg) => this.set(arg) },
      { names: ['resample'], usage: 'resample', help: 'Predict the current state again, sampling another answer (at an inferred start: other arguments).', run: () => this.move(() => rt.resample()) },
      { names: ['restart', 'run'], usage: 'restart', help: 'Predict the run again from the start; breakpoints are kept.', run: () => this.restart() },
      { names: ['q', 'quit', 'exit'], usage: 'q(uit)', help: 'Quit the debugger.', run: () => void (this.quitting = true) },
      { names: ['h', 'help'], usage: 'h(elp) [command]', help: 'List the commands, or describe one.', run: (arg) => this.helpCommand(arg) },
    ];
  }

  private async until(arg: string): Promise<void> {
    if (arg === '') return this.move(() => this.runtime.until());
    const line = lineNumber(arg);
    const stop = this.runtime.current;
    if (stop && !this.runtime.ended && line <= stop.state.line) throw new CommandError('"until" line number is smaller than current line number');
    return this.move(() => this.runtime.until(line));
  }

  // ---- breakpoints ---------------------------------------------------------------------------

  private async breakCommand(arg: string, temporary: boolean): Promise<void> {
    if (arg === '') return this.listBreakpoints();
    const comma = arg.indexOf(',');
    const where = (comma < 0 ? arg : arg.slice(0, comma)).trim();
    const condition = comma < 0 ? '' : arg.slice(comma + 1).trim();
    const line = this.breakpointLine(where);
    const spec: BreakpointSpec = { line, ...(condition ? { condition } : {}), ...(temporary ? { temporary: true } : {}) };
    const before = this.runtime.breakpointSpecs.find((s) => s.line === line);
    const views = await this.updateBreakpoints((specs) => [...specs.filter((s) => s.line !== line), spec]);
    const view = views.find((v) => v.line === line)!;
    if (!view.verified) {
      // Back as it was: a refused breakpoint leaves the one that was on the line, if any.
      if (before) {
        const { hits: _hits, ...kept } = before;
        await this.updateBreakpoints((specs) => [...specs, kept]);
      }
      throw new CommandError(view.message ?? `line ${line} cannot hold a breakpoint`);
    }
    let n = this.breakpointNumbers.get(line);
    if (n === undefined) this.breakpointNumbers.set(line, (n = this.nextBreakpoint++));
    this.say(`Breakpoint ${n} at ${this.path}:${line}`);
  }

  /** Replaces the runtime's breakpoints with `change` of them (hit counts kept). */
  private updateBreakpoints(change: (specs: BreakpointSpec[]) => BreakpointSpec[]) {
    const specs = this.runtime.breakpointSpecs.map(({ hits: _hits, ...spec }) => spec);
    return this.runtime.setBreakpoints(change(specs));
  }

  /** The breakpoint pdb's number names: its line and spec. */
  private numbered(word: string): BreakpointSpec & { hits: number; number: number } {
    const n = /^\d+$/.test(word) ? Number(word) : NaN;
    if (Number.isNaN(n)) throw new CommandError(`Non-numeric breakpoint number ${word}`);
    const line = [...this.breakpointNumbers].find(([, number]) => number === n)?.[0];
    const spec = this.runtime.breakpointSpecs.find((s) => s.line === line);
    if (line === undefined || !spec) throw new CommandError(`Breakpoint number ${n} out of range`);
    return { ...spec, number: n };
  }

  private async conditionCommand(arg: string): Promise<void> {
    const [word = '', ...rest] = arg.split(/\s+/);
    if (word === '') throw new CommandError('usage: condition BPNUMBER [CONDITION]');
    const bp = this.numbered(word);
    const condition = rest.join(' ').trim();
    const views = await this.updateBreakpoints((specs) =>
      specs.map((s) => {
        if (s.line !== bp.line) return s;
        const { condition: _old, ...others } = s;
        return condition ? { ...others, condition } : others;
      }),
    );
    const view = views.find((v) => v.line === bp.line)!;
    if (!view.verified) {
      // The old condition stays.
      await this.updateBreakpoints((specs) => [...specs.filter((s) => s.line !== bp.line), { line: bp.line, ...(bp.condition ? { condition: bp.condition } : {}), ...(bp.temporary ? { temporary: true } : {}), ...(bp.ignoreCount ? { ignoreCount: bp.ignoreCount } : {}) }]);
      throw new CommandError(view.message ?? 'the condition was refused');
    }
    this.say(condition ? `New condition set for breakpoint ${bp.number}.` : `Breakpoint ${bp.number} is now unconditional.`);
  }

  private async ignoreCommand(arg: string): Promise<void> {
    const [word = '', countText = '0', ...extra] = arg.split(/\s+/);
    if (word === '' || extra.length > 0) throw new CommandError('usage: ignore BPNUMBER [COUNT]');
    const bp = this.numbered(word);
    if (!/^\d+$/.test(countText)) throw new CommandError(`Error in argument: ${JSON.stringify(countText)} is not a count`);
    const count = Number(countText);
    await this.updateBreakpoints((specs) => specs.map((s) => (s.line === bp.line ? { ...s, ignoreCount: count } : s)));
    if (count > 0) this.say(`Will ignore next ${count === 1 ? '1 crossing' : `${count} crossings`} of breakpoint ${bp.number}.`);
    else this.say(`Will stop next time breakpoint ${bp.number} is reached.`);
  }

  /** `12`, `file.py:12` (the program being debugged), or a function's name. */
  private breakpointLine(arg: string): number {
    const colon = arg.lastIndexOf(':');
    if (colon > 0) {
      const file = arg.slice(0, colon).trim();
      if (resolve(file) !== this.path && !this.path.endsWith('/' + file)) throw new CommandError(`ndb debugs one file, ${this.path}: ${file} is not it`);
      return lineNumber(arg.slice(colon + 1));
    }
    if (/^\d+$/.test(arg)) return Number(arg);
    const info = this.runtime.program;
    const fn = info?.kind === 'ok' ? info.functions.find((f) => f.name === arg || f.qualname === arg) : undefined;
    if (!fn || info?.kind !== 'ok') throw new CommandError(`${JSON.stringify(arg)} is neither a line number nor a function of the program`);
    // pdb stops in a function at its first line of code, after the `def`.
    const first = info.executableLines.find((l) => l > fn.line && l <= fn.endLine);
    if (first === undefined) throw new CommandError(`function ${arg} has no line a breakpoint can stop on`);
    return first;
  }

  /** pdb's table: `Num Type         Disp Enb   Where`. */
  private listBreakpoints(): void {
    // In pdb's order: by number.
    const number = (line: number) => this.breakpointNumbers.get(line) ?? Infinity;
    const specs = this.runtime.breakpointSpecs.sort((a, b) => number(a.line) - number(b.line));
    if (specs.length === 0) return this.say('No breakpoints.');
    const rows = specs.flatMap((b) => [
      `${String(this.breakpointNumbers.get(b.line) ?? '?').padEnd(4)}breakpoint   ${b.temporary ? 'del ' : 'keep'} yes   at ${this.path}:${b.line}`,
      ...(b.condition ? [`\tstop only if ${b.condition}`] : []),
      ...(b.ignoreCount ? [`\tignore next ${b.ignoreCount} hits`] : []),
      ...(b.hits ? [`\tbreakpoint already hit ${b.hits} time${b.hits === 1 ? '' : 's'}`] : []),
    ]);
    this.say('Num Type         Disp Enb   Where', ...rows);
  }

  /** `clear N` names a breakpoint number as in pdb; a line with a breakpoint works too. */
  private async clearCommand(arg: string): Promise<void> {
    const current = this.runtime.breakpoints;
    let remove: number[];
    if (arg === '') {
      remove = current;
    } else {
      remove = arg.split(/[\s,]+/).map((word) => {
        const n = lineNumber(word.includes(':') ? word.slice(word.lastIndexOf(':') + 1) : word);
        const byNumber = [...this.breakpointNumbers].find(([, number]) => number === n)?.[0];
        const line = word.includes(':') ? n : (byNumber ?? n);
        if (!current.includes(line)) throw new CommandError(`No breakpoint numbered ${n} (nor one on line ${n})`);
        return line;
      });
    }
    await this.updateBreakpoints((specs) => specs.filter((s) => !remove.includes(s.line)));
    for (const line of remove) {
      this.say(`Deleted breakpoint ${this.breakpointNumbers.get(line)} at ${this.path}:${line}`);
      this.breakpointNumbers.delete(line);
    }
  }

  // ---- looking at the state --------------------------------------------------------------------

  /** The locals an expression sees: the stop's, plus pdb's `__return__` at a return. */
  private evaluationLocals(stop: Stop): Record<string, string> {
    return expressionLocals(stop.state);
  }

  /** The frame `u`/`d` selected. */
  private frameSelected(): FrameView {
    this.requireStop();
    const frames = this.runtime.frames();
    return frames[Math.min(this.selectedFrame, frames.length - 1)]!;
  }

  /** The locals an expression sees in the selected frame (a caller's as last seen). */
  private selectedLocals(): Record<string, string> {
    const stop = this.requireStop();
    if (this.selectedFrame === 0) return this.evaluationLocals(stop);
    const frame = this.frameSelected();
    if (!frame.locals) throw new CommandError(`the locals of ${frame.function} were not seen yet in this run (step back into it, or d to the newer frame)`);
    const locals = { ...frame.locals };
    delete locals[MORE_LOCALS_KEY];
    return locals;
  }

  private async print(arg: string, pretty: boolean): Promise<void> {
    if (arg === '') throw new CommandError(`usage: ${pretty ? 'pp' : 'p'} EXPRESSION`);
    const result = await evaluateExpression(arg, this.selectedLocals());
    if (result.kind === 'error') throw new CommandError(result.message);
    this.say(pretty ? prettyRepr(result.repr) : result.repr);
  }

  /** The program's lines as linecache has them: no empty line after the final newline. */
  private fileLines(): readonly string[] {
    const lines = this.runtime.programLines;
    return lines.at(-1) === '' ? lines.slice(0, -1) : lines;
  }

  /** pdb's list: `l` goes on, `l .` re-centres, `l N` centres on N, `l A, B` a range (B < A: a count). */
  private list(arg: string): void {
    const current = this.requireStop().state.line;
    let first: number;
    let last: number | undefined;
    if (arg !== '' && arg !== '.') {
      const [a, b] = arg.split(',').map((x) => lineNumber(x));
      if (b === undefined) {
        first = Math.max(1, a! - 5);
      } else {
        first = a!;
        last = b < a! ? a! + b : b;
      }
    } else if (this.listedTo === null || arg === '.') {
      first = Math.max(1, current - 5);
    } else {
      first = this.listedTo + 1;
    }
    last ??= first + 10;
    const lines = this.fileLines();
    this.say(...sourceLines(lines, first, last, current, new Set(this.runtime.breakpoints)));
    this.listedTo = Math.min(last, lines.length);
    if (lines.length < last) this.say('[EOF]');
  }

  private longlist(): void {
    const state = this.requireStop().state;
    const lines = this.fileLines();
    const info = this.runtime.program;
    const inFunction = state.stack.at(-1)!.function !== '<module>';
    const fn = inFunction && info ? functionAt(info, state.line) : undefined;
    const [first, last] = fn ? [fn.line, fn.endLine] : [1, lines.length];
    this.say(...sourceLines(lines, first, last, state.line, new Set(this.runtime.breakpoints)));
  }

  private where(): void {
    const stop = this.requireStop();
    this.say(...whereLines(this.path, this.runtime.frames(), stop.state, this.selectedFrame));
  }

  /** pdb's `up` and `down`: the selected frame moves `count` frames (1 by default) older (+1) or newer (-1). */
  private upDown(arg: string, direction: 1 | -1): void {
    this.requireStop();
    const count = arg === '' ? 1 : Number(arg);
    if (!Number.isInteger(count) || count < 0) throw new CommandError(`Error in argument: ${JSON.stringify(arg)} is not a count`);
    const frames = this.runtime.frames();
    if (direction === 1 && this.selectedFrame >= frames.length - 1) throw new CommandError('Oldest frame');
    if (direction === -1 && this.selectedFrame === 0) throw new CommandError('Newest frame');
    this.selectedFrame = Math.max(0, Math.min(frames.length - 1, this.selectedFrame + direction * count));
    const frame = frames[this.selectedFrame]!;
    const seen = frame.id === 0 || frame.locals ? '' : '\n   (its locals were not seen yet in this run)';
    this.say(`> ${this.path}(${frame.line})${frame.function}()\n-> ${(this.runtime.programLines[frame.line - 1] ?? frame.source).trim()}${seen}`);
  }

  /** pdb's `args`: the selected function's parameters, as they are now (a caller's as last seen). */
  private args(): void {
    const frame = this.frameSelected();
    const locals = this.selectedLocals();
    const info = this.runtime.program;
    const fn = info ? functionAt(info, frame.line) : undefined;
    if (!fn || fn.name !== frame.function) return;
    this.say(...fn.params.filter((p) => Object.hasOwn(locals, p)).map((p) => `${p} = ${locals[p]}`));
  }

  /** pdb's `jump`: the prediction goes on from another line of the current frame. */
  private async jump(arg: string): Promise<void> {
    if (arg === '') throw new CommandError('usage: j(ump) LINENO');
    const line = lineNumber(arg);
    if (this.selectedFrame !== 0) throw new CommandError('You can only jump within the bottom frame');
    await this.move(() => this.runtime.jump(line));
  }

  private async display(arg: string): Promise<void> {
    const stop = this.requireStop();
    const key = frameKey(stop.state.stack);
    if (arg === '') {
      this.say('Currently displaying:', ...[...(this.displays.get(key) ?? [])].map(([expression, value]) => `${expression}: ${value}`));
      return;
    }
    const value = await this.displayValue(arg, this.evaluationLocals(stop));
    let shown = this.displays.get(key);
    if (!shown) this.displays.set(key, (shown = new Map()));
    shown.set(arg, value);
    this.say(`display ${arg}: ${value}`);
  }

  private undisplay(arg: string): void {
    const key = frameKey(this.requireStop().state.stack);
    const shown = this.displays.get(key);
    if (arg === '') {
      this.displays.delete(key);
      return;
    }
    if (!shown?.delete(arg)) throw new CommandError(`not displaying ${arg}`);
  }

  private retval(): void {
    const state = this.requireStop().state;
    if (state.event !== 'return') throw new CommandError('Not yet returned!');
    this.say(state.value ?? 'None');
  }

  private locals(): void {
    const stop = this.requireStop();
    const stops = this.runtime.timeline.stops;
    const views = localViews(stops, stops.indexOf(stop));
    const notes = applyVerification(views, this.runtime.verification());
    if (this.runtime.ended) this.say('(the run has ended: the locals of its last stop)');
    if (views.length === 0) this.say('(no locals)');
    else this.say(...localsLines(views, stop.state.locals[MORE_LOCALS_KEY]));
    this.say(...notes);
  }

  // ---- changing the run ----------------------------------------------------------------------

  /** `set n = 5`: the value is evaluated over the current locals, then set at this stop. */
  private async set(arg: string): Promise<void> {
    const m = /^([\p{ID_Start}_][\p{ID_Continue}]*)\s*=(?!=)\s*(.+)$/u.exec(arg);
    if (!m) throw new CommandError('usage: set NAME = VALUE (a Python expression, e.g. set n = 5)');
    const [, name, expression] = m as unknown as [string, string, string];
    const stop = this.requireStop();
    if (this.runtime.ended) throw new CommandError('the run has ended: step back (back) to a state to change its variables');
    const repr = await valueRepr(expression, this.evaluationLocals(stop));
    await this.runtime.setVariable(name, repr);
    this.say(`${name} = ${repr}   (set by you: what follows is predicted from it)`);
  }

  private async restart(): Promise<void> {
    const opts = this.launchOptions!;
    const call = opts.entry ? ` at ${opts.entry}(${opts.inferArgs ? 'arguments the model proposes' : (opts.args ?? '')})` : '';
    this.say(`Restarting ${this.path}${call}`);
    await this.move(() => this.runtime.restart());
  }

  private helpCommand(arg: string): void {
    if (arg === '') {
      this.say(
        'Commands (help COMMAND for one; an empty line repeats the last command):',
        ...this.commands.map((c) => `  ${c.usage.padEnd(34)}${c.help.split(/(?<=\.) /)[0]}`),
        'Every state is predicted by the model (the program does not run); "back" and "rc" go backwards.',
      );
      return;
    }
    const command = this.commands.find((c) => c.names.includes(arg));
    if (!command) throw new CommandError(`No help for ${JSON.stringify(arg)}`);
    this.say(command.usage, `        ${command.help}`);
  }
}

/**
 * pdb's parse: the command is the leading word (`p(x)` is `p` with `(x)`); `!expr` prints an
 * expression and `!name = value` sets a local, as pdb's statements would.
 */
function splitCommand(text: string): [string, string] {
  if (text.startsWith('!')) {
    const rest = text.slice(1).trim();
    return [/^[\p{ID_Start}_][\p{ID_Continue}]*\s*=(?!=)/u.test(rest) ? 'set' : 'p', rest];
  }
  const m = /^([A-Za-z_]\w*)(.*)$/s.exec(text);
  if (!m) return [text.split(/\s/)[0]!, ''];
  return [m[1]!, m[2]!.trim()];
}

/** A frame as pdb's displays know it: its stack of functions. */
function frameKey(stack: readonly { function: string }[]): string {
  return stack.map((f) => f.function).join(' ');
}

function lineNumber(text: string): number {
  const t = text.trim();
  if (!/^\d+$/.test(t) || Number(t) < 1) throw new CommandError(`Error in argument: ${JSON.stringify(t)} is not a line number`);
  return Number(t);
}

function errorMessage(err: unknown): string {
  if (err instanceof CommandError || isUserError(err)) return err.message;
  // Anything else is ndb's fault, but a debugging session should survive it: one line still.
  return `internal error: ${(err as Error)?.message ?? String(err)}`;
}
