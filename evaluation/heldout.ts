/**
 * Held-out sets in CruxEval's format (JSON Lines `code`, `input`, `output`, `id`), of code no
 * model was trained on, from three sources: the data pipeline's TEST split, synthetic
 * programs only, so that nothing comes from a public benchmark (whose programs may sit in any
 * pretrained model's data; evaluation/heldout.jsonl); the HumanEval and MBPP problems of the
 * held-out splits (realPrograms; evaluation/heldout-real.jsonl); and calls of library modules
 * no build trains on (modulePrograms; evaluation/heldout-modules.jsonl).
 *
 * A synthetic row is a test-split program that traced without error and returned normally,
 * its entry function renamed to `f` (a word-boundary rename, not after a dot: the
 * generator's function names are identifiers of their own, though one may be a method's
 * name too), with `output` the repr of what real Python returns for `f(input)`. Rows are
 * kept only when
 * - `f(input) == eval(output)` holds in a fresh interpreter (rows.py): a repr that does not
 *   read back (an object's default repr, nan) cannot be an expected output;
 * - the output and every argument fit in the trace language untruncated (MAX_REPR_CHARS):
 *   no prediction could write a longer one;
 * - the program has no name `f` of its own before the rename.
 * Candidates are taken in the order of programs.jsonl, so a given dataset and limit always
 * give the same file.
 */
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { MAX_REPR_CHARS } from '../grammar/truncate.js';
import { loadCorpus } from '../data-pipeline/corpora/index.js';
import { readModuleCalls } from '../data-pipeline/corpora/module-calls.js';
import { repoRoot } from '../data-pipeline/corpora/support.js';
import { type CutBudget, cutProgram } from '../program-analysis/cut.js';
import { splitOf } from '../data-pipeline/split.js';
import { makeFolder } from '../util/make-folder.js';
import { checkRows, inspectRows, runRows } from './python-rows.js';

export const HeldoutRowSchema = z.object({ code: z.string(), input: z.string(), output: z.string(), id: z.string() });
export type HeldoutRow = z.infer<typeof HeldoutRowSchema>;

/** The fields of a programs.jsonl record that choose and make a row. */
const ProgramRecordSchema = z.object({
  id: z.string(),
  origin: z.string(),
  split: z.string(),
  status: z.string(),
  exit: z.string().optional(),
  entry: z.string(),
  args: z.string(),
  program: z.string().optional(),
});

/** Rows verified per batch (one Python process for each step of a batch). */
const BATCH = 50;

/**
 * `source` with the function `entry` renamed to `f`; null when `f` may be a name there
 * already (a word `f` that is not an f-string's prefix).
 */
