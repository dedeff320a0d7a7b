/**
 * Runs tracer/tracer.py on a Python program and collects its records into a Trace.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync } from 'node:fs';
import { chown, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { constants as osConstants, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ChildProcessByStdio, ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pythonExecutable, pythonMissingMessage } from '../python/python-helper.js';
import { declareUtf8, NUL_IN_ARGS, sourceLines } from '../python/source.js';
import { bwrapArgs, guardTree, openSeccomp, resolvePython, seccompFilter, SANDBOX_TASKS, SANDBOX_TMP_BYTES, SANDBOX_UID, SANDBOX_WORK, type SandboxStatus, sandboxStatus, setprivArgs, type TreeGuard } from './sandbox.js';
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
   * Verify mode: the program is someone's code run for real, so it runs only inside the
   * bubblewrap sandbox of tracer/sandbox.ts (no network, no capabilities, nothing of the host's
   * file system but read-only system files, its own PID namespace, limits on the whole tree),
   * on read-only copies of the program and the tracer, with tracer.py's hard per-process
   * limits. Where no sandbox can be made, the run fails with kind `sandbox` and nothing runs.
   */
  sandbox?: boolean;
}

/** `sandbox`: verify mode cannot make its sandbox here (nothing ran); `limit`: the sandbox ended the run. */
export type TraceFailureKind = TraceError['kind'] | 'missing_file' | 'python' | 'protocol' | 'sandbox' | 'limit';

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
/** tracer.py's default address-space limit, MiB; in verify mode also the whole tree's memory. */
const DEFAULT_MEMORY_MB = 512;
/** The tracer enforces its own timeout; this is the margin before the child is killed. */
const KILL_MARGIN_SECONDS = 5;
/** In a sandbox the tracer's alarm may have been switched off by the program: a short margin. */
const SANDBOX_KILL_MARGIN_SECONDS = 2;
const STDERR_KEEP = 4096;

/** What protects a verify run on this machine, in words (said at launch); the refusal when nothing does. */
export function sandboxProtections(): string {
  const status = sandboxStatus(pythonExecutable());
  if (!status.ok) return `NOT run: ${status.reason}`;
  const tree = status.limits === 'watchdog' ? 'a watchdog that kills the tree' : `a ${status.limits}`;
  return (
    `in a bubblewrap sandbox: no network, no capabilities${status.setpriv ? `, uid ${SANDBOX_UID}` : ''}${seccompFilter() ? ', a seccomp filter' : ''}, read-only system files and nothing else of the host's, ` +
    `a private ${SANDBOX_TMP_BYTES >> 20} MiB /tmp as its working directory, its own PID namespace; ` +
    `at most ${SANDBOX_TASKS} processes and threads and the memory limit for all of them together (${tree}), hard CPU, file-size and open-file limits, a wall clock`
  );
}

