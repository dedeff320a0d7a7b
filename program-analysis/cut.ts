/**
 * The cut: a long program shown to the model as the part of it one entry can reach
 * (reference §2: "the trace is cut to that call's scope"). One module for training and
 * inference, so that the model is trained on exactly the shape of program it is shown:
 * data-pipeline/excerpt.ts cuts the stdlib modules it traces with it, and NeuralPredictor
 * cuts a program that does not fit the model's context.
 *
 * cut.py (ast only; nothing runs) splits the file into units (top-level statements, and
 * the statements of a top-level class's body) and says how far each lies from the entry by
 * name. Here the units are assembled in file order: every unit the entry reaches, whole; if
 * that does not fit the budget, the farthest callees are cut to their signature and
 * docstring (a `...` line stands for the body), farthest first; if it still does not fit,
 * the farthest units are left out; and only when the entry's own unit (with its class
 * header, for a method) does not fit, a CutError names the sizes. Between two pieces that
 * are not neighbours in the file stands a `# ...` line (blank lines between them are kept).
 *
 * A module entry (the top level) is cut to a prefix of the file instead: the top-level
 * statements up to and including the one that holds the first line the user asked to stop
 * at, or without one the longest prefix of whole statements that fits.
 *
 * The line map goes both ways: every line of the cut that was copied from the file has its
 * file line, and each line that stands for text cut away (a `...` for a body, a `# ...` gap)
 * the first line of what it stands for, so that even a state the model puts on one has a
 * place in the file; `sees` tells the lines whose own text the model sees. States cross with `stateToFile` / `stateToCut`, so the
 * user only ever sees the file's own line numbers and text.
 */
import { z } from 'zod';
import type { State } from '../grammar/state.js';
import { MAX_SOURCE_CHARS, truncateText } from '../grammar/truncate.js';
import { helperPath, runPythonHelper } from '../python/python-helper.js';
import { sourceLines } from '../python/source.js';
import { EntryError } from './entry-state.js';

/** Written between two pieces of the file that are not neighbours there. */
export const CUT_GAP = '# ...';

const UnitSchema = z.object({
  name: z.string(),
  kind: z.enum(['function', 'class', 'method', 'member', 'import', 'future', 'assignment', 'statement']),
  start: z.number().int().positive(),
  end: z.number().int().positive(),
  depth: z.number().int().nonnegative().nullable(),
  entry: z.boolean(),
  parent: z.number().int().nonnegative().nullable(),
  signatureEnd: z.number().int().positive().nullable(),
  ellipsis: z.object({ line: z.number().int().positive(), indent: z.string() }).nullable(),
});

const CutInfoSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ok'), lines: z.number().int().nonnegative(), units: z.array(UnitSchema) }),
  z.object({ kind: z.literal('error'), message: z.string() }),
]);

export type CutUnit = z.infer<typeof UnitSchema>;
export type CutInfo = z.infer<typeof CutInfoSchema>;

/** How big a text is, and how big the cut may be (the model's tokens at inference, characters in the data pipeline). */
export interface CutBudget {
  measure(text: string): number;
  limit: number;
  /** The unit of measure, for messages: `tokens`. */
  unit: string;
  /** Where the limit comes from, for messages: `of the model's 1024-token context, 256 are kept for the frame ...`. */
  explain?: string;
}

export interface CutOptions {
  budget: CutBudget;
  /** File lines whose units stay whole, reached or not (the data pipeline: every line the trace ran). */
  keepLines?: Iterable<number>;
  /** A module entry: the first line the user asked to stop at (a breakpoint). */
  stopLine?: number;
  /**
   * When the entry's own units (and those kept by keepLines) do not fit: cut to just them
   * instead of a CutError (the data pipeline, whose tokenizer step drops what is too long).
   */
  smallestIfTooLarge?: boolean;
}

/** The entry's own scope does not fit, or the program cannot be cut (no such entry, a syntax error). */
export class CutError extends EntryError {
  constructor(message: string) {
    super(message);
    this.name = 'CutError';
  }
}

type Mode = 'whole' | 'signature' | 'left';

/** A program as the model sees it, and the way back to the file. */
export class ProgramCut {
  private readonly toCut = new Map<number, number>();

