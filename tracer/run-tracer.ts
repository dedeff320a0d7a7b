/**
 * Runs tracer/tracer.py on a Python program and collects its records into a Trace.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ChildProcessByStdio, ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pythonExecutable, pythonMissingMessage } from '../python/python-helper.js';
import { declareUtf8, NUL_IN_ARGS, sourceLines } from '../python/source.js';
import { TracerRecordSchema, type Trace, type TraceError, type TraceEvent, type TraceExit } from './events.js';

export interface TraceLimits {
  /** Events recorded before the run is cut (exit `never`, reason `max_events`). Default 10,000. */
  maxEvents?: number;
  /** Wall-clock seconds for the whole run, module import included. Default 5. */
  timeoutSeconds?: number;
  /** Longest repr kept; longer ones end in '…'. Default 1,000. */
  maxRepr?: number;
  /** Address-space limit of the tracer process, in MiB. Default 512. */
  memoryMb?: number;
}

export interface TraceRequest {
  /** The Python file. */
  file: string;
  /** The function to call; without it the module's top level is traced. */
  entry?: string;
  /** The call's arguments as Python literals, e.g. `[1, 2], 'x', k=3`. */
  args?: string;
  limits?: TraceLimits;
  /**
   * Verify mode: the program is someone's code run for real. Adds hard limits on processes,
   * file size and open files, a temporary working directory (removed after), a small
   * environment, its own process group killed at the end, and, where unprivileged user
   * namespaces exist, no network, its own PID namespace (every process it started dies
   * with it) and a read-only file system but for that directory. See `sandboxProtections`.
   */
  sandbox?: boolean;
}

export type TraceFailureKind = TraceError['kind'] | 'missing_file' | 'python' | 'protocol';

/** A run that produced no trace: the program could not start, or the tracer itself failed. */
export class TraceFailure extends Error {
  constructor(
    readonly kind: TraceFailureKind,
    message: string,
  ) {
    super(oneLine(message));
    this.name = 'TraceFailure';
  }
}

const DEFAULT_TIMEOUT_SECONDS = 5;
/** The tracer enforces its own timeout; this is the margin before the child is killed. */
const KILL_MARGIN_SECONDS = 5;
/** In a sandbox the tracer's alarm may have been switched off by the program: a short margin. */
const SANDBOX_KILL_MARGIN_SECONDS = 2;
const STDERR_KEEP = 4096;

/**
 * Run as PID 1 of the sandbox's namespaces (sh; the tracer is its child, so that the kernel's
 * signals reach the tracer as an ordinary process): the working directory becomes a mount of
 * its own, every other mount is remounted read-only, then the tracer runs. When sh exits the
 * PID namespace ends and the kernel kills whatever the program left running.
 */
const SANDBOX_SCRIPT = [
  'work=$1; shift',
  'if mount --bind "$work" "$work" 2>/dev/null && cd "$work"; then',
  '  for m in $(awk \'{print $5}\' /proc/self/mountinfo); do',
  '    [ "$m" = "$work" ] || mount -o remount,bind,ro "$m" 2>/dev/null',
  '  done',
  'fi',
  '"$@"',
  'status=$?',
  'exit $status',
].join('\n');
const UNSHARE_FLAGS = ['--user', '--map-root-user', '--net', '--mount', '--pid', '--fork', '--kill-child', '--mount-proc'];

let namespacesProbe: boolean | undefined;

/** Whether this machine lets an unprivileged process make the sandbox's namespaces (probed once). */
export function sandboxNamespaces(): boolean {
  if (namespacesProbe === undefined) {
    if (process.platform !== 'linux' || process.env.NDB_SANDBOX_NAMESPACES === '0') namespacesProbe = false;
    else {
      const r = spawnSync('unshare', [...UNSHARE_FLAGS, 'sh', '-c', 'mount -o remount,bind,ro / && exit 0'], { stdio: 'ignore', timeout: 5000 });
      namespacesProbe = r.status === 0;
    }
  }
  return namespacesProbe;
}

/** What protects a verify run on this machine, in words (said at launch). */
export function sandboxProtections(): string {
  const always = 'hard CPU, memory, process, file-size and open-file limits, a temporary working directory, a small environment, its process group killed at the end';
  return sandboxNamespaces()
    ? `${always}; no network, a read-only file system but that directory, its own PID namespace`
    : `${always}; NOT isolated here (no unprivileged user namespaces): network, the file system, and a child that leaves the process group`;
}

/**
 * tracer.py sits next to this file in the source tree; compiled, this module lives in
 * dist/tracer/ while tracer.py stays in tracer/.
 */
function tracerScript(): string {
  const candidates = [new URL('./tracer.py', import.meta.url), new URL('../../tracer/tracer.py', import.meta.url)];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new TraceFailure('internal', `cannot find tracer.py next to ${fileURLToPath(import.meta.url)}`);
}

/** Traces a Python file. Throws TraceFailure when no trace comes out. */
export async function traceFile(req: TraceRequest): Promise<Trace> {
  const isFile = await stat(req.file).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!isFile) throw new TraceFailure('missing_file', `no such file: ${req.file}`);
  const program = await readFile(req.file, 'utf8');
  const { events, exit } = await runTracer(req);
  return { program, lines: sourceLines(program), events, exit };
}

