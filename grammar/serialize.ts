/**
 * State and trajectory -> text in the trace language. The inverse is parse.ts; the order of
 * a frame's parts and the head and action tokens are layout.ts's.
 *
 * LOC is either the whole stack `f:3 g:12` (outermost first) or, when the scope is kept,
 * only the current line number `12` (scope.ts).
 */
import { escapePayload } from './escape.js';
import { ACTIONS, EVENT_LAYOUTS, EXIT_LAYOUTS, EXIT_TOKENS, type Layout, type Part, eventToken } from './layout.js';
import { localsAsDelta, scopeKept } from './scope.js';
import type { Action, Direction, Exit, Locals, State, Trajectory } from './state.js';
import { TOKENS } from './tokens.js';

export const DELTA_MARKER = '..';

/** JSON text of a repr value, escaped for the payload. Python's json.dumps spacing. */
function jsonString(value: string): string {
  return escapePayload(JSON.stringify(value));
}

/** `{"a": "1", "b": "'x'"}`, or with the delta marker first: `{"..": "..", "b": "'y'"}`. */
export function serializeLocals(locals: Locals, prev?: Locals): string {
  const entries: string[] = [];
  if (prev) {
    entries.push(`${jsonString(DELTA_MARKER)}: ${jsonString(DELTA_MARKER)}`);
    for (const [k, v] of Object.entries(locals)) {
      if (prev[k] !== v) entries.push(`${jsonString(k)}: ${jsonString(v)}`);
    }
  } else {
    for (const [k, v] of Object.entries(locals)) entries.push(`${jsonString(k)}: ${jsonString(v)}`);
  }
  return `{${entries.join(', ')}}`;
}

function serializeLoc(state: State, kept: boolean): string {
  return kept ? String(state.line) : state.stack.map((f) => `${f.function}:${f.line}`).join(' ');
}

/**
 * A head token and the parts of `layout` after it, each after its separator; with `stop`,
 * only up to that part's separator (its payload and what follows are left out).
 */
function writeParts(head: string, layout: Layout, payload: (part: Part) => string, stop?: Part): string {
  let text = head;
  for (const { part, token } of layout) {
    text += token;
    if (part === stop) return text;
    text += payload(part);
  }
  if (stop) throw new Error(`the layout has no ${stop} part`);
  return text;
}

function writeFrame(direction: Direction, state: State, prev: State | undefined, action: Action | undefined, stop?: Part): string {
  const kept = scopeKept(prev, action, state);
  const payload = (part: Part): string => {
    switch (part) {
      case 'loc':
        return serializeLoc(state, kept);
      case 'src':
        return escapePayload(state.source);
      case 'value':
        return jsonString(state.value ?? '');
      case 'locals':
        return serializeLocals(state.locals, kept && localsAsDelta(prev!, state) ? prev!.locals : undefined);
    }
  };
  return writeParts(eventToken(direction, state.event), EVENT_LAYOUTS[state.event], payload, stop);
}

/**
 * One frame's text, from the event token up to (not including) `<|action_sep|>`.
 * `prev` and `action` are the state before it in the trajectory and the action that led
 * here; they decide whether the frame is written as a delta.
 */
export function serializeFrame(direction: Direction, state: State, prev?: State, action?: Action): string {
  return writeFrame(direction, state, prev, action);
}

/**
 * The start of a frame, for a model to complete: its text up to and including the separator
 * of `part`, e.g. a return frame up to its locals, `T LOC <|src_sep|> SRC <|arg_sep|> VALUE
 * <|locals_sep|>`. The state's own `part` (and what follows it) is not written.
 */
export function serializeFrameStart(direction: Direction, state: State, part: Part, prev?: State, action?: Action): string {
  return writeFrame(direction, state, prev, action, part);
}

export function serializeAction(action: Action): string {
  const { token } = ACTIONS[action.kind];
  if (action.kind !== 'breakpoint') return token;
  return `${token}${TOKENS.locSep}${action.line}${TOKENS.srcSep}${escapePayload(action.source)}`;
}

/** An exit's text, from its token up to (not including) `<|trace_end|>`. Its only part is its value. */
export function serializeExit(exit: Exit): string {
  return writeParts(EXIT_TOKENS[exit.kind].token, EXIT_LAYOUTS[exit.kind], () => jsonString('value' in exit ? exit.value : ''));
}

/** `<|begin_of_text|><|trace_context_start|>PROGRAM` — the prompt prefix shared by every step. */
export function serializeContext(program: string): string {
  return TOKENS.beginOfText + TOKENS.traceContextStart + escapePayload(program);
}

/**
 * A whole trajectory. With an exit, the text is complete (`...<|trace_end|><|end_of_text|>`);
 * without one it ends after the last action and `<|frame_sep|>`, ready for the next frame
 * to be predicted.
 */
export function serializeTrajectory(t: Trajectory): string {
  const parts = [serializeContext(t.program)];
  let prev: State | undefined;
  let prevAction: Action | undefined;
  for (const { state, action } of t.steps) {
    parts.push(TOKENS.frameSep, serializeFrame(t.direction, state, prev, prevAction), TOKENS.actionSep, serializeAction(action));
    prev = state;
    prevAction = action;
  }
  parts.push(TOKENS.frameSep);
  if (t.exit) parts.push(serializeExit(t.exit), TOKENS.traceEnd, TOKENS.endOfText);
  return parts.join('');
}
