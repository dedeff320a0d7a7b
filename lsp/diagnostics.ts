/**
 * The language server's diagnostics: a predicted uncaught exception is a warning on the line
 * that raises it; an example call that cannot be predicted is information on the call.
 *
 * Every message says it is a prediction: the program was never run, and a low-quality model
 * may well be wrong, so nothing here is an error.
 */
import { type Diagnostic, DiagnosticSeverity, type Range } from 'vscode-languageserver';
import type { PredictedRun, PredictedStep } from './predicted-run.js';

export const SOURCE = 'ndb';

/** Where on a line a diagnostic goes: from its first non-blank character to its end. */
export function lineRange(lines: readonly string[], line: number): Range {
  const text = lines[line] ?? '';
  const start = text.length - text.trimStart().length;
  return { start: { line, character: start }, end: { line, character: Math.max(start, text.trimEnd().length) } };
}

/**
 * The uncaught exception a run predicts, as a warning on the line that raises it, or null.
 *
 * Uncaught: the run ends with an error exit, or (when the step cap came first) its last
 * stops show an exception leaving the entry's frame (an exception event there followed by
 * its return). The line is where the exception started: the first exception stop of the
 * run's final stretch of exception and return stops, that is, before it began to unwind.
 * `lines` are the document's lines (0-based); `callLine` is the example call's line, cited
 * as related information.
 */
export function exceptionDiagnostic(run: PredictedRun, lines: readonly string[], uri: string, callLine?: number): Diagnostic | null {
  const origin = unwindingOrigin(run.steps);
  let value: string | undefined;
  if (run.end?.exit.kind === 'error') value = run.end.exit.value;
  else if (!run.end && origin && escapesEntry(run.steps)) value = origin.state.value;
  else return null;
  // An error exit with no exception stop (the call itself failed to bind): the call's line.
  let line: number;
  if (origin) line = origin.state.line - 1;
  else if (callLine !== undefined) line = callLine;
  else line = (run.steps.at(-1)?.state.line ?? 1) - 1;
  const diagnostic: Diagnostic = {
    severity: DiagnosticSeverity.Warning,
    range: lineRange(lines, line),
    message: `ndb predicts: ${value ?? 'an exception'} (a prediction; the program was not run)`,
    source: SOURCE,
  };
  if (callLine !== undefined) {
    diagnostic.relatedInformation = [{ location: { uri, range: lineRange(lines, callLine) }, message: `predicted for the example call ${run.call}` }];
  }
  return diagnostic;
}

/** The stop where the exception that ends the run was raised, if its last stops unwind one. */
function unwindingOrigin(steps: readonly PredictedStep[]): PredictedStep | undefined {
  let origin: PredictedStep | undefined;
  for (let i = steps.length - 1; i >= 0; i--) {
    const { event } = steps[i]!.state;
    if (event === 'exception') origin = steps[i];
    else if (event !== 'return') break;
  }
  return origin;
}

/** The last stops are the entry frame's exception event and then its return: nothing caught it. */
function escapesEntry(steps: readonly PredictedStep[]): boolean {
  const last = steps.at(-1)?.state;
  const before = steps.at(-2)?.state;
  return last?.event === 'return' && last.stack.length === 1 && before?.event === 'exception' && before.stack.length === 1;
}

/** An information diagnostic on an example call that is not predicted, saying why. */
export function skippedDiagnostic(range: Range, call: string, reason: string): Diagnostic {
  return {
    severity: DiagnosticSeverity.Information,
    range,
    message: `ndb skips the example call ${call}: ${reason}`,
    source: SOURCE,
  };
}
