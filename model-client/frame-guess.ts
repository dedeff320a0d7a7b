/**
 * A guess at the frame a step lands on, for the drafts of speculative decoding (decode.ts's
 * `guess`): a draft costs little to check and never changes the frame (the
 * model verifies it token by token), so a guess only has to be right often enough to save
 * forward passes.
 *
 * Prompt lookup (draft.ts) drafts the next frame as a copy of the last one, which gets the
 * event and the unchanged locals right but the line wrong on every step that moves on, and
 * stops at the first changed local. This guess reads the program instead:
 *
 * - the line: in a loop, the line that followed this one the last time the run left it;
 *   otherwise the function's next executable line (compile()'s lines, program-analysis/program-info.ts); a
 *   `return` line returns; a step out returns on the function's only `return` line; after
 *   the outermost frame's return, the run ends with its value;
 * - the locals: the names the executed line assigns (`x = ...`, `x += ...`, `for x in ...`,
 *   `x[i] = ...`) change. Where the symbolic stepper decided the new value (semantics/: the
 *   step's oracle) the guess writes it; otherwise it writes the frame up to that value (the
 *   first draft) and marks it unknown in the whole frame (where later drafts are looked up).
 *   Every other local is written as unchanged. Nothing here runs the program: it reads its
 *   text and asks the oracle.
 */
import { serializeExit, serializeFrame } from '../grammar/serialize.js';
import type { Action, Direction, State, Step } from '../grammar/state.js';
import { TOKENS } from '../grammar/tokens.js';
import { truncateRepr } from '../grammar/truncate.js';
import { functionAt, type ProgramInfo } from '../program-analysis/program-info.js';
import type { FrameAnswer } from '../semantics/facts.js';
import type { FrameAt } from '../semantics/step.js';

/** What the step's oracle decides of a frame written at `at` (semantics/oracle.ts); undefined: no stepper. */
export type Decide = (at: FrameAt) => FrameAnswer | undefined;
const NOTHING_DECIDED: Decide = () => undefined;

/** Stands for a value the guess does not know; the guessed start ends before it. */
const UNKNOWN = '\u2063unknown\u2063';

export interface FrameGuess {
  /** The guessed frame up to the first value the guess does not know: the frame's first draft. */
  start: string;
  /** The whole guessed frame, an unknown value written as `…`: where later drafts are looked up (decode.ts). */
  whole: string;
}

/**
 * The guessed frame that `action` leads to from the last state of `steps`, in the trace
 * language; null where no guess applies. Step over and step into: the next line (or the
 * return of a `return` line); step out: the function's return; after the outermost frame's
 * return, the end of the run.
 */
export function guessFrame(direction: Direction, steps: readonly Step[], action: Action, info: ProgramInfo, lines: readonly string[], decide: Decide = NOTHING_DECIDED): FrameGuess | null {
  if (direction !== 'forward') return null;
  const prev = steps[steps.length - 1]!.state;
  // The outermost frame returned: any step forward ends the run with that value.
  if (prev.event === 'return' && prev.stack.length === 1 && prev.value !== undefined && action.kind !== 'breakpoint') {
    const text = serializeExit({ kind: 'normal', value: truncateRepr(prev.value) }) + TOKENS.traceEnd;
    return { start: text, whole: text };
  }
  if (prev.event !== 'line' && prev.event !== 'call') return null;
  let guess: State | null = null;
  if (action.kind === 'step_return') guess = stepOutGuess(prev, info, lines, decide);
  else if (action.kind === 'step_over' || action.kind === 'step_into') {
    guess = prev.event === 'line' && /^\s*return\b/.test(prev.source) ? { ...prev, event: 'return', value: returnedValue(prev, prev.line, decide) } : lineGuess(steps, prev, info, lines, decide);
  }
  if (!guess) return null;
  const text = serializeFrame(direction, guess, prev, action);
  const unknown = JSON.stringify(UNKNOWN);
  const cut = text.indexOf(unknown);
  return { start: cut < 0 ? text : text.slice(0, cut), whole: text.split(unknown).join('"…"') };
}

/**
 * Step out of a function: its return, on its only `return` line (no guess for a function
 * with several), with the locals as they are now and the value where the text tells it.
 */