  constructor(
    /** What the model sees. */
    readonly text: string,
    /** Cut line (1-based, index + 1) -> file line (for a `# ...` line: the first file line it leaves out). */
    readonly fileLines: readonly (number | null)[],
    /** Cut lines that stand for text cut away: a `...` for a body (its file line: the body's first), a `# ...` gap. */
    private readonly standIns: ReadonlySet<number>,
    /** The entry (`f`, `Class.method`), or null for a module entry. */
    readonly entry: string | null,
    /** Units kept whole, cut to their signature, left out (names, file order). */
    readonly whole: readonly string[],
    readonly signatures: readonly string[],
    readonly leftOut: readonly string[],
    /** File line ranges whose text the model does not see, with why (for breakpoints). */
    private readonly hidden: readonly { start: number; end: number; why: string }[],
    /** The cut's size and the budget, in the budget's unit. */
    readonly size: number,
    readonly budget: { limit: number; unit: string },
    /** Lines of the file. */
    readonly fileLength: number,
  ) {
    fileLines.forEach((f, i) => {
      if (f !== null && !this.toCut.has(f)) this.toCut.set(f, i + 1);
    });
  }

  /** Whether a frame of this function (its code's name) may run code the model does not see: a unit cut to its signature or left out. */
  hidesBodyOf(fn: string): boolean {
    const named = (n: string) => n === fn || n.endsWith(`.${fn}`);
    return this.signatures.some(named) || this.leftOut.some(named);
  }

  /** The file line of a cut line (a `# ...` line has none). */
  fileLine(cutLine: number): number | undefined {
    return this.fileLines[cutLine - 1] ?? undefined;
  }

  /** The cut line of a file line the model sees. */
  cutLine(fileLine: number): number | undefined {
    return this.toCut.get(fileLine);
  }

  /** Whether the model sees the file line's own text (a line a breakpoint can stop on: not a body cut to `...`). */
  sees(fileLine: number): boolean {
    const line = this.cutLine(fileLine);
    return line !== undefined && !this.standIns.has(line);
  }

  /** One line for the user, when the cut did more than leave out what the entry never reaches. */
  get note(): string | null {
    const parts: string[] = [];
    if (this.signatures.length > 0) parts.push(`callees cut to signatures: ${this.signatures.join(', ')}`);
    if (this.leftOut.length > 0) parts.push(`left out to fit: ${this.leftOut.join(', ')}`);
    if (this.entry === null) {
      const last = Math.max(0, ...this.fileLines.filter((l): l is number => l !== null));
      if (last < this.fileLength) parts.push(`the model sees lines 1-${last} of ${this.fileLength}`);
    }
    return parts.length ? `the program is cut to ${this.scopeName()} for the model: ${parts.join('; ')}` : null;
  }

  /** Why no predicted stop can happen on a file line the model does not see. */
  whyHidden(fileLine: number): string {
    const h = this.hidden.find((r) => r.start <= fileLine && fileLine <= r.end);
    return `line ${fileLine} ${h ? h.why : `is outside the part of the file the model sees (the cut to ${this.scopeName()})`}: no predicted stop can happen there`;
  }

  private scopeName(): string {
    return this.entry ? `${this.entry}'s scope` : 'the first statements';
  }

  /** A state in the cut's lines as the file has it (line, stack, source text). */
  stateToFile(state: State, file: readonly string[]): State {
    const map = (line: number): number => {
      const to = this.fileLine(line);
      if (to === undefined) throw new Error(`line ${line} of the cut has no line in the file`);
      return to;
    };
    const line = map(state.line);
    return { ...state, line, source: truncateText(file[line - 1] ?? '', MAX_SOURCE_CHARS), stack: state.stack.map((f) => ({ ...f, line: map(f.line) })) };
  }

  /** A state in the file's lines as the model sees it. Throws for a line outside the cut. */
  stateToCut(state: State): State {
    const cut = sourceLines(this.text);
    const map = (line: number): number => {
      const to = this.cutLine(line);
      if (to === undefined) throw new EntryError(this.whyHidden(line));
      return to;
    };
    const line = map(state.line);
    return { ...state, line, source: truncateText(cut[line - 1] ?? '', MAX_SOURCE_CHARS), stack: state.stack.map((f) => ({ ...f, line: map(f.line) })) };
  }
}

const HELPER_TIMEOUT_MS = 20_000;

/** The units of a program and their distance from the entry (cut.py). */
export async function cutInfo(source: string, entry: string | null): Promise<CutInfo> {
  const run = await runPythonHelper({ script: helperPath('cut.py', import.meta.url), args: entry ? [`--entry=${entry}`] : [], input: source, timeoutMs: HELPER_TIMEOUT_MS });
  if (run.timedOut) throw new Error(`cut.py took longer than ${HELPER_TIMEOUT_MS / 1000} s`);
  return CutInfoSchema.parse(run.output);
}

/** Cuts `source` to `entry`'s scope (null: the module's top level) within the budget. */
export async function cutProgram(source: string, entry: string | null, opts: CutOptions): Promise<ProgramCut> {
  const info = await cutInfo(source, entry);
  if (info.kind === 'error') throw new CutError(`cannot cut the program for the model: ${info.message}`);
  return assembleCut(sourceLines(source), info.units, entry, opts);
}

