/**
 * Text in the trace language -> typed trajectory, the inverse of serialize.ts (both follow
 * layout.ts). Errors say where (character offset, frame number) and what was expected.
 */
import { unescapePayload } from './escape.js';
import { ACTION_OF_TOKEN, EVENT_LAYOUTS, EXIT_LAYOUTS, HEADS } from './layout.js';
import { DELTA_MARKER } from './serialize.js';
import {
  type Action,
  type Direction,
  type Event,
  type Exit,
  ExitSchema,
  type Frame,
  type Locals,
  type State,
  StateSchema,
  type Step,
  type Trajectory,
} from './state.js';
import { TOKENS, TOKEN_PATTERN, isToken } from './tokens.js';

export class TraceParseError extends Error {
  constructor(
    readonly offset: number,
    readonly frame: number | undefined,
    readonly detail: string,
  ) {
    super(`trace language, at offset ${offset}${frame === undefined ? '' : ` (frame ${frame})`}: ${detail}`);
    this.name = 'TraceParseError';
  }
}

interface Piece {
  kind: 'token' | 'text';
  text: string;
  offset: number;
}

function lex(text: string): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN_PATTERN)) {
    const at = m.index!;
    if (at > last) pieces.push({ kind: 'text', text: text.slice(last, at), offset: last });
    if (!isToken(m[0])) throw new TraceParseError(at, undefined, `unknown token ${m[0]}`);
    pieces.push({ kind: 'token', text: m[0], offset: at });
    last = at + m[0].length;
  }
  if (last < text.length) pieces.push({ kind: 'text', text: text.slice(last), offset: last });
  return pieces;
}

/** The event a head token starts, if it starts one. */
function eventOfToken(token: string): { direction: Direction; event: Event } | undefined {
  const head = HEADS.get(token);
  return head?.kind === 'event' ? head : undefined;
}

const STACK_ENTRY = /^(\S+):(\d+)$/;

/** A cursor over the lexed pieces with "expect" helpers that raise located errors. */
class Reader {
  private i = 0;
  frame: number | undefined;

  constructor(
    private readonly pieces: Piece[],
    private readonly end: number,
  ) {}

  peek(): Piece | undefined {
    return this.pieces[this.i];
  }

  atEnd(): boolean {
    return this.i >= this.pieces.length;
  }

  fail(detail: string, at?: number): never {
    throw new TraceParseError(at ?? this.peek()?.offset ?? this.end, this.frame, detail);
  }

  private describe(p: Piece | undefined): string {
    if (!p) return 'the end of the text';
    return p.kind === 'token' ? p.text : `text ${JSON.stringify(p.text.slice(0, 40))}`;
  }

  token(expected: string): void {
    const p = this.peek();
    if (p?.kind !== 'token' || p.text !== expected) this.fail(`expected ${expected} but found ${this.describe(p)}`);
    this.i++;
  }

  tryToken(expected: string): boolean {
    const p = this.peek();
    if (p?.kind === 'token' && p.text === expected) {
      this.i++;
      return true;
    }
    return false;
  }

  anyToken(what: string): Piece {
    const p = this.peek();
    if (p?.kind !== 'token') this.fail(`expected ${what} but found ${this.describe(p)}`);
    this.i++;
    return p;
  }

  /** Payload text up to the next token; may be empty. */
  text(): { text: string; offset: number } {
    const p = this.peek();
    if (p?.kind === 'text') {
      this.i++;
      return { text: unescapePayload(p.text), offset: p.offset };
    }
    return { text: '', offset: p?.offset ?? this.end };
  }
}

function parseJson(r: Reader, what: string): { value: unknown; offset: number } {
  const { text, offset } = r.text();
  try {
    return { value: JSON.parse(text), offset };
  } catch (err) {
    return r.fail(`${what} is not valid JSON (${(err as Error).message}): ${JSON.stringify(text.slice(0, 60))}`, offset);
  }
}

function parseValue(r: Reader): string {
  const { value, offset } = parseJson(r, 'the value');
  if (typeof value !== 'string') r.fail('the value must be a JSON string holding a repr', offset);
  return value;
}

/** Locals object; a delta (marker present) is applied to `prev`. */
function parseLocals(r: Reader, prev: State | undefined): Locals {
  const { value, offset } = parseJson(r, 'the locals');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) r.fail('the locals must be a JSON object', offset);
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries) {
    if (typeof v !== 'string') r.fail(`the local ${JSON.stringify(k)} must be a repr string`, offset);
  }
  const isDelta = (value as Record<string, unknown>)[DELTA_MARKER] === DELTA_MARKER;
  if (!isDelta) return Object.fromEntries(entries) as Locals;
  if (!prev) r.fail('a locals delta ("..": "..") needs a state before it', offset);
  const locals: Locals = { ...prev.locals };
  for (const [k, v] of entries) if (k !== DELTA_MARKER) locals[k] = v as string;
  return locals;
}

