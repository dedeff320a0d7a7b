/**
 * Drives the real pdb (`python3 -m pdb PROGRAM.py`) through a scripted list of commands and
 * reports where it stopped after each one, in a form the state tree can be compared with.
 *
 * One pdb process serves every scenario of a program: between scenarios the program is
 * restarted (`restart`, or `continue` out of a post-mortem session, where `restart` would
 * escape pdb's main loop). The session is interactive, one command per `(Pdb) ` prompt, so
 * the driver always knows which state pdb is in and never runs ahead of it.
 *
 * What pdb prints, and how it is read (CPython 3.11):
 *   --Call--                           a `call` event, then the location line
 *   --Return--                         a `return` event, then `> file(line)func()->value`
 *   ValueError: too big                an `exception` event, then the location line
 *   > /path/prog.py(12)main()          the location (a `line` event when nothing precedes it)
 *   The program finished and will be restarted
 *   Uncaught exception. Entering post mortem debugging
 * After every stop the driver sends `where` (the stack) and a one-line Python statement that
 * prints the frame's locals as JSON (LOCALS_COMMAND).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname } from 'node:path';

export const PYTHON = '/usr/bin/python3';
const PROMPT = '(Pdb) ';

/** A pdb command of a script. `break N` sets a breakpoint at line N, continues to it, and clears it. */
export type PdbCommand = 'step' | 'next' | 'return' | 'continue' | `until ${number}` | `break ${number}`;

export interface PdbFrame {
  function: string;
  line: number;
}

export interface PdbLocal {
  name: string;
  repr: string;
  /** `module`: a module object; `def`: a class, function or builtin; `value`: anything else. */
  kind: 'module' | 'def' | 'value';
  /** pdb's own `__exception__` entry: the line pdb prints for it at an exception stop (`ValueError: msg`). */
  printed?: string;
}

/** pdb stopped in the program. */
export interface PdbStop {
  at: 'stop';
  event: 'call' | 'line' | 'return' | 'exception';
  line: number;
  function: string;
  /** The program's frames on the stack, outermost first (pdb's runner frames left out). */
  stack: PdbFrame[];
  /** The frame's locals as pdb sees them, unfiltered except for dunder names. */
  locals: PdbLocal[];
  /** repr of the return value (return) or of the exception instance (exception). */
  value?: string;
}

/** pdb stopped in a frame outside the program: pdb's own runner, or library code. */
export interface PdbOutside {
  at: 'outside';
  file: string;
  line: number;
  function: string;
}

/** The program ended: ran to its end, or raised (pdb then enters post-mortem debugging). */
export interface PdbExit {
  at: 'exit';
  kind: 'normal' | 'error';
  /** With `error`: repr of the uncaught exception (`ValueError('bad')`), as the tracer writes an error exit. */
  value?: string;
}

export type PdbObservation = PdbStop | PdbOutside | PdbExit;

export interface ObservedScenario {
  /** Where pdb stood before the first command (the module's first line). */
  start: PdbObservation;
  /** after[i]: where pdb stopped after script command i. */
  after: PdbObservation[];
}

/**
 * The probe pdb's `!` statements call: a module made once per pdb process (kept in
 * sys.modules, so nothing is assigned in the program's namespaces). `rows(locals)` gives
 * `[[name, repr, kind, printed], ...]` as JSON: reprs as the tracer takes them (a `__repr__`
 * that raises, as one of a half-built object does, gives `<repr failed: AttributeError>`),
 * the kind (`module`, `def`: a class, function or builtin, `value`), and for pdb's own
 * `__exception__` entry the line pdb prints for it (`ValueError: msg`), which tells an
 * exception stop from a line stop after the program printed something (pdb leaves
 * `__exception__` in the frame's locals after the stop, so its presence alone does not).
 * pdb stores `__return__` and `__exception__` in the frame's locals at return and exception
 * stops: they give the value; other dunder names are left out.
 */
const PROBE_SOURCE = [
  'import json, traceback, types',
  'def r(v):',
  '    try:',
  '        t = repr(v)',
  '    except BaseException as e:',
  "        return '<repr failed: %s>' % type(e).__name__",
  "    return t if isinstance(t, str) else '<repr failed: TypeError>'",
  'def kind(v):',
  '    if isinstance(v, types.ModuleType):',
  "        return 'module'",
  '    if isinstance(v, (type, types.FunctionType, types.BuiltinFunctionType)):',
  "        return 'def'",
  "    return 'value'",
  'def rows(names):',
  '    out = []',
  '    for k, v in list(names.items()):',
  "        if k == '__exception__':",
  "            out.append([k, r(v[1]), 'value', traceback.format_exception_only(*v)[-1].strip()])",
  "        elif not k.startswith('__') or k == '__return__':",
  '            out.append([k, r(v), kind(v), None])',
  '    return json.dumps(out)',
].join('\n');

const PROBE =
  "(__import__('sys').modules.get('_ndb_pdb_probe') or (lambda m: (exec(" +
  JSON.stringify(PROBE_SOURCE) +
  ", m.__dict__), __import__('sys').modules.__setitem__('_ndb_pdb_probe', m), m)[2])(__import__('types').ModuleType('_ndb_pdb_probe')))";

