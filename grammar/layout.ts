/**
 * The frame layout of the trace language, written once: the token that starts each kind of
 * frame (its head: an event or an exit), the order of the parts after it, the token of each
 * action, and which heads may follow an action.
 *
 * A frame is its head, then each part after its own separator token; a state frame ends at
 * `<|action_sep|>`, an exit at `<|trace_end|>`:
 *
 *   call                T <|loc_sep|> LOC <|src_sep|> SRC <|arg_sep|> LOCALS
 *   line, line_call     T <|loc_sep|> LOC <|arg_sep|> LOCALS <|src_sep|> SRC
 *   return, exception   T <|loc_sep|> LOC <|src_sep|> SRC <|arg_sep|> VALUE <|locals_sep|> LOCALS
 *   exit normal, error  T <|arg_sep|> VALUE
 *   exit never, entry   T
 *
 * Read by serialize.ts (writing frames, actions and exits), parse.ts (reading them), scope.ts
 * (which actions are steps) and model-client/frame-constraint.ts (checking a frame as the
 * model writes it), so that the three cannot disagree. A new action is a row of ACTIONS
 * (README, "Adding a debugger action").
 */
import { type Action, type ActionKind, type Direction, type Event, type Exit, isForwardAction } from './state.js';
import { TOKENS, type Token } from './tokens.js';

/**
 * A frame's payload parts: LOC the location (the stack `f:3 g:12`, or a bare line number),
 * SRC the source line, LOCALS a JSON object of reprs, VALUE a JSON string (a return value,
 * an exception, an exit's value).
 */
export type Part = 'loc' | 'src' | 'locals' | 'value';

/** A frame's parts after its head, in order, each with the separator token written before it. */
export type Layout = readonly { readonly part: Part; readonly token: Token }[];

export type ExitKind = Exit['kind'];

/** What a head token starts. */
export type Head = { kind: 'event'; direction: Direction; event: Event } | { kind: 'exit'; direction: Direction; exit: ExitKind };

const LOC = { part: 'loc', token: TOKENS.locSep } as const;
const SRC = { part: 'src', token: TOKENS.srcSep } as const;
const LOCALS = { part: 'locals', token: TOKENS.argSep } as const;
const VALUE = { part: 'value', token: TOKENS.argSep } as const;
/** After a value, the locals have their own separator. */
const LOCALS_AFTER_VALUE = { part: 'locals', token: TOKENS.localsSep } as const;

export const EVENT_LAYOUTS: Readonly<Record<Event, Layout>> = {
  call: [LOC, SRC, LOCALS],
  line: [LOC, LOCALS, SRC],
  line_call: [LOC, LOCALS, SRC],
  return: [LOC, SRC, VALUE, LOCALS_AFTER_VALUE],
  exception: [LOC, SRC, VALUE, LOCALS_AFTER_VALUE],
};

export const EXIT_LAYOUTS: Readonly<Record<ExitKind, Layout>> = {
  normal: [VALUE],
  error: [VALUE],
  never: [],
  entry: [],
};

/** The head token of each event, by direction. A forward trajectory has no `line_call` (it is a line seen from the future). */
export const EVENT_TOKENS: Readonly<Record<Direction, Readonly<Partial<Record<Event, Token>>>>> = {
  forward: { call: TOKENS.callSep, line: TOKENS.lineSep, return: TOKENS.returnSep, exception: TOKENS.exceptionSep },
  inverse: {
    call: TOKENS.invCallSep,
    line: TOKENS.invLineSep,
    line_call: TOKENS.invLineCallSep,
    return: TOKENS.invReturnSep,
    exception: TOKENS.invExceptionSep,
  },
};

/** The head token of each exit, and the direction of the trajectories it ends. */
export const EXIT_TOKENS: Readonly<Record<ExitKind, { token: Token; direction: Direction }>> = {
  normal: { token: TOKENS.exitNormal, direction: 'forward' },
  error: { token: TOKENS.exitError, direction: 'forward' },
  never: { token: TOKENS.exitNever, direction: 'forward' },
  entry: { token: TOKENS.invExitEntry, direction: 'inverse' },
};

