/**
 * A step the symbolic stepper decides whole, written without the model.
 *
 * Most steps of a rollout (a step over a call, a step out, a continue: rollout.ts) are ones
 * Python's semantics decide from the state before: the control flow leaves one place to land
 * (one head, one line or stack), and every local the frame holds there, and a return's value,
 * is decided (semantics/oracle.ts). Decoding such a frame only asks the model to agree with the
 * grammar token after token; here it is built from the oracle's answers instead and costs no
 * forward pass (its tokens reach the model's cache with the next prompt that needs logits).
 *
 * The frame is then checked against the same grammar the model decodes under
 * (FrameConstraint): it must parse, and every local it writes, and a return's value, must be one
 * the stepper allowed exactly one text for. Anything short of that (a name the line may bind
 * that no rule decides, a mutable object a call may have changed, a landing with two places)
 * leaves the step to the model, as before.
 */
import { parseFrame } from '../grammar/parse.js';
import { serializeFrame } from '../grammar/serialize.js';
import type { Action, Event, Frame, State } from '../grammar/state.js';
import { HEADS } from '../grammar/layout.js';
import { TOKENS } from '../grammar/tokens.js';
import { MAX_LOCALS, truncateRepr } from '../grammar/truncate.js';
import { headImpossible } from '../program-analysis/control-flow.js';
import type { FrameAnswer } from '../semantics/facts.js';
import { IMMUTABLE_REPR } from '../semantics/repr-items.js';
import type { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import type { StateConfidence } from './confidence.js';
import { FrameConstraint, type FrameRules } from './frame-constraint.js';
import type { TokenTable } from './token-table.js';

/** Where the one landing is: a line of the same frame, or a whole new stack. */
type Place = { event: Event; bare: true; line: number } | { event: Event; bare: false; stack: Frame[] };

export interface DecidedStep {
  state: State;
  /** The frame as the model would have written it, `<|action_sep|>` included. */
  text: string;
  ids: number[];
  confidence: StateConfidence;
}

/** Forward steps of one frame: what a rollout takes, and `n`/`s` themselves. */
const STEPS: ReadonlySet<Action['kind']> = new Set(['step_into', 'step_over']);

/**
 * The frame `rules.action` lands on from `prev`, where the stepper decides all of it; null
 * where any part is the model's to write.
 */
export function decidedStep(rules: FrameRules, prev: State, tokenizer: TraceTokenizer, table: TokenTable): DecidedStep | null {
  const { oracle, action } = rules;
  if (!oracle || !action || !STEPS.has(action.kind)) return null;
  const probe = new FrameConstraint(rules);
  const place = onlyPlace(probe.headTokens, oracle.landing());
  if (!place) return null;
  const state = place.bare ? sameFrame(rules, prev, place) : newFrame(rules, prev, place);
  if (!state) return null;
  const text = serializeFrame('forward', state, prev, action) + TOKENS.actionSep;
  const ids = tokenizer.encode(text);
  for (const id of ids) {
    const special = table.special(id);
    if (!(special !== undefined ? probe.pushSpecial(special) : probe.pushBytes(table.bytes(id)))) return null;
  }
  if (!probe.done) return null;
  // Every value written must be one the stepper allowed exactly one text for.
  const decided = probe.decisions;
  const written = probe.frameSpans.locals.map((e) => e.key);
  if (written.some((name) => decided.locals[name] === undefined)) return null;
  if (state.value !== undefined && decided.value === undefined) return null;
  // The frame as the history will read it back (a delta against `prev`).
  const parsed = parseFrame(text.slice(0, -TOKENS.actionSep.length), prev, action).state;
  return {
    state: parsed,
    text,
    ids,
    confidence: {
      event: 1,
      location: 1,
      locals: Object.fromEntries(written.map((name) => [name, 1])),
      ...(state.value !== undefined ? { value: 1 } : {}),
      frame: 1,
      decided,
    },
  };
}

/** The one place the step can land, over every head the grammar allows; null where there are more (or a head is free). */
function onlyPlace(heads: ReadonlySet<string>, landing: ReturnType<NonNullable<FrameRules['oracle']>['landing']>): Place | null {
  const places: Place[] = [];
  for (const token of heads) {
    const head = HEADS.get(token);
    // A run cut by a limit is the tracer's, not Python's: not a place the program lands.
    if (head?.kind === 'exit' && head.exit === 'never') continue;
    if (!head || head.kind !== 'event') return null;
    const at = landing[head.event];
    if (!at || !at.bare || !at.stacks) return null;
    if (headImpossible(at)) continue;
    for (const line of at.bare) places.push({ event: head.event, bare: true, line });
    for (const text of at.stacks) places.push({ event: head.event, bare: false, stack: parseStack(text) });
    if (places.length > 1) return null;
  }
  return places.length === 1 ? places[0]! : null;
}

/** `f:1 g:5` as frames (control-flow.ts's stackText). */
function parseStack(text: string): Frame[] {
  return text.split(' ').map((part) => {
    const at = part.lastIndexOf(':');
    return { function: part.slice(0, at), line: Number(part.slice(at + 1)) };
  });
}

/** The decided repr of `name`, truncated as a frame writes it; undefined where the model would write it. */
function decidedRepr(answer: FrameAnswer, name: string): string | undefined {
  const fact = answer.value(name);
  if (fact?.kind === 'exact') return truncateRepr(fact.repr);
  // The same object, and one no code can change: the same text.
  if (fact?.kind === 'kept' && IMMUTABLE_REPR.test(fact.before)) return fact.before;
  return undefined;
}

/** What a frame never shows (tracer.py's locals_of): a module; in a module or class body, a function or a class. */
const MODULE_REPR = /^<module '/;
const DEFINITION_REPR = /^<(?:function|class|built-in function) /;

/**
 * Locals of the names, each decided; null if one is not (or the frame is near the cap, where
 * truncation decides). `namespace`: a module's or a class body's frame, which shows its data only.
 */
function decidedLocals(answer: FrameAnswer, names: Iterable<string>, namespace: boolean, fallback: (name: string) => string | undefined = () => undefined): Record<string, string> | null {
  const locals: Record<string, string> = {};
  for (const name of names) {
    if (answer.unbound.has(name) || name in locals) continue;
    const repr = decidedRepr(answer, name) ?? fallback(name);
    if (repr === undefined) return null;
    if (MODULE_REPR.test(repr) || (namespace && DEFINITION_REPR.test(repr))) continue;
    locals[name] = repr;
  }
  return Object.keys(locals).length >= MAX_LOCALS - 2 ? null : locals;
}

/** A line or return of the frame the state before is in. */
function sameFrame(rules: FrameRules, prev: State, place: Extract<Place, { bare: true }>): State | null {
  const oracle = rules.oracle!;
  const own = prev.stack[prev.stack.length - 1]!;
  const answer = oracle.frame({ event: place.event, line: place.line, bare: true, function: own.function });
  let stored: Iterable<string> = [];
  if (prev.event === 'line') {
    if (!oracle.step.fromStatementLine) return null;
    const stores = oracle.step.flow.frames.get(own.function)?.stores.get(prev.line);
    if (!stores) return null;
    stored = stores;
  } else if (prev.event !== 'call') return null;
  // From a call event to its frame's first line no code of the frame runs: every value is the one it had.
  const unchanged = prev.event === 'call' ? (name: string) => prev.locals[name] : undefined;
  const namespace = oracle.step.flow.frames.get(own.function)?.params === null;
  const locals = decidedLocals(answer, [...Object.keys(prev.locals), ...stored, ...answer.mustWrite], namespace, unchanged);
  if (!locals) return null;
  const value = place.event === 'return' ? onlyReturn(answer) : undefined;
  if (place.event === 'return' && value === undefined) return null;
  if (place.event !== 'line' && place.event !== 'return') return null;
  return {
    event: place.event,
    line: place.line,
    source: rules.lines[place.line - 1] ?? '',
    stack: [...prev.stack.slice(0, -1), { function: own.function, line: place.line }],
    locals,
    ...(value !== undefined ? { value } : {}),
  };
}

/** A callee's call, or the caller going on after a callee's return. */
function newFrame(rules: FrameRules, prev: State, place: Extract<Place, { bare: false }>): State | null {
  const oracle = rules.oracle!;
  const inner = place.stack[place.stack.length - 1]!;
  const answer = oracle.frame({ event: place.event, line: inner.line, bare: false, function: inner.function });
  let names: readonly string[];
  if (place.event === 'call') {
    // The callee's parameters, in the order its frame holds them.
    const params = rules.callLocals?.get(inner.line);
    if (!params || answer.mustWrite.some((n) => !params.includes(n))) return null;
    names = params;
  } else if ((place.event === 'line' || place.event === 'return') && prev.event === 'return' && place.stack.length === prev.stack.length - 1) {
    // Back in the caller, on its next line or returning from the call's line: what it held on
    // the call line (the history's state of it), and what that line binds.
    const caller = oracle.step.history.caller;
    const callLine = prev.stack[prev.stack.length - 2]!.line;
    if (!caller || caller.line !== callLine || (place.event === 'return' && inner.line !== callLine)) return null;
    const stores = oracle.step.flow.frames.get(inner.function)?.stores.get(callLine);
    if (!stores) return null;
    names = [...Object.keys(caller.locals), ...stores, ...answer.mustWrite];
  } else return null;
  const locals = decidedLocals(answer, names, oracle.step.flow.frames.get(inner.function)?.params === null);
  if (!locals) return null;
  const value = place.event === 'return' ? onlyReturn(answer) : undefined;
  if (place.event === 'return' && value === undefined) return null;
  return { event: place.event, line: inner.line, source: rules.lines[inner.line - 1] ?? '', stack: place.stack, locals, ...(value !== undefined ? { value } : {}) };
}

/** A return value the stepper fixes to one text. */
function onlyReturn(answer: FrameAnswer): string | undefined {
  const reprs = new Set(answer.returns?.reprs.map((r) => truncateRepr(r)) ?? []);
  return reprs.size === 1 ? [...reprs][0] : undefined;
}
