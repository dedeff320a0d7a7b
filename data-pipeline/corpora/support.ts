/**
 * What the corpus loaders share: where things live, and running the Python helpers.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProgramSpec } from '../program.js';

/**
 * The repository root: the nearest folder above this file with a package.json. Walking up
 * (rather than a fixed `../..`) finds it both from the sources and from the compiled dist/.
 */
export const repoRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('corpora: no package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
})();

/** The corpora folder in the sources (tsc does not copy the Python helpers and data into dist/). */
export const corporaDir = join(repoRoot, 'data-pipeline', 'corpora');

/** HumanEval and MBPP, committed in data/ with their licences (data/README.md); NDB_DATA reads another copy. */
export function dataDir(): string {
  return process.env.NDB_DATA ?? join(repoRoot, 'data');
}

export function pythonBin(): string {
  return process.env.NDB_PYTHON ?? '/usr/bin/python3';
}

/** Runs a Python script with `input` on stdin; resolves to its stdout, rejects on a non-zero exit. */
export function runPython(script: string, input: string, args: readonly string[] = []): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(pythonBin(), [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise(Buffer.concat(stdout).toString('utf8'));
      else reject(new Error(`${script} exited with ${code}: ${Buffer.concat(stderr).toString('utf8')}`));
    });
    child.stdin.end(input);
  });
}

export interface CallQuery {
  /** The program; its top-level defs are the possible entry points. */
  code: string;
  /** Test snippets whose calls of the entry supply the inputs. */
  tests: string[];
  /** The entry point; when absent, the top-level def the tests call most often. */
  entry?: string;
  /** The name the tests call the entry by (HumanEval's `candidate`); default: the entry. */
  callee?: string;
}

export interface CallAnswer {
  /** Null when the tests call no top-level def of the program. */
  entry: string | null;
  /** Each literal-only call's arguments as one-line Python source, in test order, no repeats. */
  args: string[];
}

/** Extracts entry points and literal call arguments for many programs in one Python process. */
export async function extractCalls(queries: CallQuery[]): Promise<CallAnswer[]> {
  const output = await runPython(join(corporaDir, 'extract_calls.py'), JSON.stringify(queries));
  const answers = JSON.parse(output) as CallAnswer[];
  if (answers.length !== queries.length) {
    throw new Error(`extract_calls.py answered ${answers.length} of ${queries.length} queries`);
  }
  return answers;
}

/**
 * Up to `k` variants of each spec's call: its literal arguments mutated a little
 * (vary_args.py: nothing runs), same program and group, so the same split. Ids `ID~vJ`.
 */
export async function argumentVariants(specs: readonly ProgramSpec[], k: number, seed: number): Promise<ProgramSpec[]> {
  if (k <= 0 || specs.length === 0) return [];
  const input = specs.map((s) => JSON.stringify({ id: s.id, args: s.args })).join('\n') + '\n';
  const output = await runPython(join(corporaDir, 'vary_args.py'), input, ['--variants', String(k), '--seed', String(seed)]);
  const byId = new Map(specs.map((s) => [s.id, s]));
  return output
    .split('\n')
    .filter((line) => line)
    .map((line) => {
      const v = JSON.parse(line) as { id: string; args: string };
      const parent = byId.get(v.id.slice(0, v.id.lastIndexOf('~v')))!;
      return { ...parent, id: v.id, args: v.args };
    });
}