/**
 * Prints `@@LOCALS [...]` (see PROBE). A `!` statement runs with the frame's locals as its
 * local namespace, so `locals()`, an argument evaluated in the statement itself, is the frame's.
 */
const LOCALS_MARK = '@@LOCALS ';
export const LOCALS_COMMAND = `!print('@@LOCALS', ${PROBE}.rows(locals()))`;

/** Prints `@@UNCAUGHT repr`: in post-mortem debugging, pdb's main loop is still handling the uncaught exception. */
const UNCAUGHT_MARK = '@@UNCAUGHT ';
const UNCAUGHT_COMMAND = "!print('@@UNCAUGHT', repr(__import__('sys').exc_info()[1]))";

/** `> /path/prog.py(12)main()->value` (also `  ...` in `where` listings). */
const LOCATION = /^([> ]) (.+?)\((\d+)\)([^\s()]+)\(\)(?:->(.*))?$/;

interface Location {
  current: boolean;
  file: string;
  line: number;
  function: string;
}

function parseLocation(text: string): Location | undefined {
  const m = LOCATION.exec(text);
  if (!m) return undefined;
  return { current: m[1] === '>', file: m[2]!, line: Number(m[3]), function: m[4]! };
}

type SessionState = 'stopped' | 'restarted' | 'post-mortem';

export class PdbSession {
  private readonly proc: ChildProcessWithoutNullStreams;
  private buffer = '';
  private stderr = '';
  private waiter: (() => void) | undefined;
  private exited = false;
  private state: SessionState = 'stopped';
  /** The output that told of the program's end and its automatic restart. */
  private restartChunk = '';
  /** Everything exchanged so far, for error messages. */
  private readonly transcript: string[] = [];

