/**
 * Inline values while a neural debug session is stopped (LSP `textDocument/inlineValue`): at
 * the end of each line that set a local, the local's predicted value at the current stop, as
 * VS Code shows a real debugger's (`n = 2`), with the model's confidence where it is low
 * (`acc = [1, 2] (61%)`).
 *
 * Which line set a name comes from the session's stops, not from reading the code: between two
 * consecutive stops of the function, a local whose value changed (or appeared) was set by the
 * line of the first stop, the line that ran between them (a call in between returns to that
 * line, so its callee's stops do not count). A call stop on the `def` line brings the
 * arguments. Only the innermost frame's function is shown, as its stops are the history.
 */
import type { DebugHistoryEntry, DebugStop } from '../protocol/lsp.js';
import { shorten } from './predicted-run.js';

/** A value's confidence below this is shown beside it. */
export const LOW_CONFIDENCE = 0.8;
const MAX_VALUE_CHARS = 60;

export interface InlineValueAt {
  /** 1-based document line. */
  line: number;
  text: string;
}

/** The inline values of `stop` within lines [from, to] (1-based, inclusive). */
export function debugInlineValues(stop: DebugStop, history: readonly DebugHistoryEntry[], lineText: (line: number) => string | undefined, from = 1, to = Number.MAX_SAFE_INTEGER): InlineValueAt[] {
  const stops = [...history.filter((h) => h.function === undefined || h.function === stop.function), { line: stop.line, locals: Object.fromEntries(Object.entries(stop.locals).map(([k, v]) => [k, v.value])) }];
  const setBy = new Map<string, number>();
  const first = stops[0]!;
  if (/^\s*(async\s+)?def\s/.test(lineText(first.line) ?? '')) for (const name of Object.keys(first.locals)) setBy.set(name, first.line);
  for (let i = 1; i < stops.length; i++) {
    const before = stops[i - 1]!;
    for (const [name, value] of Object.entries(stops[i]!.locals)) {
      if (!Object.hasOwn(before.locals, name) || before.locals[name] !== value) setBy.set(name, before.line);
    }
  }
  const byLine = new Map<number, string[]>();
  for (const [name, line] of setBy) {
    const current = Object.hasOwn(stop.locals, name) ? stop.locals[name] : undefined;
    if (!current || line < from || line > to || lineText(line) === undefined) continue;
    const confidence = current.confidence < LOW_CONFIDENCE ? ` (${Math.round(100 * current.confidence)}%)` : '';
    const texts = byLine.get(line) ?? [];
    texts.push(`${name} = ${shorten(current.value, MAX_VALUE_CHARS)}${confidence}`);
    byLine.set(line, texts);
  }
  return [...byLine].sort(([a], [b]) => a - b).map(([line, texts]) => ({ line, text: texts.join(', ') }));
}
