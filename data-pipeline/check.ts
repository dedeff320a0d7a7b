/**
 * `ndb data check --origin humaneval|mbpp|stdlib|packages`: runs the real tracer on every program of
 * a corpus with its test inputs and counts how the runs ended. This is the figure the
 * README reports as "the share that traced without error".
 */
import { availableParallelism } from 'node:os';
import type { Trace } from '../tracer/events.js';
import { TraceFailure, traceFile, traceSource } from '../tracer/run-tracer.js';
import { type CorpusOrigin, loadCorpus } from './corpora/index.js';
import { runPool } from './pool.js';
import type { ProgramSpec } from './program.js';

export const TRACE_LIMITS = { maxEvents: 10_000, timeoutSeconds: 5 } as const;

/** Traces one program spec: in place for a real module, from a temp file otherwise. */
export function traceSpec(spec: ProgramSpec): Promise<Trace> {
  if (spec.path) return traceFile({ file: spec.path, entry: spec.entry, args: spec.args, limits: TRACE_LIMITS });
  return traceSource(spec.source, { entry: spec.entry, args: spec.args, limits: TRACE_LIMITS });
}

export interface CheckSummary {
  origin: CorpusOrigin;
  programs: number;
  inputs: number;
  /** How the traced runs ended: normal, error (the program raised), never (cut by a limit). */
  exits: Record<'normal' | 'error' | 'never', number>;
  /** Runs the tracer could not record, by failure kind. */
  failures: Record<string, number>;
  /** A few failure messages, for the curious. */
  examples: string[];
  seconds: number;
}

export async function checkCorpus(origin: CorpusOrigin, onProgress?: (done: number, total: number) => void, limit?: number): Promise<CheckSummary> {
  const started = Date.now();
  const specs = (await loadCorpus(origin)).slice(0, limit);
  const summary: CheckSummary = { origin, programs: new Set(specs.map((s) => s.group)).size, inputs: specs.length, exits: { normal: 0, error: 0, never: 0 }, failures: {}, examples: [], seconds: 0 };
  let done = 0;
  await runPool(specs, availableParallelism(), async (spec) => {
    try {
      const trace = await traceSpec(spec);
      summary.exits[trace.exit.exit]++;
    } catch (err) {
      const kind = err instanceof TraceFailure ? err.kind : 'internal';
      summary.failures[kind] = (summary.failures[kind] ?? 0) + 1;
      if (summary.examples.length < 5) summary.examples.push(`${spec.id}: ${(err as Error).message}`);
    }
    onProgress?.(++done, specs.length);
  });
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}