  private constructor(readonly file: string, private readonly timeoutMs: number) {
    // pdb reads ~/.pdbrc and ./.pdbrc: both point at the program's directory, which has none.
    const home = dirname(file);
    this.proc = spawn(PYTHON, ['-m', 'pdb', file], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stderr.setEncoding('utf8');
    this.proc.stdout.on('data', (s: string) => {
      this.buffer += s;
      this.waiter?.();
    });
    this.proc.stderr.on('data', (s: string) => (this.stderr += s));
    this.proc.on('exit', () => {
      this.exited = true;
      this.waiter?.();
    });
  }

  /** Starts pdb on `file`; resolves with the session and pdb's first stop. */
  static async start(file: string, timeoutMs = 10_000): Promise<{ session: PdbSession; start: PdbObservation }> {
    const session = new PdbSession(file, timeoutMs);
    const chunk = await session.readChunk('(start)');
    return { session, start: session.startOf(chunk) };
  }

  /** Sends one raw command and returns what pdb printed before its next prompt. */
  async send(command: string): Promise<string> {
    this.transcript.push(PROMPT + command);
    this.proc.stdin.write(command + '\n');
    return this.readChunk(command);
  }

  /** Runs one script command and observes where pdb stopped. */
  async run(command: PdbCommand): Promise<PdbObservation> {
    const bp = /^break (\d+)$/.exec(command);
    if (!bp) return this.move(command);
    const set = await this.send(`break ${bp[1]}`);
    if (!/^Breakpoint \d+ at /.test(set)) this.fail(`could not set a breakpoint at line ${bp[1]}: ${set}`);
    const observed = await this.move('continue');
    const cleared = await this.send(`clear ${this.file}:${bp[1]}`);
    if (!/^Deleted breakpoint \d+ at /.test(cleared)) this.fail(`could not clear the breakpoint at line ${bp[1]}: ${cleared}`);
    return observed;
  }

  /** Brings the program back to its first line, from wherever pdb is. */
  async restart(): Promise<PdbObservation> {
    switch (this.state) {
      case 'restarted': // pdb restarted on its own after the program finished
        return this.startOf(this.restartChunk);
      case 'post-mortem': // `restart` here would escape pdb's main loop; `continue` restarts
        return this.startOf(await this.send('continue'));
      case 'stopped':
        return this.startOf(await this.send('restart'));
    }
  }

  /** Quits pdb (from post-mortem, `q` restarts the program; the closed stdin then ends pdb). */
  async quit(): Promise<void> {
    if (this.exited) return;
    this.transcript.push(PROMPT + 'q');
    this.proc.stdin.end('q\n');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.kill();
        resolve();
      }, this.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (this.exited) done();
      else this.proc.once('exit', done);
    });
  }

  kill(): void {
    if (!this.exited) this.proc.kill('SIGKILL');
  }

  // ---- parsing ------------------------------------------------------------------------------

  private async move(command: string): Promise<PdbObservation> {
    const chunk = await this.send(command);
    if (chunk.includes('The program finished and will be restarted')) {
      this.state = 'restarted';
      this.restartChunk = chunk;
      return { at: 'exit', kind: 'normal' };
    }
    if (chunk.includes('Uncaught exception. Entering post mortem debugging')) {
      this.state = 'post-mortem';
      const line = (await this.send(UNCAUGHT_COMMAND)).split('\n').find((l) => l.startsWith(UNCAUGHT_MARK));
      return { at: 'exit', kind: 'error', ...(line === undefined ? {} : { value: line.slice(UNCAUGHT_MARK.length) }) };
    }
    const lines = chunk.split('\n');
    const index = lines.findIndex((l) => parseLocation(l)?.current === true);
    if (index < 0) this.fail(`no location after "${command}": ${chunk}`);
    const loc = parseLocation(lines[index]!)!;
    if (loc.file !== this.file) return { at: 'outside', file: loc.file, line: loc.line, function: loc.function };

    // The line just before the location is pdb's marker, if any; what the program printed
    // comes before it (or, at a line stop, just before the location).
    const before = lines.slice(0, index).filter((l) => l.trim() !== '');
    const marker = before[before.length - 1];
    const stack = await this.stack();
    const all = await this.locals();
    const raised = all.find((l) => l.name === '__exception__')?.printed;
    const event = marker === '--Call--' ? 'call' : marker === '--Return--' ? 'return' : marker !== undefined && (marker === raised || marker === `Internal ${raised}`) ? 'exception' : 'line';
    const special = (name: string) => all.find((l) => l.name === name)?.repr;
    const value = event === 'return' ? special('__return__') : event === 'exception' ? special('__exception__') : undefined;
    if ((event === 'return' || event === 'exception') && value === undefined) this.fail(`no value at a ${event} stop`);
    const locals = all.filter((l) => !l.name.startsWith('__'));
    return { at: 'stop', event, line: loc.line, function: loc.function, stack, locals, ...(value === undefined ? {} : { value }) };
  }

  /** The program's frames from `where`, outermost first, down to the current one. */
  private async stack(): Promise<PdbFrame[]> {
    const frames: PdbFrame[] = [];
    for (const text of (await this.send('where')).split('\n')) {
      const loc = parseLocation(text);
      if (!loc) continue;
      if (loc.file === this.file) frames.push({ function: loc.function, line: loc.line });
      // After the current frame, `where` may list frames of a traceback that already ended.
      if (loc.current) return frames;
    }
    this.fail('`where` shows no current frame');
  }

  private async locals(): Promise<PdbLocal[]> {
    const chunk = await this.send(LOCALS_COMMAND);
    const line = chunk.split('\n').find((l) => l.startsWith(LOCALS_MARK));
    if (line === undefined) this.fail(`the locals command printed no locals: ${chunk}`);
    const rows = JSON.parse(line.slice(LOCALS_MARK.length)) as [string, string, PdbLocal['kind'], string | null][];
    return rows.map(([name, repr, kind, printed]) => ({ name, repr, kind, ...(printed === null ? {} : { printed }) }));
  }

  /** The first stop of a (re)started program: the last location line of the chunk. */
  private startOf(chunk: string): PdbObservation {
    this.state = 'stopped';
    const loc = chunk
      .split('\n')
      .map(parseLocation)
      .filter((l) => l?.current === true)
      .pop();
    if (!loc) this.fail(`no first stop: ${chunk}`);
    if (loc.file !== this.file) return { at: 'outside', file: loc.file, line: loc.line, function: loc.function };
    return { at: 'stop', event: 'line', line: loc.line, function: loc.function, stack: [{ function: loc.function, line: loc.line }], locals: [] };
  }

  /** Waits for the next prompt; returns the output before it. */
  private async readChunk(command: string): Promise<string> {
    const deadline = Date.now() + this.timeoutMs;
    while (!this.buffer.endsWith(PROMPT)) {
      if (this.exited) this.fail(`pdb exited while running "${command}"`);
      const left = deadline - Date.now();
      if (left <= 0) this.fail(`no prompt within ${this.timeoutMs} ms after "${command}"`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    const chunk = this.buffer.slice(0, -PROMPT.length);
    this.buffer = '';
    this.transcript.push(chunk);
    return chunk;
  }

  private fail(message: string): never {
    this.kill();
    const tail = this.transcript.slice(-12).join('\n');
    throw new Error(`pdb on ${this.file}: ${message}\n--- last exchanges ---\n${tail}\n--- stderr ---\n${this.stderr.slice(-2000)}`);
  }
}

/**
 * Runs each scenario from the program's first line, all in one pdb process, and returns
 * what pdb showed. A scenario may end at the program's exit, but not go on past it.
 */
export async function observePdb(file: string, scenarios: readonly (readonly PdbCommand[])[]): Promise<ObservedScenario[]> {
  const { session, start: first } = await PdbSession.start(file);
  try {
    const observed: ObservedScenario[] = [];
    for (const [i, script] of scenarios.entries()) {
      const start = i === 0 ? first : await session.restart();
      const after: PdbObservation[] = [];
      for (const command of script) {
        if (after[after.length - 1]?.at === 'exit') throw new Error(`scenario ${i} of ${file} goes on after the program's exit`);
        after.push(await session.run(command));
      }
      observed.push({ start, after });
    }
    await session.quit();
    return observed;
  } finally {
    session.kill();
  }
}
