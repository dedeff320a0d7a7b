/**
 * The token vocabulary of the trace language (see README, "The trace language").
 *
 * Every token is written `<|name|>` and becomes a single special token in the model's
 * tokenizer. Payload text between tokens (source lines, JSON locals, reprs) is escaped so
 * that it can never contain `<|` (see escape.ts), which makes tokenizing the language a
 * plain split on the token pattern.
 */

export const TOKENS = {
  beginOfText: '<|begin_of_text|>',
  endOfText: '<|end_of_text|>',
  traceContextStart: '<|trace_context_start|>',
  traceEnd: '<|trace_end|>',

  frameSep: '<|frame_sep|>',
  actionSep: '<|action_sep|>',
  srcSep: '<|src_sep|>',
  argSep: '<|arg_sep|>',
  /** Ours: the location (stack path or bare line number) of a frame. */
  locSep: '<|loc_sep|>',
  /** Ours: the locals of a return / exception frame, after its value. */
  localsSep: '<|locals_sep|>',

  // Forward events.
  callSep: '<|call_sep|>',
  lineSep: '<|line_sep|>',
  returnSep: '<|return_sep|>',
  exceptionSep: '<|exception_sep|>',

  // Inverse events.
  invCallSep: '<|inv_call_sep|>',
  invLineSep: '<|inv_line_sep|>',
  invLineCallSep: '<|inv_line_call_sep|>',
  invReturnSep: '<|inv_return_sep|>',
  invExceptionSep: '<|inv_exception_sep|>',

  // Actions.
  stepInto: '<|step_into|>',
  stepOver: '<|step_over|>',
  stepReturn: '<|step_return|>',
  breakpoint: '<|breakpoint|>',
  continue: '<|continue|>',
  invStepInto: '<|inv_step_into|>',
  invStepOver: '<|inv_step_over|>',
  invStepCall: '<|inv_step_call|>',

  // Exits.
  exitNormal: '<|exit_normal|>',
  exitError: '<|exit_error|>',
  exitNever: '<|exit_never|>',
  invExitEntry: '<|inv_exit_entry|>',
} as const;

export type Token = (typeof TOKENS)[keyof typeof TOKENS];

/** All tokens, in a fixed order (the tokenizer gives them ids in this order). */
export const ALL_TOKENS: readonly Token[] = Object.values(TOKENS);

const TOKEN_SET: ReadonlySet<string> = new Set(ALL_TOKENS);

export function isToken(text: string): text is Token {
  return TOKEN_SET.has(text);
}

/** Matches anything shaped like a token, known or not (the parser rejects unknown ones). */
export const TOKEN_PATTERN = /<\|[a-z_]+\|>/g;
