/**
 * Calls of module functions: real calls of pure-Python functions with literal arguments,
 * sampled by sample_stdlib_calls.py into committed JSON Lines (regenerating them takes a
 * while, so loading only reads them): the `stdlib` corpus from the standard library's own
 * tests (stdlib-calls.jsonl), the `packages` corpus from the docstring examples of Debian's
 * Python packages (packages-calls.jsonl: boltons, inflection, toolz, more-itertools, natsort,
 * humanize; apt installs them).
 *
 * The calls were sampled on one Python (Debian's 3.11) and one set of package versions;
 * another release may lack a module file or a function (3.11.x dropped
 * `http.cookies._has_control_character`). Such calls are skipped and counted, never loaded
 * with a source that has no such function.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProgramSpec } from '../program.js';
import { corporaDir } from './support.js';

export const stdlibCallsFile = join(corporaDir, 'stdlib-calls.jsonl');
export const packageCallsFile = join(corporaDir, 'packages-calls.jsonl');

interface ModuleCall {
  module: string;
  /** The module's file, e.g. /usr/lib/python3.11/json/encoder.py. */
  path: string;
  function: string;
  args: string;
}

/** Why calls were left out: this machine has no such module file, or the file no such function. */
export interface CallSkips {
  missingFile: number;
  missingFunction: number;
}

export async function loadStdlibCalls(file = stdlibCallsFile, skips?: CallSkips): Promise<ProgramSpec[]> {
  return (await readModuleCalls('stdlib', file, skips)).map((spec) => ({ ...spec, origin: 'stdlib' }));
}

export async function loadPackageCalls(file = packageCallsFile, skips?: CallSkips): Promise<ProgramSpec[]> {
  return (await readModuleCalls('packages', file, skips)).map((spec) => ({ ...spec, origin: 'packages' }));
}

/**
 * The calls of a JSON Lines file of sample_stdlib_calls.py, with the source of each one's
 * module; ids and groups start with `prefix` (a corpus, or evaluation's held-out modules).
 */
export async function readModuleCalls(prefix: string, file: string, skips: CallSkips = { missingFile: 0, missingFunction: 0 }): Promise<Omit<ProgramSpec, 'origin'>[]> {
  const calls = (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ModuleCall);
  const sources = new Map<string, Promise<string | null>>();
  const sourceOf = (path: string): Promise<string | null> => {
    let source = sources.get(path);
    if (source === undefined) sources.set(path, (source = readFile(path, 'utf8').catch(() => null)));
    return source;
  };
  const counts = new Map<string, number>();
  const specs = await Promise.all(
    calls.map(async (call): Promise<Omit<ProgramSpec, 'origin'> | null> => {
      const source = await sourceOf(call.path);
      if (source === null) {
        skips.missingFile++;
        return null;
      }
      if (!definesTopLevel(source, call.function)) {
        skips.missingFunction++;
        return null;
      }
      const name = `${call.module}.${call.function}`;
      const k = counts.get(name) ?? 0;
      counts.set(name, k + 1);
      return {
        id: `${prefix}/${name}#${k}`,
        // By top-level package: json.encoder and json.decoder, or the email modules, call
        // each other, so a package's programs must not straddle splits.
        group: `${prefix}/${call.module.split('.')[0]}`,
        source,
        path: call.path,
        entry: call.function,
        args: call.args,
      };
    }),
  );
  return specs.filter((s) => s !== null);
}

/**
 * Whether `source` defines `name`: a `def name(` line (or `async def`), at any indentation,
 * since a module-level function may be defined in an `if` or `try` (ntpath's normpath).
 */
function definesTopLevel(source: string, name: string): boolean {
  const escaped = name.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&');
  return new RegExp(`^[ \\t]*(?:async[ \\t]+)?def[ \\t]+${escaped}[ \\t]*[(\\[]`, 'm').test(source);
}