/** The cut from cut.py's units (pure: the tests call it on units of their own too). */
export function assembleCut(file: readonly string[], units: readonly CutUnit[], entry: string | null, opts: CutOptions): ProgramCut {
  return entry === null ? modulePrefix(file, units, opts) : scopeCut(file, units, entry, opts);
}

function scopeCut(file: readonly string[], units: readonly CutUnit[], entry: string, opts: CutOptions): ProgramCut {
  const { budget } = opts;
  const keep = new Set(opts.keepLines ?? []);
  const forced = units.map((u) => [...keep].some((l) => u.start <= l && l <= u.end));
  // A member kept by force needs its class's header.
  units.forEach((u, i) => {
    if (forced[i] && u.parent !== null) forced[u.parent] = true;
  });
  const modes: Mode[] = units.map((u, i) => (u.depth !== null || forced[i] ? 'whole' : 'left'));
  const core = (i: number) => units[i]!.depth === 0 || units[i]!.kind === 'future';

  const render = () => renderCut(file, units, modes);
  let size = budget.measure(render().text);
  if (size > budget.limit) {
    // The entry's own scope first: it must fit by itself.
    const alone = units.map((u, i): Mode => (core(i) || forced[i] ? 'whole' : 'left'));
    const aloneSize = budget.measure(renderCut(file, units, alone).text);
    if (aloneSize > budget.limit && opts.smallestIfTooLarge) {
      modes.splice(0, modes.length, ...alone);
    } else if (aloneSize > budget.limit) {
      throw new CutError(
        `the program is too long for the model, even cut to ${entry}'s scope: ${entry} alone takes ${aloneSize} ${budget.unit} (with all it reaches, ${size}), more than the ${budget.limit} the model has for the program${budget.explain ? ` (${budget.explain})` : ''}`,
      );
    }
    // Then callees to their signatures, farthest (and, at one depth, biggest) first; then units left out, farthest first.
    const byDistance = (a: number, b: number) => units[b]!.depth! - units[a]!.depth! || units[b]!.end - units[b]!.start - (units[a]!.end - units[a]!.start) || b - a;
    const reducible = units.map((_, i) => i).filter((i) => modes[i] === 'whole' && !core(i) && !forced[i] && units[i]!.signatureEnd !== null).sort(byDistance);
    if (aloneSize <= budget.limit) size = shrink(reducible, 'signature', modes, render, budget);
    if (aloneSize <= budget.limit && size > budget.limit) {
      const droppable = units
        .map((_, i) => i)
        .filter((i) => modes[i] !== 'left' && !core(i) && !forced[i] && !(units[i]!.kind === 'class' && units.some((m, j) => m.parent === i && (core(j) || forced[j]))))
        .sort(byDistance);
      size = shrink(droppable, 'left', modes, render, budget, (i) => units.forEach((m, j) => m.parent === i && (modes[j] = 'left')));
    }
  }
  const { text, fileLines, standIns } = render();
  const named = (mode: Mode, counted: (u: CutUnit, i: number) => boolean) =>
    unique(units.filter((u, i) => modes[i] === mode && counted(u, i) && u.kind !== 'member' && u.kind !== 'future').map((u) => u.name));
  const hidden: { start: number; end: number; why: string }[] = [];
  units.forEach((u, i) => {
    if (modes[i] === 'signature') hidden.push({ start: u.signatureEnd! + 1, end: u.end, why: `is in the body of ${u.name}, which the model sees cut to its signature` });
    else if (modes[i] === 'left' && u.depth !== null) hidden.push({ start: u.start, end: u.end, why: `is in ${u.name}, which was left out of the cut to fit the model's context` });
    else if (modes[i] === 'left') hidden.push({ start: u.start, end: u.end, why: `is in ${u.name}, which ${entry} does not reach (the model sees the cut to ${entry}'s scope)` });
  });
  return new ProgramCut(
    text,
    fileLines,
    standIns,
    entry,
    named('whole', () => true),
    named('signature', () => true),
    named('left', (u) => u.depth !== null),
    hidden,
    budget.measure(text),
    { limit: budget.limit, unit: budget.unit },
    file.length,
  );
}

/**
 * Applies `mode` to the fewest of `order` (a prefix of it) that makes the cut fit, by
 * bisection (each extra unit cut makes the text shorter). Returns the new size.
 */
