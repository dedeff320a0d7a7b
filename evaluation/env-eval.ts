/**
 * `ndb eval environment`: ndb on programs whose values come from the world (libraries, the
 * network, files, the clock, randomness), predicted where none of it exists.
 *
 * The corpus (evaluation/env-corpus/, corpus.json as the pdb corpus's) holds programs that read
 * files, fetch JSON and text over HTTP, use numpy and dateutil, time themselves, draw random
 * numbers and read the environment, each with a fixed script of pdb commands. For each program:
 *
 *  1. Ground truth, in a harness where the dependencies exist: the program and the corpus's
 *     `files/` are copied into a fresh temporary folder (pdb runs there: it is the program's
 *     working directory and HOME), and a local HTTP server (127.0.0.1, this process) serves
 *     `www/` with fixed responses; the programs' `http://127.0.0.1:8000` is rewritten to the
 *     server's port in the copy, and written back as `127.0.0.1:8000` in what pdb shows. The
 *     real pdb runs the script there (evaluation/pdb-driver.ts): clock and randomness are
 *     whatever they were during that run.
 *  2. ndb predicts the program where it is in the corpus, with the same script, as
 *     `ndb eval pdb` drives it (evaluation/pdb-eval.ts: runNdb, then re-synced from pdb's
 *     history); it never runs anything, so the libraries, files and server might as well not
 *     exist.
 *
 * Scored as `ndb eval pdb` scores (line, line+locals, returns, ends, divergence, re-synced),
 * and per value: at every stop where ndb stands where pdb does (same event, line, function),
 * each local pdb shows (and the return value or exception) is one value; it is
 * `type right` when ndb's repr shows the same type (evaluation/repr-type.ts), `exact` when
 * the reprs are equal (truncated and address-masked as the model sees them), `missing` when ndb
 * shows no such local. The same over the re-synced steps whose line is right.
 *
 * Held-out programs are reported as numbers only, as in `ndb eval pdb`.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, extname, join, normalize, sep } from 'node:path';
import type { Locals } from '../grammar/state.js';
import { MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { packageRoot } from '../model-client/model-folder.js';
import type { Predictor } from '../model-client/predictor.js';
import { sourceLines } from '../python/source.js';
import { describeError, type InternalError } from './failures.js';
import { observePdb, type PdbObservation } from './pdb-driver.js';
import {
  type CorpusProgram,
  formatPdbEval,
  pdbCommandOf,
  pdbView,
  type PdbEvalReport,
  type ProgramResult,
  resyncProgram,
  type ResyncStep,
  runNdb,
  scoreProgram,
  SPLITS,
  type Split,
  type SplitTotals,
  type StopView,
  totalsOf,
} from './pdb-eval.js';
import { sameType } from './repr-type.js';

export function defaultEnvCorpusDir(): string {
  return join(packageRoot(), 'evaluation', 'env-corpus');
}

/** The server address the programs are written with; the harness rewrites it to its own. */
export const PLACEHOLDER_HOST = '127.0.0.1:8000';

// ---- the harness ----------------------------------------------------------------------------------

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/**
 * Where the programs' dependencies exist: a local HTTP server with fixed responses (the files
 * of `www/`; anything else is a 404) and, per program, a temporary folder holding `files/`.
 */
export class EnvHarness {
  private readonly folders: string[] = [];

  private constructor(
    readonly corpusDir: string,
    private readonly server: Server,
    readonly host: string,
  ) {}