/** `f:3 g:12` (full stack) or `12` (the current line, same frame as `prev`). */
function parseLoc(r: Reader, prev: State | undefined): Frame[] {
  const { text, offset } = r.text();
  if (/^\d+$/.test(text)) {
    if (!prev) r.fail('a bare line number needs a state before it', offset);
    const stack = prev.stack.map((f) => ({ ...f }));
    stack[stack.length - 1]!.line = Number(text);
    return stack;
  }
  const stack = text.split(' ').map((entry) => {
    const m = STACK_ENTRY.exec(entry);
    if (!m) return r.fail(`bad stack entry ${JSON.stringify(entry)} (expected name:line)`, offset);
    return { function: m[1]!, line: Number(m[2]) };
  });
  return stack;
}

function parseFrameBody(r: Reader, event: Event, prev: State | undefined, at: number): State {
  let stack: Frame[] | undefined;
  let source = '';
  let locals: Locals | undefined;
  let value: string | undefined;
  for (const { part, token } of EVENT_LAYOUTS[event]) {
    r.token(token);
    if (part === 'loc') stack = parseLoc(r, prev);
    else if (part === 'src') source = r.text().text;
    else if (part === 'locals') locals = parseLocals(r, prev);
    else value = parseValue(r);
  }
  // Every event's layout has a location and locals.
  const state = { event, line: stack!.at(-1)!.line, source, stack: stack!, locals: locals!, ...(value === undefined ? {} : { value }) };
  const checked = StateSchema.safeParse(state);
  if (!checked.success) r.fail(`invalid state: ${checked.error.issues.map((i) => i.message).join('; ')}`, at);
  return checked.data;
}

function parseAction(r: Reader): Action {
  const p = r.anyToken('an action');
  const kind = ACTION_OF_TOKEN.get(p.text) ?? r.fail(`expected an action but found ${p.text}`, p.offset);
  if (kind !== 'breakpoint') return { kind };
  r.token(TOKENS.locSep);
  const { text, offset } = r.text();
  if (!/^\d+$/.test(text) || Number(text) < 1) r.fail(`a breakpoint needs a line number, found ${JSON.stringify(text)}`, offset);
  r.token(TOKENS.srcSep);
  return { kind: 'breakpoint', line: Number(text), source: r.text().text };
}

function parseExit(r: Reader, direction: Direction): Exit {
  const p = r.anyToken('an exit');
  const head = HEADS.get(p.text);
  if (head?.kind !== 'exit') return r.fail(`expected a frame or an exit but found ${p.text}`, p.offset);
  if (head.direction !== direction) r.fail(`${p.text} cannot end a ${direction} trajectory`, p.offset);
  let value: string | undefined;
  // An exit's only part is its value.
  for (const { token } of EXIT_LAYOUTS[head.exit]) {
    r.token(token);
    value = parseValue(r);
  }
  return ExitSchema.parse({ kind: head.exit, ...(value === undefined ? {} : { value }) });
}

/**
 * One frame (from its event token to just before `<|action_sep|>`), given the state and
 * action before it. This is what the model predicts at each step.
 */
export function parseFrame(text: string, prev?: State, prevAction?: Action): { direction: Direction; state: State } {
  const r = new Reader(lex(text), text.length);
  const head = r.anyToken('an event token');
  const ev = eventOfToken(head.text) ?? r.fail(`expected an event token but found ${head.text}`, head.offset);
  const state = parseFrameBody(r, ev.event, prevAction ? prev : undefined, head.offset);
  if (!r.atEnd()) r.fail('unexpected text after the frame');
  return { direction: ev.direction, state };
}

/** An exit frame (`<|exit_normal|><|arg_sep|>"1"<|trace_end|>` ...): how a run ends, as the model predicts it. */
export function parseExitFrame(text: string): Exit {
  const t = parseTrajectory(TOKENS.beginOfText + TOKENS.traceContextStart + TOKENS.frameSep + text + TOKENS.endOfText);
  if (!t.exit) throw new TraceParseError(0, undefined, `not an exit frame: ${text}`);
  return t.exit;
}

/** A whole trajectory as written by serializeTrajectory (complete, or ending after `<|frame_sep|>`). */
export function parseTrajectory(text: string): Trajectory {
  const r = new Reader(lex(text), text.length);
  r.token(TOKENS.beginOfText);
  r.token(TOKENS.traceContextStart);
  const program = r.text().text;
  const steps: Step[] = [];
  let direction: Direction | undefined;
  let exit: Exit | null = null;
  let prev: State | undefined;
  for (;;) {
    r.frame = steps.length;
    r.token(TOKENS.frameSep);
    const p = r.peek();
    if (!p) break; // an open trajectory: the next frame is yet to come
    const ev = p.kind === 'token' ? eventOfToken(p.text) : undefined;
    if (!ev) {
      exit = parseExit(r, direction ?? (p.text === TOKENS.invExitEntry ? 'inverse' : 'forward'));
      r.token(TOKENS.traceEnd);
      r.token(TOKENS.endOfText);
      if (!r.atEnd()) r.fail('unexpected text after <|end_of_text|>');
      break;
    }
    r.anyToken('an event token');
    if (direction && ev.direction !== direction) r.fail(`a ${ev.direction} frame inside a ${direction} trajectory`, p.offset);
    direction = ev.direction;
    const state = parseFrameBody(r, ev.event, prev, p.offset);
    r.token(TOKENS.actionSep);
    const action = parseAction(r);
    steps.push({ state, action });
    prev = state;
  }
  return { direction: direction ?? (exit?.kind === 'entry' ? 'inverse' : 'forward'), program, steps, exit };
}