function stepOutGuess(prev: State, info: ProgramInfo, lines: readonly string[], decide: Decide): State | null {
  const scope = functionAt(info, prev.line);
  if (!scope) return null;
  const returns: number[] = [];
  for (let l = scope.line; l <= scope.endLine; l++) if (/^\s*return\b/.test(lines[l - 1] ?? '') && functionAt(info, l) === scope) returns.push(l);
  if (returns.length !== 1) return null;
  const line = returns[0]!;
  const innermost = prev.stack[prev.stack.length - 1]!;
  return {
    event: 'return',
    line,
    source: lines[line - 1]!,
    stack: [...prev.stack.slice(0, -1), { function: innermost.function, line }],
    locals: prev.locals,
    value: returnedValue(prev, line, decide),
  };
}

/** The repr a return on `line` carries where the stepper decided one value, else unknown. */
function returnedValue(prev: State, line: number, decide: Decide): string {
  const reprs = decide({ event: 'return', line, bare: true, function: prev.stack.at(-1)!.function })?.returns?.reprs;
  return reprs?.length === 1 ? truncateRepr(reprs[0]!) : UNKNOWN;
}

function lineGuess(steps: readonly Step[], prev: State, info: ProgramInfo, lines: readonly string[], decide: Decide): State | null {
  const line = lineAfterInRun(steps, prev) ?? nextExecutableLine(info, prev.line);
  if (line === undefined || line < 1 || line > lines.length) return null;
  const locals = { ...prev.locals };
  const innermost = prev.stack[prev.stack.length - 1]!;
  if (prev.event === 'line') {
    for (const name of assignedNames(prev.source)) locals[name] = UNKNOWN;
    // What the stepper decided the line bound, the guess writes (an `xs.append(x)` too).
    const decided = decide({ event: 'line', line, bare: true, function: innermost.function });
    for (const name of decided?.mustWrite ?? []) {
      const fact = decided!.value(name);
      if (fact?.kind === 'exact') locals[name] = truncateRepr(fact.repr);
    }
  }
  return { event: 'line', line, source: lines[line - 1]!, stack: [...prev.stack.slice(0, -1), { function: innermost.function, line }], locals };
}

/** The line the run went to in the same frame the last time it left `prev`'s line with a step over or into. */
function lineAfterInRun(steps: readonly Step[], prev: State): number | undefined {
  for (let i = steps.length - 2; i >= 0; i--) {
    const { state, action } = steps[i]!;
    if (state.event !== prev.event || state.line !== prev.line || state.stack.length !== prev.stack.length) continue;
    if (action.kind !== 'step_over' && action.kind !== 'step_into') continue;
    const next = steps[i + 1]!.state;
    if (next.event === 'line' && next.stack.length === prev.stack.length) return next.line;
  }
  return undefined;
}

/** The first executable line after `line` in the same function (or the module's own code). */
function nextExecutableLine(info: ProgramInfo, line: number): number | undefined {
  if (info.kind !== 'ok') return undefined;
  const scope = functionAt(info, line);
  return info.executableLines.find((l) => l > line && functionAt(info, l) === scope);
}

const IDENTIFIER = /^[A-Za-z_]\w*/;

/**
 * The local names a simple statement binds or mutates, in order: the targets of `=` and of
 * augmented assignment (a subscript or attribute target names its object), and a `for`
 * loop's variables. A heuristic on the source text: a wrong name only costs a draft token.
 */
export function assignedNames(source: string): string[] {
  const loop = /^\s*(?:async\s+)?for\s+(.+?)\s+in\b/.exec(source);
  const assign = /^\s*([^=]+?)\s*(?:[-+*/%&|^@]|\/\/|\*\*|<<|>>)?=(?!=)/.exec(source);
  // Not an assignment: a keyword's comparison (`if n <= 1`), a call's keyword argument (`f(a=1)`).
  const isAssignment = assign && !/^\s*(?:if|elif|while|return|assert|def|class|lambda|yield|with|print)\b/.test(source) && !/\(/.test(assign[1]!.replace(/^[\s(]+/, ''));
  const targets = loop?.[1] ?? (isAssignment ? assign[1] : undefined);
  if (!targets) return [];
  const names: string[] = [];
  for (const part of targets.split(',')) {
    const name = IDENTIFIER.exec(part.replace(/^[\s(*[]+/, ''))?.[0];
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}
