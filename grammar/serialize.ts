/**
 * State and trajectory -> text in the trace language. The inverse is parse.ts.
 *
 * Frame layouts (T = the frame's event token, LOC = location, see README):
 *   call              T LOC <|src_sep|> SRC <|arg_sep|> LOCALS
 *   line, line_call   T LOC <|arg_sep|> LOCALS <|src_sep|> SRC
 *   return, exception T LOC <|src_sep|> SRC <|arg_sep|> VALUE <|locals_sep|> LOCALS
 * LOC is `<|loc_sep|>` then either the whole stack `f:3 g:12` (outermost first) or, when
 * the scope is kept, only the current line number `12`.
 */
import { escapePayload } from './escape.js';
import { localsAsDelta, scopeKept } from './scope.js';
import type { Action, Direction, Event, Exit, Locals, State, Trajectory } from './state.js';
import { TOKENS } from './tokens.js';

export const DELTA_MARKER = '..';

const FORWARD_EVENT_TOKENS: Record<Event, string> = {
  call: TOKENS.callSep,
  line: TOKENS.lineSep,
  line_call: TOKENS.lineSep, // never written forward; a line_call is a line seen from the future
  return: TOKENS.returnSep,
  exception: TOKENS.exceptionSep,
};
const INVERSE_EVENT_TOKENS: Record<Event, string> = {
  call: TOKENS.invCallSep,
  line: TOKENS.invLineSep,
  line_call: TOKENS.invLineCallSep,
  return: TOKENS.invReturnSep,
  exception: TOKENS.invExceptionSep,
};

export function eventToken(direction: Direction, event: Event): string {
  return (direction === 'forward' ? FORWARD_EVENT_TOKENS : INVERSE_EVENT_TOKENS)[event];
}

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
  const loc = kept ? String(state.line) : state.stack.map((f) => `${f.function}:${f.line}`).join(' ');
  return TOKENS.locSep + loc;
}

/**
 * One frame's text, from the event token up to (not including) `<|action_sep|>`.
 * `prev` and `action` are the state before it in the trajectory and the action that led
 * here; they decide whether the frame is written as a delta.
 */
export function serializeFrame(direction: Direction, state: State, prev?: State, action?: Action): string {
  const kept = scopeKept(prev, action, state);
  const locals = serializeLocals(state.locals, kept && localsAsDelta(prev!, state) ? prev!.locals : undefined);
  const head = eventToken(direction, state.event) + serializeLoc(state, kept);
  const src = TOKENS.srcSep + escapePayload(state.source);
  switch (state.event) {
    case 'call':
      return head + src + TOKENS.argSep + locals;
    case 'line':
    case 'line_call':
      return head + TOKENS.argSep + locals + src;
    case 'return':
    case 'exception':
      return head + src + TOKENS.argSep + jsonString(state.value ?? '') + TOKENS.localsSep + locals;
  }
}

export function serializeAction(action: Action): string {
  switch (action.kind) {
    case 'step_into':
      return TOKENS.stepInto;
    case 'step_over':
      return TOKENS.stepOver;
    case 'step_return':
      return TOKENS.stepReturn;
    case 'continue':
      return TOKENS.continue;
    case 'breakpoint':
      return `${TOKENS.breakpoint}${TOKENS.locSep}${action.line}${TOKENS.srcSep}${escapePayload(action.source)}`;
    case 'inv_step_into':
      return TOKENS.invStepInto;
    case 'inv_step_over':
      return TOKENS.invStepOver;
    case 'inv_step_call':
      return TOKENS.invStepCall;
  }
}

export function serializeExit(exit: Exit): string {
  switch (exit.kind) {
    case 'normal':
      return TOKENS.exitNormal + TOKENS.argSep + jsonString(exit.value);
    case 'error':
      return TOKENS.exitError + TOKENS.argSep + jsonString(exit.value);
    case 'never':
      return TOKENS.exitNever;
    case 'entry':
      return TOKENS.invExitEntry;
  }
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