/** Whether verify mode can run a program here (it never runs one without the sandbox). */
export function verifySandbox(): SandboxStatus {
  return sandboxStatus(pythonExecutable());
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

function tracerArgs(req: TraceRequest, script = tracerScript(), file = req.file): string[] {
  const limits = req.limits ?? {};
  // `--flag=value`: a value starting with '-' (args `-1`) must not read as a flag.
  // Python 3.11 freezes posixpath, ntpath and genericpath: without this flag their code
  // objects name `<frozen posixpath>` instead of the file, and the tracer would miss them.
  const args = ['-X', 'frozen_modules=off', script, file];
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
  // Never unsandboxed: where no sandbox can be made, the program is not run.
  const status = sandboxStatus(pythonExecutable());
  if (!status.ok) throw new TraceFailure('sandbox', status.reason);
  // The sandbox sees only copies, read-only: the program (in a directory of its own, which
  // goes on sys.path) and the tracer. As root, the copies belong to the sandbox's uid, which
  // could not reach the originals (a checkout under /root).
  const stage = await mkdtemp(join(tmpdir(), 'ndb-sandbox-'));
  try {
    const programDir = join(stage, 'program');
    const tracerDir = join(stage, 'ndb');
    await mkdir(programDir);
    await mkdir(tracerDir);
    const file = join(programDir, basename(req.file));
    const script = join(tracerDir, 'tracer.py');
    await copyFile(req.file, file);
    await copyFile(tracerScript(), script);
    if (status.setpriv) for (const p of [stage, programDir, tracerDir, file, script]) await chown(p, SANDBOX_UID, SANDBOX_UID);
    return await runTracerIn(req, { status, stage, programDir, tracerDir, file, script });
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

interface Sandbox {
  status: Extract<SandboxStatus, { ok: true }>;
  stage: string;
  programDir: string;
  tracerDir: string;
  file: string;
  script: string;
}

/** `sh` run first where a cgroup limits the tree: it moves itself into the cgroup, then execs bwrap. */
const JOIN_CGROUP = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';

function runTracerIn(req: TraceRequest, sandbox: Sandbox | null): Promise<{ events: TraceEvent[]; exit: TraceExit }> {
  const python = pythonExecutable();
  const timeoutSeconds = req.limits?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const args = sandbox ? tracerArgs(req, sandbox.script, sandbox.file) : tracerArgs(req);
  const margin = sandbox ? SANDBOX_KILL_MARGIN_SECONDS : KILL_MARGIN_SECONDS;

  return new Promise((resolve, reject) => {
    // A fixed hash seed: the iteration order of a set of strings (and so its repr) depends on
    // it, and the same program must always give the same trace.
    let child: ChildProcessWithoutNullStreams | ChildProcessByStdio<null, Readable, Readable>;
    let guard: TreeGuard | null = null;
    if (sandbox) {
      const { bwrap, setpriv } = sandbox.status;
      const memoryMb = req.limits?.memoryMb ?? DEFAULT_MEMORY_MB;
      guard = guardTree({ tasks: SANDBOX_TASKS, memoryBytes: (memoryMb > 0 ? memoryMb : DEFAULT_MEMORY_MB) * (1 << 20) });
      const env = { PATH: '/usr/bin:/bin', PYTHONHASHSEED: '0', HOME: SANDBOX_WORK, TMPDIR: SANDBOX_WORK, LANG: 'C.UTF-8' };
      const seccomp = openSeccomp(sandbox.stage);
      const inner = [
        ...(setpriv ? [setpriv, ...setprivArgs()] : []),
        bwrap,
        ...bwrapArgs({ python: resolvePython(python), files: [sandbox.programDir, sandbox.tracerDir], seccomp: seccomp !== null }),
        resolvePython(python),
        ...args,
      ];
      const [cmd, ...cmdArgs] = guard.cgroupProcs.length > 0 ? ['/bin/sh', '-c', JOIN_CGROUP, 'sh', String(guard.cgroupProcs.length), ...guard.cgroupProcs, ...inner] : inner;
      try {
        // The filter rides on file descriptor 3 (SECCOMP_FD), through sh and setpriv to bwrap.
        child = spawn(cmd!, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe', ...(seccomp !== null ? [seccomp] : [])], env, cwd: sandbox.stage, detached: true }) as ChildProcessByStdio<
          null,
          Readable,
          Readable
        >;
      } finally {
        if (seccomp !== null) closeSync(seccomp);
      }
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

    // The tree's limits: a cgroup's are the kernel's; the watchdog looks from outside.
    if (guard && child.pid !== undefined) guard.started(child.pid, (why) => fail(new TraceFailure(/memory/.test(why) ? 'memory' : 'limit', `the sandbox stopped the program: ${why}`)));

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
      guard?.close();
      fn();
    };

    child.on('error', (err) =>
      settle(() => reject(new TraceFailure('python', pythonMissingMessage(python, err.message)))),
    );

    // 'close' comes after stdout has ended, so every line has been seen.
    child.on('close', (exitCode, exitSignal) =>
      settle(() => {
        let code = exitCode;
        let signal = exitSignal;
        if (failure) return reject(failure);
        if (sandbox) {
          // bwrap answers for the tracer: 128 + n when a signal n ended it.
          const name = code !== null && code > 128 ? signalName(code - 128) : undefined;
          if (name && !exit) [code, signal] = [null, name];
          const limit = guard?.verdict();
          if (limit && !exit && !error) return reject(new TraceFailure(/memory/.test(limit) ? 'memory' : 'limit', `the sandbox stopped the program: ${limit}`));
          const said = lastLine(stderr);
          if (!exit && !error && events.length === 0 && (code === 125 || said.startsWith('bwrap:') || said.startsWith('setpriv:'))) {
            return reject(new TraceFailure('sandbox', `the sandbox could not start, so the program was not run: ${said || `exit status ${code}`}`));
          }
        }
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

function signalName(n: number): NodeJS.Signals | undefined {
  return (Object.entries(osConstants.signals) as [NodeJS.Signals, number][]).find(([, v]) => v === n)?.[0];
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
