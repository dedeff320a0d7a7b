/**
 * A loop binds its target to the next element of what it iterates. Stepping from a `for`
 * header into its body (`for x in xs:`), or from one iteration of a one-line comprehension to
 * the next (`[x for x in xs if ...]`), the target holds the element after the one it held,
 * or the first one on entering the loop. The state before shows what is iterated: the frame's
 * own local for a `for`, the caller's local on the comprehension's line for a comprehension
 * (its iterator is hidden in its own frame). Nothing runs: the elements are read off that
 * repr (repr-items.ts), the counts of `range` and `enumerate` added up from the target's value.
 *
 * control_flow.py lists only loops whose iterated names nothing in the loop rebinds or
 * changes, so the repr before is what the loop walks. Where the history shows a `for` since
 * it was entered, its header's visits count the rounds done, which picks the element;
 * otherwise, where an element repeats, every element after one of its copies may come next.
 * Where the repr is cut before the next element, or the target's value is not among the
 * elements, nothing is known.
 */
import type { Action, Locals, State } from '../../grammar/state.js';
import { MORE_LOCALS_KEY } from '../../grammar/truncate.js';
import { type ControlFlow, type IterationSource, type Landing, type Loop, NONE_HEAD } from '../../program-analysis/control-flow.js';
import type { ValueFact } from '../facts.js';
import type { RunHistory } from '../history.js';
import { reprItems } from '../repr-items.js';
import type { Rule } from '../rule.js';
import { COMPREHENSION, type LandingFrame, type Step } from '../step.js';

export const loop: Rule = {
  name: 'loop',
  family: 'loop',
  ask(step) {
    return walkedLoops(step).map(({ line, expr, locals }) => step.evaluate(`iterable ${line}`, `list(${expr})`, locals));
  },
  landing(step, landing) {
    const { prev, history } = withIterables(step);
    return loopLanding(step.flow, step.action, prev, history, landing);
  },
  frame(step, at) {
    const { flow, action } = step;
    const { prev, history } = withIterables(step);
    const next = loopValues(flow, action, prev, history, at);
    if (next) return { values: Object.fromEntries(Object.entries(next).map(([name, reprs]) => [name, { kind: 'one_of', reprs, binds: true } as const])) };
    const back = loopBefore(flow, action, prev, at);
    if (!back) return undefined;
    const values: Record<string, ValueFact> = Object.fromEntries(Object.entries(back.values).map(([name, reprs]) => [name, { kind: 'one_of', reprs }]));
    return { values, unbound: back.unbound };
  },
};

/**
 * The loops that walk an expression (`for line in lines[1:]:`, `[v.strip() for v in
 * line.split(',')]`), with it and the locals it is read on: a `for` around the state before's
 * line (its header, or a line of its body), on the state before, which the loop never
 * changes; the comprehension whose frame the state before is in, on its caller's state on the
 * line (control_flow.py's walked_expression). The walker works out `list(expr)`.
 */
function walkedLoops(step: Step): { line: number; expr: string; locals: Locals }[] {
  const { flow, prev, history } = step;
  if (!prev || !flow.programNames.localsByCodeOnly) return [];
  const fn = prev.stack[prev.stack.length - 1]!.function;
  const out: { line: number; expr: string; locals: Locals }[] = [];
  for (const [line, loops] of flow.loops) {
    for (const l of loops) {
      const around = l.kind === 'for' ? l.body_end !== undefined && prev.line >= line && prev.line <= l.body_end && !COMPREHENSION.test(fn) : l.kind === fn && line === prev.line;
      const locals = !around ? undefined : l.kind === 'for' ? prev.locals : comprehensionWalks(l, prev, history);
      if (!locals) continue;
      for (const source of Object.values(l.sources) as IterationSource[]) if ('expr' in source && source.expr !== undefined) out.push({ line, expr: source.expr, locals });
    }
  }
  return out;
}

/**
 * The state before and the history, the locals each walked expression is read on holding its
 * elements under the name its source reads (`<iter LINE>`), the state before's the module's
 * constants its function reads (Step.globals).
 */
