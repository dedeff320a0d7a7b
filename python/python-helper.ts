/**
 * Running Python: the interpreter ndb uses (the tracer's too), and one of ndb's small
 * stdlib-Python helpers (call_frame.py, program-info.py, evaluate.py): a script next to the
 * TypeScript module that uses it, given text on stdin, answering one JSON value on stdout,
 * under a time limit.
 *
 * Here rather than in tracer/: program analysis, the model client and the debugger run these
 * helpers, and they must not depend on the ground truth the tracer records.
 *
 * The scripts stay in the source tree when the TypeScript compiles to dist/, so a script is
 * looked for next to the calling module first, then in the source folder it came from.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Python to run: $NDB_PYTHON, else Debian's python3, else python3 on PATH. */
export function pythonExecutable(): string {
  return process.env.NDB_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
}

/**
 * What to say when the Python could not be started (`why`: the system's reason, e.g. `spawn
 * python3 ENOENT`): a prerequisite missing on this machine, said with what to install and how
 * to point ndb at another Python; not a bug in ndb.
 */
export function pythonMissingMessage(python: string, why: string): string {
  const set = process.env.NDB_PYTHON !== undefined ? `NDB_PYTHON is set to ${python}, which` : `${python}`;
  return (
    `cannot run Python: ${set} could not be started (${why}). ndb needs CPython 3.11 to read and trace programs: ` +
    'install it (Debian or Ubuntu: apt-get install python3), or set NDB_PYTHON to a Python 3.11 interpreter (export NDB_PYTHON=/path/to/python3.11)'
  );
}

/** Python could not be started: the user's machine lacks it (pythonMissingMessage), not a bug in ndb. */
export class PythonMissingError extends Error {
  constructor(
    readonly python: string,
    why: string,
  ) {
    super(pythonMissingMessage(python, why));
    this.name = 'PythonMissingError';
  }
}

/** `name` next to the module at `moduleUrl` (its import.meta.url), in the source tree or beside dist/. */
export function helperPath(name: string, moduleUrl: string): string {
  const folder = basename(dirname(fileURLToPath(moduleUrl)));
  for (const url of [new URL(`./${name}`, moduleUrl), new URL(`../../${folder}/${name}`, moduleUrl)]) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(`cannot find ${name} next to ${fileURLToPath(moduleUrl)}`);
}

export interface HelperRun {
  /** The script's path (helperPath). */
  script: string;
  args?: readonly string[];
  /** Written to the script's stdin. */
  input: string;
  timeoutMs: number;
}

/** The script's JSON answer, or `timedOut` when it ran past the limit and was killed. */
export type HelperResult = { timedOut: false; output: unknown } | { timedOut: true };

const STDERR_KEPT = 4_000;

/** Rejects only when Python cannot run or the script's answer is not JSON (its last stderr line says why). */
export function runPythonHelper(run: HelperRun): Promise<HelperResult> {
  const name = basename(run.script);
  return new Promise((resolve, reject) => {
    const child = spawn(pythonExecutable(), [run.script, ...(run.args ?? [])], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, run.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    // Only its end is ever shown (the last line says why it failed): a chatty helper holds no more.
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-STDERR_KEPT)));
    // Python gone before it read its input (never started, crashed): the write fails with
    // EPIPE, and the 'error' or 'close' event says why.
    child.stdin.on('error', () => {});
    child.on('error', (e) => reject(new PythonMissingError(pythonExecutable(), e.message)));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ timedOut: true });
      try {
        resolve({ timedOut: false, output: JSON.parse(out) });
      } catch {
        const last = err.trim().split('\n').pop() ?? '';
        reject(new Error(`${name} failed (exit status ${code})${last ? `: ${last}` : ''}`));
      }
    });
    child.stdin.end(run.input);
  });
}
