/**
 * Predicted verdicts in the editor (issue 18): an inlay hint at the end of each `assert`
 * line and doctest example of the file whose call has a finished example run —
 * `predicted: passes`, `predicted: fails, got [1, 2]`, `predicted: raises ValueError` — read
 * from the run's predicted end (or the entry's own return stop) and compared with the expected value as Python literals,
 * exactly as `ndb verify` does (evaluation/verify.ts). Nothing in the file runs.
 *
 * The cases come from `ndb verify`'s static reader (verify_cases.py: the file's own asserts
 * and its doctest examples), once per document version; the runs are the language server's
 * example runs (example-calls.ts finds one-line asserts and doctest lines), matched by
 * function and arguments. A new version replaces the document's predictions, so the hints
 * are recomputed when the file changes.
 */
import { type InlayHint, MarkupKind, type Range } from 'vscode-languageserver';
import { type CallCase, compareValues, exceptionName, readCases } from '../evaluation/verify.js';
import type { DocumentPredictions } from './document-predictions.js';
import { type PredictedRun, shorten } from './predicted-run.js';

const casesOf = new WeakMap<DocumentPredictions, Promise<CallCase[]>>();

/** The document's asserts and doctest examples that are calls with literals (none when it does not parse). */
function documentCases(doc: DocumentPredictions): Promise<CallCase[]> {
  let cases = casesOf.get(doc);
  if (!cases) {
    cases = Promise.all([readCases(doc.text, doc.text), readCases(doc.text, null)])
      .then(([asserts, doctests]) => [...asserts.cases, ...doctests.cases].filter((c): c is CallCase => 'function' in c))
      .catch(() => []);
    casesOf.set(doc, cases);
  }
  return cases;
}

/** Arguments compared without their spacing: `1,2` and `1, 2` are one call. */
const argsKey = (fn: string, args: string) => `${fn}\u0000${args.replace(/\s+/g, '')}`;

interface Judged {
  case: CallCase;
  run: PredictedRun;
  label: string;
  detail: string;
}

/**
 * How the entry's call ended in the run: its exit, or else the entry's own return stop (the
 * model may go on predicting after it within the step cap); an exception stop of the entry
 * just before that return means it raised. Null when the run says neither.
 */
function entryEnd(run: PredictedRun): { kind: 'normal' | 'error'; value: string } | { kind: 'never' } | null {
  const exit = run.end?.exit;
  if (exit?.kind === 'normal' || exit?.kind === 'error' || exit?.kind === 'never') return exit;
  const at = run.steps.findIndex((s) => s.state.event === 'return' && s.state.stack.length === 1);
  if (at < 0) return null;
  const before = run.steps[at - 1]?.state;
  if (before?.event === 'exception' && before.stack.length === 1 && before.value !== undefined) return { kind: 'error', value: before.value };
  return { kind: 'normal', value: run.steps[at]!.state.value ?? 'None' };
}

export async function verdictHints(doc: DocumentPredictions, range: Range): Promise<InlayHint[]> {
  // No finished run, no verdict: the file's cases (a Python process) are not read for nothing.
  if (!doc.slots.some((s) => s.outcome?.kind === 'done')) return [];
  const cases = (await documentCases(doc)).filter((c) => c.line - 1 >= range.start.line && c.line - 1 <= range.end.line && c.line - 1 < doc.lines.length);
  const runs = new Map(doc.slots.filter((s) => s.outcome?.kind === 'done').map((s) => [argsKey(s.call.entry, s.call.args), s.run]));
  const judged: Judged[] = [];
  const toCompare: { at: number; value: string }[] = [];
  for (const c of cases) {
    const run = runs.get(argsKey(c.function, c.args));
    const exit = run ? entryEnd(run) : null;
    if (!run || !exit) continue;
    if (exit.kind === 'normal') {
      toCompare.push({ at: judged.length, value: exit.value });
      judged.push({ case: c, run, label: '', detail: `returns \`${shorten(exit.value, 100)}\`` });
    } else if (exit.kind === 'error') {
      const name = exceptionName(exit.value);
      const expected = c.check === 'raises' && c.expected === name;
      judged.push({ case: c, run, label: expected ? 'predicted: passes' : `predicted: raises ${name}`, detail: `raises \`${shorten(exit.value, 100)}\`` });
    } else {
      judged.push({ case: c, run, label: 'predicted: unknown (the run does not end)', detail: 'does not end' });
    }
  }
  const verdicts = await compareValues(toCompare.map((x) => ({ value: x.value, check: judged[x.at]!.case.check, expected: judged[x.at]!.case.expected }))).catch(() => null);
  toCompare.forEach(({ at, value }, i) => {
    const v = verdicts?.[i];
    judged[at]!.label = v?.verdict === 'pass' ? 'predicted: passes' : v?.verdict === 'fail' ? `predicted: fails, got ${shorten(value, 30)}` : 'predicted: unknown';
  });
  return judged.map((j) => {
    const index = j.case.line - 1;
    const confidence = j.run.end && j.run.end.exit.kind !== 'entry' ? ` (the model's confidence in the end: ${Math.round(j.run.end.confidence * 100)}%)` : '';
    return {
      position: { line: index, character: doc.lines[index]!.length },
      label: j.label,
      paddingLeft: true,
      tooltip: {
        kind: MarkupKind.Markdown,
        value: `Predicted by ndb: \`${j.run.call}\` ${j.detail}${confidence}; expected ${j.case.check === 'raises' ? `\`${j.case.expected}\` raised` : j.case.expected === null ? `a ${j.case.check} value` : `\`${shorten(j.case.expected, 100)}\``}. The file was not run.`,
      },
    };
  });
}