function withIterables(step: Step): { prev: State | undefined; history: RunHistory } {
  const { prev, history } = step;
  const loops = walkedLoops(step);
  // A loop over a module's constant (`for name, n in ROWS:`) reads it as the function does.
  const globals = Object.keys(step.globals).length > 0 ? step.globals : undefined;
  if (!prev || (loops.length === 0 && !globals)) return { prev, history };
  const own: Locals = { ...globals };
  const caller: Locals = {};
  for (const { line, locals } of loops) {
    const value = step.value(`iterable ${line}`);
    // Elements the repr reader splits surely: values, not objects' reprs (`<re.Match object; span=(0, 7), …>`).
    if (value !== undefined && !value.includes('<')) (locals === prev.locals ? own : caller)[`<iter ${line}>`] = value;
  }
  return {
    prev: { ...prev, locals: { ...prev.locals, ...own } },
    history: history.caller ? { ...history, caller: { ...history.caller, locals: { ...history.caller.locals, ...caller } } } : history,
  };
}

const STEPS: ReadonlySet<Action['kind']> = new Set(['step_over', 'step_into']);
const INVERSE_STEPS: ReadonlySet<Action['kind']> = new Set(['inv_step_over', 'inv_step_into']);
const INT = /^-?\d+$/;
/** A repr of a value no one can change: a number, str, bytes, None or bool, or a tuple of such (no bracket, brace or `<` in it at all). */
const IMMUTABLE = /^(?:-?[\d.]|['"]|b['"]|None$|True$|False$|\((?!.*[[{<]))/;
const immutable = (repr: string) => IMMUTABLE.test(repr);

/**
 * The reprs each loop target may take in the state being written (undefined: no loop rule
 * applies): a forward step within one frame from a loop's line to the stop that follows one
 * iteration.
 */
function loopValues(flow: ControlFlow, action: Action | null, prev: State | undefined, history: RunHistory, landing: LandingFrame): Record<string, readonly string[]> | undefined {
  if (!action || !STEPS.has(action.kind) || !prev || prev.event !== 'line' || !landing.bare || landing.event !== 'line') return undefined;
  if (!flow.programNames.localsByCodeOnly) return undefined;
  const fn = prev.stack[prev.stack.length - 1]!.function;
  const loop = flow.loops.get(prev.line)?.find((l) => (l.kind === 'for' ? !COMPREHENSION.test(fn) && landing.line === l.body : l.kind === fn && landing.line === prev.line));
  if (!loop) return undefined;
  const iterated = loop.kind === 'for' ? prev.locals : comprehensionWalks(loop, prev, history);
  if (!iterated) return undefined;
  const frame = flow.frames.get(fn);
  const done = iterationsDone(loop, prev, history.frameStates);
  const out: Record<string, readonly string[]> = {};
  for (const [name, source] of Object.entries(loop.sources)) {
    if (flow.programNames.unstable.has(name) || frame?.shared.has(name)) continue;
    // A target missing from a frame whose locals were cut may still be bound.
    if (prev.locals[name] === undefined && prev.locals[MORE_LOCALS_KEY] !== undefined) continue;
    const known = done === undefined ? undefined : exactNext(source, done, iterated);
    // A target the body rebinds tells nothing back on the header: only the count does.
    let next = typeof known === 'string' ? [known] : known === PAST || loop.rebound ? undefined : nextValues(loop, source, prev.locals[name], iterated, history.frameStates?.[0]);
    // The caller's state shows the elements as they were before the comprehension ran, which
    // may have changed a mutable one since (`[i.pop() for i in rows]`).
    if (loop.kind !== 'for') next = next?.filter(immutable);
    if (next && next.length > 0) out[name] = next;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What a `for`'s targets held before the iteration a step back undoes. */
interface LoopBefore {
  /** The reprs each target may have held (where written). */
  values: Record<string, readonly string[]>;
  /** Targets not bound yet: the iteration undone was the loop's first. */
  unbound: ReadonlySet<string>;
}

/**
 * Stepping back from a `for`'s body's first line to its header undoes one iteration: each
 * target held the element before its current one, or, where the iteration undone was the
 * loop's first (the current element is the first, the count its start), nothing yet in a
 * `fresh` loop (undefined: nothing known; `prev` is the state after the iteration).
 */
function loopBefore(flow: ControlFlow, action: Action | null, prev: State | undefined, landing: LandingFrame): LoopBefore | undefined {
  if (!action || !INVERSE_STEPS.has(action.kind) || !prev || prev.event !== 'line' || !landing.bare || landing.event !== 'line') return undefined;
  if (!flow.programNames.localsByCodeOnly || COMPREHENSION.test(prev.stack[prev.stack.length - 1]!.function)) return undefined;
  const loop = flow.loops.get(landing.line)?.find((l) => l.kind === 'for' && l.body === prev.line && !l.rebound);
  const frame = flow.frames.get(prev.stack[prev.stack.length - 1]!.function);
  if (!loop || Object.keys(loop.sources).some((t) => flow.programNames.unstable.has(t) || frame?.shared.has(t))) return undefined;
  const back: Record<string, string[]> = {};
  // Every source must allow a reading: a first iteration binds all targets at once.
  let mayBeFirst = true;
  let mayBeLater = true;
  for (const [name, source] of Object.entries(loop.sources)) {
    const current = prev.locals[name];
    const undone = current === undefined ? undefined : iterationUndone(source, current, prev.locals);
    if (!undone) return undefined;
    mayBeFirst &&= undone.first;
    mayBeLater &&= undone.before.length > 0;
    back[name] = undone.before;
  }
  if (!mayBeFirst && !mayBeLater) return undefined;
  if (mayBeFirst && !loop.fresh) return undefined; // entered again: the targets held anything
  const unbound = mayBeFirst && !mayBeLater ? new Set(Object.keys(loop.sources)) : new Set<string>();
  return { values: mayBeLater ? back : {}, unbound };
}

/**
 * For the target's `current` value just bound by `source`: whether that was the loop's
 * first element, and the values the target held before where it was a later one.
 */
function iterationUndone(source: IterationSource, current: string, locals: Locals): { first: boolean; before: string[] } | undefined {
  if ('count' in source || 'count_from' in source) {
    const start = startOf(source, locals);
    const now = intOf(current);
    if (start === undefined || now === undefined) return undefined;
    // A count never repeats a value: its start is the first iteration, anything else a later one.
    return now === start ? { first: true, before: [] } : { first: false, before: [String(now - BigInt(source.step))] };
  }
  const shown = elements(source, locals);
  // Cut short, the element held may be a copy past the cut.
  if (!shown?.complete) return undefined;
  const at = shown.items.flatMap((item, j) => (item === current ? [j] : []));
  if (at.length === 0) return undefined; // not what the loop walks
  return { first: at.includes(0), before: [...new Set(at.filter((j) => j > 0).map((j) => shown.items[j - 1]!))] };
}


/**
 * Where a forward step from a loop's line lands, narrowed by what it iterates. From a `for`
 * header: into the body when an element comes next, past it when none does (the last
 * element, an empty value, a range at its stop). Iterating a shown list, tuple, dict, set or
 * str calls nothing and raises nothing, so an iteration's first stop is the body's first
 * line. From a comprehension's line: its next iteration's line while an element is left, its
 * return once none is.
 */
function loopLanding(flow: ControlFlow, action: Action | null, prev: State | undefined, history: RunHistory, landing: Landing): Landing {
  if (!action || !STEPS.has(action.kind) || !prev || prev.event !== 'line' || !flow.programNames.localsByCodeOnly) return landing;
  const fn = prev.stack[prev.stack.length - 1]!.function;
  if (COMPREHENSION.test(fn)) return comprehensionLanding(flow, prev, fn, history, landing);
  const loop = flow.loops.get(prev.line)?.find((l) => l.kind === 'for');
  const body = loop?.body;
  if (!loop || body === undefined) return landing;
  const way = goesOn(loop, prev.locals, prev.locals, history.frameStates?.[0], iterationsDone(loop, prev, history.frameStates));
  const bare = landing.line?.bare;
  if (way === 'body' && (!bare || bare.has(body))) return { line: { bare: new Set([body]), stacks: new Set() }, line_call: NONE_HEAD, exception: NONE_HEAD, return: NONE_HEAD, call: NONE_HEAD };
  if (way === 'exit' && bare?.has(body)) return { ...landing, line: { ...landing.line, bare: new Set([...bare].filter((l) => l !== body)) } };
  return landing;
}

/**
 * The locals that show what a comprehension walks: its caller's on the comprehension's line;
 * where the history does not show that state (a jump into the comprehension's frame), for a
 * `settled` comprehension called by the run's entry frame, any state of that frame: it makes
 * only one call, whose parameters the comprehension reads, unchanged since.
 */
export function comprehensionWalks(loop: Loop, prev: State, history: RunHistory): Locals | undefined {
  const { caller, entry } = history;
  if (caller) return caller.line === prev.line ? caller.locals : undefined;
  const calledByEntry = prev.stack.length === 2 && entry?.stack[0]!.function === prev.stack[0]!.function;
  return loop.settled && calledByEntry ? entry!.locals : undefined;
}

function comprehensionLanding(flow: ControlFlow, prev: State, fn: string, history: RunHistory, landing: Landing): Landing {
  const loop = flow.loops.get(prev.line)?.find((l) => l.kind === fn);
  const walks = loop && comprehensionWalks(loop, prev, history);
  if (!walks) return landing;
  const way = goesOn(loop!, prev.locals, walks, undefined, iterationsDone(loop!, prev, history.frameStates));
  const line = prev.line;
  const head = way === 'exit' ? 'line' : way === 'body' ? 'return' : undefined;
  const bare = head && landing[head]?.bare;
  if (!head || !bare?.has(line)) return landing;
  return { ...landing, [head]: { ...landing[head], bare: new Set([...bare].filter((l) => l !== line)) } };
}

/**
 * Whether the loop's next step is surely into its body (another iteration) or surely past
 * it (undefined: either), from its targets' values (`targets`, the loop's frame) and what it
 * iterates (`iterated`: the same frame's, or a comprehension's caller's).
 */
function goesOn(loop: Loop, targets: Locals, iterated: Locals, cameFrom: State | undefined, done: number | undefined): 'body' | 'exit' | undefined {
  if (done !== undefined) {
    // zip() and the rest stop when any of what they walk runs out; a count goes on only where its stop is shown.
    const sources = Object.values(loop.sources);
    const next = sources.map((source) => exactNext(source, done, iterated));
    if (next.includes(PAST)) return 'exit';
    if (next.every((v, k) => typeof v === 'string' && !('step' in sources[k]! && stopOf(sources[k] as Count, iterated) === undefined))) return 'body';
  }
  if (loop.rebound) return undefined;
  const counts = Object.entries(loop.sources).filter((e): e is [string, Count] => 'step' in e[1]);
  // A range alone: its next value against its stop.
  if (counts.length === Object.keys(loop.sources).length) {
    const [name, source] = counts[0]!;
    const current = targets[name];
    if (current === undefined && targets[MORE_LOCALS_KEY] !== undefined) return undefined;
    const next = countNext(source, phase(loop, current, cameFrom), current, iterated);
    if (!next || next.length === 0 || stopOf(source, iterated) === undefined) return undefined;
    const inside = new Set(next.map((v) => v.inside));
    return inside.size === 2 ? undefined : inside.has(true) ? 'body' : 'exit';
  }
  const walked = Object.entries(loop.sources).filter((e): e is [string, Extract<IterationSource, { seq: string }> | Extract<IterationSource, { values: string }>] => 'seq' in e[1] || 'values' in e[1]);
  // zip() stops at its shortest argument: left to the model.
  const containers = new Set(walked.map(([, s]) => ('seq' in s ? s.seq : s.values)));
  if (walked.length === 0 || containers.size !== 1) return undefined;
  const [name, source] = walked[0]!;
  const current = targets[name];
  if (current === undefined && targets[MORE_LOCALS_KEY] !== undefined) return undefined;
  const items = elements(source, iterated);
  if (!items || !items.complete) return undefined;
  const { entering, continuing } = phase(loop, current, cameFrom);
  let body = entering && items.items.length > 0;
  let exit = entering && items.items.length === 0;
  if (continuing && current !== undefined) {
    const at = items.items.flatMap((item, j) => (item === current ? [j] : []));
    if (at.length === 0 && !entering) return undefined;
    for (const j of at) (j + 1 < items.items.length ? (body = true) : (exit = true));
  }
  return body === exit ? undefined : body ? 'body' : 'exit';
}

/** The elements a `seq` or `values` source walks, in order, as reprs. */
function elements(source: IterationSource, locals: Locals): { items: string[]; complete: boolean } | undefined {
  if (!('seq' in source) && !('values' in source)) return undefined;
  const repr = locals['seq' in source ? source.seq : source.values];
  const shown = repr === undefined ? undefined : reprItems(repr);
  const items = shown && ('values' in source ? shown.values : shown.items);
  if (!shown || !items) return undefined;
  if ('seq' in source && source.item !== undefined) {
    // Each element unpacked: its item for this target, where every element shows `of` items.
    const parts = items.map((e) => (e.startsWith('(') || e.startsWith('[') ? reprItems(e) : undefined));
    if (parts.some((p) => !p?.complete || p.values || p.items.length !== source.of)) return undefined;
    return { items: parts.map((p) => p!.items[source.item!]!), complete: shown.complete };
  }
  if ('seq' in source && source.reversed) return shown.complete ? { items: [...items].reverse(), complete: true } : undefined;
  return { items, complete: shown.complete };
}

/**
 * Whether the loop may be entering (its first element next) and may be going on (the one
 * after `current`, the target's repr before; undefined: not bound yet). A comprehension's
 * frame binds its target only by iterating. A `for` may be entered again where it is inside
 * another loop or its target is bound elsewhere too (not `fresh`); then the frame's state
 * before the header (`cameFrom`, from the history) tells: from the body, the loop goes on;
 * from anywhere else, it is entered.
 */
function phase(loop: Loop, current: string | undefined, cameFrom: State | undefined): { entering: boolean; continuing: boolean } {
  if (current === undefined) return { entering: true, continuing: false };
  if (loop.kind !== 'for' || loop.fresh) return { entering: false, continuing: true };
  if (cameFrom === undefined || loop.body === undefined || loop.body_end === undefined) return { entering: true, continuing: true };
  const fromBody = cameFrom.line >= loop.body && cameFrom.line <= loop.body_end;
  return { entering: !fromBody, continuing: fromBody };
}

type Count = Extract<IterationSource, { step: number }>;

/** A source with no element left. */
const PAST = Symbol('past the last element');

/**
 * How many iterations a `for` has run since it was last entered, on its header (`prev`):
 * its header's visits in the frame's history (`frame`, newest first) back to the frame's
 * last state outside the loop, less one (the entering visit). Undefined where the history
 * does not reach back that far. A comprehension's rounds: comprehensionRounds.
 */
function iterationsDone(loop: Loop, prev: State, frame: readonly State[] | undefined): number | undefined {
  if (loop.kind !== 'for') return comprehensionRounds(loop, prev, frame);
  if (loop.body_end === undefined || !frame) return undefined;
  const header = prev.line;
  let visits = 1;
  for (const s of frame) {
    if (s.line < header || s.line > loop.body_end) return visits - 1;
    if (s.line === header && s.event === 'line') visits++;
  }
  return undefined;
}

/**
 * The elements a comprehension's frame has taken, on its line event `prev`: each round ends on
 * a line event with its targets bound (the first line event, before any, has none), so those
 * line events back to the frame's call, `prev` among them. Undefined where the history does
 * not reach the call, or a frame's locals were cut.
 */
function comprehensionRounds(loop: Loop, prev: State, frame: readonly State[] | undefined): number | undefined {
  if (!frame || prev.locals[MORE_LOCALS_KEY] !== undefined) return undefined;
  const bound = (s: State) => Object.keys(loop.sources).some((t) => s.locals[t] !== undefined);
  let rounds = bound(prev) ? 1 : 0;
  for (const s of frame) {
    if (s.locals[MORE_LOCALS_KEY] !== undefined) return undefined;
    if (s.event === 'call') return rounds;
    if (s.event === 'line' && bound(s)) rounds++;
  }
  return undefined;
}

/**
 * The element (or count) the `done + 1`th iteration binds, PAST where none is left (a count
 * whose stop is not shown is never PAST); undefined: not shown.
 */
function exactNext(source: IterationSource, done: number, locals: Locals): string | typeof PAST | undefined {
  if ('step' in source) {
    const start = startOf(source, locals);
    if (start === undefined) return undefined;
    const value = start + BigInt(done) * BigInt(source.step);
    const stop = stopOf(source, locals);
    return stop !== undefined && (source.step > 0 ? value >= stop : value <= stop) ? PAST : String(value);
  }
  const shown = elements(source, locals);
  if (!shown) return undefined;
  if (done < shown.items.length) return shown.items[done];
  return shown.complete ? PAST : undefined;
}

/**
 * The values a count (`range`, `enumerate`'s index) may give next, each with whether it is
 * still inside the range (true where its stop is not shown); undefined: not known.
 */
function countNext(source: Count, { entering, continuing }: { entering: boolean; continuing: boolean }, current: string | undefined, locals: Locals): { value: bigint; inside: boolean }[] | undefined {
  const start = startOf(source, locals);
  if (entering && start === undefined) return undefined;
  const stop = stopOf(source, locals);
  const step = BigInt(source.step);
  const inside = (v: bigint) => stop === undefined || (step > 0n ? v < stop : v > stop);
  const out: bigint[] = [];
  if (entering) out.push(start!);
  if (continuing && current !== undefined) {
    const now = intOf(current);
    if (now === undefined) return undefined;
    out.push(now + step);
  }
  return out.map((value) => ({ value, inside: inside(value) }));
}

/** A range's stop, where a literal, an int local or the length of a shown value tells it. */
function stopOf(source: Count, locals: Locals): bigint | undefined {
  if (source.stop !== undefined) return BigInt(source.stop);
  if (source.stop_name !== undefined) return intOf(locals[source.stop_name]);
  if (source.stop_len === undefined) return undefined;
  const repr = locals[source.stop_len];
  const shown = repr === undefined ? undefined : reprItems(repr);
  return shown?.complete ? BigInt(shown.items.length) : undefined;
}

function startOf(source: Count, locals: Locals): bigint | undefined {
  if ('count' in source) return BigInt(source.count);
  const from = intOf(locals[source.count_from]);
  return from === undefined ? undefined : from + BigInt(source.offset ?? 0);
}

function intOf(repr: string | undefined): bigint | undefined {
  return repr !== undefined && INT.test(repr) ? BigInt(repr) : undefined;
}

/**
 * What `source` gives next after `current` (see phase()), as reprs; undefined: not known.
 */
function nextValues(loop: Loop, source: IterationSource, current: string | undefined, iterated: Locals, cameFrom: State | undefined): string[] | undefined {
  const { entering, continuing } = phase(loop, current, cameFrom);
  if ('count' in source || 'count_from' in source) {
    const next = countNext(source, phase(loop, current, cameFrom), current, iterated);
    return next?.filter((v) => v.inside).map((v) => String(v.value));
  }
  const shown = elements(source, iterated);
  if (!shown) return undefined;
  const { items } = shown;
  const out = new Set<string>();
  if (entering) {
    if (items.length === 0) return undefined;
    out.add(items[0]!);
  }
  if (continuing && current !== undefined) {
    // Cut short, the element held may be a copy past the cut, whose next is not shown.
    if (!shown.complete) return undefined;
    let found = false;
    for (let j = 0; j < items.length; j++) {
      if (items[j] !== current) continue;
      found = true;
      if (j + 1 < items.length) out.add(items[j + 1]!);
    }
    // Not among the elements (a comprehension's: not what it walks).
    if (!found && loop.kind !== 'for') return undefined;
  }
  return [...out];
}