const DIRECTIONS: readonly Direction[] = ['forward', 'inverse'];

/** Every head token and what it starts: the events of both directions, then the exits. */
export const HEADS: ReadonlyMap<string, Head> = new Map<string, Head>([
  ...DIRECTIONS.flatMap((direction) =>
    Object.entries(EVENT_TOKENS[direction]).map(([event, token]): [string, Head] => [token, { kind: 'event', direction, event: event as Event }]),
  ),
  ...Object.entries(EXIT_TOKENS).map(([exit, { token, direction }]): [string, Head] => [token, { kind: 'exit', direction, exit: exit as ExitKind }]),
]);

/** The head token of a state frame. A `line_call` written forward (it never is) would be a line. */
export function eventToken(direction: Direction, event: Event): Token {
  return EVENT_TOKENS[direction][direction === 'forward' && event === 'line_call' ? 'line' : event]!;
}

export function layoutOf(head: Head): Layout {
  return head.kind === 'exit' ? EXIT_LAYOUTS[head.exit] : EVENT_LAYOUTS[head.event];
}

/** The token after a frame's last part: `<|action_sep|>` after a state, `<|trace_end|>` after an exit. */
export function frameEnd(head: Head): Token {
  return head.kind === 'exit' ? TOKENS.traceEnd : TOKENS.actionSep;
}

/**
 * Each action: its token; whether it is a step (a step that stays in one frame writes the
 * next frame as a delta with a bare line number, scope.ts; every other action writes the
 * full state); and the events the next frame may be ('any': every event of the action's
 * direction). The exits of the action's direction may always follow. A breakpoint's token is
 * followed by its line and source (serialize.ts, parse.ts).
 */
export const ACTIONS: Readonly<Record<ActionKind, { token: Token; step: boolean; next: readonly Event[] | 'any' }>> = {
  step_into: { token: TOKENS.stepInto, step: true, next: 'any' },
  step_over: { token: TOKENS.stepOver, step: true, next: 'any' },
  step_return: { token: TOKENS.stepReturn, step: false, next: 'any' },
  breakpoint: { token: TOKENS.breakpoint, step: false, next: ['line'] },
  continue: { token: TOKENS.continue, step: false, next: [] },
  inv_step_into: { token: TOKENS.invStepInto, step: true, next: 'any' },
  inv_step_over: { token: TOKENS.invStepOver, step: true, next: 'any' },
  inv_step_call: { token: TOKENS.invStepCall, step: false, next: 'any' },
};

/** The step actions (see ACTIONS). */
export const STEP_ACTIONS: ReadonlySet<ActionKind> = new Set((Object.keys(ACTIONS) as ActionKind[]).filter((k) => ACTIONS[k].step));

/** Token -> action kind. */
export const ACTION_OF_TOKEN: ReadonlyMap<string, ActionKind> = new Map(Object.entries(ACTIONS).map(([kind, { token }]) => [token, kind as ActionKind]));

/** A run's first frame (no action before it): the entry's call, or an exit (a call that fails to bind). */
const FIRST_FRAME: readonly Event[] = ['call'];

/** The head tokens that may start the frame after `action` (null: a run's first frame), events first. */
export function headsAfter(action: Action | null): Token[] {
  const direction: Direction = !action || isForwardAction(action) ? 'forward' : 'inverse';
  const next = action ? ACTIONS[action.kind].next : FIRST_FRAME;
  const tokens = EVENT_TOKENS[direction];
  const events = next === 'any' ? Object.values(tokens) : next.map((e) => tokens[e]!);
  const exits = Object.values(EXIT_TOKENS).flatMap((x) => (x.direction === direction ? [x.token] : []));
  return [...events, ...exits];
}
