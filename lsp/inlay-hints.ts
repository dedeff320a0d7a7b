/**
 * Inlay hints: after each line an example run executed and that set a local, the value it
 * set (` n = 1`); a line run several times shows its last values and the count (`n = 3 (×3)`).
 * The tooltip says it is a prediction and for which call.
 *
 * When two example runs pass the same line, the first call in the document speaks for it:
 * one hint per line keeps the line readable. A line no run can stop on (a docstring's or a
 * comment's: the interim model sometimes steps onto them) gets no hint: a value beside a
 * `>>>` line reads as a fact about that line, where the hover lists the run as predicted.
 */
import { type InlayHint, MarkupKind, type Range } from 'vscode-languageserver';
import { type Assignment, confidenceLabel, executions, type PredictedRun, shorten } from './predicted-run.js';

interface LineSummary {
  /** Executions of the line in the run. */
  count: number;
  /** Each name the line set, with its value after the last execution that set it. */
  last: Map<string, Assignment>;
}

function summarize(run: PredictedRun): Map<number, LineSummary> {
  const byLine = new Map<number, LineSummary>();
  for (const e of executions(run)) {
    if (e.kind !== 'line') continue;
    const summary = byLine.get(e.line) ?? { count: 0, last: new Map() };
    summary.count++;
    for (const change of e.changes) summary.last.set(change.name, change);
    byLine.set(e.line, summary);
  }
  return byLine;
}

/**
 * The hints for the lines of `range` (0-based), from the runs in document order. `lines`
 * are the document's lines: a hint sits at the end of its line. `executable`: the 1-based
 * lines a run can stop on (program-analysis/program-info.py), when known.
 */
export function inlayHints(runs: readonly PredictedRun[], lines: readonly string[], range: Range, executable?: ReadonlySet<number>): InlayHint[] {
  const hints = new Map<number, InlayHint>();
  for (const run of runs) {
    for (const [line, summary] of summarize(run)) {
      const index = line - 1;
      if (hints.has(index) || summary.last.size === 0 || index < range.start.line || index > range.end.line || index >= lines.length) continue;
      if (executable && !executable.has(line)) continue;
      const values = [...summary.last.values()];
      const count = summary.count > 1 ? ` (×${summary.count})` : '';
      const details = values.map((a) => `\`${a.name} = ${shorten(a.value, 100)}\` ${confidenceLabel(a)}`.trimEnd());
      hints.set(index, {
        position: { line: index, character: lines[index]!.length },
        label: `${values.map((a) => `${a.name} = ${shorten(a.value, 30)}`).join(', ')}${count}`,
        paddingLeft: true,
        tooltip: {
          kind: MarkupKind.Markdown,
          value: [
            `Predicted by ndb for the example call \`${run.call}\` (the program was not run).`,
            summary.count > 1 ? `The line runs ${summary.count} times; after its last run that set them:` : 'After the line runs:',
            details.map((d) => `- ${d}`).join('\n'),
          ].join('\n\n'),
        },
      });
    }
  }
  return [...hints.values()].sort((a, b) => a.position.line - b.position.line);
}