function shrink(order: number[], mode: Mode, modes: Mode[], render: () => { text: string }, budget: CutBudget, also?: (i: number) => void): number {
  const before = [...modes];
  const apply = (k: number) => {
    modes.splice(0, modes.length, ...before);
    for (const i of order.slice(0, k)) {
      modes[i] = mode;
      also?.(i);
    }
    return budget.measure(render().text);
  };
  let lo = 0;
  let hi = order.length;
  let hiSize = apply(hi);
  if (hiSize > budget.limit) return hiSize; // even all of them is not enough
  while (lo + 1 < hi) {
    const mid = (lo + hi) >> 1;
    const s = apply(mid);
    if (s <= budget.limit) {
      hi = mid;
      hiSize = s;
    } else lo = mid;
  }
  apply(hi);
  return hiSize;
}

/** The text of the cut and its line map, units in file order. */
function renderCut(file: readonly string[], units: readonly CutUnit[], modes: readonly Mode[]): { text: string; fileLines: (number | null)[]; standIns: Set<number> } {
  const out: string[] = [];
  const fileLines: (number | null)[] = [];
  const standIns = new Set<number>();
  const push = (text: string, from: number | null) => {
    out.push(text);
    fileLines.push(from);
  };
  let lastEnd = 0; // the last file line the previous piece covers (copied or stood for)
  const order = units.map((_, i) => i).filter((i) => modes[i] !== 'left').sort((a, b) => units[a]!.start - units[b]!.start);
  // A class kept with none of its body: a `...` stands for the body.
  const bodyless = new Set(order.filter((i) => units[i]!.kind === 'class' && !units.some((m, j) => m.parent === i && modes[j] !== 'left')));
  for (const i of order) {
    const u = units[i]!;
    if (lastEnd > 0 && u.start > lastEnd + 1) {
      const between = file.slice(lastEnd, u.start - 1);
      if (between.every((l) => l.trim() === '')) between.forEach((l, k) => push(l, lastEnd + 1 + k));
      else {
        // The gap stands for the first line it leaves out: a state the model (wrongly) puts there still has a line in the file.
        push(CUT_GAP, lastEnd + 1);
        standIns.add(out.length);
      }
    }
    const last = modes[i] === 'signature' ? u.signatureEnd! : u.end;
    for (let n = u.start; n <= last; n++) push(file[n - 1] ?? '', n);
    if (modes[i] === 'signature' && u.ellipsis) {
      push(`${u.ellipsis.indent}...`, u.ellipsis.line);
      standIns.add(out.length);
    }
    if (bodyless.has(i)) {
      const body = u.end + 1;
      push(`${indentOf(file[body - 1] ?? '') || '    '}...`, body);
      standIns.add(out.length);
    }
    lastEnd = u.end;
  }
  return { text: out.length ? out.join('\n') + '\n' : '', fileLines, standIns };
}

/** A module entry: the top-level statements up to the first stop asked for, or as many as fit. */
function modulePrefix(file: readonly string[], units: readonly CutUnit[], opts: CutOptions): ProgramCut {
  const { budget } = opts;
  const top = units.filter((u) => u.parent === null);
  const prefix = (end: number) => file.slice(0, end).join('\n') + '\n';
  const make = (end: number) => {
    const text = prefix(end);
    const lines = Array.from({ length: end }, (_, k) => k + 1);
    return new ProgramCut(text, lines, new Set(), null, [], [], [], [{ start: end + 1, end: file.length, why: `is past line ${end}, where the model's view of the program ends (a module entry of a long file sees its first statements)` }], budget.measure(text), { limit: budget.limit, unit: budget.unit }, file.length);
  };
  if (opts.stopLine !== undefined) {
    const holder = top.find((u) => u.start <= opts.stopLine! && opts.stopLine! <= u.end) ?? top.find((u) => u.start > opts.stopLine!);
    const end = holder?.end ?? file.length;
    const size = budget.measure(prefix(end));
    if (size > budget.limit) {
      throw new CutError(`the module's statements up to line ${opts.stopLine} (lines 1-${end}) take ${size} ${budget.unit}, more than the ${budget.limit} the model has for the program${budget.explain ? ` (${budget.explain})` : ''}: debug one function of it (an entry)`);
    }
    return make(end);
  }
  let best = 0;
  for (const u of top) {
    if (budget.measure(prefix(u.end)) > budget.limit) break;
    best = u.end;
  }
  if (best === 0) {
    const first = top[0]?.end ?? file.length;
    throw new CutError(`the module's first statement (lines 1-${first}) takes ${budget.measure(prefix(first))} ${budget.unit}, more than the ${budget.limit} the model has for the program${budget.explain ? ` (${budget.explain})` : ''}: debug one function of it (an entry)`);
  }
  return make(best);
}

function indentOf(text: string): string {
  return text.slice(0, text.length - text.trimStart().length);
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
