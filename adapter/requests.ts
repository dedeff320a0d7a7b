/**
 * Every DAP message a client sends, checked before the session acts on it: the envelope (a
 * request with a seq and a command) and each request's arguments, with zod. A request that does
 * not fit is answered with an error that says which field is wrong, never with a JS stack
 * trace (@vscode/debugadapter's default for a handler that throws on a missing field).
 *
 * The schemas check what the session reads; fields it does not read pass through (clients add
 * their own). The launch configuration's own fields are LaunchArgsSchema's (debug-session.ts).
 */
import { z } from 'zod';
import { MAX_INPUT_CANDIDATES, NDB_EVENTS_FLAG, PREDICT_INPUTS_REQUEST, RESAMPLE_REQUEST, TRACE_REQUEST } from '../protocol/dap.js';

/** Expressions and new values: longer text is no hover (the evaluator caps it again). */
const MAX_EXPRESSION = 20_000;

const int = z.number().int();
const count = int.min(0);
const obj = <T extends z.ZodRawShape>(shape: T) => z.object(shape).passthrough();
/** Arguments that may be left out. */
const optional = <T extends z.ZodRawShape>(shape: T) => obj(shape).optional();
const thread = optional({ threadId: int.optional() });

const SourceSchema = obj({ path: z.string().optional(), name: z.string().optional(), sourceReference: int.optional() });

export const REQUEST_ARGUMENTS: Record<string, z.ZodTypeAny> = {
  initialize: optional({
    clientID: z.string().optional(),
    clientName: z.string().optional(),
    adapterID: z.string().optional(),
    locale: z.string().optional(),
    linesStartAt1: z.boolean().optional(),
    columnsStartAt1: z.boolean().optional(),
    pathFormat: z.string().optional(),
    supportsProgressReporting: z.boolean().optional(),
    supportsInvalidatedEvent: z.boolean().optional(),
    /** ndb's own (protocol/dap.ts, NDB_EVENTS_FLAG): send ndb's custom events (`ndb/stats`) to this client. */
    [NDB_EVENTS_FLAG]: z.boolean().optional(),
  }),
  launch: obj({ token: z.string().optional() }),
  attach: optional({ token: z.string().optional() }),
  disconnect: optional({ restart: z.boolean().optional(), terminateDebuggee: z.boolean().optional(), suspendDebuggee: z.boolean().optional() }),
  terminate: optional({ restart: z.boolean().optional() }),
  restart: optional({}),
  configurationDone: optional({}),
  setBreakpoints: obj({
    source: SourceSchema,
    breakpoints: z.array(obj({ line: count, column: count.optional(), condition: z.string().max(MAX_EXPRESSION).optional(), hitCondition: z.string().max(1_000).optional(), logMessage: z.string().max(MAX_EXPRESSION).optional() })).max(10_000).optional(),
    lines: z.array(count).max(10_000).optional(),
    sourceModified: z.boolean().optional(),
  }),
  setFunctionBreakpoints: obj({ breakpoints: z.array(obj({ name: z.string().max(1_000), condition: z.string().max(MAX_EXPRESSION).optional(), hitCondition: z.string().max(1_000).optional() })).max(10_000) }),
  setExceptionBreakpoints: obj({
    filters: z.array(z.string()).max(1_000),
    filterOptions: z.array(obj({ filterId: z.string(), condition: z.string().optional() })).max(1_000).optional(),
    exceptionOptions: z.array(obj({ path: z.array(obj({ negate: z.boolean().optional(), names: z.array(z.string()).max(1_000) })).max(100).optional(), breakMode: z.enum(['never', 'always', 'unhandled', 'userUnhandled']) })).max(1_000).optional(),
  }),
  modules: optional({ startModule: count.optional(), moduleCount: count.optional() }),
  breakpointLocations: obj({ source: SourceSchema, line: count, column: count.optional(), endLine: count.optional(), endColumn: count.optional() }),
  dataBreakpointInfo: obj({ variablesReference: int.optional(), name: z.string().max(1_000), frameId: int.optional() }),
  setDataBreakpoints: obj({ breakpoints: z.array(obj({ dataId: z.string().max(10_000), accessType: z.enum(['read', 'write', 'readWrite']).optional(), condition: z.string().optional(), hitCondition: z.string().optional() })).max(1_000) }),
  stepInTargets: obj({ frameId: int }),
  gotoTargets: obj({ source: SourceSchema, line: count, column: count.optional() }),
  goto: obj({ threadId: int.optional(), targetId: int }),
  restartFrame: obj({ frameId: int }),
  completions: obj({ text: z.string().max(MAX_EXPRESSION), column: count, frameId: int.optional(), line: count.optional() }),
  setExpression: obj({ expression: z.string().max(MAX_EXPRESSION), value: z.string().max(MAX_EXPRESSION), frameId: int.optional() }),
  continue: thread,
  next: thread,
  stepIn: optional({ threadId: int.optional(), targetId: int.optional() }),
  stepOut: thread,
  stepBack: thread,
  reverseContinue: thread,
  pause: thread,
  threads: optional({}),
  stackTrace: optional({ threadId: int.optional(), startFrame: count.optional(), levels: count.optional() }),
  scopes: obj({ frameId: int }),
  variables: obj({ variablesReference: int, filter: z.enum(['indexed', 'named']).optional(), start: count.optional(), count: count.optional(), format: optional({ hex: z.boolean().optional() }) }),
  evaluate: obj({ expression: z.string().max(MAX_EXPRESSION), frameId: int.optional(), context: z.string().optional(), format: optional({ hex: z.boolean().optional() }) }),
  setVariable: obj({ variablesReference: int, name: z.string().max(1_000), value: z.string().max(MAX_EXPRESSION) }),
  exceptionInfo: thread,
  cancel: optional({ requestId: int.optional(), progressId: z.string().optional() }),
  [PREDICT_INPUTS_REQUEST]: obj({ value: z.string().max(MAX_EXPRESSION), candidates: int.min(0).max(MAX_INPUT_CANDIDATES).optional() }),
  [RESAMPLE_REQUEST]: optional({}),
  [TRACE_REQUEST]: optional({}),
};

