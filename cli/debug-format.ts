/**
 * What `ndb debug` prints, as pure functions of the runtime's state: the stop header in pdb's
 * own format (`> file(line)function()`, `-> source`), `list`, `where`, `locals`, the predicted
 * end, and a pretty printer for `pp`.
 *
 * pdb's spellings are kept exactly where a user (or a script) would read them as pdb output;
 * what a neural debugger adds (confidence, latency, "predicted") goes on its own indented line
 * after them, so the pdb lines stay parseable.
 */
import type { State } from '../grammar/state.js';
import { MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { type FrameView, JUMPED } from '../adapter/runtime.js';
import type { End, Stop } from '../adapter/timeline.js';
import { parsePyValue, type PyValue } from '../adapter/python-values.js';
import type { Verification } from '../adapter/verifier.js';
import { describeExit } from '../adapter/verifier.js';

/** The longest repr shown in a stop's one-line summary of changed locals. */
const BRIEF_REPR = 40;
/** Changed locals named in that summary before `+N more`. */
const BRIEF_LOCALS = 6;
/** pprint's default width. */
const PRETTY_WIDTH = 80;

export function percent(p: number): string {
  return `${Math.round(p * 100)}%`;
}

function brief(repr: string): string {
  return repr.length <= BRIEF_REPR ? repr : repr.slice(0, BRIEF_REPR - 1) + '…';
}

/** pdb's location line: `> /path/file.py(8)count()`, with `->value` at a return. */
export function locationLine(path: string, state: State, marker = '> '): string {
  const fn = state.stack.at(-1)!.function;
  const retval = state.event === 'return' ? `->${state.value ?? ''}` : '';
  return `${marker}${path}(${state.line})${fn}()${retval}`;
}

/**
 * What pdb prints for an exception before the location: `ValueError: unknown shape 'x'`
 * (traceback.format_exception_only). The state holds the exception's repr, so a repr with
 * one string argument is turned back into that form; anything else is shown as it is.
 */
export function exceptionLine(repr: string): string {
  const call = /^([A-Za-z_][\w.]*)\(([\s\S]*)\)$/.exec(repr);
  if (!call) return repr;
  const [, name, args] = call as unknown as [string, string, string];
  if (args === '') return name;
  const quoted = /^(['"])([\s\S]*)\1$/.exec(args);
  if (quoted && !quoted[2]!.includes(quoted[1]!)) return `${name}: ${quoted[2]}`;
  return `${name}: ${args}`;
}

/** How a stop came to be, for its summary line. */
export type StopSource = 'new' | 'replayed';

/**
 * The lines printed at a stop: pdb's `--Call--`/`--Return--`/exception line, location and
 * source line (from the file, as pdb), then one indented line with what changed, how sure
 * the model was, and how the state came to be (predicted, and how fast; replayed; your
 * input; edited).
 */
export function stopLines(path: string, program: readonly string[], stop: Stop, source: StopSource, note?: string): string[] {
  const s = stop.state;
  const lines: string[] = [];
  if (s.event === 'call') lines.push('--Call--');
  if (s.event === 'return') lines.push('--Return--');
  if (s.event === 'exception' && s.value !== undefined) lines.push(exceptionLine(s.value));
  lines.push(locationLine(path, s));
  // pdb reads the line from the file; the state's copy may be cut to the trace language's limit.
  lines.push(`-> ${(program[s.line - 1] ?? s.source).trim()}`);
  lines.push(summaryLine(stop, source, note));
  return lines;
}

function summaryLine(stop: Stop, source: StopSource, note?: string): string {
  const changed = Object.keys(stop.confidence.locals).filter((name) => name in stop.state.locals && name !== MORE_LOCALS_KEY);
  const parts = changed.slice(0, BRIEF_LOCALS).map((name) => `${name} = ${brief(stop.state.locals[name]!)}${confidenceTag(stop, name)}`);
  if (changed.length > BRIEF_LOCALS) parts.push(`+${changed.length - BRIEF_LOCALS} more`);
  for (const name of stop.edited.filter((n) => !changed.includes(n) && n !== JUMPED)) parts.push(`${name} = ${brief(stop.state.locals[name] ?? '?')} (set by you)`);
  if (stop.state.value !== undefined && stop.confidence.value !== undefined && stop.origin === 'model') {
    const how = stop.confidence.decided?.value ? `decided: ${stop.confidence.decided.value}` : percent(stop.confidence.value);
    parts.push(`${stop.state.event === 'return' ? 'returns' : 'raises'} ${brief(stop.state.value)} (${how})`);
  }
  const tags = [originTag(stop, source), ...(note ? [note] : [])];
  return `   ${parts.length ? parts.join(', ') + '   ' : ''}[${tags.join('; ')}]`;
}

function confidenceTag(stop: Stop, name: string): string {
  if (stop.edited.includes(name)) return ' (set by you)';
  if (stop.origin !== 'model') return '';
  const rule = stop.confidence.decided?.locals[name];
  // A value a rule decided is Python's semantics, not the model's guess: said as such (docs/symbolic-stepper.md).
  return rule ? ` (decided: ${rule})` : ` (${percent(stop.confidence.locals[name] ?? 1)})`;
}

function originTag(stop: Stop, source: StopSource): string {
  if (stop.origin === 'input') return 'your input';
  if (stop.origin === 'tracer') return 'real run';
  const inferred = stop.inferredBackward ? 'inferred backwards, ' : '';
  if (source === 'replayed') return `${inferred}predicted earlier, replayed`;
  const ms = stop.stats ? `, ${Math.round(stop.stats.milliseconds)} ms` : '';
  const vote = stop.vote && stop.vote.samples > 1 ? `, ${percent(stop.vote.agreement)} of ${stop.vote.valid} samples agree` : '';
  return `${inferred}predicted${ms}${vote}, state ${percent(stop.confidence.frame)}`;
}

/** pdb's "The program finished" line, for the predicted end. */
export function endLine(end: End | null, entry: string | undefined): string {
  if (!end) return 'The program finished (predicted).';
  const who = entry ?? 'the module';
  // Not every end is the model's: a call whose arguments do not fit raises before any line.
  if (end.origin !== 'model') return `The program finished: ${who} ${describeExit(end.exit)}`;
  return `The program finished (predicted): ${who} ${describeExit(end.exit)} (confidence ${end.confidence.frame.toFixed(2)})`;
}

// ---- list, longlist ------------------------------------------------------------------------

/**
 * Source lines `first..last` as pdb's _print_lines writes them: the number right-aligned in
 * three columns, `B` on a breakpoint, `->` on the current line, a tab, the text.
 */
export function sourceLines(lines: readonly string[], first: number, last: number, current: number | undefined, breakpoints: ReadonlySet<number>): string[] {
  const out: string[] = [];
  for (let n = first; n <= Math.min(last, lines.length); n++) {
    let s = String(n).padStart(3);
    if (s.length < 4) s += ' ';
    s += breakpoints.has(n) ? 'B' : ' ';
    if (n === current) s += '->';
    out.push(`${s}\t${lines[n - 1]!.trimEnd()}`);
  }
  return out;
}

// ---- where ---------------------------------------------------------------------------------

/** pdb's `where`: outermost frame first, `> ` on the current (innermost) one. */
export function whereLines(path: string, frames: readonly FrameView[], state: State, selected = 0): string[] {
  const out: string[] = [];
  for (const frame of [...frames].reverse()) {
    const innermost = frame.id === 0;
    const retval = innermost && state.event === 'return' ? `->${state.value ?? ''}` : '';
    // The selected frame (u, d) is marked, as pdb marks its current frame.
    out.push(`${frame.id === selected ? '> ' : '  '}${path}(${frame.line})${frame.function}()${retval}`);
    out.push(`-> ${frame.source.trim()}`);
  }
  return out;
}

// ---- locals --------------------------------------------------------------------------------

export interface LocalView {
  name: string;
  repr: string;
  /** How the value came to be: a confidence, or the user's word. */
  tag: string;
  /** Verify mode: the real value where it differs. */
  real?: string;
}

/**
 * The current frame's locals, each with the confidence of the prediction that last wrote it:
 * a delta frame writes only the locals that changed, so an unchanged one's confidence is that
 * of the earlier stop (same function, same depth, same call) where it was written.
 */
export function localViews(stops: readonly Stop[], index: number): LocalView[] {
  const stop = stops[index]!;
  const views = Object.entries(stop.state.locals)
    .filter(([name]) => name !== MORE_LOCALS_KEY)
    .map(([name, repr]) => ({ name, repr, tag: localTag(stops, index, name) }));
  // pdb shows a return's value and an exception among the locals, under these names.
  const s = stop.state;
  if (s.value !== undefined && (s.event === 'return' || s.event === 'exception')) {
    const decided = stop.origin === 'model' ? stop.confidence.decided?.value : undefined;
    const tag = decided ? `decided: ${decided}` : stop.origin === 'model' && stop.confidence.value !== undefined ? percent(stop.confidence.value) : stop.origin === 'tracer' ? 'real run' : 'your input';
    views.push({ name: s.event === 'return' ? '__return__' : '__exception__', repr: s.value, tag });
  }
  return views;
}

function localTag(stops: readonly Stop[], index: number, name: string): string {
  const here = stops[index]!.state;
  const depth = here.stack.length;
  const fn = here.stack.at(-1)!.function;
  for (let i = index; i >= 0; i--) {
    const stop = stops[i]!;
    const s = stop.state;
    if (s.stack.length !== depth || s.stack.at(-1)!.function !== fn) continue;
    if (stop.edited.includes(name)) return 'set by you';
    const confidence = stop.confidence.locals[name];
    const rule = stop.confidence.decided?.locals[name];
    if (confidence !== undefined) return stop.origin === 'input' ? 'your input' : stop.origin === 'tracer' ? 'real run' : rule ? `decided: ${rule}` : percent(confidence);
    // The call that began this invocation: nothing before it wrote this frame's locals.
    if (s.event === 'call') break;
  }
  return 'unchanged';
}

/** Adds verify mode's real values to the views; returns a note on the state as a whole. */
export function applyVerification(views: LocalView[], v: Verification | null): string[] {
  if (!v) return [];
  if (v.kind === 'unavailable') return [`verify: ${v.reason}`];
  if (v.kind !== 'state') return [];
  for (const view of views) {
    if (view.name in v.locals) view.real = v.locals[view.name] ?? '(no such variable in the real run)';
  }
  for (const [name, real] of Object.entries(v.missing)) views.push({ name, repr: '(not predicted)', tag: 'missing', real });
  const notes: string[] = [];
  if (!v.sameLocation) notes.push(`verify: the real run is at ${v.real.stack.map((f) => `${f.function}:${f.line}`).join(' ')} (${v.real.event})`);
  if (v.value !== undefined) notes.push(`verify: the real value is ${v.value}`);
  if (v.matches) notes.push('verify: matches the real run');
  return notes;
}

/** `name = repr   (93%)`, aligned, with the real value after it where it differs. */
export function localsLines(views: readonly LocalView[], more?: string): string[] {
  const left = views.map((v) => `${v.name} = ${v.repr}`);
  const width = Math.min(Math.max(0, ...left.map((l) => l.length)), 48);
  const lines = views.map((v, i) => `${left[i]!.padEnd(width)}   (${v.tag})${v.real !== undefined ? `   real: ${v.real}` : ''}`);
  if (more) lines.push(`(the prediction leaves out ${more.replace(/^\+/, '')} more locals)`);
  return lines;
}

// ---- pp ------------------------------------------------------------------------------------

const CLOSE: Record<string, string> = { '[': ']', '(': ')', '{': '}' };

/**
 * A repr laid out like pprint: as is when it fits the width, otherwise one item per line,
 * indented under its bracket. Works on the repr tree (adapter/python-values.ts), so a cut
 * value keeps its `…`.
 */
export function prettyRepr(repr: string, width = PRETTY_WIDTH): string {
  return pretty(parsePyValue(repr), 0, width);
}

function pretty(v: PyValue, indent: number, width: number): string {
  const open = v.text[0] ?? '';
  // Atoms, what fits, and call-shaped reprs (`Counter({…})`) stay on one line.
  if (v.kind === 'atom' || indent + v.text.length <= width || !(open in CLOSE) || v.children.length === 0) return v.text;
  const items = v.children.map((c) => (v.kind === 'dict' ? `${c.name}: ${pretty(c.value, indent + 1 + c.name.length + 2, width)}` : pretty(c.value, indent + 1, width)));
  if (v.truncated) items.push('…');
  const oneTuple = v.kind === 'tuple' && v.children.length === 1 && !v.truncated ? ',' : '';
  return open + items.join(',\n' + ' '.repeat(indent + 1)) + oneTuple + (v.truncated ? '' : CLOSE[open]);
}
