/**
 * The hover on a variable outside a debug session: its predicted values, line by line, in
 * each example run that passes through the function under the cursor.
 *
 *     **n** in `count`, predicted for the example call `count('berry', 'r')` (returns 1)
 *     line 2: n = 0  (91%)
 *     line 5: n = 1  (82%)
 *     _predicted by ndb (the program was not run)_
 *
 * A line's value is the one after the line ran (see predicted-run.ts); a parameter's is the
 * one the call gave it.
 */
import type { FunctionInfo } from '../program-analysis/program-info.js';
import { confidenceLabel, describeEnd, executions, type PredictedRun, shorten } from './predicted-run.js';

const IDENTIFIER = /[A-Za-z0-9_]/;
const MAX_LINES = 20;
const MAX_RUNS = 3;

/** The identifier at `character` of a line (0-based), or null. */
export function wordAt(lineText: string, character: number): { word: string; start: number; end: number } | null {
  // A position past the line's end (2**70 from a client) means its end; the walk below is then
  // bounded by the line's length, whatever the number.
  const at = Number.isFinite(character) ? Math.max(0, Math.min(Math.floor(character), lineText.length)) : lineText.length;
  let start = at;
  let end = at;
  while (start > 0 && IDENTIFIER.test(lineText[start - 1]!)) start--;
  while (end < lineText.length && IDENTIFIER.test(lineText[end]!)) end++;
  const word = lineText.slice(start, end);
  return /^[A-Za-z_]/.test(word) ? { word, start, end } : null;
}

/** The part of one run about `name` in `fn`: its lines, or null when the run never reaches `fn`. */
function runSection(run: PredictedRun, name: string, fn: FunctionInfo): { lines: string[]; reached: boolean } {
  const inFunction = executions(run).filter((e) => e.function === fn.name && e.line >= fn.callLine && e.line <= fn.endLine);
  const lines: string[] = [];
  for (const e of inFunction) {
    const change = e.changes.find((c) => c.name === name);
    if (!change) continue;
    const label = confidenceLabel(change);
    lines.push(`line ${e.line}${e.kind === 'call' ? ' (call)' : ''}: ${name} = ${shorten(change.value, 60)}${label ? `  ${label}` : ''}`);
  }
  return { lines, reached: inFunction.length > 0 };
}

/**
 * Markdown for `name` in `fn` from the runs, or null when no run enters `fn`, or none sets
 * `name` and it is not one of the function's locals (a builtin, a global, a keyword).
 */
export function exampleHover(name: string, fn: FunctionInfo, runs: readonly PredictedRun[]): string | null {
  const sections: string[] = [];
  let reachedAny = false;
  for (const run of runs) {
    const { lines, reached } = runSection(run, name, fn);
    reachedAny ||= reached;
    if (lines.length === 0 || sections.length >= MAX_RUNS) continue;
    const shown = lines.slice(0, MAX_LINES);
    const more = lines.length - shown.length;
    const progress = run.complete ? `(${describeEnd(run)})` : `(prediction in progress: ${run.steps.length} steps so far)`;
    sections.push([`**${name}** in \`${fn.name}\`, predicted for the example call \`${run.call}\` ${progress}`, '```', ...shown, ...(more > 0 ? [`… ${more} more`] : []), '```'].join('\n'));
  }
  if (sections.length === 0) {
    // Runs that never enter the function have nothing to say about it.
    if (!reachedAny || !fn.localNames.includes(name)) return null;
    sections.push(`**${name}** in \`${fn.name}\`: no predicted value (the predicted run never sets it)`);
  }
  sections.push('_predicted by ndb (the program was not run)_');
  return sections.join('\n\n');
}