  static async open(corpusDir: string): Promise<EnvHarness> {
    const www = join(corpusDir, 'www');
    const server = createServer((req, res) => {
      res.sendDate = false; // fixed responses: no Date header
      const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      let body: Buffer | undefined;
      if (!path.split(sep).includes('..')) {
        try {
          body = readFileSync(join(www, path));
        } catch {
          body = undefined;
        }
      }
      if (body === undefined) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end('{"error": "not found"}');
        return;
      }
      res.writeHead(200, { 'Content-Type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream', 'Content-Length': body.length });
      res.end(body);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    return new EnvHarness(corpusDir, server, `127.0.0.1:${port}`);
  }

  /** A fresh folder with `files/` and the program, its server address rewritten; the copy's path. */
  prepare(program: CorpusProgram): string {
    const folder = mkdtempSync(join(tmpdir(), 'ndb-env-'));
    this.folders.push(folder);
    cpSync(join(this.corpusDir, 'files'), folder, { recursive: true });
    const copy = join(folder, basename(program.path));
    writeFileSync(copy, readFileSync(program.path, 'utf8').split(PLACEHOLDER_HOST).join(this.host));
    return copy;
  }

  /** A repr from the harness as the program's own text would give it (the placeholder address). */
  unharness(repr: string): string {
    return repr.split(this.host).join(PLACEHOLDER_HOST);
  }

  async close(): Promise<void> {
    for (const f of this.folders.splice(0)) rmSync(f, { recursive: true, force: true });
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function unharnessObservation(obs: PdbObservation, harness: EnvHarness): PdbObservation {
  if (obs.at === 'stop') {
    return { ...obs, locals: obs.locals.map((l) => ({ ...l, repr: harness.unharness(l.repr) })), ...(obs.value === undefined ? {} : { value: harness.unharness(obs.value) }) };
  }
  if (obs.at === 'exit' && obs.value !== undefined) return { ...obs, value: harness.unharness(obs.value) };
  return obs;
}

/** The classes of the program: their bodies are namespaces, whose locals the tracer keeps as a module's. */
function classNames(lines: readonly string[]): Set<string> {
  return new Set(lines.flatMap((l) => /^\s*class\s+([A-Za-z_]\w*)/.exec(l)?.[1] ?? []));
}

/** pdb's stops for a program in the harness (stop 0 where pdb starts), as the tracer would record them. */
export async function observeInHarness(program: CorpusProgram, harness: EnvHarness): Promise<StopView[]> {
  const copy = harness.prepare(program);
  const [observed] = await observePdb(copy, [program.commands.map(pdbCommandOf)]);
  const classes = classNames(sourceLines(readFileSync(program.path, 'utf8')));
  return [observed!.start, ...observed!.after].map((o) => pdbView(unharnessObservation(o, harness), classes));
}

// ---- values -------------------------------------------------------------------------------------------

export interface ValueCounts {
  /** Values pdb showed at the stops counted (locals, and the return value or exception). */
  values: number;
  /** ... whose repr in ndb's view shows the same type. */
  typeRight: number;
  /** ... whose repr is the same. */
  exact: number;
  /** ... that ndb did not show at all (no such local). */
  missing: number;
  /** The stops counted: those where ndb stood on pdb's event, line and function. */
  stops: number;
}

export const noValues = (): ValueCounts => ({ values: 0, typeRight: 0, exact: 0, missing: 0, stops: 0 });

function addValues(into: ValueCounts, c: ValueCounts): void {
  into.values += c.values;
  into.typeRight += c.typeRight;
  into.exact += c.exact;
  into.missing += c.missing;
  into.stops += c.stops;
}

/** One value: pdb's repr against ndb's (undefined: ndb showed none). */
function scoreValue(into: ValueCounts, real: string, predicted: string | undefined): void {
  into.values++;
  if (predicted === undefined) {
    into.missing++;
    return;
  }
  if (predicted === real || sameType(real, predicted)) into.typeRight++;
  if (predicted === real) into.exact++;
}

/** The values of one stop, where ndb stands where pdb does (else nothing is counted). */
export function scoreStopValues(pdb: StopView, ndb: StopView, into: ValueCounts = noValues()): ValueCounts {
  if (pdb.at !== 'stop' || ndb.at !== 'stop') return into;
  if (pdb.event !== ndb.event || pdb.line !== ndb.line || pdb.function !== ndb.function) return into;
  into.stops++;
  const locals: Locals = ndb.locals;
  for (const [name, real] of Object.entries(pdb.locals)) {
    if (name === MORE_LOCALS_KEY) continue;
    scoreValue(into, real, Object.hasOwn(locals, name) ? locals[name] : undefined);
  }
  if (pdb.value !== undefined) scoreValue(into, pdb.value, ndb.value);
  return into;
}

// ---- running ----------------------------------------------------------------------------------------

export interface EnvProgramResult extends ProgramResult {
  /** Values at the stops where ndb's own run (no re-syncing) stood where pdb did. */
  values: ValueCounts;
  /** Values of the re-synced predictions whose line is right. */
  resyncValues: ValueCounts;
}

export interface EnvSplitTotals extends SplitTotals {
  values: ValueCounts;
  resyncValues: ValueCounts;
}

export interface EnvEvalReport extends Omit<PdbEvalReport, 'totals' | 'programs'> {
  totals: Partial<Record<Split | 'all', EnvSplitTotals>>;
  programs: EnvProgramResult[];
}

export interface EvaluateEnvOptions {
  onProgress?: (done: number, total: number) => void;
  /** Also re-synced per-action prediction (default true). */
  resync?: boolean;
}

function envTotals(results: readonly EnvProgramResult[]): EnvSplitTotals {
  const values = noValues();
  const resyncValues = noValues();
  for (const r of results.filter((r) => r.error === undefined)) {
    addValues(values, r.values);
    addValues(resyncValues, r.resyncValues);
  }
  return { ...totalsOf(results), values, resyncValues };
}

/** Runs pdb in the harness and ndb without it on each program, and scores them. */
export async function evaluateEnvironment(programs: readonly CorpusProgram[], predictor: Predictor, split: Split | 'all', corpusDir: string, opts: EvaluateEnvOptions = {}): Promise<EnvEvalReport> {
  const started = performance.now();
  const internalErrors: InternalError[] = [];
  let heldoutInternalErrors = 0;
  const results: EnvProgramResult[] = [];
  const harness = await EnvHarness.open(corpusDir);
  try {
    for (const [index, program] of programs.entries()) {
      const t0 = performance.now();
      let pdb: StopView[];
      try {
        pdb = await observeInHarness(program, harness);
      } catch (err) {
        results.push({ ...scoreProgram(program, [], [], [], 0), values: noValues(), resyncValues: noValues(), error: `pdb: ${describeError(err).split('\n')[0]}` });
        opts.onProgress?.(index + 1, programs.length);
        continue;
      }
      const errors: InternalError[] = [];
      const ndb = await runNdb(program, predictor, errors);
      const resync: ResyncStep[] = opts.resync === false ? [] : await resyncProgram(program, pdb, predictor, errors);
      if (program.split === 'dev') internalErrors.push(...errors);
      else heldoutInternalErrors += errors.length;
      const values = noValues();
      pdb.forEach((p, i) => scoreStopValues(p, ndb[i]!, values));
      const resyncValues = noValues();
      for (const s of resync) scoreStopValues(pdb[s.stop]!, s.predicted, resyncValues);
      results.push({ ...scoreProgram(program, pdb, ndb, resync, (performance.now() - t0) / 1000), values, resyncValues });
      opts.onProgress?.(index + 1, programs.length);
    }
  } finally {
    await harness.close();
  }
  const totals: EnvEvalReport['totals'] = {};
  for (const s of SPLITS) {
    const of = results.filter((r) => r.split === s);
    if (of.length > 0) totals[s] = envTotals(of);
  }
  if (split === 'all') totals.all = envTotals(results);
  return { corpus: corpusDir, split, totals, programs: results, internalErrors, heldoutInternalErrors, seconds: (performance.now() - started) / 1000 };
}

// ---- the report -------------------------------------------------------------------------------------

const pct = (right: number, n: number) => (n === 0 ? '—' : `${((100 * right) / n).toFixed(1)}%`);

/** The values table, then the stops as `ndb eval pdb` prints them. */
export function formatEnvEval(report: EnvEvalReport, label: string): string {
  const head = (name: string, cells: string[]) => name.padEnd(9) + cells.map((c, i) => c.padStart([8, 8, 12, 9, 9, 15, 13, 14][i]!)).join('');
  const lines = [
    `ndb eval environment: ${label}, ${report.programs.length} programs of ${report.corpus}, ${report.seconds.toFixed(0)} s`,
    '',
    head('split', ['stops', 'values', 'type right', 'exact', 'missing', 'resync values', 'resync type', 'resync exact']),
  ];
  for (const split of [...SPLITS, 'all'] as const) {
    const t = report.totals[split];
    if (!t) continue;
    const v = t.values;
    const r = t.resyncValues;
    lines.push(head(split, [String(v.stops), String(v.values), pct(v.typeRight, v.values), pct(v.exact, v.values), pct(v.missing, v.values), String(r.values), pct(r.typeRight, r.values), pct(r.exact, r.values)]));
  }
  lines.push(
    '',
    "values: at the stops where ndb's own run stands where pdb does (same event, line, function), each local pdb shows and",
    'the return value or exception; type right: ndb shows a repr of the same type; exact: the same repr; missing: ndb shows',
    'no such local. resync: the same over the re-synced predictions (from the real history) whose line is right.',
  );
  const dev = report.programs.filter((p) => p.split === 'dev' && p.error === undefined);
  if (dev.length > 0) {
    lines.push('', 'dev programs, values:', `${'program'.padEnd(20)}${'stops'.padStart(6)}${'values'.padStart(8)}${'type'.padStart(7)}${'exact'.padStart(7)}${'resync'.padStart(8)}${'type'.padStart(7)}${'exact'.padStart(7)}`);
    for (const p of dev) {
      const v = p.values;
      const r = p.resyncValues;
      lines.push(`${p.name.padEnd(20)}${String(v.stops).padStart(6)}${String(v.values).padStart(8)}${String(v.typeRight).padStart(7)}${String(v.exact).padStart(7)}${String(r.values).padStart(8)}${String(r.typeRight).padStart(7)}${String(r.exact).padStart(7)}`);
    }
  }
  const stops = formatPdbEval(report, label).split('\n').slice(1).join('\n');
  lines.push('', 'stops, as ndb eval pdb counts them:', stops);
  return lines.join('\n').replace(/\n+$/, '') + '\n';
}