/** Traces Python source text, through a temporary file. */
export async function traceSource(source: string, req: Omit<TraceRequest, 'file'>): Promise<Trace> {
  // A directory of its own: the file's directory goes on sys.path, and a shared temp
  // directory may hold stray .py files that would shadow the standard library.
  const dir = await mkdtemp(join(tmpdir(), 'ndb-trace-'));
  try {
    const file = join(dir, 'program.py');
    await writeFile(file, declareUtf8(source), 'utf8');
    return await traceFile({ ...req, file });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function tracerArgs(req: TraceRequest): string[] {
  const limits = req.limits ?? {};
  // `--flag=value`: a value starting with '-' (args `-1`) must not read as a flag.
  // Python 3.11 freezes posixpath, ntpath and genericpath: without this flag their code
  // objects name `<frozen posixpath>` instead of the file, and the tracer would miss them.
  const args = ['-X', 'frozen_modules=off', tracerScript(), req.file];
  if (req.entry !== undefined) args.push(`--entry=${req.entry}`);
  if (req.args !== undefined) {
    if (req.args.includes('\0')) throw new TraceFailure('bad_args', NUL_IN_ARGS);
    args.push(`--args=${req.args}`);
  }
  if (limits.maxEvents !== undefined) args.push(`--max-events=${Math.floor(limits.maxEvents)}`);
  if (limits.timeoutSeconds !== undefined) args.push(`--timeout=${limits.timeoutSeconds}`);
  if (limits.maxRepr !== undefined) args.push(`--max-repr=${Math.floor(limits.maxRepr)}`);
  if (limits.memoryMb !== undefined) args.push(`--memory-mb=${Math.floor(limits.memoryMb)}`);
  if (req.sandbox) args.push('--sandbox');
  return args;
}

async function runTracer(req: TraceRequest): Promise<{ events: TraceEvent[]; exit: TraceExit }> {
  if (!req.sandbox) return runTracerIn(req, null);
  const work = await mkdtemp(join(tmpdir(), 'ndb-sandbox-'));
  try {
    return await runTracerIn(req, { work });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function runTracerIn(req: TraceRequest, sandbox: { work: string } | null): Promise<{ events: TraceEvent[]; exit: TraceExit }> {
  const python = pythonExecutable();
  const timeoutSeconds = req.limits?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const args = tracerArgs(req);
  const margin = sandbox ? SANDBOX_KILL_MARGIN_SECONDS : KILL_MARGIN_SECONDS;

  return new Promise((resolve, reject) => {
    // A fixed hash seed: the iteration order of a set of strings (and so its repr) depends on
    // it, and the same program must always give the same trace.
    let child: ChildProcessWithoutNullStreams | ChildProcessByStdio<null, Readable, Readable>;
    if (sandbox) {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONHASHSEED: '0', HOME: sandbox.work, TMPDIR: sandbox.work, LANG: 'C.UTF-8' };
      const [cmd, cmdArgs] = sandboxNamespaces()
        ? ['unshare', [...UNSHARE_FLAGS, 'sh', '-c', SANDBOX_SCRIPT, 'sh', sandbox.work, python, ...args]]
        : [python, args];
      child = spawn(cmd, cmdArgs as string[], { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: sandbox.work, detached: true });
    } else {
      child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONHASHSEED: '0' } });
    }
    // Verify mode: the whole process group goes when the tracer does (or is killed).
    const killGroup = () => {
      if (sandbox && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    if (sandbox) child.on('exit', killGroup);
    const events: TraceEvent[] = [];
    let exit: TraceExit | undefined;
    let error: TraceError | undefined;
    let failure: TraceFailure | undefined;
    let stderr = '';
    let settled = false;
    let lineNo = 0;

    const fail = (f: TraceFailure) => {
      failure ??= f;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      killGroup();
    };

    const killTimer = setTimeout(
      () =>
        fail(
          new TraceFailure(
            'python',
            `the tracer did not finish within ${timeoutSeconds + margin} s and was killed ` +
              (sandbox ? '(the program is stuck in native code or switched the alarm off)' : '(the program is probably stuck in native code)'),
          ),
        ),
      (timeoutSeconds + margin) * 1000,
    );

    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      lineNo += 1;
      if (failure) return;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        fail(new TraceFailure('protocol', `tracer output line ${lineNo} is not JSON: ${clip(line)}`));
        return;
      }
      const parsed = TracerRecordSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
        fail(new TraceFailure('protocol', `tracer record ${lineNo} is malformed${where}: ${issue?.message ?? 'invalid'}`));
        return;
      }
      const record = parsed.data;
      if (exit || error) {
        fail(new TraceFailure('protocol', `tracer record ${lineNo} comes after the final record`));
      } else if (record.type === 'event') {
        events.push(record);
      } else if (record.type === 'exit') {
        exit = record;
      } else {
        error = record;
      }
    });

    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });

    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      fn();
    };

    child.on('error', (err) =>
      settle(() => reject(new TraceFailure('python', pythonMissingMessage(python, err.message)))),
    );

    // 'close' comes after stdout has ended, so every line has been seen.
    child.on('close', (code, signal) =>
      settle(() => {
        if (failure) return reject(failure);
        if (error) return reject(new TraceFailure(error.kind, error.message));
        if (signal) {
          const why =
            signal === 'SIGXCPU'
              ? 'it used more CPU time than the timeout allows, probably stuck in native code'
              : `${lastLine(stderr) || 'no message'}`;
          return reject(new TraceFailure('python', `the tracer was killed by ${signal}: ${why}`));
        }
        if (!exit) {
          const detail = lastLine(stderr);
          if (events.length === 0 && code !== 0) {
            // Python itself failed (a crash, a Python too old for tracer.py, ...).
            return reject(new TraceFailure('python', `the tracer failed (exit status ${code}): ${detail || 'no message'}`));
          }
          return reject(
            new TraceFailure(
              'protocol',
              `the tracer ended (exit status ${code}) without an exit record` +
                (detail ? `: ${detail}` : ' (did the program call os._exit?)'),
            ),
          );
        }
        resolve({ events, exit });
      }),
    );
  });
}

function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  return clip(lines[lines.length - 1] ?? '');
}

function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
