/**
 * A guess at the start of the frame a step lands on, for the first draft of the frame
 * (decode.ts's `startDraft`): a draft costs little to check and never changes the frame (the
 * model verifies it token by token), so a guess only has to be right often enough to save
 * forward passes.
 *
 * Prompt lookup (draft.ts) drafts the next frame as a copy of the last one, which gets the
 * event and the unchanged locals right but the line wrong on every step that moves on, and
 * stops at the first changed local. This guess reads the program instead:
 *
 * - the line: in a loop, the line that followed this one the last time the run left it;
 *   otherwise the function's next executable line (compile()'s lines, program-info.ts); a
 *   `return` line returns;
 * - the locals: the names the executed line assigns (`x = ...`, `x += ...`, `for x in ...`,
 *   `x[i] = ...`) change; the guess writes the frame up to the first changed value, which
 *   it leaves to the model. Every other local is written as unchanged.
 */
import { serializeFrame } from '../grammar/serialize.js';
import type { Action, Direction, State, Step } from '../grammar/state.js';
import { functionAt, type ProgramInfo } from './program-info.js';

/** Stands for a value the guess does not know; the guessed text ends before it. */
const UNKNOWN = '\u2063unknown\u2063';

/**
 * The guessed start of the frame that `action` (step over or step into) leads to from the
 * last state of `steps`, in the trace language; null where no guess applies.
 */
export function guessFrameStart(direction: Direction, steps: readonly Step[], action: Action, info: ProgramInfo, lines: readonly string[]): string | null {
  if (direction !== 'forward' || (action.kind !== 'step_over' && action.kind !== 'step_into')) return null;
  const prev = steps[steps.length - 1]!.state;
  if (prev.event !== 'line' && prev.event !== 'call') return null;
  const guess = prev.event === 'line' && /^\s*return\b/.test(prev.source) ? returnGuess(prev) : lineGuess(steps, prev, info, lines);
  if (!guess) return null;
  const text = serializeFrame(direction, guess, prev, action);
  const cut = text.indexOf(JSON.stringify(UNKNOWN));
  return cut < 0 ? text : text.slice(0, cut);
}

function returnGuess(prev: State): State {
  return { ...prev, event: 'return', value: UNKNOWN };
}

function lineGuess(steps: readonly Step[], prev: State, info: ProgramInfo, lines: readonly string[]): State | null {
  const line = lineAfterInRun(steps, prev) ?? nextExecutableLine(info, prev.line);
  if (line === undefined || line < 1 || line > lines.length) return null;
  const locals = { ...prev.locals };
  if (prev.event === 'line') for (const name of assignedNames(prev.source)) locals[name] = UNKNOWN;
  const innermost = prev.stack[prev.stack.length - 1]!;
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
