/**
 * The truncation rule for training and prompting (the paper leaves it open).
 *
 * - A repr longer than MAX_REPR_CHARS keeps its first MAX_REPR_CHARS - 1 characters and
 *   ends in `…` (U+2026). The tracer applies a looser cap of its own; this one bounds the
 *   model's context.
 * - A frame with more than MAX_LOCALS variables keeps the first MAX_LOCALS - 1 (Python's
 *   order: arguments first) and writes the rest as one entry `"…": "+N"`.
 * - A source line longer than MAX_SOURCE_CHARS is cut the same way as a repr.
 *
 * - Object addresses in default reprs (`<Foo object at 0x7f3a…>`) change from run to run and
 *   cannot be predicted: they are written as `at 0x…`.
 *
 * Truncated text is ordinary payload, so the parser needs no special case: everything the
 * serializer writes parses, truncated or not.
 */
import type { Exit, Locals, State, Step, Trajectory } from './state.js';

export const MAX_REPR_CHARS = 100;
export const MAX_LOCALS = 12;
export const MAX_SOURCE_CHARS = 160;
export const ELLIPSIS = '…';
export const MORE_LOCALS_KEY = '…';

export function truncateText(text: string, max: number): string {
  const chars = Array.from(text); // by code point, so a surrogate pair is never split
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + ELLIPSIS;
}

const ADDRESS = / at 0x[0-9a-fA-F]+/g;

/** The normalized, bounded form of a repr (`max`: a shorter bound, for a state too long for the model's context). */
export function truncateRepr(repr: string, max = MAX_REPR_CHARS): string {
  return truncateText(repr.replace(ADDRESS, ' at 0x…'), max);
}

export function truncateLocals(locals: Locals, maxRepr = MAX_REPR_CHARS): Locals {
  const entries = Object.entries(locals);
  const kept = entries.length > MAX_LOCALS ? entries.slice(0, MAX_LOCALS - 1) : entries;
  const out: Locals = {};
  for (const [k, v] of kept) out[k] = truncateRepr(v, maxRepr);
  if (kept.length < entries.length) out[MORE_LOCALS_KEY] = `+${entries.length - kept.length}`;
  return out;
}

export function truncateState(s: State, maxRepr = MAX_REPR_CHARS): State {
  return {
    ...s,
    source: truncateText(s.source, MAX_SOURCE_CHARS),
    locals: truncateLocals(s.locals, maxRepr),
    ...(s.value === undefined ? {} : { value: truncateRepr(s.value, maxRepr) }),
  };
}

function truncateExit(e: Exit | null): Exit | null {
  return e && 'value' in e ? { ...e, value: truncateRepr(e.value) } : e;
}

export function truncateTrajectory(t: Trajectory): Trajectory {
  const steps: Step[] = t.steps.map(({ state, action }) => ({
    state: truncateState(state),
    action: action.kind === 'breakpoint' ? { ...action, source: truncateText(action.source, MAX_SOURCE_CHARS) } : action,
  }));
  return { ...t, steps, exit: truncateExit(t.exit) };
}
