/**
 * Standard library calls: real calls of pure-Python stdlib functions with literal arguments,
 * sampled from the stdlib's own tests by sample_stdlib_calls.py into the committed
 * stdlib-calls.jsonl (regenerating it takes a while, so loading only reads it).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProgramSpec } from '../program.js';
import { corporaDir } from './support.js';

export const stdlibCallsFile = join(corporaDir, 'stdlib-calls.jsonl');

interface StdlibCall {
  module: string;
  /** The module's file, e.g. /usr/lib/python3.11/json/encoder.py. */
  path: string;
  function: string;
  args: string;
}

export async function loadStdlibCalls(): Promise<ProgramSpec[]> {
  const calls = (await readFile(stdlibCallsFile, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as StdlibCall);
  const sources = new Map<string, Promise<string>>();
  const sourceOf = (path: string): Promise<string> => {
    let source = sources.get(path);
    if (source === undefined) sources.set(path, (source = readFile(path, 'utf8')));
    return source;
  };
  const counts = new Map<string, number>();
  return Promise.all(
    calls.map(async (call) => {
      const name = `${call.module}.${call.function}`;
      const k = counts.get(name) ?? 0;
      counts.set(name, k + 1);
      return {
        id: `stdlib/${name}#${k}`,
        // By top-level package: json.encoder and json.decoder, or the email modules, call
        // each other, so a package's programs must not straddle splits.
        group: `stdlib/${call.module.split('.')[0]}`,
        origin: 'stdlib' as const,
        source: await sourceOf(call.path),
        path: call.path,
        entry: call.function,
        args: call.args,
      };
    }),
  );
}