export function renameEntry(source: string, entry: string): string | null {
  if (/\bf\b(?!['"])/.test(source)) return null;
  const escaped = entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Not after a dot: an entry may share its name with a method (`def split` and `s.split()`).
  return source.replace(new RegExp(`(?<!\\.)\\b${escaped}\\b`, 'g'), 'f');
}

/** A held-out file that is not one: the user gave the wrong file, not a bug of ndb's. */
export class HeldoutFileError extends Error {}

export async function readHeldout(file: string): Promise<HeldoutRow[]> {
  const text = await readFile(file, 'utf8');
  const rows: HeldoutRow[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `${file}, line ${i + 1}: not a CruxEval row (one JSON object a line with code, input, output, id)`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new HeldoutFileError(`${where}: not JSON`);
    }
    const parsed = HeldoutRowSchema.safeParse(value);
    if (!parsed.success) throw new HeldoutFileError(`${where}: ${parsed.error.issues[0]!.message}`);
    rows.push(parsed.data);
  }
  return rows;
}

/** A program and call a row can be made of. */
interface Candidate {
  id: string;
  program: string;
  entry: string;
  args: string;
}

async function testPrograms(dataDir: string): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const lines = createInterface({ input: createReadStream(join(dataDir, 'programs.jsonl'), 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const r = ProgramRecordSchema.parse(JSON.parse(line));
    if (r.split === 'test' && r.origin === 'synthetic' && r.status === 'ok' && r.exit === 'normal' && r.program) out.push({ ...r, program: r.program });
  }
  return out;
}

/**
 * Real code no build trains on: every HumanEval and MBPP call of the groups in the
 * validation and test splits (a group's split is a hash of its name, the same in every
 * build; the validation split only scores the validation loss, so no weights ever
 * learn from these programs).
 */
export async function realPrograms(): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const origin of REAL_ORIGINS) {
    for (const spec of await loadCorpus(origin)) {
      if (splitOf(spec.group) !== 'train') out.push({ id: spec.id, program: spec.source, entry: spec.entry, args: spec.args });
    }
  }
  return out;
}

const REAL_ORIGINS = ['humaneval', 'mbpp'] as const;

/** Calls of modules that no corpus samples (sample_stdlib_calls.py --corpus heldout): evaluation only. */
export const heldoutModuleCallsFile = join(repoRoot, 'evaluation', 'heldout-modules-calls.jsonl');

/** A module call's row holds the entry's scope in the module, whole (no callee cut to its signature), up to this size. */
const MAX_MODULE_ROW_CHARS = 4000;
const WHOLE_SCOPE: CutBudget = { measure: (text) => text.length, limit: Number.MAX_SAFE_INTEGER, unit: 'characters' };

/**
 * Module code no build trains on: the calls of the stdlib and packages corpora whose groups
 * (top-level packages) fall in the validation and test splits, and every call of
 * heldout-modules-calls.jsonl. The program is the entry's scope cut from its module
 * (program-analysis/cut.ts, nothing left out), so that a row runs alone; a scope longer than
 * MAX_MODULE_ROW_CHARS, or one that cannot be cut, is left out (counted in `drop`).
 */
export async function modulePrograms(drop: (reason: string) => void): Promise<Candidate[]> {
  const calls = [
    ...[...(await loadCorpus('stdlib')), ...(await loadCorpus('packages'))].filter((spec) => splitOf(spec.group) !== 'train'),
    ...(await readModuleCalls('modules', heldoutModuleCallsFile)),
  ];
  const scopes = new Map<string, Promise<string | null>>();
  const scopeOf = (source: string, entry: string): Promise<string | null> => {
    const key = `${entry}\n${source}`;
    let scope = scopes.get(key);
    if (scope === undefined) {
      scope = cutProgram(source, entry, { budget: WHOLE_SCOPE }).then(
        (cut) => cut.text,
        () => null,
      );
      scopes.set(key, scope);
    }
    return scope;
  };
  const out: Candidate[] = [];
  for (const call of calls) {
    const scope = await scopeOf(call.source, call.entry);
    if (scope === null) drop('scope cannot be cut');
    else if (scope.length > MAX_MODULE_ROW_CHARS) drop('scope too long');
    else out.push({ id: call.id, program: scope, entry: call.entry, args: call.args });
  }
  return out;
}

export interface HeldoutSummary {
  /** Test-split synthetic programs that returned normally, or the real-code calls. */
  candidates: number;
  /** Candidates looked at (whole batches) until the limit was reached. */
  examined: number;
  rows: number;
  /** Why examined candidates were left out, with counts. */
  dropped: Record<string, number>;
}

export interface MakeHeldoutOptions {
  /** A dataset folder whose test-split synthetic programs become rows; absent: the real-code rows (realPrograms). */
  data?: string;
  /** Without `data`: the module rows (modulePrograms) instead of HumanEval and MBPP. */
  modules?: boolean;
  out: string;
  limit?: number;
}

export async function makeHeldout(opts: MakeHeldoutOptions): Promise<HeldoutSummary> {
  const dropped: Record<string, number> = {};
  const drop = (reason: string) => (dropped[reason] = (dropped[reason] ?? 0) + 1);
  const candidates = opts.data !== undefined ? await testPrograms(opts.data) : opts.modules ? await modulePrograms(drop) : await realPrograms();
  const limit = opts.limit ?? Infinity;
  const rows: HeldoutRow[] = [];
  let examined = 0;
  while (rows.length < limit && examined < candidates.length) {
    const batch = candidates.slice(examined, examined + BATCH);
    examined += batch.length;
    const renamed: HeldoutRow[] = [];
    for (const p of batch) {
      const code = renameEntry(p.program, p.entry);
      if (code === null) drop('has a name f');
      else renamed.push({ code, input: p.args, output: '', id: p.id });
    }
    const [runs, shapes] = await Promise.all([runRows(renamed), inspectRows(renamed)]);
    const ran: HeldoutRow[] = [];
    renamed.forEach((row, i) => {
      const run = runs[i]!;
      const shape = shapes[i]!;
      if (!run.ok) drop('f(input) fails after the rename');
      else if (!shape.ok) drop('f not found');
      else if (Array.from(run.output).length > MAX_REPR_CHARS) drop('output too long');
      else if (shape.args.some((a) => Array.from(a).length > MAX_REPR_CHARS)) drop('argument too long');
      else ran.push({ ...row, output: run.output });
    });
    // A fresh interpreter per row confirms what the row claims.
    const checks = await checkRows(ran);
    ran.forEach((row, i) => {
      const check = checks[i]!;
      if (check.ok && check.passed) {
        if (rows.length < limit) rows.push(row);
      } else drop(check.ok ? 'f(input) != eval(output)' : 'the check raised or timed out');
    });
  }
  makeFolder(dirname(opts.out));
  await writeFile(opts.out, rows.map((r) => JSON.stringify({ code: r.code, input: r.input, output: r.output, id: r.id }) + '\n').join(''));
  return { candidates: candidates.length, examined, rows: rows.length, dropped };
}