/** Any other request: its arguments, if any, are an object (the base class's handlers read fields of it). */
const OTHER_ARGUMENTS = z.record(z.unknown()).optional();

const RequestEnvelope = z.object({
  type: z.literal('request'),
  seq: int.min(0),
  command: z.string().min(1).max(200),
  arguments: z.unknown().optional(),
});

export type CheckedMessage =
  | { kind: 'request'; request: { seq: number; type: 'request'; command: string; arguments?: unknown } }
  | { kind: 'response'; message: Record<string, unknown> }
  /** Not a request we can act on; `seq`/`command` when it can still be answered. */
  | { kind: 'invalid'; problem: string; seq?: number; command?: string };

/** A parsed JSON value as a DAP message. */
export function checkMessage(value: unknown): CheckedMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', problem: `a message must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` };
  }
  const m = value as Record<string, unknown>;
  if (m.type === 'response') return { kind: 'response', message: m };
  const parsed = RequestEnvelope.safeParse(m);
  const seq = typeof m.seq === 'number' && Number.isInteger(m.seq) && m.seq >= 0 ? m.seq : undefined;
  const command = typeof m.command === 'string' && m.command.length > 0 && m.command.length <= 200 ? m.command : undefined;
  if (!parsed.success) {
    // An event (or anything typed otherwise) is not answered: DAP answers requests only.
    if (m.type !== 'request' && m.type !== undefined) return { kind: 'invalid', problem: `ndb dap only acts on requests; this message's type is ${JSON.stringify(m.type)}` };
    const problem = `not a DAP request: ${describeIssues(parsed.error)}`;
    return { kind: 'invalid', problem, ...(seq === undefined ? {} : { seq }), ...(command === undefined ? {} : { command }) };
  }
  return { kind: 'request', request: parsed.data as { seq: number; type: 'request'; command: string; arguments?: unknown } };
}

/** The request's arguments, checked (defaults filled where DAP has them), or what is wrong with them. */
export function checkArguments(command: string, args: unknown): { ok: true; args: unknown } | { ok: false; problem: string } {
  // Own keys only: a command named "constructor" or "__proto__" is just an unknown request.
  const schema = Object.hasOwn(REQUEST_ARGUMENTS, command) ? REQUEST_ARGUMENTS[command]! : OTHER_ARGUMENTS;
  const parsed = schema.safeParse(args);
  if (!parsed.success) return { ok: false, problem: `${command}: ${describeIssues(parsed.error, 'arguments')}` };
  // Left-out arguments are an empty object (the handlers read fields of them); DAP's default
  // path format is 'path' (the base class refuses a missing one).
  const checked = (parsed.data as object | undefined) ?? {};
  return { ok: true, args: command === 'initialize' ? { pathFormat: 'path', ...checked } : checked };
}

function describeIssues(error: z.ZodError, root?: string): string {
  return error.issues
    .slice(0, 3)
    .map((i) => {
      const path = [root, ...i.path].filter((p) => p !== undefined).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}
