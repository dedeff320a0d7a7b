/**
 * The tracer's output: one JSON object per line on stdout (see tracer/tracer.py).
 * Parsed with zod because it crosses a process boundary.
 */
import { z } from 'zod';
import { FrameSchema, LocalsSchema } from '../grammar/state.js';

export const TraceEventSchema = z.object({
  type: z.literal('event'),
  event: z.enum(['call', 'line', 'return', 'exception']),
  /** Call-stack depth among traced (user) frames: the entry frame has depth 0. */
  depth: z.number().int().nonnegative(),
  function: z.string(),
  line: z.number().int().nonnegative(),
  /** Traced user frames, outermost first; the last one is this event's frame. */
  stack: z.array(FrameSchema).min(1),
  locals: LocalsSchema,
  /** repr of the return value (return) or the exception instance (exception). */
  value: z.string().optional(),
});
export type TraceEvent = z.infer<typeof TraceEventSchema>;

export const TraceExitSchema = z.object({
  type: z.literal('exit'),
  exit: z.enum(['normal', 'error', 'never']),
  /** normal: repr of the entry's return value; error: repr of the uncaught exception. */
  value: z.string().optional(),
  /**
   * never: why the run was cut (`max_events`, `timeout`). normal / error: `trace_lost` when
   * Python dropped the trace function before the end (the program called sys.settrace, or
   * recursed to the limit), so events are missing from then on.
   */
  reason: z.string().optional(),
  /**
   * Entry-function runs only: the 1-based inclusive line ranges (sorted, merged) of the
   * innermost enclosing `def` (decorators included) of every line seen in an event, to cut
   * a big module down to the functions the run touched.
   */
  scope: z.array(z.tuple([z.number().int(), z.number().int()])).optional(),
});
export type TraceExit = z.infer<typeof TraceExitSchema>;

/** A problem that stops tracing before it starts (or a limit that is not an exit). */
export const TraceErrorSchema = z.object({
  type: z.literal('error'),
  kind: z.enum(['syntax', 'missing_entry', 'bad_args', 'memory', 'import', 'internal']),
  message: z.string(),
});
export type TraceError = z.infer<typeof TraceErrorSchema>;

export const TracerRecordSchema = z.discriminatedUnion('type', [TraceEventSchema, TraceExitSchema, TraceErrorSchema]);
export type TracerRecord = z.infer<typeof TracerRecordSchema>;

/** A whole recorded run. */
export interface Trace {
  /** The program's full source text. */
  program: string;
  /** Source lines, index 0 = line 1. */
  lines: string[];
  events: TraceEvent[];
  exit: TraceExit;
}
