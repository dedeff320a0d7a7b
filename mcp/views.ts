/**
 * A predicted run as the MCP tools answer it: stops, locals and the end as plain JSON, each
 * value with its provenance — decided by the symbolic stepper (Python's semantics, with the
 * rule), predicted by the model (with its confidence), the user's input, set by the user —
 * as the debugger's Variables view says it (adapter/variables-view.ts, localProvenance), here
 * for any stop of the timeline rather than the current one only.
 */
import { z } from 'zod';
import type { Exit } from '../grammar/state.js';
import { MORE_LOCALS_KEY } from '../grammar/truncate.js';
import type { NeuralRuntime } from '../adapter/runtime.js';
import type { End, Stop } from '../adapter/timeline.js';
import { describeExit } from '../adapter/verifier.js';

export const ProvenanceSchema = z.object({
  source: z
    .enum(['decided', 'predicted', 'input', 'edited', 'real_run', 'unknown'])
    .describe('decided: the symbolic stepper computed it (Python semantics, certain); predicted: the model guessed it (see confidence); input: your arguments; edited: set with debug_step set; unknown: not tracked'),
  confidence: z.number().min(0).max(1).optional().describe("the model's probability of this value (predicted only)"),
  of: z.literal('state').optional().describe('the confidence is that of the whole state the value came in (a state predicted in one jump has none per value): a lower bound'),
  rule: z.string().optional().describe("the stepper's rule that decided it (decided only)"),
});
export type ProvenanceView = z.infer<typeof ProvenanceSchema>;

export const ValueSchema = z.object({ name: z.string(), value: z.string().describe("the value's repr"), provenance: ProvenanceSchema });
export type ValueView = z.infer<typeof ValueSchema>;

export const StopSchema = z.object({
  index: z.number().int().describe('position in the predicted run (0: its first state)'),
  event: z.string().describe('call, line, return or exception'),
  line: z.number().int(),
  function: z.string(),
  depth: z.number().int().describe('frames on the stack'),
  source: z.string().describe('the source line (about to run, for a line event)'),
  locals: z.array(ValueSchema),
  more_locals: z.string().optional().describe('how many locals the state left out (a state holds a bounded number)'),
  value: ValueSchema.optional().describe('the return value (return event) or the exception (exception event)'),
  changed: z.array(z.string()).describe('locals new or different since the previous stop in the same frame'),
  origin: z.enum(['model', 'input', 'tracer']),
  frame_confidence: z.number().nullable().describe("the model's probability of the whole state (null for your input)"),
});
export type StopView = z.infer<typeof StopSchema>;

export const EndSchema = z.object({
  outcome: z.enum(['returned', 'raised', 'did_not_end', 'back_at_start']),
  value: z.string().optional().describe("the returned value's repr, or the exception's"),
  text: z.string(),
  provenance: ProvenanceSchema,
  path_confidence: z.number().nullable().describe("the model's probability of the whole predicted way to this end"),
});
export type EndView = z.infer<typeof EndSchema>;

function sameFrame(a: Stop, b: Stop): boolean {
  return a.state.stack.length === b.state.stack.length && a.state.stack.every((f, i) => f.function === b.state.stack[i]!.function);
}

/**
 * Where the value of `name` at stop `index` came from: the latest stop of the same frame that
 * wrote it (a predicted frame restates only the locals it changed).
 */
export function provenanceAt(stops: readonly Stop[], index: number, name: string): ProvenanceView {
  const here = stops[index]!;
  for (let i = index; i >= 0; i--) {
    const stop = stops[i]!;
    if (!sameFrame(stop, here)) break;
    if (stop.edited.includes(name)) return { source: 'edited' };
    const confidence = stop.confidence.locals[name];
    if (confidence !== undefined) return originProvenance(stop, confidence, stop.origin === 'model' ? stop.confidence.decided?.locals[name] : undefined);
    // A state predicted whole (after a jump: continue, to_line) has no confidence per local:
    // the value it wrote is as sure as at least the whole state.
    const before = stops[i - 1];
    const wrote = !before || !sameFrame(before, stop) || before.state.locals[name] !== stop.state.locals[name];
    if (wrote) return stop.origin === 'model' ? { source: 'predicted', confidence: round(stop.confidence.frame), of: 'state' } : originProvenance(stop, 1, undefined);
  }
  return { source: 'unknown' };
}

function originProvenance(stop: Pick<Stop, 'origin'>, confidence: number, rule: string | undefined): ProvenanceView {
  if (rule) return { source: 'decided', rule };
  if (stop.origin === 'model') return { source: 'predicted', confidence: round(confidence) };
  return { source: stop.origin === 'input' ? 'input' : 'real_run' };
}

const round = (p: number) => Math.round(p * 1e4) / 1e4;

/** Stop `index` of the runtime's timeline, every value with its provenance. */
export function stopView(runtime: NeuralRuntime, index: number): StopView {
  const stops = runtime.timeline.stops;
  const stop = stops[index]!;
  const { state } = stop;
  const prev = stops[index - 1];
  const same = prev !== undefined && sameFrame(prev, stop);
  const locals: ValueView[] = [];
  let more: string | undefined;
  for (const [name, repr] of Object.entries(state.locals)) {
    if (name === MORE_LOCALS_KEY) {
      more = repr.replace(/^\+/, '');
      continue;
    }
    locals.push({ name, value: repr, provenance: provenanceAt(stops, index, name) });
  }
  const changed = Object.keys(state.locals).filter((n) => n !== MORE_LOCALS_KEY && (!same || prev.state.locals[n] !== state.locals[n]));
  let value: ValueView | undefined;
  if (state.value !== undefined) {
    const decided = stop.origin === 'model' ? stop.confidence.decided?.value : undefined;
    value = { name: state.event === 'exception' ? '(exception)' : '(return)', value: state.value, provenance: originProvenance(stop, stop.confidence.value ?? 1, decided) };
  }
  return {
    index,
    event: state.event,
    line: state.line,
    function: state.stack.at(-1)?.function ?? '<module>',
    depth: state.stack.length,
    source: (runtime.programLines[state.line - 1] ?? state.source).trim(),
    locals,
    ...(more === undefined ? {} : { more_locals: more }),
    ...(value ? { value } : {}),
    changed,
    origin: stop.origin,
    frame_confidence: stop.origin === 'model' ? round(stop.confidence.frame) : null,
  };
}

const OUTCOME: Record<Exit['kind'], EndView['outcome']> = { normal: 'returned', error: 'raised', never: 'did_not_end', entry: 'back_at_start' };

/** The predicted end of the run. */
export function endView(runtime: NeuralRuntime, end: End): EndView {
  const { exit } = end;
  const path = runtime.timeline.endConfidence();
  return {
    outcome: OUTCOME[exit.kind],
    ...(exit.kind === 'normal' || exit.kind === 'error' ? { value: exit.value } : {}),
    text: describeExit(exit),
    provenance: originProvenance(end, end.confidence.value ?? end.confidence.kind, undefined),
    path_confidence: path === null ? null : round(path),
  };
}
